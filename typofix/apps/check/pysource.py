"""Python source, read by one regular expression that finds what Python's tokenizer (3.11's `tokenize`)
would: comments, docstrings and string literals are checked, names are identifiers, and the language's words
(keywords, builtins, standard-library module names) are known words. A docstring (as the syntax tree says:
a string statement first in a module, class or function body) is reStructuredText (literal blocks, doctests,
roles blanked) and documentation, which -w may fix; any other string literal is data, reported but never
written (`Scan.strings`). A bytes literal is data, and the pattern handed to `re` is a regular expression:
neither is checked.

Why not `tokenize` and `ast`: they build a token object for every operator and a tree for every expression
to find the few tokens a check reads, and took most of the time of reading the standard library (docs/check.md).
The expression here skips what is not a comment, a string, a name or a token that says where a statement
starts or ends (a line break, a bracket, a colon, `;`); tests/test_check_pysource.py holds it to
`tokenize` and `ast` on real files. It reads as 3.10's and 3.11's tokenizer does, on any Python: an f-string
that nests its own quote (3.12's PEP 701) ends at that quote."""

from __future__ import annotations

import bisect
import builtins
import keyword
import re
import sys
import tokenize
from collections import Counter
from functools import lru_cache, partial
from typing import NamedTuple

import numpy as np

from typofix.apps.check.languages import PYTHON
from typofix.apps.check.literals import is_text, mask_comment, mask_literal
from typofix.apps.check.prose import blank, mask_rst
from typofix.apps.check.regions import Names, Regions, Scan

_PREFIX = re.compile(r"[A-Za-z]*")
# The functions of `re` (and of a compiled pattern's module) whose first argument is a pattern.
_RE_FUNCTIONS = ("compile", "match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer")
# `re.compile(` and its kind, ending where a literal's open bracket is
_RE_CALL = re.compile(r"\bre\s*\.\s*(?:%s)\s*\(\s*\Z" % "|".join(_RE_FUNCTIONS))  # ends a run of code

_STRING_PREFIX = r"(?:[bB][rR]?|[rR][bBfF]?|[fF][rR]?|[uU])?"  # 3.11's: b, r, u, f, br, rb, fr, rf, any case
# The pieces of Python source that are not code: a string literal (its prefix ends the run of code before it), a
# comment or a backslash continuing a line.
_NOT_CODE = (
    r"(?P<string>"
    r"""'''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*'''"""
    r'''|"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*""")'''
    r"|(?P<unclosed>'''|" r'""")'  # a triple-quoted string never closed
    r"|(?P<single>"
    r"""'[^\n'\\]*(?:\\(?:\r?\n|.)[^\n'\\]*)*'"""
    r'''|"[^\n"\\]*(?:\\(?:\r?\n|.)[^\n"\\]*)*")'''
    r"|(?P<comment>#[^\r\n]*)"
    r"|(?P<continued>\\\r?\n)"
    # a string continued by a backslash onto a line that neither ends it nor goes on: tokenize drops all
    # of it, through the end of that line (a quote that opens no string at all is skipped, as tokenize does)
    r"""|(?P<broken>'(?:[^\n'\\]|\\.)*(?:\\\r?\n(?:[^\n'\\]|\\.)*)+(?:\n|\Z)"""
    r'''|"(?:[^\n"\\]|\\.)*(?:\\\r?\n(?:[^\n"\\]|\\.)*)+(?:\n|\Z))''')
_NOT_CODE_PIECE = re.compile(_NOT_CODE)
# Python source in pieces, each a run of code, a line break (with the blank lines after it, which change nothing,
# the next line's indentation and the run of code that opens it: one piece a line of plain code) or a piece
# that is not code (`_NOT_CODE`): what `_lex_in_order` reads.
_PIECE = re.compile(
    r"(?P<code>[^'\"#\\\r\n]+)"
    r"|(?P<newline>\r?\n(?:[ \t\f]*\r?\n)*)(?P<indent>[ \t\f]*)(?P<opening>[^'\"#\\\r\n]*)|" + _NOT_CODE)
# A name in code, or a number (whose letters are no name: 1e5, 0xff, 1_000); group 1: a name. Both start with a
# word character or a dot: the look-ahead turns every other place away before the number's many alternatives
_NAME = re.compile(r"(?=[\w.])(?:([^\W\d]\w*)|%s)" % re.sub(r"\((?!\?)", "(?:", tokenize.Number))
# Each ASCII character no name or number holds (a number may hold . + - : 1.5e-3), made a space
_NOT_IN_NAMES = str.maketrans({c: " " for c in map(chr, range(128)) if not (c.isalnum() or c in "_.+-")})
_PREFIX_END = frozenset("bBrRuUfF")  # the letters a string prefix ends with
_IS_PREFIX = re.compile(_STRING_PREFIX)
_HEADER = re.compile(r"[ \t\f]*(?:async[ \t\f]+)?(?:def|class)(?!\w)")  # a def or class line starts
_HEADER_END = re.compile(r"[()\[\]{}:]")
_OPENS = str.maketrans("[{]}", "(())")
_INDENT = re.compile(r"[ \t\f]*")
_TABSIZE = 8  # tokenize's
_KEYWORDS = frozenset(keyword.kwlist)


@lru_cache(maxsize=1)
def python_words() -> frozenset[str]:
    """Python's own words, lowercase: keywords, soft keywords, builtins and the standard library's modules."""
    names = set(keyword.kwlist) | set(getattr(keyword, "softkwlist", ())) | set(dir(builtins))
    names |= set(getattr(sys, "stdlib_module_names", ()))
    return frozenset(n.lower() for n in names)


class Unreadable(ValueError):
    """Source Python's tokenizer stops at: a bracket or a triple-quoted string still open at the end, a line
    continued into the end, a dedent to no outer indentation level."""


class Lexed(NamedTuple):
    """What `lex` finds in Python source, each list in text order: `names` (offset, name), keywords left
    out (`Names`: counted at once, placed when asked); the `keywords` used; `comments` (offset, comment);
    `strings` (offset, the literal with its prefix and quotes, whether it is a docstring)."""

    names: Names
    keywords: set[str]
    comments: list[tuple[int, str]]
    strings: list[tuple[int, str, bool]]
    patterns: set[int]  # the offsets of the strings handed to `re.compile(` and its kind: patterns


def lex(text: str) -> Lexed:
    """The names, keywords, comments and string literals of Python source `text`, as Python's tokenizer
    finds them; raises `Unreadable` where it would stop.

    A docstring is what the syntax tree calls one: a string literal (neither bytes nor an f-string; of strings
    joined by being written side by side, the first) that is a whole statement, the first of a module or of
    a `def` or `class` body. Statements are told apart as the tokenizer does: by line breaks outside
    brackets (not after a backslash) and by `;`.

    Read at once (`_lex_at_once`) where the source holds none of what only a reading piece by piece follows
    (`_lex_in_order`: a string broken over lines, a quote that opens no string, a stray backslash or carriage
    return, a line continued before its statement starts); tests hold the two to each other."""
    try:
        return _lex_at_once(text)
    except _Unusual:
        return _lex_in_order(text)


def _lex_in_order(text: str) -> Lexed:
    """`lex`, piece by piece (`_PIECE`), each run of code followed as the tokenizer reads it: what the tokenizer
    does in every case, and the reference `_lex_at_once` is held to."""
    comments: list[tuple[int, str]] = []
    strings: list[tuple[int, str, bool]] = []
    patterns: set[int] = set()
    hidden: list[tuple[int, int]] = []  # spans of no code besides the strings and comments: no names there
    pattern_next = False  # the last run of code ended with `re.compile(`: a string now is a pattern
    depth = 0  # brackets open
    indents = [0]
    _indentation(text, 0, len(text) - len(text.lstrip(" \t\f")), indents)
    statement_start = True  # the next piece starts a statement
    header = False  # in a `def` or `class` line, before its colon
    expect_doc = True  # the next statement may be a docstring: the start of a module or of a body
    candidate: list[tuple[int, str]] = []  # the strings of the statement that may be a docstring
    continued = False  # the last piece was a backslash before a line break
    prefix_at = -1  # where the prefix of the string that follows starts (a run of code ended with it)
    size = len(text)
    # After a string continued onto a line that does not end it, 3.11's tokenizer keeps a stale mark: the next
    # triple-quoted string over several lines is dropped through its first line that no backslash continues
    stale = False
    position = 0
    while (match := _PIECE.search(text, position)) is not None:
        position = match.end()
        kind = match.lastgroup
        if stale and (kind == "string" and "\n" in match.group() or kind == "unclosed"):
            dropped = _dropped(text, match.start(), match.end() if kind == "string" else None)
            stale = dropped is not None
            if dropped is None and kind == "unclosed":
                raise Unreadable("a triple-quoted string is never closed")
            if dropped is not None:
                hidden.append((match.start(), dropped))
                position, prefix_at = dropped, -1
                if not depth:  # the next line starts a statement
                    statement_start = True
                    _indentation(text, position, _INDENT.match(text, position).end(), indents)
                continue
        if kind == "continued":
            continued = True
            continue
        continued = False  # (whatever follows on the next line, white space even, ends it)
        if kind == "opening":  # (the last group of a line break)
            if not depth:
                if candidate:
                    _decide(strings, candidate, True)
                    candidate = []
                statement_start = True
                indent_at, indent_end = match.span("indent")
                if indent_end - indent_at != indents[-1]:  # (most lines keep the indentation)
                    _indentation(text, indent_at, indent_end, indents)
            kind = "code"
            start, end = match.span("opening")
        elif kind == "code":
            start, end = match.span()
        if kind == "code":
            if end < size and text[end] in "'\"" and text[end - 1] in _PREFIX_END:
                at = _last_name(text, start, end)
                if at is not None and _IS_PREFIX.fullmatch(text, at, end):  # the prefix of the string that follows
                    hidden.append((at, end))
                    prefix_at = end = at
            run = text[start:end]
            if not run or run.isspace():
                continue
            pattern_next = "(" in run and _RE_CALL.search(run) is not None
            if candidate:  # the statement goes on after its strings, or ends at `;`: a docstring or not
                _decide(strings, candidate, not depth and run.lstrip()[0] == ";")
                candidate = []
            if statement_start and _HEADER.match(run):
                header = True
            statement_start = expect_doc = False
            if header:  # the colon ending the line (outside brackets) starts the body
                for mark in _HEADER_END.finditer(run):
                    char = mark.group()
                    if char != ":":
                        depth += 1 if char in "([{" else -1
                    elif not depth:
                        header = False
                        rest = run[mark.end():]
                        statement_start = expect_doc = not rest or rest.isspace()
                        depth += _depth_change(rest)
                        break
            else:
                depth += _depth_change(run)
            continue
        if kind == "string" or kind == "single":
            if kind == "single" and "\n" in match.group():
                stale = False  # (a string over several lines that ends clears the mark)
            start = match.start()
            if prefix_at >= 0:
                start, prefix_at = prefix_at, -1
            token = text[start:match.end()]
            if pattern_next:
                patterns.add(start)
                pattern_next = False
            plain = start == match.start() or not {"b", "f"} & set(token[:match.start() - start].lower())
            if plain and (candidate or expect_doc):
                candidate.append((start, token))
            else:
                if candidate:  # an f-string joined to it: no docstring
                    _decide(strings, candidate, False)
                    candidate = []
                strings.append((start, token, False))
            statement_start = expect_doc = False
            continue
        if kind == "comment":
            comments.append((match.start(), match.group()))
        elif kind == "broken":
            hidden.append(match.span())
            stale = True
            if match.end() == size and match.group().endswith(("\\\n", "\\\r\n")):
                raise Unreadable("a string is continued past the end")
            if not depth:  # the next line starts a statement (no line break token: it was dropped too)
                statement_start = True
                _indentation(text, match.end(), _INDENT.match(text, match.end()).end(), indents)
        else:
            raise Unreadable("a triple-quoted string is never closed")
    if candidate:
        _decide(strings, candidate, True)
    if depth or continued:
        raise Unreadable("a statement goes on past the end")
    hidden.extend((at, at + len(comment)) for at, comment in comments)
    hidden.extend((at, at + len(token)) for at, token, _ in strings)
    names, keywords = _names(_blanked(text, sorted(hidden)))
    return Lexed(names, keywords, comments, strings, patterns)


class _Unusual(Exception):
    """Source that `_lex_at_once` leaves to `_lex_in_order`."""


# +1 for each opening bracket's byte, -1 for each closing one's
_BRACKETS = np.zeros(256, np.int8)
_BRACKETS[[ord(c) for c in "([{"]] = 1
_BRACKETS[[ord(c) for c in ")]}"]] = -1
_HEADER_INITIALS = np.frombuffer(b"acd", np.uint8)  # what a header line starts with: async, class, def
_NOT_CODE_MARK = re.compile(r"['\"#\\]")  # where a piece that is not code may start (one class: searched fast)
# What may follow a header's colon for the body to start there (a docstring may come next): white space, then
# a string (its prefix), a comment, the line's end or a backslash continuing it
_BODY_NEXT = re.compile(r"[^\S\r\n]*(?:%s[\'\"]|[#\r\n]|\Z|(?P<continued>\\))" % _STRING_PREFIX)
_NO_CODE = re.compile(r"[\s\\]*")  # code of white space and continuing backslashes (comments blanked)
# After a string statement's strings: a continuing backslash, a line break or the code that goes on
_AFTER_STRING = re.compile(r"\\\r?\n|\n|\S")


def _lex_at_once(text: str) -> Lexed:
    """`lex`, with the Python loop over what is not code alone (strings, comments), the code between read in
    C: brackets counted for the whole file at once (numpy), statements found where a line break stands
    outside them, headers and their colons by one expression, and only the strings after a module's start or
    a header's colon weighed as docstrings. Raises `_Unusual` for source it leaves to `_lex_in_order`."""
    size = len(text)
    comments: list[tuple[int, str]] = []
    found: list[tuple[int, int, int]] = []  # (start with its prefix, opening quote, end) of each string
    hidden: list[tuple[int, int]] = []  # (in text order, disjoint)
    after = 0  # where the last piece that is not code ends
    continuations: list[int] = []  # where each backslash continuing a line stands
    position = 0
    while (mark := _NOT_CODE_MARK.search(text, position)) is not None:
        match = _NOT_CODE_PIECE.match(text, mark.start())
        if match is None:  # (a quote that opens no string, a stray backslash: found unusual below)
            position = mark.end()
            continue
        position = match.end()
        kind = match.lastgroup
        start, end = match.span()
        if kind == "string" or kind == "single":
            begin = start
            if start and text[start - 1] in _PREFIX_END:
                at = _last_name(text, max(after, text.rfind("\n", 0, start) + 1), start)
                if at is not None and _IS_PREFIX.fullmatch(text, at, start):
                    begin = at
            found.append((begin, start, end))
            hidden.append((begin, end))
        elif kind == "comment":
            comments.append((start, match.group()))
            hidden.append((start, end))
        elif kind == "continued":
            continuations.append(start)
            if end == size:
                raise Unreadable("a statement goes on past the end")
        elif kind == "unclosed":
            raise Unreadable("a triple-quoted string is never closed")
        else:
            raise _Unusual("a string broken over lines")
        after = end
    code = _blanked(text, hidden)
    if "'" in code or '"' in code or code.count("\\") != len(continuations) \
            or text.count("\r") != text.count("\r\n"):
        raise _Unusual("a quote that opens no string, a stray backslash or carriage return")
    if any(not text[text.rfind("\n", 0, at) + 1:at].strip(" \t\f") for at in continuations):
        raise _Unusual("a line continued before anything on it")
    data = np.frombuffer(code.encode("ascii", "replace"), np.uint8)  # (one byte a character)
    depth = np.cumsum(_BRACKETS[data], dtype=np.int32)  # brackets open after each character
    if size and depth[-1]:
        raise Unreadable("a statement goes on past the end")
    source = np.frombuffer(text.encode("ascii", "replace"), np.uint8)  # (the text's, one byte a character)
    starts, ends = _first_lines(source, _statement_starts(data, depth))
    _check_indentation(text, starts, ends)
    docs = _docstrings(text, code, depth, found, _bodies(text, code, depth, source, starts, ends))
    strings = [(begin, text[begin:end], k in docs) for k, (begin, _, end) in enumerate(found)]
    patterns = set()
    last = 0
    for begin, _, end in found:
        run = code[last:begin].rstrip()
        while run.endswith("\\"):  # (a backslash continuing the line: the run before it)
            run = run[:-1].rstrip()
        run = run[run.rfind("\n") + 1:]
        if "(" in run and _RE_CALL.search(run) is not None:
            patterns.add(begin)
        last = end
    names, keywords = _names(code)
    return Lexed(names, keywords, comments, strings, patterns)


def _statement_starts(data: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Where the lines start that start a statement (the first line, and each after a line break outside
    brackets that no backslash continues), in the code's bytes `data` with `depth` after each."""
    breaks = np.flatnonzero(data == 10)
    back = data[np.maximum(breaks - 1, 0)]
    back2 = data[np.maximum(breaks - 2, 0)]
    continued = (breaks >= 1) & ((back == 92) | ((back == 13) & (breaks >= 2) & (back2 == 92)))
    return np.concatenate(([0], breaks[(depth[breaks] == 0) & ~continued] + 1))


def _first_lines(data: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lines at `starts` that hold a statement (not blank, not a comment alone), in the source's bytes
    `data`: where each starts and where its indentation ends."""
    solid = np.flatnonzero((data != 32) & (data != 9) & (data != 12))  # what is not indentation
    at = np.searchsorted(solid, starts)
    if not len(solid):
        return starts[:0], starts[:0]
    ends = np.where(at < len(solid), solid[np.minimum(at, len(solid) - 1)], len(data))
    after = data[np.minimum(ends, len(data) - 1)]
    counted = (ends < len(data)) & (after != 35) & (after != 13) & (after != 10)
    return starts[counted], ends[counted]


def _check_indentation(text: str, starts: np.ndarray, ends: np.ndarray) -> None:
    """Follow the indentation text[start:end] of the statements' first lines as tokenize does, raising
    `Unreadable` for a dedent to no outer level."""
    indents = [0]
    if "\t" in text or "\f" in text:  # (columns are no longer character counts)
        for start, end in zip(starts.tolist(), ends.tolist()):
            if end - start != indents[-1]:
                _indentation(text, start, end, indents)
        return
    widths = ends - starts
    # the top of the stack is always the last line's indentation: only a change can push, pop or fail
    for column in widths[np.flatnonzero(np.diff(widths, prepend=0))].tolist():
        _indent_to(column, indents)


def _bodies(text: str, code: str, depth: np.ndarray, data: np.ndarray, starts: np.ndarray,
            ends: np.ndarray) -> list[int]:
    """Where a docstring may come: the start, and after each header's colon (a `def` or `class` statement's
    first colon outside brackets) that nothing but a string, a comment or the line's end follows. `data`: the
    text's bytes; `starts`, `ends`: where the statements' first lines start and their indentation ends."""
    bodies = [0]
    for start in (starts[np.isin(data[ends], _HEADER_INITIALS)].tolist() if len(ends) else ()):
        header = _HEADER.match(text, start)
        if header is None:
            continue
        colon = code.find(":", header.end())
        while colon >= 0 and depth[colon]:
            colon = code.find(":", colon + 1)
        if colon < 0:
            continue
        body = _BODY_NEXT.match(text, colon + 1)
        if body is not None and body.group("continued"):
            raise _Unusual("a line continued before its body's statement starts")
        if body is not None:
            bodies.append(colon + 1)
    return bodies


def _docstrings(text: str, code: str, depth: np.ndarray, found: list[tuple[int, int, int]],
                bodies: list[int]) -> set[int]:
    """The indexes in `found` of the docstrings: a plain string that is the first thing after one of the
    `bodies`, and a statement of its own with the strings written beside it (decided as `_lex_in_order`
    decides: by a line break outside brackets, a `;`, other code, or an f-string or bytes joined to it)."""
    begins = [begin for begin, _, _ in found]
    docs = set()
    for body in sorted(set(bodies)):
        k = bisect.bisect_left(begins, body)
        if k == len(found) or k in docs or not _NO_CODE.fullmatch(code, body, begins[k]) \
                or not _plain(text, found[k]):
            continue
        end, j = found[k][2], k + 1
        while True:
            limit = begins[j] if j < len(found) else len(code)
            event = _AFTER_STRING.search(code, end, limit)
            while event is not None and (event.group()[0] == "\\" or (event.group() == "\n" and depth[event.start()])):
                event = _AFTER_STRING.search(code, event.end(), limit)
            if event is not None:
                if event.group() == "\n" or (event.group() == ";" and not depth[event.start()]):
                    docs.add(k)
                break
            if j == len(found):
                docs.add(k)  # the end of the source ends the statement
                break
            if not _plain(text, found[j]):
                break  # an f-string or bytes joined to it
            end, j = found[j][2], j + 1
    return docs


def _plain(text: str, string: tuple[int, int, int]) -> bool:
    """Whether a string (`_lex_at_once`'s `found`) is neither bytes nor an f-string."""
    begin, quote, _ = string
    return begin == quote or not {"b", "f"} & set(text[begin:quote].lower())


def _blanked(text: str, hidden: list[tuple[int, int]]) -> str:
    """`text` with the `hidden` spans (sorted by start) turned into spaces, line breaks too."""
    parts, end = [], 0
    for start, stop in hidden:
        if stop > end:
            start = max(start, end)
            parts += (text[end:start], " " * (stop - start))
            end = stop
    parts.append(text[end:])
    return "".join(parts)


def _names(code: str) -> tuple[Names, set[str]]:
    """The names of `code` (a file's code, its strings and comments blanked), keywords left out, and the
    keywords (lowercase): one pass over the file's code instead of one a run of code, its runs counted in C;
    where each stands is found only if asked (--identifiers, an ignored line)."""
    # Matched on each distinct run of the characters a name or number holds (a match never spans two runs), in
    # the order each is first used: a run that is one ASCII name (most are) is that name, without a match
    found: dict[str, int] = {}
    for run, count in Counter(code.translate(_NOT_IN_NAMES).split()).items():
        for name in (run,) if run.isascii() and run.isidentifier() else _NAME.findall(run):
            found[name] = found.get(name, 0) + count
    uses = Counter(found)
    uses.pop("", None)  # (a number's match has no name)
    used = _KEYWORDS.intersection(uses)
    for word in used:
        del uses[word]
    return Names(uses, partial(_placed_names, code)), {name.lower() for name in used}


def _placed_names(code: str) -> list[tuple[int, str]]:
    """(offset, name) of each name of `code` (strings and comments blanked), keywords left out."""
    return [(m.start(), m[1]) for m in _NAME.finditer(code) if m.lastindex and m[1] not in _KEYWORDS]


def _last_name(text: str, start: int, end: int) -> int | None:
    """Where the name that ends the code text[start:end] starts; None where it ends otherwise."""
    last = None
    for last in _NAME.finditer(text, start, end):
        pass
    return last.start() if last is not None and last.lastindex and last.end() == end else None


def _dropped(text: str, start: int, end: int | None) -> int | None:
    """Where the stale tokenizer's drop of the string at `start` (ending at `end`; None: never) ends: after
    the first of its lines past the first that no backslash continues; None where none is (the string ends
    normally, or the text does, still continued)."""
    line = text.find("\n", start) + 1
    if not line or (end is not None and end < line):
        return None
    limit = len(text) if end is None else text.rfind("\n", 0, end) + 1  # (the line it ends on is read whole)
    while line < limit:
        line_end = text.find("\n", line) + 1 or len(text)
        if not text.endswith(("\\\n", "\\\r\n"), line, line_end):
            return line_end
        line = line_end
    return None


def _decide(strings: list[tuple[int, str, bool]], candidate: list[tuple[int, str]], docstring: bool) -> None:
    """Add the strings of a statement, the first a docstring if `docstring`."""
    strings.append((*candidate[0], docstring))
    strings.extend((at, token, False) for at, token in candidate[1:])


def _depth_change(code: str) -> int:
    """How many more brackets `code` opens than it closes."""
    if "(" not in code and ")" not in code and "[" not in code and "]" not in code and "{" not in code \
            and "}" not in code:
        return 0
    marks = code.translate(_OPENS)
    return marks.count("(") - marks.count(")")


def _indentation(text: str, start: int, end: int, indents: list[int]) -> None:
    """Follow the indentation text[start:end] of a statement's first line as tokenize does, raising
    `Unreadable` for a dedent to no outer level."""
    if end == len(text) or text[end] in "#\r\n":
        return  # a blank or comment line does not count
    column = end - start
    if column == indents[-1]:
        return
    spaces = text[start:end]
    if "\t" in spaces or "\f" in spaces:
        column = 0
        for char in spaces:
            column = (column // _TABSIZE + 1) * _TABSIZE if char == "\t" else 0 if char == "\f" else column + 1
    _indent_to(column, indents)


def _indent_to(column: int, indents: list[int]) -> None:
    """A statement's line at `column`: push it on the stack of `indents`, or pop back to it, as tokenize does
    (an indent, or dedents), raising `Unreadable` for a dedent to no outer level."""
    if column > indents[-1]:
        indents.append(column)
    while column < indents[-1]:
        if column not in indents:
            raise Unreadable("unindent does not match any outer indentation level")
        indents.pop()


def scan_python(path: str, text: str) -> Scan | None:
    """The Scan of Python source; None where Python's tokenizer cannot read it (Python 2, a template)."""
    try:
        found = lex(text)
    except Unreadable:
        return None
    regions = Regions(text)
    regions.keywords = found.keywords
    for at, comment in found.comments:
        regions.add(at, blank(comment) if at == 0 and comment.startswith("#!") else mask_comment(comment))
    for at, token, docstring in found.strings:
        if at not in found.patterns:  # re.compile("...") and its kind: a pattern, not words
            _literal(regions, at, token, docstring)
    scan = regions.scan(path, PYTHON)
    scan.identifiers = found.names  # (in text order already)
    return scan


def _literal(regions: Regions, start: int, token: str, docstring: bool) -> None:
    """Add a string literal token (prefix and quotes included) as text or as a one-word literal."""
    prefix = 0 if token[0] in "'\"" else _PREFIX.match(token).end()  # (most strings have none)
    if prefix and "b" in token[:prefix].lower():
        return  # bytes: data, not text
    quote = 3 if token.startswith(('"""', "'''"), prefix) else 1
    begin = start + prefix + quote
    content = token[prefix + quote:len(token) - quote]
    masked = mask_literal(content)
    if docstring or quote == 3:
        masked = mask_rst(masked)
    if docstring or is_text(content):
        regions.add(begin, masked, string=not docstring)  # a docstring is documentation; any other, data
    elif masked.strip():
        lead = len(masked) - len(masked.lstrip())
        regions.literal(begin + lead, content[lead:lead + len(masked.strip())])
