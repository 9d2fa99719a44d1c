"""Sound-alike candidates (`typofix.words.phonetic`): the pool is what the sound codes say it is (checked against
brute force over the word list), and real far-off misspellings reach their target."""

from __future__ import annotations

import random

import pytest
from rapidfuzz.distance import Levenshtein

from typofix.words.lexicon import Lexicon
from typofix.words.phonetic import MAX_LENGTH_GAP, SoundIndex, sound_codes
from typofix.words.distance import osa_distance


@pytest.fixture(scope="module")
def lexicon():
    return Lexicon.from_tsv()


@pytest.fixture(scope="module")
def index(lexicon):
    return SoundIndex(lexicon.counts)


def test_sound_codes():
    assert sound_codes("Knight's") == sound_codes("knights")  # case and apostrophes do not count
    assert sound_codes("fone")[0] == sound_codes("phone")[0]  # ph sounds as f
    assert sound_codes("42") == ("", "")


@pytest.mark.slow
def test_the_pool_is_every_word_a_close_sound_code_away(lexicon, index):
    """With room for everything, the candidates are exactly the words whose Metaphone code is at most one edit
    from the typo's or whose Soundex code is the typo's, within the length gap: brute force agrees."""
    rng = random.Random(0)
    words = [w for w in sorted(lexicon.counts) if w.isalpha()]
    typos = ["aboute", "cort", "simerly", "fisical", "xyzzy", "nolege", "sircut"]
    typos += [w[:-1] + rng.choice("aeiou") + "x" for w in rng.sample(words, 10)]
    for typo, got in zip(typos, index.near_many(typos, 1_000_000)):
        metaphone, soundex = sound_codes(typo)
        want = {w for w in lexicon.counts if w != typo and abs(len(w) - len(typo)) <= MAX_LENGTH_GAP
                and (Levenshtein.distance(sound_codes(w)[0], metaphone) <= 1 or sound_codes(w)[1] == soundex)}
        assert set(got) == want, typo
        assert len(got) == len(set(got))


def test_far_off_misspellings_written_by_sound_reach_their_target(index):
    """Rows of birkbeck-dev three or more edits from the target, which the edit indexes cannot propose."""
    for typo, target in [("aegsistance", "existence"), ("afidaved", "affidavit"), ("alteytod", "altitude"),
                         ("aprocmently", "approximately"), ("cansulation", "cancellation"), ("simerly", "similarly")]:
        assert osa_distance(typo, target) >= 3
        assert target in index.near_many([typo], 10)[0], typo


def test_excluded_words_and_the_typo_itself_never_come_back(index):
    first = index.near_many(["aboute"], 5)[0]
    again = index.near_many(["aboute"], 5, exclude=[set(first[:2])])[0]
    assert not set(first[:2]) & set(again) and first[2:] == again[:3]
    assert "about" not in index.near_many(["about"], 50)[0]
    assert index.near_many(["aboute", "42"], 0) == [[], []] and index.near_many(["42"], 5) == [[]]
