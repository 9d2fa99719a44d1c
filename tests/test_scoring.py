"""Scoring given outputs (`typofix.engine.scoring`) on a real tiny model: a candidate from outside the beam
gets the very score and attention the beam gave it, one by one or shared as a prefix trie."""

from __future__ import annotations

import math

import numpy as np
import pytest

from typofix.engine.scoring import forced_hypotheses, length_normalised, take_rows, take_steps, trie_hypotheses
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


class _CountingStepper:
    """A stepper that counts the decoder rows it runs."""

    def __init__(self, stepper):
        self.stepper, self.rows = stepper, 0
        self.pad_id, self.sos_id, self.eos_id = stepper.pad_id, stepper.sos_id, stepper.eos_id

    def encode(self, src, src_len):
        return self.stepper.encode(src, src_len)

    def step(self, y, state, memory):
        self.rows += len(y)
        return self.stepper.step(y, state, memory)


def test_the_trie_reuses_the_greedy_decodes_rows_for_the_same_scores(tiny_stepper, tiny_batch, tiny_model):
    """Outputs sharing the greedy answer's prefixes take those rows from its trail: the same scores (the same
    numbers, up to the runtime's batch-size rounding), fewer rows run; and so for some words of the batch."""
    _, vocab = tiny_model
    src, src_len = tiny_batch
    counting = _CountingStepper(tiny_stepper)
    encoded = counting.encode(src, src_len)
    trail = []
    greedy = beam_search(counting, None, src_len, beam=1, alpha=0.5, encoded=encoded, attention=False, trail=trail)
    answers = [hyps[0].ids for hyps in greedy]
    # each word's greedy answer with a letter changed at its end, another output and the empty one
    outputs = [[ids[:-1] + [vocab.encode("e")[0]], ids + ids[:1], vocab.encode("spell"), []] for ids in answers]
    counting.rows = 0
    plain = trie_hypotheses(counting, encoded, src_len, outputs, 0.5, attention=False)
    run_alone = counting.rows
    counting.rows = 0
    reused = trie_hypotheses(counting, encoded, src_len, outputs, 0.5, attention=False, known=trail)
    assert counting.rows < run_alone
    for want, got in zip(plain, reused):
        assert [h.ids for h in got] == [h.ids for h in want]
        assert [h.score for h in got] == pytest.approx([h.score for h in want], abs=1e-5)
    rows = np.array([2, 0])
    some = trie_hypotheses(counting, take_rows(encoded, rows), src_len[rows], [outputs[r] for r in rows], 0.5,
                           attention=False, known=take_steps(trail, rows, len(src_len)))
    for hyps, r in zip(some, rows):
        assert [h.score for h in hyps] == pytest.approx([h.score for h in plain[r]], abs=1e-5)
