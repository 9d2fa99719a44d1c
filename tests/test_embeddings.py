"""A model file's character embeddings, whatever the kind of file (`typofix.insight.embeddings`): an ONNX export's
encoder table read without torch, either table of a torch model, and a one-line error for what a file lacks."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from typofix.engine.onnx_stepper import EMBEDDINGS
from typofix.files.modelfile import ModelError
from typofix.insight.embeddings import read_embeddings
from typofix.nn.checkpoint import read_checkpoint
from typofix.words.vocab import Vocab


def test_every_kind_of_file_gives_the_models_own_table(tiny_ckpt, tiny_exports):
    weights = read_checkpoint(tiny_ckpt).state_dict
    for kind in ("encoder", "decoder"):
        hparams, alphabet, matrix = read_embeddings(tiny_ckpt, kind)
        np.testing.assert_array_equal(matrix, weights[f"{kind}.embedding.weight"].numpy())
        assert matrix.shape == (len(Vocab(alphabet)), hparams["emb_size"])  # (V, E): a row per symbol
    hparams, alphabet, matrix = read_embeddings(tiny_exports["onnx"])  # read without torch, as stored: float16
    assert hparams["emb_size"] == matrix.shape[1] and alphabet == read_checkpoint(tiny_ckpt).alphabet
    np.testing.assert_array_equal(matrix, weights["encoder.embedding.weight"].half().numpy())


def test_what_a_file_lacks_is_said_in_one_line(tiny_exports, tmp_path):
    with pytest.raises(ModelError, match="encoder's embeddings only"):
        read_embeddings(tiny_exports["onnx"], "decoder")
    with pytest.raises(ValueError, match="embedding must be one of encoder, decoder"):
        read_embeddings(tiny_exports["onnx"], "output")
    older = tmp_path / "older.onnxz"  # exported before the table was stored beside the graphs
    with zipfile.ZipFile(tiny_exports["onnx"]) as source, zipfile.ZipFile(older, "w") as target:
        for name in source.namelist():
            if name != EMBEDDINGS:
                target.writestr(name, source.read(name))
    assert read_embeddings(older)[2] is None
