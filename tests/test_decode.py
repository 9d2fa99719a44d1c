"""`typofix.nn.decode.greedy`, the torch decoder's own greedy loop, against the correction path's numpy search
and scoring on the same tiny model: the same words, the same log-probabilities."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from typofix.engine.scoring import forced_log_probs
from typofix.engine.search import beam_search
from typofix.nn.checkpoint import build_model, read_checkpoint
from typofix.nn.decode import greedy
from typofix.nn.torch_stepper import TorchStepper

WORDS = ["speling", "recieve", "teh", "a", "acommodation", "definately", "wierd", "x"]


@pytest.fixture(scope="module")
def model_vocab(tiny_ckpt):
    return build_model(read_checkpoint(tiny_ckpt))


@pytest.fixture(scope="module")
def stepper(model_vocab):
    return TorchStepper(model_vocab[0])


@pytest.fixture(scope="module")
def batch(model_vocab):
    """src (B, S), src_len (B,) as numpy arrays (the search's input)."""
    _, vocab = model_vocab
    src = np.full((len(WORDS), max(map(len, WORDS))), vocab.pad_id, dtype=np.int64)  # (B, S)
    for row, word in enumerate(WORDS):
        src[row, :len(word)] = vocab.encode(word)
    return src, np.array([len(w) for w in WORDS])


def test_beam_of_width_one_is_greedy(model_vocab, stepper, batch):
    model, vocab = model_vocab
    found = greedy(model, *map(torch.from_numpy, batch))
    beams = beam_search(stepper, *batch, beam=1, alpha=0.0)  # raw scores: nothing after the first EOS can win
    assert [vocab.decode(row) for row in found.ids] == [vocab.decode(b[0].ids) for b in beams]
    assert torch.allclose(found.log_probs, torch.tensor([b[0].log_prob for b in beams]), atol=1e-4)


def test_forced_scores_agree_with_greedy(model_vocab, stepper, batch):
    model, _ = model_vocab
    found = greedy(model, *map(torch.from_numpy, batch))
    outputs = [[i for i in row.tolist() if i not in (model.eos_id, model.pad_id)] for row in found.ids]
    log_probs, _ = forced_log_probs(stepper, *batch, outputs)  # (B, T)
    assert log_probs.sum(axis=1).tolist() == pytest.approx(found.log_probs.tolist(), abs=1e-4)
