"""The training config's schema: every key of conf/ is typed, and a bad value or key on the command line is one
line (key, value, what is expected), exit 2, before anything is built and with no run folder left behind."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from conftest import compose_train_config
from typofix.training.config_schema import ConfigError, did_you_mean, validate

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "HYDRA_FULL_ERROR": "0"}
OPTIONS = [[], ["experiment=tiny"], ["experiment=default"], ["experiment=default_stage2"], ["experiment=ablation"],
           ["trainer=cpu"], ["trainer=gpu"], ["trainer=ddp"], ["logger=tensorboard"]]


def values(*overrides: str) -> dict:
    cfg = compose_train_config(*overrides, "run_dir=/tmp/x")
    return OmegaConf.to_container(cfg, resolve=True)


@pytest.mark.parametrize("overrides", OPTIONS)
def test_every_key_of_every_option_has_a_type_and_its_value_fits(overrides):
    validate(values(*overrides))  # an untyped key would be "unknown": the schema covers all of conf/


@pytest.mark.parametrize("key, value, expected", [
    ("trainer.max_epochs", "three", "trainer.max_epochs=three: expected an integer >= -1"),
    ("trainer.max_epochs", 1.5, "trainer.max_epochs=1.5: expected an integer >= -1"),
    ("data.batch_size", 12.5, "data.batch_size=12.5: expected an integer >= 1"),
    ("seed", "abc", "seed=abc: expected an integer >= 0"),
    ("model.lr", -1, "model.lr=-1: expected a number > 0"),
    ("model.dropout", 1.0, "model.dropout=1.0: expected a number >= 0 and < 1"),
    ("model.attention", "bahdanau", "model.attention=bahdanau: expected one of additive, dot"),
    ("data.typo_weights.vowel", "abc", "data.typo_weights.vowel=abc: expected a number >= 0"),
    ("data.edit_count_probs", [0.5, -1], "data.edit_count_probs=[0.5, -1]: expected a list"),
    ("data.channel", "learned", "data.channel=learned: expected one of handset, fitted, mixed"),
    ("test_after_fit", "yes", "test_after_fit=yes: expected true or false"),
    ("callbacks.early_stopping.mode", "maximum", "callbacks.early_stopping.mode=maximum: expected one of min, max"),
])
def test_a_bad_value_names_key_value_and_expectation(key, value, expected):
    cfg = values()
    OmegaConf.update(cfg_node := OmegaConf.create(cfg), key, value, merge=False)
    with pytest.raises(ConfigError) as err:
        validate(OmegaConf.to_container(cfg_node))
    assert str(err.value).startswith(expected)


def test_unknown_keys_get_did_you_mean():
    cfg = values()
    cfg["model"]["enc_hiden_size"] = 64
    with pytest.raises(ConfigError, match=r"model.enc_hiden_size=64: unknown key \(did you mean enc_hidden_size\?\)"):
        validate(cfg)
    cfg = values()
    cfg["data"]["typo_weights"]["vowl"] = 1.0
    with pytest.raises(ConfigError, match=r"data.typo_weights.vowl=1.0: unknown key \(did you mean vowel\?\)"):
        validate(cfg)
    assert did_you_mean("xyzzy", ["seed", "alphabet"]) == ""


def test_a_callback_outside_the_schema_is_checked_against_its_signature():
    cfg = values()
    cfg["callbacks"]["timer"] = {"_target_": "lightning.pytorch.callbacks.Timer", "duration": "00:00:01:00"}
    validate(cfg)
    cfg["callbacks"]["timer"]["durations"] = 1
    with pytest.raises(ConfigError, match=r"callbacks.timer.durations=1: unknown key \(did you mean duration\?\)"):
        validate(cfg)


def test_keys_that_must_agree():
    cfg = values()
    cfg["model"].update(attention="dot", dec_hidden_size=100)
    with pytest.raises(ConfigError, match=r"model.dec_hidden_size=100: expected 2 x model.enc_hidden_size \(256\)"):
        validate(cfg)
    cfg = values()
    cfg["data"].update(val_fraction=0.5, test_fraction=0.5)
    with pytest.raises(ConfigError, match="expected a sum below 1"):
        validate(cfg)


def test_every_config_group_ships_with_the_package():
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    groups = [d.name for d in (ROOT / "conf").iterdir() if d.is_dir() and not d.name.startswith("_")]
    assert groups and all(f"typofix.conf.{g}" in packages for g in groups)


# --- through the real command: one line, exit 2, nothing built, no run folder -----------------------------------

@pytest.mark.parametrize("override, status, line", [
    ("trainer.max_epochs=three", 2, "trainer.max_epochs=three: expected an integer >= -1 (-1: no limit) or null"),
    ("trainer.max_epochs=1.5", 2, "trainer.max_epochs=1.5: expected an integer >= -1 (-1: no limit) or null"),
    ("data.batch_size=12.5", 2, "data.batch_size=12.5: expected an integer >= 1"),
    ("seed=abc", 2, "seed=abc: expected an integer >= 0 and <= 4294967295"),
    ("model.lr=-1", 2, "model.lr=-1: expected a number > 0"),
    ("data.typo_weights.vowel=abc", 2, "data.typo_weights.vowel=abc: expected a number >= 0"),
    ("data.channel=learned", 2, "data.channel=learned: expected one of handset, fitted, mixed"),
    ("model.enc_hiden_size=64", 2, "model.enc_hiden_size=64: unknown key (did you mean model.enc_hidden_size?)"),
    ("experiment=tinny", 2, "experiment=tinny: no such option (did you mean tiny?); experiment options: ablation, "
                            "default, default_stage2, default_stage3, default_stage4, default_stage5, fast, tiny"),
    ("ckpt_path=/tmp", 1, "ckpt_path=/tmp: a folder, not a checkpoint file (resume=<run folder> continues a run)"),
    ("ckpt_path=last", 1, "ckpt_path=last: no checkpoint to resume in a new run (resume=outputs/<run> continues a "
                          "run)"),
    ("resume=nowhere", 1, "resume=nowhere: no such run folder"),
])
def test_a_bad_command_line_is_one_line_and_leaves_no_run_folder(tmp_path, override, status, line):
    done = subprocess.run([sys.executable, "-m", "typofix.training.train", "experiment=tiny", "threads=1", override],
                          capture_output=True, text=True, env=ENV, timeout=120, cwd=tmp_path)
    assert done.returncode == status
    assert done.stderr.splitlines() == [f"typofix-train: error: {line}"]
    assert list(tmp_path.iterdir()) == []  # no outputs/<date>/<time>/


def test_help_says_what_the_command_does():
    done = subprocess.run([sys.executable, "-m", "typofix.training.train", "--help"], capture_output=True, text=True, env=ENV,
                          timeout=120)
    assert done.returncode == 0
    assert done.stdout.startswith("typofix-train: train typofix's spelling corrector")
    assert ("experiment: ablation, default, default_stage2, default_stage3, default_stage4, default_stage5, fast, "
            "tiny") in done.stdout
    assert "resume=outputs/<run>" in done.stdout and "Common overrides" in done.stdout
    assert "powered by Hydra" not in done.stdout


def test_the_attention_names_are_the_models():
    from typofix.training.config_schema import ATTENTION
    from typofix.nn.model import ATTENTION_KINDS

    assert ATTENTION == tuple(ATTENTION_KINDS)
