"""Scoring in `typofix.engine.evaluate`: its pure-Python character error rate (so evaluating with the ONNX model never
imports torch) must be the one torchmetrics computes during training."""

from __future__ import annotations

import random

import pytest
from torchmetrics.text import CharErrorRate

from typofix.engine.evaluate import char_error_rate


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
