"""What a word's surroundings say about it, as written: the token it is part of and the line it stands on.

A word piece (`typofix.words.text`) can be all of a whitespace token (`receive,`) or a part of one
(`remove-iam-policy`, `Type=oneshot`, `[--async]`). Misspellings are written in prose; the tokens a spell
checker must leave alone (options, keys, commands, code) give themselves away by what is written around them:
symbols inside the token, a leading dash or sigil, quotes or backticks, and a line that reads as a command,
configuration or code rather than as a sentence. Plain string functions, no tables.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from typofix.words.text import LINE_MARKS

# Characters that join the parts of code-shaped tokens (keys, paths, addresses, expressions).
_JOINERS = frozenset("_/@=.:\\$%#{}[]<>|*&+~^()")
_CODE = frozenset("{}[]()<>=;$|&\\/_*#@:`^~+")  # what makes a line read as code, config or a command
_SENTENCE_MARKS = "\"'.,;:!?()[]{}\u201c\u201d\u2018\u2019"  # punctuation that may wrap a word of prose
_QUOTES = "'\"`\u2018\u2019\u201c\u201d"
_OPTION = re.compile(r"(?:^|\s)--?[A-Za-z]")  # a command-line option on the line
_VOWELS = frozenset("aeiouyAEIOUY")
_TRIPLE = re.compile(r"(.)\1\1")


class Surroundings(NamedTuple):
    """The whitespace token a word stands in and the line around it, as written."""

    token: str  # the whitespace-delimited token that holds the word
    word_start: int  # where the word starts inside `token`
    line: str  # the whole line
    line_offset: int  # where the word starts inside `line`


def surroundings(text: str, start: int, end: int) -> Surroundings:
    """The token and line around text[start:end]."""
    token, word_start = token_around(text, start, end)
    line_start, line_end = line_bounds(text, start, end)
    return Surroundings(token, word_start, text[line_start:line_end], start - line_start)


def token_around(text: str, start: int, end: int) -> tuple[str, int]:
    """The whitespace token that holds text[start:end], and where the word starts in it."""
    token_start = start
    while token_start > 0 and not text[token_start - 1].isspace():
        token_start -= 1
    token_end = end
    while token_end < len(text) and not text[token_end].isspace():
        token_end += 1
    return text[token_start:token_end], start - token_start


def line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Where the line that holds text[start:end] starts and ends (its line break not included)."""
    line_end = text.find("\n", end)
    return text.rfind("\n", 0, start) + 1, line_end if line_end >= 0 else len(text)


def in_code_token(token: str) -> bool:
    """Whether the token, stripped of the punctuation prose puts around words, holds a joiner of code or a
    digit: `Type=oneshot`, `foo.bar,baz`, `v3`, `$rmap{foo}`."""
    core = token.strip(_SENTENCE_MARKS)
    return any(c in _JOINERS or c.isdigit() for c in core)


def leading_mark(token: str) -> bool:
    """Whether the token starts with a dash (an option), or a sigil: `--async`, `-v`, `#include`, `$HOME`, `%d`."""
    core = token.lstrip("\"'([{")
    return core[:1] in ("-", "#", "$", "%") and len(core) > 1


def hyphenated(token: str) -> bool:
    """Whether the token joins words with hyphens (`well-known`, `remove-iam-policy-binding`)."""
    return "-" in token.strip(_SENTENCE_MARKS + "-")


def quoted(token: str, word_start: int, word_len: int) -> bool:
    """Whether the word stands alone between a pair of quotes or backticks: `'rset'`, "keyup", `npm`."""
    before = token[word_start - 1:word_start]
    after = token[word_start + word_len:word_start + word_len + 1]
    return bool(before) and before in _QUOTES and after in _QUOTES and after != ""


def code_share(line: str) -> float:
    """The share of the line's non-space characters that are code's punctuation (0 for prose, high for code).
    A heading's, list item's, quote's or comment's mark before its first word (`# Title`, `// note`:
    `typofix.words.text.LINE_MARKS`) is neither."""
    mark = LINE_MARKS.match(line)
    if mark is not None:
        line = line[mark.end():]
    visible = [c for c in line if not c.isspace()]
    return sum(c in _CODE for c in visible) / len(visible) if visible else 0.0


def has_option(line: str) -> bool:
    """Whether the line names a command-line option (`-v`, `--async`)."""
    return _OPTION.search(line) is not None


def no_vowel(word: str) -> bool:
    """Whether the word has no vowel (y counts): abbreviations do (`npm`, `thx`, `pls`), misspellings seldom."""
    return not any(c in _VOWELS for c in word)


def stretched(word: str) -> bool:
    """Whether a letter repeats three times in a row: stretched for emphasis (`sooo`, `yesss`), not a slip."""
    return _TRIPLE.search(word.lower()) is not None


def mixed_case(word: str) -> bool:
    """Whether capitals follow a small letter inside the word (`macOS`, `gRPC`, `PagerDuty`)."""
    return any(a.islower() and b.isupper() for a, b in zip(word, word[1:]))
