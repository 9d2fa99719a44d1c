"""The training config's checks: every key of conf/ is checked against the signature that takes it (our classes
declare each key's type and range there, Lightning's are typed by their own annotations and checked by
Lightning), and a bad value or key on the command line is one line (key, value, what is expected), exit 2,
before anything is built and with no run folder left behind. The conf/ tree itself: every group option composes
and fits, and its YAML lists every tunable (Hydra overrides only the keys it has)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from conftest import compose_train_config
from typofix.training.config_schema import ConfigError, Leaf, check_arguments, did_you_mean, settings_of, validate
from typofix.training.data import TypoDataModule
from typofix.training.system import TypoCorrector

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "HYDRA_FULL_ERROR": "0"}


def values(*overrides: str) -> dict:
    cfg = compose_train_config(*overrides, "run_dir=/tmp/x")
    return OmegaConf.to_container(cfg, resolve=True)


@pytest.mark.parametrize("key, value, expected", [
    # Lightning's own arguments: the types its signature annotates
    ("trainer.max_epochs", "three", "trainer.max_epochs=three: expected an integer or null"),
    ("trainer.max_epochs", 1.5, "trainer.max_epochs=1.5: expected an integer or null"),
    ("trainer.precision", "17", "trainer.precision=17: expected one of 64, 32, 16, transformer-engine"),
    ("callbacks.lr_monitor.logging_interval", "hour",
     "callbacks.lr_monitor.logging_interval=hour: expected one of step, epoch or null"),
    ("callbacks.checkpoint.save_top_k", "all", "callbacks.checkpoint.save_top_k=all: expected an integer"),
    # ours: the type and range each signature declares
    ("data.batch_size", 12.5, "data.batch_size=12.5: expected an integer >= 1"),
    ("data.batch_size", "3", "data.batch_size=3: expected an integer >= 1"),  # a quoted '3' is a string: strict
    ("model.lr", float("nan"), "model.lr=nan: expected a number > 0"),  # not a number (inf is: test_train's lr=inf)
    ("seed", "abc", "seed=abc: expected an integer >= 0"),
    ("model.lr", -1, "model.lr=-1: expected a number > 0"),
    ("model.dropout", 1.0, "model.dropout=1.0: expected a number >= 0 and < 1"),
    ("model.attention", "bahdanau", "model.attention=bahdanau: expected one of additive, dot"),
    ("data.typo_weights.vowel", "abc", "data.typo_weights.vowel=abc: expected a number >= 0"),
    ("data.edit_count_probs", [0.5, -1],
     "data.edit_count_probs=[0.5, -1]: expected a non-empty list of numbers >= 0, summing to 1"),
    ("data.edit_count_probs", [0.5, 0.6], "data.edit_count_probs=[0.5, 0.6]: expected a non-empty list of numbers "
                                          ">= 0, summing to 1 (these sum to 1.1)"),
    ("data.edit_count_probs", [], "data.edit_count_probs=[]: expected a non-empty list"),
    ("data.typo_weights", {"vowel": 0.0}, "data.typo_weights={vowel: 0.0}: expected a mapping of names to numbers "
                                          ">= 0 or null, at least one > 0"),
    ("data.channel", "learned", "data.channel=learned: expected one of handset, fitted, mixed"),
    ("data.dev_sets.norvig", "", "data.dev_sets.norvig=: expected a non-empty string, a misspelling file (a path, or "
                                 "a file of data/eval/), or null"),
    ("test_after_fit", "yes", "test_after_fit=yes: expected true or false"),
    ("threads", 0, "threads=0: expected an integer >= 1 or null"),
    ("callbacks.attention_samples.every_n_epochs", 0,
     "callbacks.attention_samples.every_n_epochs=0: expected an integer >= 1"),
    ("callbacks.attention_samples.words", [], "callbacks.attention_samples.words=[]: expected a non-empty list of "
                                              "strings"),
    ("callbacks.embedding_snapshots.embedding", "both",
     "callbacks.embedding_snapshots.embedding=both: expected one of encoder, decoder"),
    ("model.val_set_names", ["a"], "model.val_set_names=[a]: not a config key (set by train.build"),
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
    with pytest.raises(ConfigError) as err:
        validate(cfg)
    assert str(err.value) == ("model.attention=dot, model.enc_hidden_size=128, model.dec_hidden_size=100: expected "
                              "dec_hidden_size = 2 x enc_hidden_size (the encoder's output size) for dot and "
                              "scaled_dot attention")
    cfg["model"].update(attention="multihead", dec_hidden_size=100, heads=3)
    with pytest.raises(ConfigError, match="heads dividing dec_hidden_size"):
        validate(cfg)
    cfg = values()
    cfg["data"].update(val_fraction=0.5, test_fraction=0.5)
    with pytest.raises(ConfigError, match=r"^data.val_fraction=0.5, data.test_fraction=0.5: expected a sum below 1$"):
        validate(cfg)
    cfg = values()
    cfg["data"].update(min_word_len=30)
    with pytest.raises(ConfigError, match="data.min_word_len=30, data.max_word_len=24: expected min_word_len <="):
        validate(cfg)


def test_a_missing_required_argument_is_named():
    cfg = values()
    del cfg["callbacks"]["early_stopping"]["monitor"]
    with pytest.raises(ConfigError, match=r"^callbacks.early_stopping.monitor: missing "
                                          r"\(lightning.pytorch.callbacks.EarlyStopping needs it\)$"):
        validate(cfg)


# --- the conf/ tree: every option composes, every key a declared parameter its value fits -------------------

@pytest.mark.parametrize("group, target", [("model", TypoCorrector), ("data", TypoDataModule)])
def test_every_yaml_key_is_a_declared_parameter_and_its_value_fits(group, target):
    cfg = compose_train_config("run_dir=/tmp/x")
    node = OmegaConf.to_container(cfg[group], resolve=True)
    settings = settings_of(target)
    assert node.pop("_target_") == f"{target.__module__}.{target.__name__}"
    for key, value in node.items():
        assert key in settings.params, f"{group}.{key} is not a parameter of {target.__name__}"
        assert settings.params[key].check.problem(f"{group}.{key}", value) is None
    # every tunable is a YAML key: what the config cannot set is marked so in the signature
    left_out = {n for n, s in settings.params.items() if s.given is None} - set(node)
    assert left_out == set(), f"parameters of {target.__name__} missing from conf/{group}/: {left_out}"


@pytest.mark.parametrize("overrides", [[], ["experiment=tiny"], ["experiment=default"], ["experiment=default_stage2"],
                                       ["experiment=default_stage3"], ["experiment=default_stage4"],
                                       ["experiment=default_stage5"], ["experiment=fast"], ["experiment=ablation"],
                                       ["trainer=cpu"], ["trainer=gpu"], ["trainer=ddp"], ["logger=tensorboard"]])
def test_every_group_option_composes_and_fits(overrides):
    cfg = compose_train_config(*overrides, "run_dir=/tmp/x")
    assert cfg.trainer.gradient_clip_val > 0
    validate(OmegaConf.to_container(cfg, resolve=True))


def test_tiny_recipe_overrides_the_defaults():
    cfg = compose_train_config("experiment=tiny", "run_dir=/tmp/x")
    assert cfg.data.epoch_size == 512 and cfg.model.enc_hidden_size == 32
    assert cfg.test_after_fit is False


# --- one declaration per key --------------------------------------------------------------------------------

OURS = ["typofix.training.data.TypoDataModule", "typofix.training.system.TypoCorrector",
        "typofix.training.callbacks.AttentionSamples", "typofix.training.callbacks.EmbeddingSnapshots"]


@pytest.mark.parametrize("target", OURS)
def test_every_parameter_of_our_targets_declares_its_type_and_its_defaults_fit(target):
    from typofix.training.config_schema import resolve

    cls = resolve(target)
    settings = settings_of(cls)
    untyped = [n for n, s in settings.params.items() if isinstance(s.check, Leaf) and s.check.expected == "anything"]
    assert untyped == [], f"{target}: parameters with no declared type: {untyped}"
    check_arguments(cls, settings.defaults)  # the code's own defaults are in range


def test_lightnings_arguments_are_typed_by_lightning():
    """Nothing in typofix restates a Lightning argument: its type comes from Lightning's own signature (so a
    Lightning upgrade that changes one is followed), its rules from Lightning (`check_with_lightning`)."""
    import lightning.pytorch as pl
    from lightning.pytorch.callbacks import EarlyStopping

    trainer = settings_of(pl.Trainer).params
    assert trainer["max_epochs"].check.expected == "an integer or null"
    assert trainer["deterministic"].check.problem("trainer.deterministic", "warn") is None
    assert trainer["deterministic"].check.problem("trainer.deterministic", "yes") is not None
    assert trainer["max_time"].check.problem("trainer.max_time", "00:00:07:50") is None
    assert settings_of(EarlyStopping).params["monitor"].required


@pytest.mark.parametrize("key, value, line", [
    ("trainer.max_epochs", -5, "trainer.max_epochs=-5: `max_epochs` must be a non-negative integer or -1. You passed "
                               "in -5."),
    ("callbacks.early_stopping.mode", "maximum", "callbacks.early_stopping.mode=maximum: `mode` can be min, max, "
                                                 "got maximum"),
    ("callbacks.checkpoint.save_top_k", -5, "callbacks.checkpoint.save_top_k=-5: Invalid value for save_top_k=-5. "
                                            "Must be >= -1"),
    ("trainer.devices", 0, "trainer.devices=0: `Trainer(devices=0)` value is not a valid input"),
])
def test_lightnings_own_rules_are_one_line_naming_the_key(key, value, line):
    from typofix.training.train import check_with_lightning

    cfg = OmegaConf.create(values())
    OmegaConf.update(cfg, key, value, merge=False)
    plain = OmegaConf.to_container(cfg)
    validate(plain)  # the types fit: the rule is Lightning's
    with pytest.raises(ConfigError) as err:
        check_with_lightning(plain)
    assert str(err.value).startswith(line)


def test_the_unknown_key_hint_suggests_only_what_works():
    from typofix.training.train import compose_checked

    tiny = ["experiment=tiny", "run_dir=/tmp/x"]
    with pytest.raises(ConfigError) as err:
        compose_checked([*tiny, "trainer.min_epochs=2"])
    assert str(err.value) == ("trainer.min_epochs=2: not in the config; +trainer.min_epochs=2 adds it (an argument "
                              "of lightning.pytorch.Trainer)")
    assert compose_checked([*tiny, "+trainer.min_epochs=2"]).trainer.min_epochs == 2  # it does
    with pytest.raises(ConfigError, match=r"^trainer.min_epoch=2: unknown key "
                                          r"\(did you mean \+trainer.min_epochs=2\?\)$"):
        compose_checked([*tiny, "trainer.min_epoch=2"])
    for line, message in [("foo=1", "foo=1: unknown key"),
                          ("trainer.nonsense=1", "trainer.nonsense=1: unknown key (lightning.pytorch.Trainer has no "
                                                 "argument nonsense)"),
                          ("model.val_set_names=[a]", "model.val_set_names=[a]: not a config key (set by train.build: "
                                                      "the datamodule's sets)"),
                          ("modle.emb_size=3", "modle.emb_size=3: unknown key (did you mean model.emb_size=3?)")]:
        with pytest.raises(ConfigError) as err:
            compose_checked([*tiny, line])
        assert str(err.value) == message
    with pytest.raises(ConfigError, match=r"^foo=1: unknown key$"):
        compose_checked([*tiny, "+foo=1"])  # so `+foo=1` is never suggested
    with pytest.raises(ConfigError, match="adds a callback"):
        compose_checked([*tiny, "callbacks.timer._target_=lightning.pytorch.callbacks.Timer"])
    cfg = compose_checked([*tiny, "+callbacks.timer._target_=lightning.pytorch.callbacks.Timer",
                           "+callbacks.timer.duration=00:00:01:00"])
    assert cfg.callbacks.timer.duration == "00:00:01:00"


def test_every_config_group_ships_with_the_package():
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    groups = [d.name for d in (ROOT / "conf").iterdir() if d.is_dir() and not d.name.startswith("_")]
    assert groups and all(f"typofix.conf.{g}" in packages for g in groups)


# --- through the real command: one line, exit 2, nothing built, no run folder -----------------------------------

BAD_COMMAND_LINES = [
    ("trainer.max_epochs=three", 2, "trainer.max_epochs=three: expected an integer or null"),
    ("trainer.max_epochs=1.5", 2, "trainer.max_epochs=1.5: expected an integer or null"),
    ("trainer.max_epochs=-5", 2, "trainer.max_epochs=-5: `max_epochs` must be a non-negative integer or -1. You "
                                 "passed in -5."),
    ("trainer.nonsense=1", 2, "trainer.nonsense=1: unknown key (lightning.pytorch.Trainer has no argument nonsense)"),
    ("data.batch_size=12.5", 2, "data.batch_size=12.5: expected an integer >= 1"),
    ("seed=abc", 2, "seed=abc: expected an integer >= 0 and <= 4294967295"),
    ("model.emb_size=0", 2, "model.emb_size=0: expected an integer >= 1"),
    ("model.lr=-1", 2, "model.lr=-1: expected a number > 0"),
    ("model.attention=foo", 2, "model.attention=foo: expected one of additive, dot, general, scaled_dot, multihead, "
                               "none"),
    ("data.typo_weights.vowel=abc", 2, "data.typo_weights.vowel=abc: expected a number >= 0"),
    ("data.edit_count_probs=[0.5,0.6]", 2, "data.edit_count_probs=[0.5, 0.6]: expected a non-empty list of numbers "
                                           ">= 0, summing to 1 (these sum to 1.1)"),
    ("data.channel=learned", 2, "data.channel=learned: expected one of handset, fitted, mixed"),
    ("model.enc_hiden_size=64", 2, "model.enc_hiden_size=64: unknown key (did you mean model.enc_hidden_size=64?)"),
    ("experiment=tinny", 2, "experiment=tinny: no such option (did you mean tiny?); experiment options: ablation, "
                            "default, default_stage2, default_stage3, default_stage4, default_stage5, default_stage6, fast, g2p, student, tiny"),
    ("ckpt_path=/tmp", 2, "ckpt_path=/tmp: a folder, not a checkpoint file (resume=<run folder> continues a run)"),
    ("ckpt_path=last", 2, "ckpt_path=last: no checkpoint to resume in a new run (resume=outputs/<run> continues a "
                          "run)"),
    ("resume=nowhere", 2, "resume=nowhere: no such run folder"),
]
# One of each way our own keys are refused runs in `make test` (a command costs seconds; Lightning's own checks,
# which import it first, cost more); all in `make test-all`.
QUICK = {"model.lr=-1", "model.enc_hiden_size=64", "experiment=tinny", "resume=nowhere"}


@pytest.mark.parametrize("override, status, line", [
    pytest.param(*row, marks=() if row[0] in QUICK else pytest.mark.slow) for row in BAD_COMMAND_LINES])
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
    assert ("experiment: ablation, default, default_stage2, default_stage3, default_stage4, default_stage5, "
            "default_stage6, fast, g2p, student, tiny") in done.stdout
    assert "resume=outputs/<run>" in done.stdout and "Common overrides" in done.stdout
    assert "powered by Hydra" not in done.stdout

