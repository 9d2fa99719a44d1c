"""The files of data/ shipped with the package (as package data `typofix.wordlist`), and the one reader of its
JSON tables (the fitted channel, the fitted scorer)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path


def packaged(*parts: str) -> Path:
    """The path of a packaged data/ file: `packaged("words.tsv")`, `packaged("eval", "birkbeck-dev.tsv")`."""
    return Path(str(resources.files("typofix.wordlist").joinpath(*parts)))


def read_json_table(path: str | Path, what: str) -> dict:
    """The JSON object at `path`; a missing or malformed file is a ValueError naming `what` it should be."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ValueError(f"cannot read the {what} {path}: {err}") from None
