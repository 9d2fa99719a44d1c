"""Greedy decoding in torch, for training and the benchmarks: batched, calling `Decoder.step`, the same step
training uses. The correction path's beam search and scoring live in `typofix.engine.search` (numpy, no torch)."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from typofix.nn.model import Seq2Seq
from typofix.words.text import max_output_length


@dataclass
class Greedy:
    """Batched greedy output: ids (B, T) ending at EOS then padding, summed log-probabilities (B,), and the
    attention weights (B, T, S) or None for a model without attention."""

    ids: torch.Tensor
    log_probs: torch.Tensor
    attn: torch.Tensor | None


@torch.no_grad()
def greedy(model: Seq2Seq, src: torch.Tensor, src_len: torch.Tensor, max_len: int | None = None) -> Greedy:
    """Pick the most likely character at every step, for the whole batch at once, until every row ends."""
    max_len = max_len or max_output_length(src_len)
    enc_out, keys, src_mask, state = model.encode(src, src_len)
    batch = src.size(0)
    y = torch.full((batch,), model.sos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(batch, dtype=torch.bool, device=src.device)
    total = torch.zeros(batch, device=src.device)
    ids, weights = [], []
    for _ in range(max_len):
        logits, state, step_weights = model.decoder.step(y, state, keys, enc_out, src_mask)
        log_probs = torch.log_softmax(logits.float(), dim=-1)  # (B, V)
        best, y = log_probs.max(dim=-1)  # (B,), (B,)
        total = total + best.masked_fill(done, 0.0)
        y = y.masked_fill(done, model.pad_id)
        ids.append(y)
        weights.append(step_weights)
        done = done | (y == model.eos_id)
        if bool(done.all()):
            break
    attn = None if weights[0] is None else torch.stack(weights, dim=1)  # (B, T, S)
    return Greedy(torch.stack(ids, dim=1), total, attn)  # ids (B, T)
