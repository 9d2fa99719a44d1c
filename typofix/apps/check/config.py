"""`check`'s settings in a project: `.typofix.toml` (its top-level keys) or the `[tool.typofix]` table of
`pyproject.toml`, found in the current folder or the nearest one above it (up to the repository's root):

    [tool.typofix]
    skip = ["data/eval/*", "*.svg"]     # globs, as --skip (a glob with a slash is read from this file's folder)
    include = ["*.py", "*.md"]          # globs, as --include
    words = ["Bitstream", "kubectl"]    # the project's words, as --words files hold them
    min-confidence = 2.0                # as --min-confidence
    write-confidence = 4.0              # as --write-confidence
    identifiers = false                 # as --identifiers
    known-only = false                  # as --known-only

Options given on the command line win over the file; globs and words add up."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

CONFIG_NAME = ".typofix.toml"
_KEYS = {"skip": list, "include": list, "words": list, "min-confidence": float, "write-confidence": float,
         "identifiers": bool, "known-only": bool}
_WORD = re.compile(r"[A-Za-z]+")  # what a user's word may be (typofix.files.userwords)


class ConfigError(ValueError):
    """A config file that cannot be read or holds a key or value `check` does not know; names the file."""


@dataclass(frozen=True)
class CheckConfig:
    """What a config file sets (None: not set); `base` is the file's folder, which its globs are read from."""

    path: str | None = None
    base: str = "."
    skip: tuple[str, ...] = ()
    include: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    min_confidence: float | None = None
    write_confidence: float | None = None
    identifiers: bool | None = None
    known_only: bool | None = None


def find_config(start: str = ".") -> str | None:
    """The nearest `.typofix.toml`, or `pyproject.toml` with a [tool.typofix] table, from `start` upward; the
    search stops at the first folder holding `.git` (a repository's root)."""
    folder = os.path.abspath(start)
    while True:
        candidate = os.path.join(folder, CONFIG_NAME)
        if os.path.isfile(candidate):
            return candidate
        pyproject = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(pyproject) and _has_table(pyproject):
            return pyproject
        parent = os.path.dirname(folder)
        if parent == folder or os.path.exists(os.path.join(folder, ".git")):
            return None
        folder = parent


def _has_table(pyproject: str) -> bool:
    try:
        with open(pyproject, encoding="utf-8") as f:
            return "[tool.typofix]" in f.read()
    except (OSError, UnicodeDecodeError):
        return False


def read_config(path: str) -> CheckConfig:
    """The settings of the config file at `path` (a .typofix.toml or a pyproject.toml)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            raise ConfigError(f"{path}: reading it needs Python 3.11 or the tomli package") from None
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err.strerror or err}") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    if os.path.basename(path) == "pyproject.toml":
        data = data.get("tool", {}).get("typofix", {})
    values = {}
    for key, value in data.items():
        name = key.replace("_", "-")
        kind = _KEYS.get(name)
        if kind is None:
            raise ConfigError(f"{path}: unknown key {key!r} (known: {', '.join(_KEYS)})")
        values[name.replace("-", "_")] = _checked(path, key, value, kind)
    for word in values.get("words", ()):
        if not _WORD.fullmatch(word):
            raise ConfigError(f"{path}: words: expected words of ASCII letters, got {word!r}")
    return CheckConfig(path=path, base=os.path.dirname(os.path.abspath(path)), **values)


def _checked(path: str, key: str, value, kind):
    if kind is list:
        if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise ConfigError(f"{path}: {key}: expected a list of strings")
        return tuple(value)
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{path}: {key}: expected a number, got {value!r}")
        return float(value)
    if not isinstance(value, bool):
        raise ConfigError(f"{path}: {key}: expected true or false, got {value!r}")
    return value
