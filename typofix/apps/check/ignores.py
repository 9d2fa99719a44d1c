"""Inline ignores: `typofix: ignore` on a line (in a comment: `# typofix: ignore`, `<!-- typofix: ignore -->`)
leaves that line unchecked; `typofix: ignore-file` on a line of its own (a comment holding nothing else)
leaves the whole file unchecked. A line of prose that only mentions the mark in passing still ignores its
own line, never the file."""

from __future__ import annotations

import re
from dataclasses import replace

from typofix.apps.check.prose import blank
from typofix.apps.check.regions import Scan

_IGNORE_LINE = re.compile(r"typofix:\s*ignore\b(?!-)")
_IGNORE_FILE = re.compile(r"^\W*typofix:\s*ignore-file\W*$", re.MULTILINE)


def ignores_file(text: str) -> bool:
    """Whether `text` holds the mark that leaves its whole file unchecked."""
    return "typofix:" in text and _IGNORE_FILE.search(text) is not None


def apply_ignores(scan: Scan) -> Scan:
    """`scan` with the ignored lines (or, for an ignored file, everything) blanked and their names and
    literals left out."""
    if "typofix:" not in scan.text:
        return scan
    if _IGNORE_FILE.search(scan.text):
        return replace(scan, masked=blank(scan.masked), identifiers=[], literals=[])
    spans = []  # (start, end) of each ignored line
    for match in _IGNORE_LINE.finditer(scan.text):
        start = scan.text.rfind("\n", 0, match.start()) + 1
        end = scan.text.find("\n", match.end())
        spans.append((start, len(scan.text) if end < 0 else end))
    masked = scan.masked
    for start, end in spans:
        masked = masked[:start] + blank(masked[start:end]) + masked[end:]
    def kept(pairs: list[tuple[int, str]]) -> list[tuple[int, str]]:
        return [(offset, name) for offset, name in pairs if not any(start <= offset < end for start, end in spans)]

    return replace(scan, masked=masked, identifiers=kept(scan.identifiers), literals=kept(scan.literals))
