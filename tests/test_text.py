"""Text splitting and case: what the corrector may rewrite, and that the rest comes back byte for byte."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from typofix.text import case_shape, match_case, read_chunks, split_text


def words_of(text: str) -> list[str]:
    return [p.text for p in split_text(text) if p.word]


@given(st.text())
@settings(max_examples=300, deadline=None)
def test_pieces_join_back_to_the_text(text):
    assert "".join(p.text for p in split_text(text)) == text


@given(st.text(alphabet="ab \n\t\r-'é1.", max_size=200), st.integers(1, 20))
@settings(max_examples=300, deadline=None)
def test_chunks_join_back_and_stay_bounded(text, limit):
    chunks = list(read_chunks(io.StringIO(text, newline="").readline, limit))
    assert "".join(c for c, _ in chunks) == text
    assert all(len(c) <= 2 * limit for c, _ in chunks)


def test_words_are_found_and_the_rest_is_left():
    text = "Teh QUIK brown fox recieved 3 leters from http://exmaple.com."
    assert words_of(text) == ["Teh", "QUIK", "brown", "fox", "recieved", "leters", "from"]


def test_pass_through_tokens():
    for token in ["3", "2nd", "abc123", "http://exmaple.com/teh?q=speling", "www.exmaple.com", "someone@exmaple.com",
                  "café", "naïve", "iPhone", "McDonald", "x" * 31, "o'clock", "covid-19", "I", "can't", "won't"]:
        assert words_of(token) == [], token


def test_clitics_and_hyphens():
    assert words_of("doesn't") == ["does"]
    assert words_of("John's") == ["John"]
    assert words_of("THEY'RE") == ["THEY"]
    assert words_of("teh\u2019s") == ["teh"]
    assert words_of("well-knwon") == ["well", "knwon"]
    assert words_of("e-mial") == ["mial"]
    assert "".join(p.text for p in split_text("don't-stop")) == "don't-stop"


def test_case_shapes():
    assert [case_shape(w) for w in ["teh", "Teh", "TEH", "tEh"]] == ["lower", "title", "upper", None]
    assert [match_case(w, "the") for w in ["teh", "Teh", "TEH"]] == ["the", "The", "THE"]
