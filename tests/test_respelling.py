"""Sound respelling noise (typofix.training.respelling) and its place in the typo generator."""

from __future__ import annotations

import random

import pytest

from typofix.training.noise import DEFAULT_WEIGHTS, HandSetChannel, TypoGenerator
from typofix.training.respelling import SPELLINGS, SoundRespelling, align
from typofix.words.phones import Pronunciations, to_chars


@pytest.mark.parametrize("word, arpabet, chunks", [
    ("phone", "F OW N", ["ph", "o", "n", "e"]),
    ("juice", "JH UW S", ["j", "ui", "ce"]),
    ("night", "N AY T", ["n", "igh", "t"]),
    ("box", "B AA K S", ["b", "o", "x"]),
])
def test_a_word_is_split_into_the_spellings_of_its_sounds(word, arpabet, chunks):
    found = align(word, to_chars(arpabet))
    assert [chunk for chunk, _ in found] == chunks
    assert "".join(sound for _, sound in found) == to_chars(arpabet)  # every sound spelt once, in order


def test_a_word_its_sounds_cannot_spell_has_no_alignment():
    assert align("xyz", to_chars("AA")) is None


def test_a_respelling_keeps_the_sound_and_changes_the_letters():
    respell = SoundRespelling()
    rng = random.Random(0)
    seen = set()
    for _ in range(200):
        kind, start, end, replacement = respell.propose("phone", list(range(5)), rng)
        typo = "phone"[:start] + replacement + "phone"[end:]
        assert kind == "respell" and typo != "phone"
        seen.add(typo)
    assert "fone" in seen  # ph -> f, the textbook case
    # Each change swaps one chunk for another spelling of the same sound (or adds a magic e to a long vowel).
    assert all(len(t) <= 8 for t in seen)


def test_nothing_is_proposed_for_an_unlisted_word_or_touched_letters():
    respell = SoundRespelling()
    rng = random.Random(1)
    assert respell.propose("qzxvw", list(range(5)), rng) is None  # not in CMUdict
    assert respell.propose("phone", [], rng) is None  # every letter already edited


def test_the_spelling_table_holds_only_sounds_of_the_phone_set():
    assert all(len(sound) in (1, 2) for sound in SPELLINGS)
    assert all(spelling and spelling.isalpha() for spellings in SPELLINGS.values() for spelling in spellings)


def test_the_generator_respells_only_when_weighted():
    assert HandSetChannel(DEFAULT_WEIGHTS).respelling is None  # off by default: CMUdict never read
    generator = TypoGenerator({"respell": 1.0}, edit_count_probs=(1.0,), identity_rate=0.0)
    typos = [generator.sample("juice", 7, 0, i) for i in range(40)]
    assert {t.edits[0].kind for t in typos if t.edits} == {"respell"}
    cmu = Pronunciations.bundled()
    assert any(t.text not in cmu for t in typos)  # respellings are mostly not words
