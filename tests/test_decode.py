"""`typofix.nn.decode.greedy`, the torch decoder's own greedy loop, against the correction path's numpy search
and scoring on the same tiny model: the same words, the same log-probabilities."""

from __future__ import annotations

import pytest
import torch

from typofix.engine.scoring import forced_log_probs
from typofix.engine.search import beam_search
from typofix.nn.decode import greedy


def test_beam_of_width_one_is_greedy(tiny_model, tiny_stepper, tiny_batch):
    model, vocab = tiny_model
    found = greedy(model, *map(torch.from_numpy, tiny_batch))
    beams = beam_search(tiny_stepper, *tiny_batch, beam=1, alpha=0.0)  # raw scores: nothing after the first EOS can win
    assert [vocab.decode(row) for row in found.ids] == [vocab.decode(b[0].ids) for b in beams]
    assert torch.allclose(found.log_probs, torch.tensor([b[0].log_prob for b in beams]), atol=1e-4)


def test_forced_scores_agree_with_greedy(tiny_model, tiny_stepper, tiny_batch):
    model, _ = tiny_model
    found = greedy(model, *map(torch.from_numpy, tiny_batch))
    outputs = [[i for i in row.tolist() if i not in (model.eos_id, model.pad_id)] for row in found.ids]
    log_probs, _ = forced_log_probs(tiny_stepper, *tiny_batch, outputs)  # (B, T)
    assert log_probs.sum(axis=1).tolist() == pytest.approx(found.log_probs.tolist(), abs=1e-4)
