"""Scoring given outputs (`typofix.engine.scoring`) on a real tiny model: a candidate from outside the beam
gets the very score and attention the beam gave it, one by one or shared as a prefix trie."""

from __future__ import annotations

import math

import numpy as np
import pytest

from typofix.engine.scoring import forced_hypotheses, length_normalised, take_rows, trie_hypotheses
from typofix.engine.search import beam_search


def test_length_normalisation():
    assert length_normalised(-6.0, 3, 0.0) == -6.0
    assert length_normalised(-6.0, 3, 1.0) == -2.0
    assert math.isclose(length_normalised(-6.0, 4, 0.5), -3.0)


def test_forced_hypotheses_match_the_beams(tiny_stepper, tiny_batch):
    """A candidate scored from outside the beam gets the very score and attention the beam gave it."""
    src, src_len = tiny_batch
    beams = beam_search(tiny_stepper, src, src_len, beam=3, alpha=0.5)
    rows = [i for i, hyps in enumerate(beams) for _ in hyps]
    found = [h for hyps in beams for h in hyps]
    forced = forced_hypotheses(tiny_stepper, src[rows], src_len[rows], [h.ids for h in found], alpha=0.5)
    for beam_hyp, forced_hyp in zip(found, forced):
        assert forced_hyp.ids == beam_hyp.ids
        assert forced_hyp.score == pytest.approx(beam_hyp.score, abs=1e-4)
        assert np.allclose(forced_hyp.attn, beam_hyp.attn, atol=1e-5)


def test_trie_scoring_equals_scoring_each_output_alone(tiny_stepper, tiny_batch, tiny_model):
    """Outputs that share prefixes share decoder steps, and each still gets the score and attention it gets
    alone, from one encoding of its word."""
    _, vocab = tiny_model
    src, src_len = tiny_batch
    outputs = [[vocab.encode(w) for w in ("spelling", "spell", "spelt", "speling", "s")],
               [vocab.encode(w) for w in ("receive", "recieve", "relieve", "receive")], [],
               [vocab.encode("a"), []]]  # a repeated output, a word with none, the empty output (EOS at once)
    rows = [0, 1, 2, 3]
    encoded = tiny_stepper.encode(src, src_len)
    shared = trie_hypotheses(tiny_stepper, take_rows(encoded, rows), src_len[rows], outputs, 0.5)
    for row, (outs, hyps) in enumerate(zip(outputs, shared)):
        rows_of = [row] * len(outs)
        alone = forced_hypotheses(tiny_stepper, src[rows_of], src_len[rows_of], outs, 0.5) if outs else []
        assert [h.ids for h in hyps] == outs
        for got, want in zip(hyps, alone):
            assert got.score == pytest.approx(want.score, abs=1e-4)
            assert np.allclose(got.attn, want.attn, atol=1e-5)
    nothing = trie_hypotheses(tiny_stepper, take_rows(encoded, [0, 1]), src_len[[0, 1]], [[], []])
    assert nothing == [[], []]
