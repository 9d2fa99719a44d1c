"""Listed words by pronunciation (typofix.words.phoneindex) and the phone channel that asks it
(typofix.engine.sounds)."""

from __future__ import annotations

import numpy as np

from typofix.words.phoneindex import PhoneIndex
from typofix.words.phones import phone_distance, to_chars

WORDS = ["their", "there", "juice", "choose", "loans", "lines", "phone", "night", "knight", "note"]
SAID = {"their": "DH EH R", "there": "DH EH R", "juice": "JH UW S", "choose": "CH UW Z", "loans": "L OW N Z",
        "lines": "L AY N Z", "phone": "F OW N", "night": "N AY T", "knight": "N AY T", "note": "N OW T"}


def build() -> PhoneIndex:
    return PhoneIndex(WORDS, [(to_chars(SAID[w]),) for w in WORDS])


def test_words_said_alike_are_found_nearest_first_then_most_frequent():
    index = build()
    heard = [(to_chars("JH UW S"),), (to_chars("N AY T"),), (to_chars("L OW N Z"), to_chars("L OW N S"))]
    juse, nite, lones = index.near_many(heard, 3)
    assert juse[0] == "juice" and "choose" in juse  # exact, then two phone edits (CH UW Z)
    assert nite[:2] == ["night", "knight"]  # homophones share a key, in frequency order
    assert lones[0] == "loans"
    for word in juse:  # never further than two phone edits
        assert phone_distance(to_chars("JH UW S"), to_chars(SAID[word])) <= 2


def test_excluded_words_and_limits():
    index = build()
    assert index.near_many([(to_chars("N AY T"),)], 5, exclude=[{"night"}])[0][0] == "knight"
    assert index.near_many([(to_chars("N AY T"),)], 1)[0] == ["night"]
    assert index.near_many([()], 5) == [[]]  # nothing heard, nothing found


def test_the_index_round_trips_through_its_arrays():
    index = build()
    copy = PhoneIndex.from_arrays({k: np.array(v) for k, v in index.arrays().items()})
    heard = [(to_chars("F OW N"),), (to_chars("DH EH R"),)]
    assert copy.near_many(heard, 4) == index.near_many(heard, 4)


def test_the_phone_channel_reaches_what_letters_do_not(tiny_ckpt):
    """With the bundled letter-to-phone model, `juse` is heard as juice is said, and the wide pass offers it
    (three letter edits away: out of the edit indexes' reach)."""
    from typofix import Corrector, DecodingSettings

    settings = DecodingSettings(wide_margin=1e9, sound_candidates=0, two_edit_candidates=0)
    corrector = Corrector.load(tiny_ckpt, settings=settings)
    assert "juice" in corrector.sounds.alike(["juse"], 10)[0]
    assert "juice" in corrector.neighbours.wide(["juse"])[0]
    without = Corrector.load(tiny_ckpt, settings=settings.with_(phone_candidates=0))
    assert "juice" not in without.neighbours.wide(["juse"])[0]
    distances = corrector.sounds.distances(["juse"], [["juse", "juice", "jest"]])
    assert distances[0] == 0 and distances[1] < distances[2]  # itself, then the word said alike


def test_words_said_exactly_as_heard_are_a_lookup():
    index = build()
    heard = [(to_chars("N AY T"),), (to_chars("N AY T S"), to_chars("DH EH R")), ()]
    assert index.said_as_many(heard, 5) == [["night", "knight"], ["their", "there"], []]
    assert index.said_as_many(heard, 1)[0] == ["night"]


def test_the_cheap_pass_weighs_the_words_said_as_the_typo_sounds(tiny_ckpt):
    """`juse`: the cheap pass is sure of `just` (one edit); the word said as juse sounds (juice) joins its
    candidates, for unlisted words only, and not at all with homophone_candidates 0."""
    from typofix import Corrector, DecodingSettings

    settings = DecodingSettings(wide_margin=0.0)  # no wide pass: what the cheap pass alone scores
    corrector = Corrector.load(tiny_ckpt, settings=settings)
    assert "juice" in corrector.neighbours.said_alike(["juse"])[0]
    assert "juice" in corrector.trace(["juse"])["juse"].cheap
    assert corrector.neighbours.said_alike(["just"]) == [{}]  # a listed word is a spelling of its own
    plain = Corrector.load(tiny_ckpt, settings=settings.with_(homophone_candidates=0))
    assert "juice" not in plain.trace(["juse"])["juse"].cheap


def test_the_keys_a_word_is_said_by_are_its_pronunciations():
    index = PhoneIndex(["read", "lead", "zzz"], [(to_chars("R IY D"), to_chars("R EH D")), (to_chars("L IY D"),), ()])
    whose, keys = index.said_keys(["lead", "nope", "read", "zzz"])
    spelled = index.keys_spelled(keys)
    assert [(w, s) for w, s in zip(whose.tolist(), spelled)] == [
        (0, to_chars("L IY D")), (2, to_chars("R IY D")), (2, to_chars("R EH D"))]
    assert index.said_many(["read", "nope", "zzz"]) == [tuple(spelled[1:]), (), ()]


def test_words_asked_together_are_said_as_each_alone():
    """A batch's words (looked up once each however often they repeat) are said as each is asked alone: in
    another order, repeated, mixed with words the index lacks, from an index read back from its arrays."""
    words, said = ["read", "lead", "zzz"], [(to_chars("R IY D"), to_chars("R EH D")), (to_chars("L IY D"),), ()]
    index = PhoneIndex(words, said)
    first = [index.said(w) for w in ["lead", "nope", "read"]]
    again = index.said_many(["read", "read", "nope", "lead", "zzz", "new"])
    assert again == [first[2], first[2], (), first[0], (), ()]
    fresh = PhoneIndex.from_arrays(index.arrays(), words)
    whose, keys = index.said_keys(["zzz", "lead", "read", "lead"])
    fresh_whose, fresh_keys = fresh.said_keys(["zzz", "lead", "read", "lead"])
    assert whose.tolist() == fresh_whose.tolist() == [1, 2, 2, 3]
    assert keys.tolist() == fresh_keys.tolist()
