"""Shared fixtures and helpers: one real tiny model, trained once per test session, its exports and its stepper;
untrained small models of any attention kind; the padded batch a search takes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

# The typos the tiny model's search, scoring and stepper tests decode: one to twelve letters, and "a", a word.
TYPOS = ["speling", "recieve", "teh", "a", "acommodation", "definately", "wierd", "x"]


_SESSION_CACHE = "TYPOFIX_TEST_SESSION_CACHE"  # the controller's index folder, handed to its xdist workers


def pytest_configure(config):
    """Word-list indexes (typofix.words.indexcache) go to a folder of this session, for the tests and every command
    they run: never the user's ~/.cache, never an index left by an earlier run, and each built once a session. The
    xdist workers share the controller's folder (the cache writes each index under a temporary name and renames
    it into place, so processes may fill it together): building the indexes cold costs seconds a process."""
    shared = os.environ.get(_SESSION_CACHE) if hasattr(config, "workerinput") else None
    if shared and os.path.isdir(shared):
        os.environ["TYPOFIX_CACHE_DIR"] = shared  # the controller removes it at the end
    else:
        config.typofix_cache = tempfile.mkdtemp(prefix="typofix-test-cache-")
        os.environ["TYPOFIX_CACHE_DIR"] = os.environ[_SESSION_CACHE] = config.typofix_cache
    # Nor the user's personal word list: every command sees an empty config folder unless a test sets its own.
    config.typofix_config = tempfile.mkdtemp(prefix="typofix-test-config-")
    os.environ["XDG_CONFIG_HOME"] = config.typofix_config


def pytest_unconfigure(config):
    shutil.rmtree(getattr(config, "typofix_cache", ""), ignore_errors=True)
    shutil.rmtree(getattr(config, "typofix_config", ""), ignore_errors=True)


@pytest.fixture(scope="session")
def tiny_ckpt(tmp_path_factory) -> Path:
    """Path of the last.ckpt of `typofix-train experiment=tiny` (a few seconds on a CPU), run as a subprocess so
    Hydra's global state never leaks into the tests."""
    run_dir = tmp_path_factory.mktemp("tiny_run")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-m", "typofix.training.train", "experiment=tiny", f"hydra.run.dir={run_dir}",
                           "threads=1"],
                          capture_output=True, text=True, env=env, timeout=600)
    ckpt = run_dir / "checkpoints" / "last.ckpt"
    if done.returncode != 0 or not ckpt.is_file():
        pytest.fail(f"tiny training failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return ckpt


@pytest.fixture(scope="session")
def tiny_exports(tiny_ckpt, tmp_path_factory) -> dict[str, Path]:
    """The tiny model exported as the bundled models are (`typofix export`, float16 weights): "slim", the torch
    file (.pt), and "onnx", the ONNX export (.onnxz)."""
    from typofix.training.export import export

    folder = tmp_path_factory.mktemp("tiny_exports")
    exports = {"slim": folder / "tiny.pt", "onnx": folder / "tiny.onnxz"}
    for path in exports.values():
        export(tiny_ckpt, path)
    return exports


@pytest.fixture(scope="session")
def tiny_model(tiny_ckpt):
    """(Seq2Seq, Vocab) of the tiny checkpoint, in eval mode."""
    from typofix.nn.checkpoint import build_model, read_checkpoint

    return build_model(read_checkpoint(tiny_ckpt))


@pytest.fixture(scope="session")
def tiny_stepper(tiny_model):
    """The tiny model behind the search's stepper protocol (`typofix.nn.torch_stepper.TorchStepper`)."""
    from typofix.nn.torch_stepper import TorchStepper

    return TorchStepper(tiny_model[0])


@pytest.fixture(scope="session")
def tiny_batch(tiny_model):
    """`word_batch` of TYPOS in the tiny model's vocabulary."""
    return word_batch(tiny_model[1], TYPOS)


def word_batch(vocab, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """src (B, S) and src_len (B,) of `words`, in their order, padded: what the search and a stepper take."""
    src = np.full((len(words), max(map(len, words))), vocab.pad_id, dtype=np.int64)  # (B, S)
    for row, word in enumerate(words):
        src[row, :len(word)] = vocab.encode(word)
    return src, np.array([len(w) for w in words])


def random_checkpoint(path: Path, attention: str) -> Path:
    """A Lightning-style checkpoint of an untrained small model of one attention kind, its weights rounded to
    float16 so that the fp16 export carries exactly the torch model's weights."""
    import torch

    from typofix.nn.model import Seq2Seq
    from typofix.words.vocab import Vocab

    torch.manual_seed(0)
    vocab = Vocab()
    hparams = {"emb_size": 16, "enc_hidden_size": 16, "enc_layers": 2, "dec_hidden_size": 32, "attn_size": 16,
               "attention": attention, "heads": 2, "dropout": 0.3}
    model = Seq2Seq.from_hparams(hparams, len(vocab), vocab.pad_id, vocab.sos_id, vocab.eos_id)
    state = {f"model.{k}": v.half().float() for k, v in model.state_dict().items()}
    torch.save({"hyper_parameters": {**hparams, "alphabet": vocab.alphabet}, "state_dict": state}, path)
    return path


def compose_train_config(*overrides: str):
    """The training config exactly as `typofix-train` composes it, with overrides (no Hydra run started)."""
    from hydra import compose, initialize_config_module

    with initialize_config_module(config_module="typofix.conf", version_base="1.3"):
        return compose(config_name="train", overrides=list(overrides))
