"""Scoring in `typofix.engine.evaluate`: its pure-Python character error rate (so evaluating with the ONNX model never
imports torch) must be the one torchmetrics computes during training; and, as acceptance checks of the bundled
models, their top-1 and top-5 on the dev sets."""

from __future__ import annotations

import random

import pytest
from torchmetrics.text import CharErrorRate

from typofix.engine.corrector import Corrector
from typofix.engine.evaluate import char_error_rate, evaluate
from typofix.files.misspellings import read_misspellings
from typofix.files.modelfile import bundled_int8_path
from typofix.files.packagedata import packaged

# What `typofix evaluate` gives on each dev set (README, "Correct"; --fast beside it), less 1.5 points for a few
# close calls: a change to the engine or the models that costs more than that fails here. (preset, set): floors.
FLOORS = {("default", "norvig-testset1.tsv"): (0.86, 0.947), ("default", "birkbeck-dev.tsv"): (0.485, 0.62),
          ("fast", "norvig-testset1.tsv"): (0.845, 0.91), ("fast", "birkbeck-dev.tsv"): (0.446, 0.543)}


def random_word(rng: random.Random) -> str:
    return "".join(rng.choice("abcde") for _ in range(rng.randint(0, 9)))


@pytest.mark.parametrize("seed", range(5))
def test_char_error_rate_equals_torchmetrics(seed):
    rng = random.Random(seed)
    targets = [random_word(rng) or "x" for _ in range(200)]
    outputs = [random_word(rng) for _ in range(200)]
    assert char_error_rate(outputs, targets) == pytest.approx(float(CharErrorRate()(outputs, targets)), rel=1e-6)


def test_char_error_rate_counts_a_swap_as_two_edits():
    assert char_error_rate(["teh"], ["the"]) == pytest.approx(2 / 3)
    assert char_error_rate(["the"], ["the"]) == 0.0


@pytest.mark.acceptance
@pytest.mark.skipif(not (bundled_int8_path().is_file() and bundled_int8_path("fast").is_file()),
                    reason="the bundled models are not exported yet")
@pytest.mark.parametrize("preset, name", sorted(FLOORS))
def test_the_bundled_models_correct_the_dev_sets(preset, name):
    report = evaluate(Corrector.load(fast=preset == "fast"), read_misspellings(packaged("eval", name)), k=5)
    top1, top5 = FLOORS[preset, name]
    assert report.top1 >= top1 and report.topk >= top5, (report.top1, report.topk)
