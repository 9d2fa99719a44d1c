"""Shared fixtures: one real tiny model, trained once per test session."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest


def pytest_configure(config):
    """Word-list indexes (typofix.words.indexcache) go to a folder of this session, for the tests and every command
    they run: never the user's ~/.cache, never an index left by an earlier run, and each built once a session."""
    config.typofix_cache = tempfile.mkdtemp(prefix="typofix-test-cache-")
    os.environ["TYPOFIX_CACHE_DIR"] = config.typofix_cache
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


def compose_train_config(*overrides: str):
    """The training config exactly as `typofix-train` composes it, with overrides (no Hydra run started)."""
    from hydra import compose, initialize_config_module

    with initialize_config_module(config_module="typofix.conf", version_base="1.3"):
        return compose(config_name="train", overrides=list(overrides))
