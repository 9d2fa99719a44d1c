"""`TorchStepper` (`typofix.nn.torch_stepper`): a torch `Seq2Seq` behind the search's stepper protocol, numpy in
and out; stepped through a target it gives the teacher-forced pass's log-probabilities and attention, and a new
batch's encoder memory replaces the last one's."""

from __future__ import annotations

import numpy as np
import torch

from conftest import TYPOS, word_batch
from typofix.nn.torch_stepper import TorchStepper

TARGETS = ["spelling", "receive", "the", "a", "accommodation", "definitely", "weird", "x"]


def stepped(stepper: TorchStepper, vocab, typos: list[str], targets: list[str]):
    """Each typo's target stepped in, SOS first: log-probabilities (B, T, V) and attention (B, T, S)."""
    src, src_len = word_batch(vocab, typos)
    tgt_in = np.full((len(targets), max(map(len, targets)) + 1), vocab.pad_id, dtype=np.int64)  # (B, T)
    for row, target in enumerate(targets):
        tgt_in[row, :len(target) + 1] = vocab.encode(target, add_sos=True)
    memory, state = stepper.encode(src, src_len)
    log_probs, attn = [], []
    for t in range(tgt_in.shape[1]):
        step_log_probs, state, step_attn = stepper.step(tgt_in[:, t], state, memory)  # (B, V), (B, S)
        log_probs.append(step_log_probs)
        attn.append(step_attn)
    return np.stack(log_probs, axis=1), np.stack(attn, axis=1), (src, src_len, tgt_in)


def test_stepping_a_target_is_the_teacher_forced_pass(tiny_model):
    model, vocab = tiny_model
    log_probs, attn, (src, src_len, tgt_in) = stepped(TorchStepper(model), vocab, TYPOS, TARGETS)
    with torch.no_grad():
        logits, expected_attn = model(*map(torch.from_numpy, (src, src_len, tgt_in)))  # (B, T, V), (B, T, S)
    np.testing.assert_allclose(log_probs, torch.log_softmax(logits, dim=-1).numpy(), atol=1e-5)
    np.testing.assert_allclose(attn, expected_attn.numpy(), atol=1e-6)


def test_a_new_batch_is_stepped_with_its_own_memory(tiny_model):
    """The stepper keeps the last memory it moved to its device; a batch of other words must not reuse it."""
    model, vocab = tiny_model
    reused = TorchStepper(model)
    stepped(reused, vocab, TYPOS, TARGETS)
    others, targets = ["wich", "thier", "bannana"], ["which", "their", "banana"]
    again, _, _ = stepped(reused, vocab, others, targets)
    fresh, _, _ = stepped(TorchStepper(model), vocab, others, targets)
    np.testing.assert_array_equal(again, fresh)
