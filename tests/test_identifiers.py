"""Identifiers split into words the way cspell splits them."""

from __future__ import annotations

import pytest

from typofix.words.identifiers import identifier_parts, identifier_pieces, identifier_words


@pytest.mark.parametrize("name, words", [
    ("parseArgs", ["parse", "args"]),
    ("parse_args", ["parse", "args"]),
    ("HTTPServer", ["http", "server"]),
    ("getHTTP2Url", ["get", "http", "url"]),
    ("__init__", ["init"]),
    ("MAX_WORD_LEN", ["max", "word", "len"]),
    ("kebab-case-name", ["kebab", "case", "name"]),
    ("np", ["np"]),
    ("URL", ["url"]),
    ("x2y", ["x", "y"]),
])
def test_identifiers_split_at_case_underscores_and_digits(name, words):
    assert identifier_words(name) == words


def test_parts_keep_their_offsets_and_case():
    assert identifier_parts("recieveHTTPData_v2") == [(0, "recieve"), (7, "HTTP"), (11, "Data"), (16, "v")]
    assert all("recieveHTTPData_v2"[at:at + len(part)] == part for at, part in identifier_parts("recieveHTTPData_v2"))


def test_the_pieces_are_the_parts_without_their_offsets():
    for name in ["receiveHTTPData_v2", "parse_args", "HTTPServer", "getHTTP2Url", "__init__", "x", "", "ÄbcDef"]:
        assert identifier_pieces(name) == [part for _, part in identifier_parts(name)]
