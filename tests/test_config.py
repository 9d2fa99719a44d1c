"""The Hydra tree composes, and every code default equals its YAML value (one source of truth per setting)."""

import inspect

import pytest
from omegaconf import OmegaConf

from conftest import compose_train_config
from typofix.training.data import TypoDataModule
from typofix.nn.model import Seq2Seq
from typofix.training.system import TypoCorrector


def defaults_of(callable_) -> dict:
    return {name: p.default for name, p in inspect.signature(callable_).parameters.items()
            if p.default is not inspect.Parameter.empty}


def yaml_values(node) -> dict:
    values = OmegaConf.to_container(node, resolve=False)
    values.pop("_target_")
    return {k: v for k, v in values.items() if not (isinstance(v, str) and v.startswith("${"))}


@pytest.mark.parametrize("group, target", [("model", TypoCorrector), ("data", TypoDataModule)])
def test_code_defaults_equal_yaml(group, target):
    cfg = compose_train_config()
    code = defaults_of(target)
    for key, value in yaml_values(cfg[group]).items():
        assert key in code, f"{group}.{key} is not a parameter of {target.__name__}"
        expected = list(code[key]) if isinstance(code[key], tuple) else code[key]
        if key == "typo_weights":
            from typofix.training.noise import DEFAULT_WEIGHTS
            expected = DEFAULT_WEIGHTS
        if key == "dev_sets":
            from typofix.training.data import DEFAULT_DEV_SETS
            expected = DEFAULT_DEV_SETS
        assert value == expected, f"{group}.{key}: yaml {value!r} != code {expected!r}"


def test_model_defaults_agree_with_the_system():
    system, model = defaults_of(TypoCorrector), defaults_of(Seq2Seq)
    for key, value in model.items():
        assert system[key] == value, key


@pytest.mark.parametrize("overrides", [[], ["experiment=tiny"], ["experiment=default"], ["trainer=cpu"],
                                       ["trainer=gpu"], ["trainer=ddp"], ["logger=tensorboard"]])
def test_every_group_option_composes(overrides):
    cfg = compose_train_config(*overrides, "run_dir=/tmp/x")
    assert cfg.trainer.gradient_clip_val > 0
    assert OmegaConf.to_container(cfg, resolve=True)


def test_tiny_recipe_overrides_the_defaults():
    cfg = compose_train_config("experiment=tiny", "run_dir=/tmp/x")
    assert cfg.data.epoch_size == 512 and cfg.model.enc_hidden_size == 32
    assert cfg.test_after_fit is False
