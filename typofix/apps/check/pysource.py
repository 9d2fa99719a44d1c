"""Python source read with Python's own tokenizer: comments, docstrings and string literals are checked,
names are identifiers, and the language's words (keywords, builtins, standard-library module names) are
known words. A docstring (as the syntax tree says: the first statement of a module, class or function) is
reStructuredText (literal blocks, doctests, roles blanked) and documentation, which -w may fix; any other
string literal is data, reported but never written (`Scan.strings`). A bytes literal is data, and the
pattern handed to `re` is a regular expression: neither is checked."""

from __future__ import annotations

import ast
import builtins
import io
import keyword
import re
import sys
import tokenize
from functools import lru_cache

from typofix.apps.check.languages import PYTHON
from typofix.apps.check.literals import is_text, mask_comment, mask_literal
from typofix.apps.check.prose import blank, mask_rst
from typofix.apps.check.regions import Regions, Scan

_PREFIX = re.compile(r"[A-Za-z]*")
# The functions of `re` (and of a compiled pattern's module) whose first argument is a pattern.
_RE_FUNCTIONS = frozenset({"compile", "match", "fullmatch", "search", "sub", "subn", "split", "findall",
                           "finditer"})
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)  # Python 3.12+ splits f-strings into tokens
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)


_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")  # where a statement's statements are
_MATCH_CASE = getattr(ast, "match_case", ast.AST)  # Python 3.10+: a case of `match`, which holds a body
_NEWLINE = re.compile("\n")


@lru_cache(maxsize=1)
def python_words() -> frozenset[str]:
    """Python's own words, lowercase: keywords, soft keywords, builtins and the standard library's modules."""
    names = set(keyword.kwlist) | set(getattr(keyword, "softkwlist", ())) | set(dir(builtins))
    names |= set(getattr(sys, "stdlib_module_names", ()))
    return frozenset(n.lower() for n in names)


def docstring_starts(text: str) -> set[tuple[int, int]] | None:
    """(line, column) of each docstring's first token (module, class and function docstrings), or None
    when the text does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    starts = set()
    # Statements only: a docstring is the first statement of a module, class or function, and those are found
    # among statements (walking every expression node too took most of the time)
    bodies = [tree]
    while bodies:
        node = bodies.pop()
        if isinstance(node, _DOCUMENTED) and node.body:
            first = node.body[0]
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                starts.add((first.value.lineno, first.value.col_offset))
        for field in _BODIES:
            for child in getattr(node, field, ()):
                if isinstance(child, (ast.stmt, ast.excepthandler, _MATCH_CASE)):
                    bodies.append(child)
    return starts


def scan_python(path: str, text: str) -> Scan | None:
    """The Scan of Python source; None when Python's tokenizer cannot read it (Python 2, a template)."""
    starts = [0]
    starts.extend(m.end() for m in _NEWLINE.finditer(text))
    docstrings = docstring_starts(text)
    regions = Regions(text)
    recent: list[str] = []  # the last few significant tokens, to see `re.compile(` before a literal
    fstring_depth, fstring_start = 0, 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            start = starts[tok.start[0] - 1] + tok.start[1]
            if tok.type == tokenize.COMMENT:
                shebang = tok.start == (1, 0) and tok.string.startswith("#!")
                regions.add(start, blank(tok.string) if shebang else mask_comment(tok.string))
                continue
            if _FSTRING_START is not None and tok.type in (_FSTRING_START, _FSTRING_END):
                # 3.12+: an f-string is many tokens; read it whole, as older Pythons give it
                if tok.type == _FSTRING_START:
                    fstring_depth += 1
                    if fstring_depth == 1:
                        fstring_start = start
                    continue
                fstring_depth -= 1
                if fstring_depth == 0:
                    end = starts[tok.end[0] - 1] + tok.end[1]
                    _literal(regions, fstring_start, text[fstring_start:end], False, recent)
                    recent.append("<string>")
                continue
            if fstring_depth:
                continue
            if tok.type == tokenize.STRING:
                docstring = docstrings is not None and tok.start in docstrings
                _literal(regions, start, tok.string, docstring, recent)
                recent.append("<string>")
            elif tok.type == tokenize.NAME:
                if keyword.iskeyword(tok.string):
                    regions.keywords.add(tok.string.lower())
                else:
                    regions.identifier(start, tok.string)
                recent.append(tok.string)
            elif tok.type == tokenize.OP:
                recent.append(tok.string)
            else:
                continue
            del recent[:-4]
    except (tokenize.TokenError, SyntaxError):
        return None
    return regions.scan(path, PYTHON)


def _literal(regions: Regions, start: int, token: str, docstring: bool, recent: list[str]) -> None:
    """Add a string literal token (prefix and quotes included) as text or as a one-word literal."""
    prefix = _PREFIX.match(token).group().lower()
    if "b" in prefix:
        return  # bytes: data, not text
    if len(recent) >= 4 and recent[-4:] == ["re", ".", recent[-2], "("] and recent[-2] in _RE_FUNCTIONS:
        return  # re.compile("...") and its kind: a pattern, not words
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
