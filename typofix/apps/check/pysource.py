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

import builtins
import keyword
import re
import sys
import tokenize
from collections import Counter
from functools import lru_cache, partial
from typing import NamedTuple

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
# Python source in pieces, each a run of code, a line break (with the blank lines after it, which change nothing,
# the next line's indentation and the run of code that opens it: one piece a line of plain code), a string
# literal (its prefix ends the run of code before it), a comment or a backslash continuing a line.
_PIECE = re.compile(
    r"(?P<code>[^'\"#\\\r\n]+)"
    r"|(?P<newline>\r?\n(?:[ \t\f]*\r?\n)*)(?P<indent>[ \t\f]*)(?P<opening>[^'\"#\\\r\n]*)"
    r"|(?P<string>"
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
# A name in code, or a number (whose letters are no name: 1e5, 0xff, 1_000); group 1: a name. Both start with a
# word character or a dot: the look-ahead turns every other place away before the number's many alternatives
_NAME = re.compile(r"(?=[\w.])(?:([^\W\d]\w*)|%s)" % re.sub(r"\((?!\?)", "(?:", tokenize.Number))
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
    brackets (not after a backslash) and by `;`."""
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
    names, keywords = _names(text, hidden)
    return Lexed(names, keywords, comments, strings, patterns)


def _names(text: str, hidden: list[tuple[int, int]]) -> tuple[Names, set[str]]:
    """The names of the code of `text` (all but the `hidden` spans), keywords left out, and the keywords
    (lowercase): one pass over the file's code, blanked elsewhere, instead of one a run of code. The names are
    counted in C (`findall`); where each stands is found only if asked (--identifiers, an ignored line)."""
    parts, end = [], 0
    for start, stop in sorted(hidden):
        if stop > end:
            start = max(start, end)
            parts += (text[end:start], " " * (stop - start))
            end = stop
    parts.append(text[end:])
    code = "".join(parts)
    uses = Counter(_NAME.findall(code))  # (a number's match has no name: "")
    uses.pop("", None)
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
    prefix = _PREFIX.match(token).group().lower()
    if "b" in prefix:
        return  # bytes: data, not text
    quote = token[len(prefix):len(prefix) + 3]
    quote = quote if quote in ('"""', "'''") else quote[:1]
    begin = start + len(prefix) + len(quote)
    content = token[len(prefix) + len(quote):len(token) - len(quote)]
    masked = mask_literal(content)
    if docstring or len(quote) == 3:
        masked = mask_rst(masked)
    if docstring or is_text(content):
        regions.add(begin, masked, string=not docstring)  # a docstring is documentation; any other, data
    elif masked.strip():
        lead = len(masked) - len(masked.lstrip())
        regions.literal(begin + lead, content[lead:lead + len(masked.strip())])
