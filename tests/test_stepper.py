"""The one way a search reaches a model (`typofix.engine.stepper`): `load_stepper` picks onnxruntime for an
ONNX export and torch for anything else, and every runtime keeps the `Stepper` contract: batch-first arrays,
log-probabilities, attention rows over the real characters, and rows the search may pick and repeat freely."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from conftest import TYPOS, word_batch
from typofix.engine.onnx_stepper import OnnxStepper
from typofix.engine.stepper import load_stepper
from typofix.files.modelfile import ModelError, bundled_model_path
from typofix.nn.torch_stepper import TorchStepper


@pytest.fixture(scope="module")
def tiny_files(tiny_ckpt, tiny_exports):
    """The tiny model as each kind of file, by suffix: the training checkpoint, the slim export, the ONNX export."""
    return {".ckpt": tiny_ckpt, ".pt": tiny_exports["slim"], ".onnxz": tiny_exports["onnx"]}


@pytest.mark.parametrize("suffix, runtime", [(".ckpt", TorchStepper), (".pt", TorchStepper), (".onnxz", OnnxStepper)])
def test_the_file_picks_the_runtime_and_every_runtime_keeps_the_contract(tiny_files, suffix, runtime):
    stepper, vocab = load_stepper(tiny_files[suffix])
    assert isinstance(stepper, runtime)
    assert (stepper.pad_id, stepper.sos_id, stepper.eos_id) == (vocab.pad_id, vocab.sos_id, vocab.eos_id)
    src, src_len = word_batch(vocab, TYPOS)  # (B, S), (B,)
    memory, state = stepper.encode(src, src_len)
    assert all(len(a) == len(TYPOS) for a in (*memory, *state))
    rows = np.array([2, 0, 0, 5])  # the search picks rows in any order and repeats them
    picked_memory, picked_state = tuple(m[rows] for m in memory), tuple(s[rows] for s in state)
    y = np.full(len(rows), stepper.sos_id, dtype=np.int64)
    log_probs, after, attn = stepper.step(y, picked_state, picked_memory)  # (N, V), 2 x (N, D), (N, S)
    assert log_probs.shape == (len(rows), len(vocab)) and all(len(s) == len(rows) for s in after)
    np.testing.assert_allclose(np.exp(log_probs).sum(axis=1), 1.0, atol=1e-4)
    np.testing.assert_allclose(attn.sum(axis=1), 1.0, atol=1e-4)
    padding = np.arange(src.shape[1])[None, :] >= src_len[rows][:, None]  # (N, S)
    assert not attn[padding].any()  # no weight past a word's end
    alone, _, _ = stepper.step(y[:1], tuple(s[[2]] for s in state), tuple(m[[2]] for m in memory))
    np.testing.assert_allclose(log_probs[0], alone[0], atol=1e-5)  # a row's step is its own
    np.testing.assert_allclose(log_probs[1], log_probs[2], atol=1e-6)


def test_no_file_is_the_bundled_model_and_a_bad_request_is_a_model_error(tiny_files, tmp_path):
    with pytest.raises(ModelError, match="not found"):
        load_stepper(tmp_path / "missing.onnxz")
    with pytest.raises(ModelError, match="CPU only"):
        load_stepper(tiny_files[".onnxz"], device="cuda")
    with pytest.raises(ModelError, match="no bundled model 'huge'"):
        load_stepper(None, bundled="huge")


@pytest.mark.skipif(not bundled_model_path().is_file(), reason="the bundled torch model is not exported yet")
def test_without_onnxruntime_the_bundled_model_runs_on_torch(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # what an uninstalled package looks like to import
    stepper, vocab = load_stepper()
    assert isinstance(stepper, TorchStepper) and vocab.alphabet
