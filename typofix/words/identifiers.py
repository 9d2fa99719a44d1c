"""Identifiers as words: `parseArgs`, `parse_args`, `HTTPServer` and `getHTTP2Url` split where a reader sees
word boundaries, as `cspell` splits them: at underscores, hyphens and digits, between a lower-case letter and
an upper-case one, and before the last capital of a capital run that a small letter follows (`HTTPServer` is
HTTP + Server: the S starts the next word). Pure Python."""

from __future__ import annotations

import re

# One word: a capital run not followed by a small letter (HTTP of HTTPServer, URL), or an optional capital and
# small letters (Server, parse). Digits, underscores and other marks are never part of a word.
_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")


def identifier_parts(identifier: str) -> list[tuple[int, str]]:
    """The words of `identifier` with their offsets: parseArgs -> [(0, "parse"), (5, "Args")];
    HTTPServer -> [(0, "HTTP"), (4, "Server")]; parse_args_v2 -> [(0, "parse"), (6, "args"), (11, "v")]."""
    return [(m.start(), m.group()) for m in _PART.finditer(identifier)]


def identifier_pieces(identifier: str) -> list[str]:
    """The words of `identifier` as written: HTTPServer -> ["HTTP", "Server"] (`identifier_parts` without
    the offsets, found in C: no match object for each)."""
    return _PART.findall(identifier)


def identifier_words(identifier: str) -> list[str]:
    """The lowercase words of `identifier`: HTTPServer -> ["http", "server"]."""
    return [part.lower() for part in identifier_pieces(identifier)]
