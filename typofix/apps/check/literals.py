"""The text inside a string literal or a comment, as a reader sees it. In a literal: escapes (\\n, \\x41,
\\N{DASH}), format placeholders (%s, %(name)d, {0}, {name!r:>10}, ${HOME}, $USER) and code spans blanked, so
that `"\\nThe end"` is not the word "nThe" and `"{count} files"` checks "files" alone; and whether a literal
is text at all.

A literal with no white space inside (`"utf-8"`, `"surrogateescape"`, `"rb"`, `"--verbose"`) is a key, a
mode, a name or an option: code that only looks like a word, and that -w must never change. Only a literal
with white space between its words is text; the others count as identifiers.

In a comment: tool directives (`# noqa: E501`, `# type: ignore[attr]`, `// eslint-disable-next-line`,
`# -*- coding: utf-8 -*-`) name rules and options, not words, and are blanked with everything after them."""

from __future__ import annotations

import codecs
import re

from typofix.apps.check.prose import blank, mask_code_spans

# A backslash before a capitalised word is a Windows path's separator (C:\Program Files\Microsoft), not an
# escape that eats the word's first letter; any other backslash takes the character after it (\n, \b, \w).
_ESCAPE = re.compile(r"\\(?=[A-Z][a-z])|\\(?:N\{[^}\n]*\}|x[0-9a-fA-F]{2}|u\{?[0-9a-fA-F]{1,6}\}?|U[0-9a-fA-F]{8}|"
                     r"[0-7]{1,3}|[\s\S])")
# Two escapes that hold letters of no English word: an escaped backslash before small letters shows an escape or
# a path to the reader (the source `"a\\tb"` is the text a\tb; `"C:\\temp"`), and a letter written
# as an escape (\xe4, \u00e9, \N{...}) makes one word of another alphabet with the letters joined to it (the
# source `"M\xe4ssig"`, `"caf\xe9"`).
_SHOWN_ESCAPE = re.compile(r"\\\\[a-z][A-Za-z]*")
_LETTER_ESCAPE = re.compile(r"[A-Za-z]*(?:\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}\n]*\}))+"
                            r"[A-Za-z]*")
# %-style (no space flag: "100% sure" is prose; a letter after the conversion makes it a word, as in
# optparse's %default), $-style and {}-style placeholders; braces innermost first, so nested format specs
# ({x:{width}}) go in two rounds.
_PLACEHOLDER = re.compile(r"%(?:\([^)\n]*\))?[-#0+]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[a-zA-Z](?![a-zA-Z])|\$\{[^{}\n]*\}|"
                          r"\$[A-Za-z_]\w*|\{[^{}\n]*\}")
_INNER_SPACE = re.compile(r"\S\s+\S")
_DIRECTIVE = re.compile(r"(?:\b(?:noqa|NOQA|nosec|NOLINT\w*|nolint)\b|"
                        r"\b(?:pragma|pylint|mypy|pyright|ruff|flake8|isort|fmt|type|coding|vim|typofix)\s*[:=]|"
                        r"\beslint-[\w-]+|\bprettier-ignore\b|\bclang-format\s+(?:on|off)\b|\bistanbul\s+ignore\b|"
                        r"\bshellcheck\s+(?:disable|enable|source|shell)\b|-\*-|@ts-\w+).*", re.DOTALL)
# The word each of `_DIRECTIVE`'s alternatives starts with: a directive starts where one of them does. A set of
# words is scanned for fast (its first letters), where `_DIRECTIVE` is tried at every character of every comment
_DIRECTIVE_WORD = re.compile(r"noqa|NOQA|nosec|NOLINT|nolint|pragma|pylint|mypy|pyright|ruff|flake8|isort|fmt|type|"
                             r"coding|vim|typofix|eslint-|prettier-ignore|clang-format|istanbul|shellcheck|-\*-|@ts-")


def _blank_match(match: re.Match) -> str:
    return blank(match.group())


def mask_literal(content: str) -> str:
    """A literal's content with escapes, placeholders and code spans blanked (same length)."""
    if "\\" in content:
        content = _LETTER_ESCAPE.sub(_blank_foreign, _SHOWN_ESCAPE.sub(_blank_match, content))
        content = _ESCAPE.sub(_blank_match, content)
    for _ in range(3 if "%" in content or "$" in content or "{" in content else 0):  # nested braces: a level a round
        masked = _PLACEHOLDER.sub(_blank_match, content)
        if masked == content:
            break
        content = masked
    return mask_code_spans(content)


def _blank_foreign(match: re.Match) -> str:
    """A run of letters and escapes blanked where an escape is a letter (one word of another alphabet); else
    as it is (the escapes are blanked with the others)."""
    try:
        value = codecs.decode(match.group(), "unicode_escape")
    except UnicodeDecodeError:
        return match.group()
    return blank(match.group()) if any(c.isalpha() and not c.isascii() for c in value) else match.group()


def is_text(content: str) -> bool:
    """Whether a literal is text: white space between two of its non-space characters (`"%d files"` is,
    `"utf-8"` is not)."""
    return _INNER_SPACE.search(content.strip()) is not None


def mask_comment(comment: str) -> str:
    """A comment (its marks included) with tool directives, and all after them, and code spans blanked."""
    word = _DIRECTIVE_WORD.search(comment)
    directive = _DIRECTIVE.search(comment, word.start()) if word is not None else None
    if directive:
        comment = comment[:directive.start()] + blank(comment[directive.start():])
    return mask_code_spans(comment)
