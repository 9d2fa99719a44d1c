"""What a file is written in, from its name and its first line: Python (read with Python's own tokenizer),
another language Pygments has a lexer for (JavaScript, Go, Rust, C, shell, YAML, TOML, JSON, Makefile, ...),
or prose (Markdown, reStructuredText, LaTeX, plain text, roff: man pages), which is checked whole."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache

PYTHON_NAMES = (".py", ".pyi", ".pyw")
MARKDOWN_NAMES = (".md", ".markdown", ".mdown", ".mkd")
RST_NAMES = (".rst", ".rest")
TEXT_NAMES = (".txt", ".text")
LATEX_NAMES = (".tex", ".latex", ".ltx", ".sty", ".cls")  # documents, packages and classes
# What a roff file starts with: a comment (`.\"`, `'\" t` before tbl), a man page's title (.TH) or an mdoc
# one's date (.Dd), a macro package (.so, .de) or a request that sets up the text
_ROFF_START = re.compile(r"""[.'][ \t]*(?:\\"|TH\b|Dd\b|so\b|de\b|ds\b|nr\b|ig\b|if\b|ie\b|tr\b|ft\b|\\")""")
# Pygments' lexer for these is a markup lexer we would learn nothing from (Markdown, reST) or plain text:
# prose is read by typofix.apps.check.prose instead.
_PROSE_LEXERS = {"markdown", "restructuredtext", "text"}
ROFF_LEXER = "groff"  # Pygments' lexer for man pages' names (*.[1-9], *.man): read as roff, or as plain text
_SHEBANG = re.compile(r"#!\s*(?:\S*/)?(?:env\s+(?:-\S+\s+)*)?([A-Za-z]+)")
# Interpreters whose name is not a Pygments alias.
_INTERPRETERS = {"sh": "bash", "dash": "bash", "ksh": "bash", "zsh": "zsh", "node": "javascript",
                 "nodejs": "javascript", "deno": "typescript", "python": "python", "pypy": "python"}


@dataclass(frozen=True)
class Language:
    """How to read a file: `kind` "python", "code" (a Pygments lexer, named by its first alias `lexer`),
    "markdown", "rst", "latex", "roff" or "text"."""

    kind: str
    lexer: str | None = None


ROFF = Language("roff")


PYTHON = Language("python", "python")


def language_of(path: str, first_line: str) -> Language:
    """The language of the file at `path` whose first line is `first_line`: by its name, then by a shebang
    (`#!/usr/bin/env python3`, `#!/bin/sh`); a file no lexer knows is plain text. Roff is told by its first
    line, a comment or request (`.\\"`, `.TH`), in a file named as a man page is (ls.1, printf.3p: a rotated log
    app.log.1 is plain text), as plain text (`.txt`) or with a name no other lexer knows (tclsh.n, a.mdoc)."""
    name = os.path.basename(path)
    lower = name.lower()
    if lower.endswith(PYTHON_NAMES):
        return PYTHON
    if lower.endswith(MARKDOWN_NAMES):
        return Language("markdown")
    if lower.endswith(RST_NAMES):
        return Language("rst")
    if lower.endswith(LATEX_NAMES):
        return Language("latex")
    roff = _ROFF_START.match(first_line) is not None
    if lower.endswith(TEXT_NAMES) and lower != "cmakelists.txt":
        return ROFF if roff else Language("text")
    shebang = _SHEBANG.match(first_line)
    if shebang:
        interpreter = re.sub(r"[\d.]+$", "", shebang.group(1)).lower()
        if _INTERPRETERS.get(interpreter, interpreter) == "python":
            return PYTHON
        alias = _lexer_alias(_INTERPRETERS.get(interpreter, interpreter))
        if alias:
            return Language("code", alias)
    alias = _lexer_for_name(name)
    if alias and alias != ROFF_LEXER:
        return Language("code", alias)
    return ROFF if roff else Language("text")


@lru_cache(maxsize=4096)
def _lexer_for_name(name: str) -> str | None:
    from pygments.lexers import get_lexer_for_filename

    alias = _first_alias(get_lexer_for_filename, name)
    return None if alias in _PROSE_LEXERS else alias


@lru_cache(maxsize=64)
def _lexer_alias(name: str) -> str | None:
    from pygments.lexers import get_lexer_by_name

    return _first_alias(get_lexer_by_name, name)


def _first_alias(find, name: str) -> str | None:
    """The first alias of the lexer Pygments' `find` gives for `name`, None when it has none."""
    from pygments.util import ClassNotFound

    try:
        lexer = find(name)
    except ClassNotFound:
        return None
    return lexer.aliases[0] if lexer.aliases else None
