"""A model file's character embeddings, whatever kind of file it is: what `typofix plot-embeddings` draws and
the explorer maps. An ONNX export stores its encoder's table beside the graphs (read without torch); the
decoder's table, and any table of a .pt / .ckpt model, is read through torch."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from typofix.files.modelfile import ModelError

KINDS = ("encoder", "decoder")


def read_embeddings(path: Path, kind: str = "encoder") -> tuple[dict, str, np.ndarray | None]:
    """(the model's hyperparameters, its alphabet, the `kind` embedding matrix (V, E) as stored, or None for a
    file exported before ONNX exports stored it)."""
    if kind not in KINDS:
        raise ValueError(f"embedding must be one of {', '.join(KINDS)}, got {kind!r}")
    if path.suffix == ".onnxz":
        if kind != "encoder":
            raise ModelError(f"{path}: an ONNX export stores the encoder's embeddings only; give the .pt or .ckpt "
                             f"model for the {kind}'s")
        from typofix.engine.onnx_stepper import read_embeddings as read_onnx

        meta, matrix = read_onnx(path)
        return dict(meta.get("hparams") or {}), meta["alphabet"], matrix
    from typofix.nn.checkpoint import read_checkpoint

    source = read_checkpoint(path)
    weight = source.state_dict.get(f"{kind}.embedding.weight")
    return source.hparams, source.alphabet, None if weight is None else weight.float().numpy()
