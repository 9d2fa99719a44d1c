"""What a file is written in, from its name and its first line: Python (read with Python's own tokenizer),
another language Pygments has a lexer for (JavaScript, Go, Rust, C, shell, YAML, TOML, JSON, Makefile, ...),
or prose (Markdown, reStructuredText, plain text), which is checked whole."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache

PYTHON_NAMES = (".py", ".pyi", ".pyw")
MARKDOWN_NAMES = (".md", ".markdown", ".mdown", ".mkd")
RST_NAMES = (".rst", ".rest")
TEXT_NAMES = (".txt", ".text")
# Pygments' lexer for these is a markup lexer we would learn nothing from (Markdown, reST) or plain text:
# prose is read by typofix.apps.check.prose instead.
_PROSE_LEXERS = {"markdown", "restructuredtext", "text"}
_SHEBANG = re.compile(r"#!\s*(?:\S*/)?(?:env\s+(?:-\S+\s+)*)?([A-Za-z]+)")
# Interpreters whose name is not a Pygments alias.
_INTERPRETERS = {"sh": "bash", "dash": "bash", "ksh": "bash", "zsh": "zsh", "node": "javascript",
                 "nodejs": "javascript", "deno": "typescript", "python": "python", "pypy": "python"}


@dataclass(frozen=True)
class Language:
    """How to read a file: `kind` "python", "code" (a Pygments lexer, named by its first alias `lexer`),
    "markdown", "rst" or "text"."""

    kind: str
    lexer: str | None = None


PYTHON = Language("python", "python")


def language_of(path: str, first_line: str) -> Language:
    """The language of the file at `path` whose first line is `first_line`: by its name, then by a shebang
    (`#!/usr/bin/env python3`, `#!/bin/sh`); a file no lexer knows is plain text."""
    name = os.path.basename(path)
    lower = name.lower()
    if lower.endswith(PYTHON_NAMES):
        return PYTHON
    if lower.endswith(MARKDOWN_NAMES):
        return Language("markdown")
    if lower.endswith(RST_NAMES):
        return Language("rst")
    if lower.endswith(TEXT_NAMES) and lower != "cmakelists.txt":
        return Language("text")
    shebang = _SHEBANG.match(first_line)
    if shebang:
        interpreter = re.sub(r"[\d.]+$", "", shebang.group(1)).lower()
        if _INTERPRETERS.get(interpreter, interpreter) == "python":
            return PYTHON
        alias = _lexer_alias(_INTERPRETERS.get(interpreter, interpreter))
        if alias:
            return Language("code", alias)
    alias = _lexer_for_name(name)
    return Language("code", alias) if alias else Language("text")


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
