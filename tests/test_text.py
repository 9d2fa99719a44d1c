"""Text splitting and case: what the corrector may rewrite, and that the rest comes back byte for byte."""

from __future__ import annotations

import io
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from typofix.words import text as text_module
from typofix.words.text import Piece, case_shape, match_case, read_chunks, split_text, starts_sentence


def words_of(text: str, leave_special: bool = True) -> list[str]:
    return [p.text for p in split_text(text, leave_special=leave_special) if p.word]


@given(st.one_of(st.text(), st.text(alphabet="aZ_.-/\\~#@`: \n'\udce9", max_size=80)), st.booleans())
@settings(max_examples=300, deadline=None)
def test_pieces_join_back_to_the_text(text, leave_special):
    assert "".join(p.text for p in split_text(text, leave_special=leave_special)) == text


@given(st.one_of(st.text(), st.text(alphabet="aZiIxX \n.,-'\u2019\u0130\u212a1\udce9", max_size=60),
                 st.lists(st.sampled_from(["H.", "Wm.", "NASA", "don't", "well-knwon", "xiv", "Teh", "e.g", "word",
                                           "FBI's", "a" * 31, " ", ".", "\n", "-", "'"]), max_size=20).map("".join)),
       st.integers(2, 31), st.booleans())
@settings(max_examples=500, deadline=None)
def test_text_of_words_alone_splits_as_token_by_token(text, max_len, leave_special):
    # the fast path (one re.split) must give what the token patterns give, wherever it is taken
    bad_bytes = leave_special and "\udce9" in text
    if text_module._NOT_ONLY_WORDS.search(text) is None:
        assert (text_module._split_words(text, max_len, leave_special, bad_bytes)
                == text_module._split_tokens(text, max_len, leave_special, bad_bytes))


@given(st.text(alphabet="ab \n\t\r-'é1.", max_size=200), st.integers(1, 20))
@settings(max_examples=300, deadline=None)
def test_chunks_join_back_and_stay_bounded(text, limit):
    chunks = list(read_chunks(io.StringIO(text, newline="").readline, limit))
    assert "".join(c for c, _ in chunks) == text
    assert all(len(c) <= 2 * limit for c, _ in chunks)


def test_words_are_found_and_the_rest_is_left():
    text = "Teh QUIK brown fox recieved 3 leters from http://exmaple.com."
    assert words_of(text) == ["Teh", "brown", "fox", "recieved", "leters", "from"]  # QUIK: caps, 4 letters
    assert words_of(text, leave_special=False) == ["Teh", "QUIK", "brown", "fox", "recieved", "leters", "from"]


def test_pass_through_tokens():
    for token in ["3", "2nd", "abc123", "http://exmaple.com/teh?q=speling", "www.exmaple.com", "someone@exmaple.com",
                  "café", "naïve", "iPhone", "McDonald", "x" * 31, "o'clock", "covid-19", "I", "can't", "won't"]:
        assert words_of(token) == [], token


def test_clitics_and_hyphens():
    assert words_of("doesn't") == ["does"]
    assert words_of("John's") == ["John"]
    assert words_of("SHOULDN'T") == ["SHOULD"]
    assert words_of("THEY'RE") == [] and words_of("THEY'RE", leave_special=False) == ["THEY"]  # caps, 4 letters
    assert words_of("teh\u2019s") == ["teh"]
    assert words_of("well-knwon") == ["well", "knwon"]
    assert words_of("e-mial") == ["mial"]
    assert "".join(p.text for p in split_text("don't-stop")) == "don't-stop"


def test_case_shapes():
    assert [case_shape(w) for w in ["teh", "Teh", "TEH", "tEh"]] == ["lower", "title", "upper", None]
    assert [match_case(w, "the") for w in ["teh", "Teh", "TEH"]] == ["the", "The", "THE"]


SPECIAL = ["NASA", "FBI", "IBM", "COVID", "OK", "RC", "MIT", "GPL", "II", "XIV", "MCMXC", "xiv", "ii", "Wm.", "H.",
           "Jr.", "J.R.R.", "foo_bar", "__init__", "__init__.py", "MAX_LEN", "_GNU_SOURCE", "os.path", "config.yaml",
           "e.g.", "/usr/bin/slapd", "./configure", "~/notes", "src/main.c", "src/lib/teh", "C:\\Users\\teh",
           "`recieve`", "`teh recieve`", "#hashtag", "@mention", "Caf\udce9", "na\udcefve", "\udce9cole"]


def test_special_tokens_come_back_as_they_are():
    for token in SPECIAL:
        pieces = split_text(f"Teh {token} recieved teh.")
        assert [p.text for p in pieces if p.word] == ["Teh", "recieved", "teh"], token
        assert Piece(f" {token} ", False) in pieces, (token, pieces)  # copied whole, with the spaces around it


def test_leave_special_false_is_the_old_split():
    text = "NASA FBI II Wm. foo_bar os.path /usr/bin/slapd `recieve` #hashtag @mention Caf\udce9 teh"
    assert words_of(text, leave_special=False) == [
        "NASA", "FBI", "II", "Wm", "foo", "bar", "os", "path", "usr", "bin", "slapd", "recieve", "hashtag", "mention",
        "Caf", "teh"]
    assert words_of(text) == ["teh"]


def test_near_misses_stay_words():
    # Too long for an acronym, not well-formed numerals, mixed case, a long word before a full stop, prose
    # with one slash, a sentence end, an ellipsis, lone marks, _emphasis_, the rest of a compound.
    cases = {"RECIEVED": ["RECIEVED"], "Teh. Mr": ["Teh", "Mr"], "and/or km/h": ["and", "or", "km"],
             "civil dim did mid Xiv iiii vx": ["civil", "dim", "did", "mid", "Xiv", "iiii", "vx"],
             "teh. Recieve": ["teh", "Recieve"], "teh...recieve": ["teh", "recieve"],
             "# teh @ recieve / teh ` recieve": ["teh", "recieve", "teh", "recieve"], "C#teh": ["teh"],
             "_teh_ _Teh": ["teh", "Teh"], "FBI-aproved FBI's": ["aproved"], "Caf\udce9 teh": ["teh"]}
    for text, words in cases.items():
        assert words_of(text) == words, text


def test_splitting_junk_stays_linear():
    # Runs where a pattern scans ahead and fails at every position: quadratic if the scans were not bounded
    # (unbounded, 20,000 characters of "a-." took 2.7 s, 16 times 5,000's), well under a second each with them.
    for junk in ["a-.", "a.a.", "a_", "_", "_.", "__a", "a/", "`a", "#a", "a:\\", "\u00e9-.", "x/y.z/"]:
        text = junk * (60_000 // len(junk))
        start = time.perf_counter()
        assert "".join(p.text for p in split_text(text)) == text
        assert time.perf_counter() - start < 5, junk


def test_a_word_starts_a_sentence_after_a_stop_a_line_or_nothing():
    text = 'Alice met Bob. Then "Carol" came: Dave\nEve and (Frank)? Gina'
    pieces = split_text(text, 40, True)
    opening = {p.text for i, p in enumerate(pieces) if p.word and starts_sentence(pieces, i)}
    assert opening == {"Alice", "Then", "Dave", "Eve", "Gina"}  # not Carol (after Then), Bob, Frank
    # after a heading's, list item's, quote's or comment's mark, where the sentence goes on in lower case; a
    # marked label of names is no sentence (`# Wolof - Senegal`), nor a mark inside a line
    text = "# Setup for all\n- Run the job\n  * Then stop\n// Note this\n> Quote it\n# Wolof - Senegal\nBob # Carl ran"
    pieces = split_text(text, 40, True)
    opening = {p.text for i, p in enumerate(pieces) if p.word and starts_sentence(pieces, i)}
    assert opening == {"Setup", "Run", "Then", "Note", "Quote", "Bob"}
