"""`TorchStepper`: a torch `Seq2Seq` behind `search.Stepper`, numpy arrays in and out, so the one beam search
in `typofix.engine.search` also runs on torch models (training checkpoints, slim exports, a GPU)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from typofix.nn.checkpoint import build_model, read_checkpoint
from typofix.nn.model import Seq2Seq
from typofix.words.vocab import Vocab


class TorchStepper:
    """Runs `Seq2Seq.encode` and `Decoder.step` without gradients on `device`; see `search.Stepper`."""

    def __init__(self, model: Seq2Seq, device: str | torch.device = "cpu"):
        self.model = model.to(device).eval()
        self.device = torch.device(device)
        self.pad_id, self.sos_id, self.eos_id = model.pad_id, model.sos_id, model.eos_id
        self._memory: tuple = (None, None)  # (the numpy memory last stepped with, its tensors on `device`)

    @classmethod
    def load(cls, path: str | Path, device: str = "cpu") -> tuple["TorchStepper", Vocab]:
        """The stepper and vocabulary of a slim export or a training checkpoint (ModelError if unreadable)."""
        model, vocab = build_model(read_checkpoint(path), path)
        return cls(model, device), vocab

    def _in(self, array: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(array)).to(self.device)

    @staticmethod
    def _out(tensor: torch.Tensor) -> np.ndarray:
        return tensor.cpu().numpy()

    @torch.no_grad()
    def encode(self, src: np.ndarray, src_len: np.ndarray):
        # src_len stays on the CPU: packing wants its lengths there.
        enc_out, keys, src_mask, (h, c) = self.model.encode(self._in(src), torch.from_numpy(np.asarray(src_len)))
        return tuple(self._out(x) for x in (enc_out, keys, src_mask)), (self._out(h), self._out(c))

    def _memory_tensors(self, memory) -> tuple[torch.Tensor, ...]:
        # The search passes the same memory to every step until its batch shrinks: moving it to the device once
        # per batch, not once per step, is what keeps a GPU from copying every encoder state at every character.
        if self._memory[0] is not memory:
            self._memory = (memory, tuple(self._in(m) for m in memory))
        return self._memory[1]

    @torch.no_grad()
    def step(self, y: np.ndarray, state, memory):
        enc_out, keys, src_mask = self._memory_tensors(memory)
        logits, (h, c), weights = self.model.decoder.step(self._in(y), tuple(self._in(s) for s in state), keys,
                                                          enc_out, src_mask)
        log_probs = torch.log_softmax(logits.float(), dim=-1)  # (N, V)
        return self._out(log_probs), (self._out(h), self._out(c)), None if weights is None else self._out(weights)
