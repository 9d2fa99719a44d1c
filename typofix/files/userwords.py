"""The user's own words: word files (`--words FILE`) and the personal list every front door reads.

A word file is UTF-8 text, one word a line: letters of any script, digits, inner apostrophes and hyphens
(`O'Reilly`, `k8s`, `naïve`, `frobnicate`); blank lines and lines starting with `#` are skipped. The personal list is
`$XDG_CONFIG_HOME/typofix/words.txt` (`~/.config/typofix/words.txt` when XDG_CONFIG_HOME is unset or empty);
a missing personal list is an empty one, a missing `--words` file an error. `typofix-ispell` saves to the
personal list (atomically, `typofix.files.atomic`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from typofix.files.atomic import atomic_path

_WORD = re.compile(r"[^\W_](?:[^\W_]|['\u2019\-](?=[^\W_]))*")  # a word starts and ends with a letter or digit


class WordsError(ValueError):
    """A word file that cannot be read or has a line that is not a word; the message names file and line."""


def personal_words_path() -> Path:
    """Where the personal list lives (it need not exist)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "typofix" / "words.txt"


def read_words(path: str | os.PathLike, missing_ok: bool = False) -> list[str]:
    """The words of the file at `path`, in file order, as written (case kept)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if missing_ok:
            return []
        raise WordsError(f"word list not found: {path}") from None
    except UnicodeDecodeError:
        raise WordsError(f"{path}: not UTF-8 text") from None
    except OSError as err:
        raise WordsError(f"cannot read word list {path}: {err.strerror or err}") from None
    words = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        word = line.strip()
        if not word or word.startswith("#"):
            continue
        if not _WORD.fullmatch(word):
            raise WordsError(f"{path}:{lineno}: expected one word (letters, digits, inner ' or -), got {line[:60]!r}")
        words.append(word)
    return words


def user_words(files: Iterable[str | os.PathLike] = (), personal: bool = True) -> list[str]:
    """The personal list (when `personal`) and the words of `files`, without repeats."""
    words = read_words(personal_words_path(), missing_ok=True) if personal else []
    for path in files:
        words.extend(read_words(path))
    return list(dict.fromkeys(words))


def save_words(path: str | os.PathLike, words: Iterable[str]) -> None:
    """Write `words` (one a line, in order, without repeats) to `path`, atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text("".join(f"{w}\n" for w in dict.fromkeys(words)), encoding="utf-8")
