"""One file, read for checking: its text (UTF-8, undecodable bytes carried through as surrogateescape,
line endings as they are) and its `Scan`, by the reader its language calls for.

A big plain-text or roff file is read in blocks (`scan_blocks`), each cut where nothing goes on from line to
line (after a blank line of plain text, where no code span goes on; before a heading or paragraph of roff):
each block is read as the whole file would be, so a 50 MB log or corpus never has to be in memory at once.
A plain-text or roff file bigger than `STREAM` bytes is checked as a stream (`windows`): its first window
small, so that its first findings come at once, the next ones larger."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import NamedTuple, TextIO

from typofix.apps.check.ignores import apply_ignores, ignores_file
from typofix.apps.check.languages import Language, language_of
from typofix.apps.check.latex import mask_latex
from typofix.apps.check.lexed import scan_lexed
from typofix.apps.check.prose import blank, mask_code_spans, mask_markdown, mask_rst
from typofix.apps.check.pysource import scan_python
from typofix.apps.check.regions import Scan
from typofix.apps.check.roff import mask_roff


def open_text(path: str) -> TextIO:
    """The file, opened to read its text with every byte and line ending kept (a rewrite changes nothing but
    its words): UTF-8, undecodable bytes as surrogateescape."""
    return open(path, encoding="utf-8", errors="surrogateescape", newline="")


def read_text(path: str) -> str:
    """The file's text (`open_text`)."""
    with open_text(path) as f:
        return f.read()


BOM = "\ufeff"  # the byte order mark some editors write first: no character of the first line, for a column


def mark_length(text: str) -> int:
    """How many characters of `text` a byte order mark takes at its start (0 or 1): a file's first Scan starts
    after it, there in the file's text, so that its first line's columns are those an editor shows."""
    return 1 if text.startswith(BOM) else 0


def scan_text(path: str, text: str) -> Scan:
    """The Scan of `text`, the content of the file at `path` (its name and first line pick the reader)."""
    return scan_as(path, text, _language(path, text))


def text_to_correct(path: str, text: str) -> str | None:
    """What of `text` (the file at `path`) a correction may be written into, as the readers find it: the text
    with everything else blanked (code, markup, math, code blocks and spans, and a program's string literals,
    which are its data), the same length and lines; None for plain text, all of which may be."""
    language = _language(path, text)
    if language.kind == "text":
        return None
    skip = mark_length(text)
    scan = scan_as(path, text[skip:], language)
    pieces, done = [text[:skip]], 0
    for start, end in scan.strings:
        pieces += (scan.masked[done:start], blank(scan.masked[start:end]))
        done = end
    pieces.append(scan.masked[done:])
    return "".join(pieces)


def is_plain_text(path: str, start: str) -> bool:
    """Whether the file at `path`, whose text starts with `start`, is read as plain text (all of it text)."""
    return _language(path, start).kind == "text"


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
    elif language.kind == "roff":
        masked, names = mask_roff(text)
        scan = Scan(path, text, language, masked, identifiers=names)
    elif language.kind == "latex":
        masked, names = mask_latex(text)
        scan = Scan(path, text, language, masked, identifiers=names)
    else:
        scan = Scan(path, text, language, mask_code_spans(text))
    return apply_ignores(scan)


BLOCK = 4 << 20  # characters of plain text read at once, at most about
# The languages read line by line, so that a big file of them is read in blocks (plain text, roff: man pages)
BLOCKED_KINDS = frozenset({"text", "roff"})
# Where a block may end: after a blank line in plain text (no code span goes past one); in roff, before a
# heading or paragraph (blank lines are rare there), where the font is roman again and no display is open.
_BREAKS = {"text": re.compile(r"\n[ \t\r]*\n"),
           "roff": re.compile(r"\n(?=[.'][ \t]*(?:TH|SH|SS|PP|LP|P|Sh|Ss|Pp|Lp)\b)")}


class Block(NamedTuple):
    """A part of a file, scanned: where it starts in the file's text (offset, line and column, 0-based: a part
    of a line longer than a block starts inside it) and whether it holds the mark that leaves the whole file
    unchecked."""

    scan: Scan
    offset: int
    line: int
    ignores_file: bool = False
    column: int = 0


def scan_blocks(path: str, block: int = BLOCK) -> Iterator[Block]:
    """The Scans of a file: one for the whole file, or for a plain-text file longer than `block` characters,
    one a block of about that many (cut at the last break in it, `_BREAKS`, else after its last line)."""
    with open_text(path) as f:
        text = f.read(block)
        more = f.read(block)
        skip = mark_length(text)
        language = _language(path, text)
        if not more or language.kind not in BLOCKED_KINDS:
            yield Block(scan_as(path, (text + more + f.read())[skip:], language), skip, 0)
            return
        for piece, offset, line, column in _pieces(f, text + more, block, block, _BREAKS[language.kind]):
            yield Block(scan_as(path, piece, language), offset, line, ignores_file(piece), column)


STREAM = 2 * BLOCK  # a plain-text file of more bytes than this is checked as a stream of windows
FIRST_WINDOW = 16 << 10  # characters: a stream's first window (its first findings come as soon as it is checked)
LAST_WINDOW = 1 << 20  # characters: the most a window grows to (each is twice the one before)


class Window(NamedTuple):
    """A part of a streamed file: its text, where it starts in the file's text (offset, line and column,
    0-based), and the file's language."""

    path: str
    text: str
    offset: int
    line: int
    language: Language = Language("text")
    column: int = 0


def is_streamed(path: str) -> bool:
    """Whether the file at `path` is plain text bigger than `STREAM` bytes, checked as a stream (`windows`)."""
    try:
        if os.path.getsize(path) <= STREAM:
            return False
        with open_text(path) as f:
            start = f.read(200)
    except OSError:
        return False  # (reading it reports the error)
    return _language(path, start).kind in BLOCKED_KINDS


def windows(path: str, first: int | None = None, most: int | None = None, name: str | None = None
            ) -> Iterator[Window]:
    """The windows of a streamed plain-text or roff file, in order: the first about `first` (`FIRST_WINDOW`)
    characters, each next one twice as long, up to `most` (`LAST_WINDOW`), each cut as `scan_blocks`' blocks
    are; `name`: what the windows call the file (None: `path`)."""
    name = path if name is None else name
    with open_text(path) as f:
        start = f.read(200)
        language = _language(name, start)
        for text, offset, line, column in _pieces(f, start, first or FIRST_WINDOW, most or LAST_WINDOW,
                                                  _BREAKS.get(language.kind, _BREAKS["text"])):
            yield Window(name, text, offset, line, language, column)


def scan_window(window: Window) -> Scan:
    """The Scan of a window of a streamed plain-text or roff file."""
    return scan_as(window.path, window.text, window.language)


def ignored_file(path: str) -> bool:
    """Whether a streamed file holds the mark that leaves it all unchecked (looked for before its first window
    is checked: a finding printed cannot be taken back)."""
    tail = b""
    with open(path, "rb") as f:
        while chunk := f.read(BLOCK):
            part = tail + chunk
            end = part.rfind(b"\n") + 1  # whole lines only: the mark is a line of its own
            if b"typofix:" in part[:end] and ignores_file(part[:end].decode("utf-8", "surrogateescape")):
                return True
            tail = part[end:]
    return b"typofix:" in tail and ignores_file(tail.decode("utf-8", "surrogateescape"))


def _language(path: str, text: str) -> Language:
    """The language of the file at `path` whose text starts with `text`: its name and first line say (past a
    byte order mark)."""
    return language_of(path, text[mark_length(text):200].partition("\n")[0])


def _pieces(f: TextIO, pending: str, first: int, most: int, breaks: re.Pattern
            ) -> Iterator[tuple[str, int, int, int]]:
    """The rest of the open file `f` (after `pending`, read already) in pieces of about `first`, then twice
    as many characters each, up to `most`, each cut as `_last_break` says: (text, offset, line, column)."""
    offset = mark_length(pending)
    pending, line, column, size = pending[offset:], 0, 0, first
    while True:
        while len(pending) <= size:
            more = f.read(max(size, 1 << 16))
            if not more:
                break
            pending += more
        if not pending:
            return
        piece = pending[:_last_break(pending[:size], breaks)] if len(pending) > size else pending
        pending = pending[len(piece):]
        yield piece, offset, line, column
        offset += len(piece)
        breaks_in = piece.count("\n")
        line += breaks_in
        column = len(piece) - piece.rfind("\n") - 1 if breaks_in else column + len(piece)
        size = min(2 * size, most)


def _last_break(text: str, breaks: re.Pattern) -> int:
    """Where to cut a block of text: at the last of `breaks` in its second half, else after its last line, else
    (a line longer than a block) after its last white space, never inside a word (a word cut in two was two
    words to correct, and -w wrote its fix over the half), else at its end."""
    found = None
    for found in breaks.finditer(text, len(text) // 2):
        pass
    if found is not None:
        return found.end()
    end = text.rfind("\n")
    if end >= 0:
        return end + 1
    space = max(text.rfind(blank) for blank in " \t\r\f\v")
    return space + 1 if space >= 0 else len(text)
