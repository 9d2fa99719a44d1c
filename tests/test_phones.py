"""ARPAbet as characters, CMUdict and the phone distance (typofix.words.phones)."""

from __future__ import annotations

import random

import pytest

from typofix.words.phones import (G2P_ALPHABET, PHONE_ALPHABET, PHONES, PhoneError, Pronunciations, phone_distance,
                                  phone_distances, to_arpabet, to_chars)
from typofix.words.vocab import DEFAULT_ALPHABET


def test_every_phone_is_one_character_no_letter_shares():
    assert len(PHONE_ALPHABET) == len(PHONES) == 39
    assert not set(PHONE_ALPHABET) & set(DEFAULT_ALPHABET)
    assert G2P_ALPHABET == DEFAULT_ALPHABET + PHONE_ALPHABET


def test_arpabet_round_trips_with_stress_dropped():
    chars = to_chars("K AA1 N SH AH0 N S")
    assert len(chars) == 7 and to_arpabet(chars) == "K AA N SH AH N S"
    assert to_arpabet(to_chars("s iy")) == "S IY"  # case does not matter
    with pytest.raises(PhoneError, match="'QX'"):
        to_chars("S QX")


def test_cmudict_gives_the_words_pronunciations_most_common_first():
    cmu = Pronunciations.bundled()
    assert len(cmu) > 100_000
    assert to_arpabet(cmu.of("receipt")[0]) == "R IH S IY T"
    assert to_arpabet(cmu.of("juice")[0]) == "JH UW S"
    assert cmu.of("qzxv") == ()


def test_the_phone_distance_charges_sound_confusions_less():
    s, z, k, iy, ih = (to_chars(p) for p in ("S", "Z", "K", "IY", "IH"))
    assert phone_distance(s, s) == 0
    assert phone_distance(iy, ih) < phone_distance(s, z) < phone_distance(s, k)  # vowel < voicing twin < other
    night, knight, nit = (to_chars(p) for p in ("N AY T", "N AY T", "N IH T"))
    assert phone_distance(night, knight) == 0 < phone_distance(night, nit)
    a, b = to_chars("K AA N SH AH N S"), to_chars("K AA N SH AH S")
    assert phone_distance(a, b) == phone_distance(b, a) > 0  # symmetric
    # Dropping a schwa is cheaper than dropping a consonant.
    assert phone_distance(to_chars("P AH L IY S"), to_chars("P L IY S")) < phone_distance(
        to_chars("P AH L IY S"), to_chars("P AH IY S"))


def test_many_pairs_at_once_are_each_pair_alone():
    """Thousands of pairs are worked out in groups of similar length: each pair's distance is what it is alone."""
    rng = random.Random(3)
    a = ["".join(rng.choice(PHONE_ALPHABET) for _ in range(rng.choice([0, 1, 3, 6, 9, 14]))) for _ in range(9000)]
    b = ["".join(rng.choice(PHONE_ALPHABET[:6]) for _ in range(rng.choice([0, 2, 5, 7, 12]))) for _ in range(9000)]
    together = phone_distances(a, b)
    assert together.shape == (9000,)
    for i in rng.sample(range(9000), 200):
        assert together[i] == phone_distance(a[i], b[i]) == phone_distance(b[i], a[i])
