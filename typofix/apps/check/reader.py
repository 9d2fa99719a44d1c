"""One file, read for checking: its text (UTF-8, undecodable bytes carried through as surrogateescape,
line endings as they are) and its `Scan`, by the reader its language calls for.

A big plain-text file is read in blocks (`scan_blocks`), each cut after a blank line, where no code span
of plain text goes on: each block is read as the whole file would be, so a 50 MB log or corpus never has to
be in memory at once."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from typofix.apps.check.ignores import apply_ignores, ignores_file
from typofix.apps.check.languages import Language, language_of
from typofix.apps.check.lexed import scan_lexed
from typofix.apps.check.prose import mask_code_spans, mask_markdown, mask_rst
from typofix.apps.check.pysource import scan_python
from typofix.apps.check.regions import Scan


def read_text(path: str) -> str:
    """The file's text, every byte and line ending kept (a rewrite changes nothing but its words)."""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        return f.read()


def scan_text(path: str, text: str) -> Scan:
    """The Scan of `text`, the content of the file at `path` (its name and first line pick the reader)."""
    return scan_as(path, text, language_of(path, text[:200].partition("\n")[0]))


def scan_as(path: str, text: str, language: Language) -> Scan:
    """The Scan of `text` (the file at `path`, or a block of it) read as `language`."""
    if language.kind == "python":
        # Python the tokenizer cannot read (Python 2, a template) is read by Pygments' Python lexer
        scan = scan_python(path, text) or scan_lexed(path, text, Language("code", "python"))
    elif language.kind == "code":
        scan = scan_lexed(path, text, language)
    elif language.kind == "markdown":
        scan = Scan(path, text, language, mask_markdown(text))
    elif language.kind == "rst":
        scan = Scan(path, text, language, mask_rst(text))
    else:
        scan = Scan(path, text, language, mask_code_spans(text))
    return apply_ignores(scan)


BLOCK = 4 << 20  # characters of plain text read at once, at most about
_BLANK_LINE = re.compile(r"\n[ \t\r]*\n")


class Block(NamedTuple):
    """A part of a file, scanned: where it starts in the file's text (offset and line, 0-based) and whether it
    holds the mark that leaves the whole file unchecked."""

    scan: Scan
    offset: int
    line: int
    ignores_file: bool = False


def scan_blocks(path: str, block: int = BLOCK) -> Iterator[Block]:
    """The Scans of a file: one for the whole file, or for a plain-text file longer than `block` characters,
    one a block of about that many (cut after the last blank line in it, else after its last line)."""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        text = f.read(block)
        more = f.read(block)
        language = language_of(path, text[:200].partition("\n")[0])
        if not more or language.kind != "text":
            yield Block(scan_as(path, text + more + f.read(), language), 0, 0)
            return
        pending, offset, line = text + more, 0, 0
        while pending:
            if len(pending) <= block:
                pending += f.read(block)
            piece = pending[:_last_break(pending[:block])] if len(pending) > block else pending
            pending = pending[len(piece):]
            yield Block(scan_as(path, piece, language), offset, line, ignores_file(piece))
            offset += len(piece)
            line += piece.count("\n")


def _last_break(text: str) -> int:
    """Where to cut a block of plain text: after its last blank line, else after its last line, else at its
    end."""
    found = None
    for found in _BLANK_LINE.finditer(text, len(text) // 2):
        pass
    if found is not None:
        return found.end()
    end = text.rfind("\n")
    return end + 1 if end >= 0 else len(text)
