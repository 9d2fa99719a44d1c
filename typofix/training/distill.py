"""Word-level knowledge distillation: a smaller student learns a trained teacher's next-letter distributions.

Kim & Rush (2016), "Sequence-Level Knowledge Distillation", section 3.1: besides the one right letter of each
target position, the student is taught the teacher's whole distribution over letters there, with the teacher fed
the same gold prefix (teacher forcing). The teacher's second and third choices carry what it learned about
which slips look alike (`recieve`: after `rec`, `i` and `e` both plausible), which a one-hot target cannot.

The teacher is frozen and never saved: it is not a submodule of the system, so checkpoints and exports hold the
student alone, and a student checkpoint loads anywhere without its teacher file.
"""

from __future__ import annotations

from pathlib import Path

import torch
import torch.nn.functional as F

from typofix.files.modelfile import ModelError
from typofix.nn.checkpoint import build_model, read_checkpoint


class Teacher:
    """A trained model file (an export or a checkpoint) whose soft targets a student learns from."""

    def __init__(self, path: str | Path, alphabet: str):
        checkpoint = read_checkpoint(path)
        if checkpoint.alphabet != alphabet:
            raise ModelError(f"teacher {path}: alphabet {checkpoint.alphabet!r} differs from the student's "
                             f"{alphabet!r}")
        self.model, _ = build_model(checkpoint, path)  # eval mode: no dropout in the targets
        self.model.requires_grad_(False)

    @torch.no_grad()
    def soft_targets(self, src, src_len, tgt_in) -> torch.Tensor:
        """The teacher's next-letter probabilities at every target position: (B, T, V), float32."""
        parameter = next(self.model.parameters())
        if parameter.device != src.device:
            self.model.to(src.device)  # the student's device, known only once the trainer has placed it
        logits, _ = self.model(src, src_len, tgt_in)  # (B, T, V)
        return logits.float().softmax(dim=-1)


def soft_cross_entropy(logits: torch.Tensor, targets: torch.Tensor, tgt_out: torch.Tensor, pad_id: int):
    """Mean over the real (non-padding) target positions of -sum_v q_v log p_v: logits (B, T, V) of the student,
    targets q (B, T, V) of the teacher, tgt_out (B, T) marking the padding."""
    real = (tgt_out != pad_id).float()  # (B, T)
    per_position = -(targets * F.log_softmax(logits.float(), dim=-1)).sum(dim=-1)  # (B, T)
    return (per_position * real).sum() / real.sum().clamp(min=1.0)
