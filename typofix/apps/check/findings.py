"""A finding of `typofix check` and the two ways it is written: a line for people
(`PATH:LINE:COL: word ==> correction`) and a JSON object a line for programs."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from typofix.apps.cli.options import json_line

WHERE = ("text", "literal", "identifier", "real-word")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def shown_path(path: str) -> str:
    """`path` as a finding's line shows it: as it is, or, where it holds a control character (a line break
    would cut the line in two for whoever reads it line by line), quoted as C writes a string, as git and ls
    show such a name: `"we\\nird.txt"`."""
    if not _CONTROL.search(path):
        return path
    return '"' + re.sub(r'[\x00-\x1f\x7f\\"]', lambda c: _ESCAPES.get(c.group(), f"\\{ord(c.group()):03o}"),
                        path) + '"'


@dataclass(frozen=True)
class Finding:
    """One probable typo: where (`line` and `column` 1-based, a tab counting one column; `start`, the offset
    in the file's text), the `word` as written, its `suggestions` (best first: the correction) and the
    model's `confidence` (how far the correction's score beats the word's own; None for a real-word error).
    `where`: "text" (comments, strings, docs), "literal" (a one-word string literal: a key, a mode, test
    data), "identifier" (a name's part, --identifiers) or "real-word" (a word that is a word, likely another
    in its context); only "text" is ever fixed, and not all of it. `fixable`: whether -w writes it
    (`typofix.apps.check.writable`: text, sure enough, in a comment, a docstring or prose, neither in a
    string literal of code nor code-shaped), once a run has decided; None before, and left out of the JSON
    then."""

    path: str
    line: int
    column: int
    start: int
    word: str
    suggestions: tuple[str, ...]
    confidence: float | None
    where: str = "text"
    fixable: bool | None = None

    @property
    def correction(self) -> str:
        return self.suggestions[0]

    def __str__(self) -> str:
        note = {"identifier": " (in an identifier: left as it is)",
                "literal": " (in a one-word literal: left as it is)",
                "real-word": " (real word? left as it is)"}.get(self.where, "")
        return f"{shown_path(self.path)}:{self.line}:{self.column}: {self.word} ==> {self.correction}{note}"

    def as_json(self) -> dict:
        confidence = self.confidence
        return {"path": self.path, "line": self.line, "column": self.column, "word": self.word,
                "suggestions": list(self.suggestions),
                "confidence": round(confidence, 3) if confidence is not None and math.isfinite(confidence) else None,
                "where": self.where} | ({} if self.fixable is None else {"fixable": self.fixable})

def finding_line(finding: Finding, as_json: bool = False) -> str:
    """The finding as people read it, or as one JSON line (valid UTF-8 whatever the file held:
    `typofix.apps.cli.options.json_line`)."""
    return json_line(finding.as_json()) if as_json else str(finding)
