"""The Hydra tree composes, and its values fit the one declaration of each key: the signature of the code that
takes it (typofix.training.config_schema derives the check from there). The YAML lists every tunable, since
Hydra overrides only the keys it has; what it may hold is not restated anywhere else."""

import inspect

import pytest
from omegaconf import OmegaConf

from conftest import compose_train_config
from typofix.nn.model import Seq2Seq
from typofix.training.config_schema import settings_of, validate
from typofix.training.data import TypoDataModule
from typofix.training.system import TypoCorrector


def defaults_of(callable_) -> dict:
    return {name: p.default for name, p in inspect.signature(callable_).parameters.items()
            if p.default is not inspect.Parameter.empty}


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


def test_model_defaults_agree_with_the_system():
    system, model = defaults_of(TypoCorrector), defaults_of(Seq2Seq)
    for key, value in model.items():
        assert system[key] == value, key


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
