"""A trained model seen one decoder step at a time (`Stepper`), and `load_stepper`, which picks the runtime
for a model file: onnxruntime for an ONNX export (.onnxz, the bundled default, so correcting never imports
torch), torch for anything else (a slim export, a training checkpoint; `typofix.nn.torch_stepper`, imported
only then). Search and scoring reach a model through this protocol alone.
Shapes: B words, S source length, N decoder rows (any mix of words), V vocabulary, D decoder width.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import numpy as np

from typofix.files.modelfile import ModelError, resolve_model
from typofix.words.vocab import Vocab

Arrays = tuple[np.ndarray, ...]


class Stepper(Protocol):
    """A trained encoder-decoder seen one decoder step at a time (what `Decoder.step` is to `Seq2Seq`).

    `encode(src (B, S) int64, src_len (B,) int64) -> (memory, state)`: `memory` the arrays the decoder reads
    but never changes (batch first: enc_out, attention keys, src_mask), `state` the decoder's arrays (h, c)
    (B, D). `step(y (N,) int64, state, memory) -> (log_probs (N, V) float32, state, attn (N, S) or None)`,
    where every array of `state` and `memory` has N rows: the search picks and repeats rows freely."""

    pad_id: int
    sos_id: int
    eos_id: int

    def encode(self, src: np.ndarray, src_len: np.ndarray) -> tuple[Arrays, Arrays]: ...

    def step(self, y: np.ndarray, state: Arrays, memory: Arrays) -> tuple[np.ndarray, Arrays, np.ndarray | None]: ...


def length_batches(words: list[str], vocab: Vocab, size: int):
    """`words` in batches of `size` of similar length (padding costs as much as characters), as a model reads
    them: (words, src (B, S), src_len (B,)), shortest first, each batch padded to its longest word."""
    ordered = sorted(words, key=len)
    for start in range(0, len(ordered), size):
        chunk = ordered[start:start + size]
        src = np.full((len(chunk), len(chunk[-1])), vocab.pad_id, dtype=np.int64)  # (B, S), longest last
        for row, word in enumerate(chunk):
            src[row, :len(word)] = vocab.encode(word)
        yield chunk, src, np.array([len(w) for w in chunk], dtype=np.int64)


def load_stepper(path: str | Path | None = None, device: str = "cpu", bundled: str = "default",
                 when_needed: bool = False) -> tuple[Stepper, Vocab]:
    """The stepper and vocabulary of the model at `path` (None: the bundled model named `bundled`, as
    `typofix.files.modelfile.resolve_model` picks it): a .onnxz file runs on onnxruntime, anything else (a
    slim export, a training checkpoint) on torch. `when_needed`: an ONNX model's runtime is started on its
    first call (`OnnxStepper`)."""
    path = resolve_model(path, bundled, onnx=device == "cpu")
    if path.suffix == ".onnxz":
        if device != "cpu":
            raise ModelError(f"{path}: an ONNX model runs on the CPU only; give a .pt model for device {device!r}")
        from typofix.engine.onnx_stepper import OnnxStepper

        return OnnxStepper.load(path, when_needed)
    try:
        from typofix.nn.torch_stepper import TorchStepper
    except ImportError as err:
        raise ModelError(f"{path}: a torch model needs torch ({err}); or give a .onnxz model") from None
    return TorchStepper.load(path, device)
