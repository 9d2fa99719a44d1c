"""The Python reader's lexer (`typofix.apps.check.pysource.lex`) held to Python's own tokenizer and syntax
tree: the same comments, string literals, names and docstrings, at the same offsets, on real files of the
standard library and on generated source; and where the tokenizer stops, so does the lexer."""

from __future__ import annotations

import ast
import io
import keyword
import os
import sys
import tokenize
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from typofix.apps.check.pysource import Unreadable, _lex_at_once, _lex_in_order, _Unusual, lex
from typofix.apps.check.reader import scan_text

STDLIB = os.path.dirname(os.__file__)
# The lexer reads as 3.10's and 3.11's pure-Python tokenizer does; 3.12's is another (C, PEP 701 f-strings,
# other errors), so there the comparison would measure the difference between tokenizers.
same_tokenizer = pytest.mark.skipif(sys.version_info >= (3, 12), reason="the lexer follows 3.11's tokenize")
FILES = ["textwrap.py", "tokenize.py", "json/decoder.py", "string.py", "shlex.py", "fnmatch.py"]


def by_tokenize(text: str):
    """(names, comments, strings, docstring offsets) as `tokenize` and `ast` find them; None when tokenize
    stops."""
    starts = [0]
    starts.extend(i + 1 for i, char in enumerate(text) if char == "\n")
    names, comments, strings = [], [], []
    fstring_start = getattr(tokenize, "FSTRING_START", None)
    depth, begin = 0, 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.ENDMARKER:
                break
            at = starts[tok.start[0] - 1] + tok.start[1]
            if fstring_start is not None and tok.type in (fstring_start, tokenize.FSTRING_END):
                depth += 1 if tok.type == fstring_start else -1
                if tok.type == fstring_start and depth == 1:
                    begin = at
                elif depth == 0:
                    strings.append((begin, text[begin:starts[tok.end[0] - 1] + tok.end[1]]))
            elif depth:
                continue
            elif tok.type == tokenize.COMMENT:
                comments.append((at, tok.string))
            elif tok.type == tokenize.STRING:
                strings.append((at, tok.string))
            elif tok.type == tokenize.NAME and not keyword.iskeyword(tok.string):
                names.append((at, tok.string))
    except (tokenize.TokenError, SyntaxError):
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return names, comments, strings, None
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                docstrings.add(starts[first.value.lineno - 1] + first.value.col_offset)
    return names, comments, strings, docstrings


def by_lex(text: str):
    try:
        found = lex(text)
    except Unreadable:
        return None
    placed = list(found.names)
    # the names counted in C are the names placed one by one
    assert found.names.uses == Counter(name for _, name in placed)
    assert list(found.names.uses) == list(dict.fromkeys(name for _, name in placed))
    return (placed, found.comments, [(at, token) for at, token, _ in found.strings],
            {at for at, _, docstring in found.strings if docstring})


def assert_agree(text: str) -> None:
    expected, got = by_tokenize(text), by_lex(text)
    if expected is None:
        assert got is None, "the tokenizer stops here, the lexer went on"
        return
    assert got is not None, "the lexer stopped where the tokenizer reads on"
    names, comments, strings, docstrings = expected
    assert got[0] == names
    assert got[1] == comments
    assert got[2] == strings
    if docstrings is not None:  # (source the syntax tree rejects has no docstrings to compare)
        assert got[3] == docstrings


@same_tokenizer
@pytest.mark.parametrize("name", FILES)
def test_the_lexer_reads_standard_library_files_as_tokenize_and_ast_do(name):
    with open(os.path.join(STDLIB, name), encoding="utf-8") as f:
        assert_agree(f.read())


@same_tokenizer
@pytest.mark.parametrize("source", [
    '"""Module."""\nx = 1\n',
    'r"""Raw module doc."""\n',
    '#!/usr/bin/env python\n# comment\n\n"""After comments."""\n',
    'from __future__ import annotations\n"""Not a docstring."""\n',
    '"""Not one""".strip()\n',
    '"a" "b"\n',
    '"a" \\\n  "b"\n',
    'f"not {a} doc"\n',
    '"doc"; x = 1\n',
    'def f(a: int = (1, 2), *b) -> dict[str, int]:\n    """Doc."""\n    return {}\n',
    'def f(): "same line"\n',
    'class A(B, metaclass=M):\n    # comment\n\n    """Doc."""\n',
    'async def f():\n    "doc"\n',
    '@dec(1)\ndef f(x=lambda y: y):\n    """Doc."""\n',
    'if x:\n    def f():\n        \'\'\'Nested.\'\'\'\n',
    'x = rb"bytes" + Rb\'b\' + BR"b" + fr"f{x}" + u"u" + abr"x"\n',
    's = "unclosed\nt = 1\n',
    'x = 1e5 + 0xff + 1_000 + 1j + .5\n',
    'x = (\n  "in brackets"  # comment\n)\n',
    "s = 'line \\\ncontinued'\n",
    'x = 1\n\tif y:\n\t\tpass\n',
    'x = 1',
    "'''unclosed",
    'x = (1,\n',
    'if x:\n        a = 1\n    b = 2\n',
    'x = 1 \\\n',
    'print "hello"\n  )\n',
    ' \\\n\'unclosed \\\n"""doc"""\n',
    'x = \\\n# comment',
    'x = \\\n   ',
    '\'broken \\\n"""multi\nline"""\n\'\'\'doc\'\'\'\n',  # (3.11's tokenizer keeps a stale mark here)
])
def test_the_lexer_agrees_with_tokenize_and_ast_on_the_hard_cases(source):
    assert_agree(source)


_FRAGMENTS = st.sampled_from([
    '"""doc"""', "'''doc'''", '"s"', "'s'", 'r"\\d"', 'b"x"', 'f"{a}"', 'u"u"', 'Rb"x"', '"a\\"b"',
    "# comment", "#", "def f():", "class C:", "async def g(x):", "def h(a=(1,", "):", "x = 1", "y = [", "]",
    "(", ")", "{", "}", ":", ";", "\\", "pass", "return x", "lambda: 0", "1.5e3", "0x1F", "name", "if a:",
    "'unclosed", '"""multi\nline"""', "re.compile(", "re.sub(", '"\\\\"', "x.y", "@deco", "else:",
])


@same_tokenizer
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["", " ", "    ", "\t", "\n", "\n    ", "\n\n", " \\\n"]),
                          _FRAGMENTS), max_size=14))
def test_the_lexer_agrees_with_tokenize_on_generated_source(pieces):
    assert_agree("".join(indent + fragment for indent, fragment in pieces) + "\n")


def test_a_pattern_given_to_re_is_not_text_and_a_file_without_a_last_line_break_is_read():
    source = ('P = re.compile(\n    # the pattren\n    r"teh (wrold)"\n)\nQ = re.sub("recieve", x)\n'
              'def f():\n    """Modul doc"""\n"""A strng here"""')  # (no line break at the end)
    scan = scan_text("a.py", source)
    assert "pattren" in scan.masked  # a comment is text
    assert "teh" not in scan.masked and "recieve" not in scan.masked  # a pattern is not
    assert not scan.in_string(scan.masked.index("Modul"))  # a docstring: documentation
    assert scan.in_string(scan.masked.index("strng"))  # a string statement, not first: data


def _read(reader, text: str):
    """What `reader` finds in `text`, comparable: names placed and counted, keywords, comments, strings (and which
    are docstrings), patterns; "unreadable" where it stops."""
    try:
        found = reader(text)
    except Unreadable:
        return "unreadable"
    return list(found.names), list(found.names.uses.items()), found.keywords, found.comments, found.strings, \
        found.patterns


def _agree_or_leave(text: str) -> None:
    """The reading at once finds what the reading in order does, or leaves the source to it."""
    try:
        at_once = _read(_lex_at_once, text)
    except _Unusual:
        return
    assert at_once == _read(_lex_in_order, text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["", " ", "    ", "\t", "\n", "\n    ", "\n\n", " \\\n", "\r\n", ";"]),
                          _FRAGMENTS), max_size=16))
def test_the_reading_at_once_agrees_with_the_reading_in_order(pieces):
    _agree_or_leave("".join(indent + fragment for indent, fragment in pieces))


@pytest.mark.parametrize("name", FILES)
def test_the_reading_at_once_agrees_with_the_reading_in_order_on_damaged_files(name):
    """Real files with a few characters put in or taken out (quotes, brackets, backslashes, line breaks)."""
    import random
    with open(os.path.join(STDLIB, name), encoding="utf-8") as f:
        text = f.read()
    _agree_or_leave(text)
    rng = random.Random(name)
    for _ in range(20):
        damaged = text
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(damaged) + 1)
            if rng.random() < 0.5:
                damaged = damaged[:at] + rng.choice(["'", '"', "(", ")", "\\", "\n", "\\\n", "#", ":", "def ",
                                                     "\t", '"""', "r'", "f'", "\r"]) + damaged[at:]
            else:
                damaged = damaged[:at] + damaged[at + rng.randint(1, 5):]
        _agree_or_leave(damaged)
