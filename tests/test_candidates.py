"""Where a typo's candidates come from (`typofix.engine.candidates`): the one-edit index, the most frequent
words one and two edits away and the sound-alikes in the wide pass, through the Corrector on a real tiny model."""

from __future__ import annotations

import pytest

from typofix.engine.corrector import Corrector
from typofix.engine.settings import DecodingSettings

SMALL = DecodingSettings(beam=3)


@pytest.fixture(scope="module")
def corrector(tiny_ckpt):
    return Corrector.load(tiny_ckpt, settings=SMALL)


def test_the_one_edit_index_finds_every_word_one_edit_away(corrector):
    from typofix.words.neighbours import one_edit_words

    letters = corrector.vocab.alphabet
    for typo in ["teh", "recieve", "speling", "a", "xqzv", "acommodate", "thier"]:
        found = corrector.neighbours.one_edit_index.near_many([typo], 10**9, 1)[0]
        assert set(found) == one_edit_words(typo, corrector.lexicon, letters), typo
        counts = [corrector.lexicon.count(w) for w in found]
        assert counts == sorted(counts, reverse=True)  # most frequent first
    assert {"the", "ten", "tech", "tea"} <= set(corrector.neighbours.one_edit_index.near("teh", 100, 1))


def test_listed_near_is_every_listed_word_within_two_edits(corrector, tiny_ckpt):
    from rapidfuzz.distance import OSA
    from rapidfuzz.process import extract

    typos = ["teh", "recieve", "speling", "xqzv", "acommodate", "thier", "langauge"]
    listed = list(corrector.lexicon.counts)
    for typo, near in zip(typos, corrector.listed_near(typos)):
        expected = {w for w, d, _ in extract(typo, listed, scorer=OSA.distance, score_cutoff=2, limit=None) if d > 0}
        assert set(near) == expected and len(near) == len(expected), typo
        counts = [corrector.lexicon.count(w) for w in near]
        assert counts == sorted(counts, reverse=True)  # most frequent first
    assert corrector.listed_near(["recieve"]) == corrector.listed_near(["recieve"])  # its pages let go and read again
    assert Corrector.load(tiny_ckpt, settings=SMALL.with_(use_lexicon=False)).listed_near(["teh"]) is None


def test_the_shortlist_is_the_channels_best_one_edit_words_and_words_come_by_frequency(corrector):
    neighbours, s = corrector.neighbours, corrector.settings
    near = neighbours.one_edit(["teh"])[0]
    assert near == neighbours.one_edit_index.near("teh", 10**9, 1)
    short = neighbours.shortlist("teh", near)
    assert len(short) == s.shortlist and all(d == 1 for _, d in short)
    def channel(w):
        return s.prior_weight * corrector.lexicon.log_prior(w) - s.first_letter_weight * (w[0] != "t")

    assert [channel(w) for w, _ in short] == sorted((channel(w) for w, _ in short), reverse=True)
    assert min(channel(w) for w, _ in short) >= max(channel(w) for w in near if w not in dict(short))
    ordered = neighbours.by_frequency()
    counts = [corrector.lexicon.count(w) for w in ordered]
    assert sorted(ordered) == sorted(corrector.lexicon.counts) and counts == sorted(counts, reverse=True)


def test_two_edit_candidates_are_the_most_frequent_words_two_edits_away(tiny_ckpt):
    from typofix.words.distance import osa_distance

    # Every word gets the wide pass, where two-edit candidates join; no sound-alikes (the test below).
    wide = SMALL.with_(wide_margin=1e9, sound_candidates=0, phone_candidates=0)
    plain = Corrector.load(tiny_ckpt, settings=wide.with_(two_edit_candidates=0))
    more = Corrector.load(tiny_ckpt, settings=wide.with_(two_edit_candidates=3))
    lexicon = more.lexicon
    two_away = sorted((w for w in lexicon.counts if osa_distance("teh", w) == 2), key=lambda w: (-lexicon.count(w), w))
    found = {s.word for s in more.suggest("teh", 10_000)}
    added = found - {s.word for s in plain.suggest("teh", 10_000)}
    assert set(two_away[:3]) <= found
    assert added and added <= set(two_away[:3])


def test_one_edit_candidates_are_the_most_frequent_words_one_edit_away(tiny_ckpt):
    from typofix.words.distance import osa_distance

    wide = SMALL.with_(wide_margin=1e9, sound_candidates=0, phone_candidates=0, shortlist=0,  # the wide pass alone adds
                       wide_model_candidates=0)  # and the model scores all it adds
    none = Corrector.load(tiny_ckpt, settings=wide.with_(one_edit_candidates=0, two_edit_candidates=3))
    some = Corrector.load(tiny_ckpt, settings=wide.with_(one_edit_candidates=4, two_edit_candidates=3))
    every = Corrector.load(tiny_ckpt, settings=wide.with_(one_edit_candidates=10**6, two_edit_candidates=3))
    lexicon = some.lexicon
    one_away = sorted((w for w in lexicon.counts if osa_distance("teh", w) == 1), key=lambda w: (-lexicon.count(w), w))
    assert len(one_away) > 4

    def neighbours(corrector):
        return corrector.neighbours.wide(["teh"], corrector.settings.one_edit_candidates)[0]

    assert not [w for w, d in neighbours(none).items() if d == 1]
    assert [w for w, d in neighbours(some).items() if d == 1] == one_away[:4]
    assert sorted(w for w, d in neighbours(every).items() if d == 1) == sorted(one_away)
    # The two-edit words are the same, and never one edit away, whatever the limit.
    twos = [{w for w, d in neighbours(c).items() if d == 2} for c in (none, some, every)]
    assert twos[0] == twos[1] == twos[2] and all(osa_distance("teh", w) == 2 for w in twos[0])
    assert set(one_away) <= {s.word for s in every.suggest("teh", 10_000)}  # all scored, all offered


def test_the_wide_pass_takes_the_best_sound_alikes_the_edit_indexes_miss(tiny_ckpt):
    wide = SMALL.with_(wide_margin=1e9, phone_candidates=0)  # every word gets the wide pass, where sound candidates join
    without = Corrector.load(tiny_ckpt, settings=wide.with_(sound_candidates=0))
    with_them = Corrector.load(tiny_ckpt, settings=wide.with_(sound_candidates=10))
    found = {s.word for s in with_them.suggest("simerly", 10_000)}
    added = found - {s.word for s in without.suggest("simerly", 10_000)}
    # The ten best-sounding words that the one- and two-edit candidates do not already hold.
    sounds = with_them.neighbours.sound_index
    alike = sounds.near_many(["simerly"], 10, exclude=without.neighbours.wide(["simerly"]))[0]
    assert "similarly" in added and added <= set(alike)
    # A listed word is a real spelling even where no dictionary accepts it: no far-off sound-alikes for it.
    assert "subdirectories" in with_them.lexicon and "subdirectory" in sounds.near_many(["subdirectories"], 5)[0]
    assert with_them.neighbours.wide(["subdirectories"]) == without.neighbours.wide(["subdirectories"])
