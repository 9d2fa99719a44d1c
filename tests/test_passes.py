"""The two passes and the confidence rule (`typofix.engine.passes`): the rule leaves unsure words, the gate
sends only uncertain words wide, and where the cheap pass is sure the wide search agrees."""

from __future__ import annotations

import pytest

from typofix.engine.corrector import Corrector
from typofix.engine.settings import DecodingSettings

SMALL = DecodingSettings(beam=3)


def test_the_confidence_rule_leaves_unsure_words(tiny_ckpt):
    sure = Corrector.load(tiny_ckpt, settings=SMALL.with_(min_confidence=1e9))
    assert sure.correct_many(["speling", "recieve"]) == ["speling", "recieve"]  # nothing is that sure
    eager = Corrector.load(tiny_ckpt, settings=SMALL.with_(min_confidence=-1e9))
    assert "speling" not in eager.correct("speling")


@pytest.mark.acceptance
def test_where_the_cheap_pass_is_sure_the_wide_search_agrees():
    """The gate sends a word to the wide search only when its cheap answer is uncertain; on dev words the cheap
    pass judged sure, the wide search must (nearly always) give the same answer, or the gate is skipping work
    that matters. Measured with the defaults on the bundled model: 229 of 261 norvig-testset1 typos judged
    sure (kept in the cheap pass), 221 of them agreeing (96%)."""
    from typofix.files.modelfile import bundled_onnx_path

    if not bundled_onnx_path().is_file():
        pytest.skip("no bundled model")
    typos = [line.split("\t")[0] for line in open("data/eval/norvig-testset1.tsv", encoding="utf-8") if line.strip()]
    cheap = Corrector.load(settings=DecodingSettings(beam=1))
    wide = Corrector.load(settings=DecodingSettings(wide_margin=1e9))  # every word gets the wide search
    todo = [t for t in typos if not cheap.is_accepted(t)]
    traces = cheap.trace(todo)
    sure = [t for t in todo if traces[t].wide is None]  # the gate kept them in the cheap pass
    agree = sum(a == b for a, b in zip(cheap.correct_many(sure), wide.correct_many(sure)))
    assert len(sure) >= 0.6 * len(todo) and agree >= 0.93 * len(sure)


def test_the_gate_sends_exactly_the_uncertain_words_wide(tiny_ckpt):
    """A word goes wide when its best correction clears the confidence rule by less than `wide_margin`, on the
    cheap pass's own scores."""
    words = ["speling", "recieve", "teh", "wierd", "acommodate", "definately", "goverment", "thier"]
    for margin in (0.5, 2.0, 8.0):
        corrector = Corrector.load(tiny_ckpt, settings=DecodingSettings(wide_margin=margin))
        s = corrector.settings
        for word, trace in corrector.trace(words).items():
            keep = trace.cheap[word].score
            best = max((c.score for w, c in trace.cheap.items() if w != word), default=None)
            uncertain = best is None or best - keep - s.min_confidence < margin
            assert (trace.wide is not None) == uncertain, (word, margin)


def test_the_wide_pass_scores_with_the_model_only_the_neighbours_it_keeps(tiny_ckpt):
    """`wide_model_candidates`: each uncertain word's wide pass adds at most that many model-scored words more
    than two edits away to the cheap pass's (beam 1: the neighbours are all it adds), every nearer one, and
    with 0 all of them."""
    from typofix.words.distance import osa_distance

    words = ["speling", "recieve", "wierd", "acommodate", "definately", "goverment", "thier"]
    everything = DecodingSettings(wide_margin=1e9)  # every word goes wide
    added, far = {}, {}
    for n in (0, 2):
        corrector = Corrector.load(tiny_ckpt, settings=everything.with_(wide_model_candidates=n))
        added[n] = {w: set(t.wide) - set(t.cheap) for w, t in corrector.trace(words).items()}
        far[n] = {w: {c for c in found if osa_distance(w, c) > 2} for w, found in added[n].items()}
    assert all(len(found) <= 2 for found in far[2].values())
    assert all(added[2][w] <= added[0][w] and added[0][w] - far[0][w] <= added[2][w] for w in words)
    assert any(len(found) > 2 for found in far[0].values())  # else the limit was never put to the test


def test_without_cheap_phones_only_the_words_that_go_wide_are_heard(tiny_ckpt):
    """`cheap_phones` off: a word the cheap pass is sure of never runs the letter-to-phone model."""
    cheap_only = DecodingSettings(wide_margin=0, wide_min_edits=0)
    heard = Corrector.load(tiny_ckpt, settings=cheap_only)
    deaf = Corrector.load(tiny_ckpt, settings=cheap_only.with_(cheap_phones=False))
    for corrector in (heard, deaf):
        corrector.correct_many(["speling", "recieve", "wierd"])
    assert heard.sounds._pronouncer is not None and deaf.sounds._pronouncer is None
