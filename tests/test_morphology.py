"""Derived words: a known stem with productive affixes is a word; the usual slips of common words are not."""

from __future__ import annotations

import pytest

from typofix.words.morphology import Morphology, stems_of

KNOWN = {"share", "shareable", "upload", "blocking", "committed", "configurable", "followed", "watch", "code",
         "till", "until", "begin", "beginning", "commending", "recommending", "possible", "stand", "understand",
         "script", "debase"}
FREQUENT = {"until", "beginning", "recommending", "possible", "understand", "coming"}


@pytest.fixture
def morphology():
    return Morphology(KNOWN.__contains__, lambda words: not FREQUENT.isdisjoint(words))


@pytest.mark.parametrize("word", ["unshareable", "reupload", "reuploaded", "nonblocking", "overcommitted",
                                  "reconfigurable", "unfollowed", "rewatchable", "scriptless", "unwatchable"])
def test_a_known_stem_with_productive_affixes_is_a_word(morphology, word):
    assert morphology.derived(word)


@pytest.mark.parametrize("word", [
    "untill",        # un + till: a slip of until, and its stem is too short under a two-letter prefix
    "begining",      # an inflection of a listed word: the dictionary lists beginning
    "recomending",   # re + commending, one letter from recommending
    "possable",      # -able where the dictionary has -ible
    "unstand",       # un + stand, stem too short
    "recieve", "teh", "share", "upload",  # no affix, or a plain known word (not derived)
])
def test_slips_and_plain_words_are_not_derived(morphology, word):
    assert not morphology.derived(word)


def test_stems_at_the_seam():
    assert "share" in stems_of("shareable", "able") and "share" in stems_of("sharable", "able")
    assert "commit" in stems_of("committed", "ed")
    assert "happy" in stems_of("happiness", "ness")
    assert stems_of("able", "able") == []


def test_the_bundled_dictionary_accepts_the_derived_words_of_the_issue():
    from typofix.words.lexicon import AcceptedWords, Lexicon

    accepted = AcceptedWords.load()
    assert "rewatchable" not in accepted  # derived words only where the counts say what is common
    accepted.derive_with(Lexicon.from_tsv().counts_of)
    for word in ["unshareable", "reupload", "nonblocking", "overcommitted", "reconfigurable", "unfollowed",
                 "rewatchable"]:
        assert word in accepted, word
    for slip in ["untill", "begining", "recieve", "possable"]:
        assert slip not in accepted, slip


def test_the_neighbours_asked_about_are_every_single_slip_of_the_word():
    asked = []
    Morphology(KNOWN.__contains__, lambda words: asked.extend(words) or False).derived("unshareable")
    slips = {"nshareable", "usnhareable", "unsharable", "unshareablee", "unshareabl", "xnshareable", "unshaeable"}
    assert slips <= set(asked) and "unshareable" not in asked and "unshareabl" in asked
