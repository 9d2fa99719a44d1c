"""Our own config keys are checked from their declarations read in the source (typofix.training.declared), before
torch or Lightning is imported: what that reading finds must be exactly what importing the class finds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources

import pytest
import yaml

from typofix.training.config_schema import declared_settings, resolve, settings_of


def our_targets() -> set[str]:
    """Every `_target_` of ours that conf/ names."""
    found = set()

    def walk(node):
        if isinstance(node, dict):
            if str(node.get("_target_", "")).startswith("typofix."):
                found.add(node["_target_"])
            for value in node.values():
                walk(value)

    for path in resources.files("typofix.conf").rglob("*.yaml"):
        walk(yaml.safe_load(path.read_text()))
    return found


def test_conf_names_our_classes():
    assert {"typofix.training.system.TypoCorrector", "typofix.training.data.TypoDataModule",
            "typofix.training.pronouncer.Pronouncer"} <= our_targets()


@pytest.mark.parametrize("target", sorted(our_targets()))
def test_the_declaration_read_from_source_is_the_imported_one(target):
    imported = settings_of(resolve(target))
    read = declared_settings(target)
    if read is None:  # a class whose __init__ is Lightning's (AppendingCSVLogger): the full pass checks it
        assert resolve(target).__init__.__module__.startswith("lightning")
        return
    assert read.params.keys() == imported.params.keys()
    for name, setting in imported.params.items():
        ours = read.params[name]
        assert (ours.check.expected, ours.required, ours.given) == (setting.check.expected, setting.required,
                                                                    setting.given), name
    assert read.defaults == imported.defaults
    assert [(a.keys, a.expected) for a in read.agreements] == [(a.keys, a.expected) for a in imported.agreements]
    assert read.open == imported.open


CHECK = """
import json, sys
from typofix.training.config_schema import ConfigError
from typofix.training.train import compose_checked
for overrides in json.loads(sys.argv[1]):
    try:
        compose_checked(overrides)
        print("accepted")
    except ConfigError as err:
        print(err)
print(sorted(m for m in ("torch", "lightning", "torchmetrics") if m in sys.modules))
"""

REFUSED = {  # overrides -> the start of the one-line error
    ("model.enc_hidden_size=abc",): "model.enc_hidden_size=abc: expected an integer >= 1",
    ("model.attention=bahdanau",): "model.attention=bahdanau: expected one of additive, dot, general, scaled_dot, "
                                   "multihead, none",
    ("data.val_fraction=0.7", "data.test_fraction=0.4"): "data.val_fraction=0.7, data.test_fraction=0.4: expected a "
                                                         "sum below 1",
    ("data.dev_sets.birkbeck=missing.tsv",): "data.dev_sets.birkbeck=missing.tsv: expected a non-empty string, a "
                                             "misspelling file",
    ("experiment=g2p", "model.heads=0"): "model.heads=0: expected an integer >= 1",  # Pronouncer: TypoCorrector's
}


def test_our_keys_are_refused_before_torch_or_lightning_is_imported(tmp_path):
    done = subprocess.run([sys.executable, "-c", CHECK, json.dumps([list(o) for o in REFUSED])], capture_output=True,
                          text=True, timeout=300, cwd=tmp_path, env={**os.environ, "OMP_NUM_THREADS": "1"})
    *messages, imported = done.stdout.strip().splitlines()
    assert len(messages) == len(REFUSED), done.stderr[-3000:]
    for message, expected in zip(messages, REFUSED.values()):
        assert message.startswith(expected)
    assert imported == "[]"
