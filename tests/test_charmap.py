"""The character-embedding map as numbers (`typofix.insight.charmap`), shared by the plots and the explorer:
character classes, and the embeddings on their first two principal components."""

from __future__ import annotations

import numpy as np
import pytest

from typofix.insight.charmap import char_class, pca, project, unit_rows


def test_char_classes():
    assert [char_class(c) for c in ["a", "u", "y", "b", "'", "-", "</s>"]] == \
        ["vowel", "vowel", "consonant", "consonant", "other", "other", "other"]


def test_pca_finds_the_direction_of_a_line():
    t = np.linspace(-1, 1, 10)[:, None]
    points = t * np.array([[3.0, 4.0, 0.0]]) + 5.0
    mean, components, explained = pca(points)
    assert np.allclose(mean, [5, 5, 5])
    assert np.allclose(np.abs(components[0]), [0.6, 0.8, 0.0])
    assert explained[0] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="at least 2 rows"):
        pca(np.ones((1, 3)))
    _, components, explained = pca(np.array([[0.0], [1.0], [3.0]]))  # one dimension: the second axis is padding
    assert components.shape == (2, 1) and explained.tolist() == [1.0, 0.0]


def test_projected_points_keep_the_rows_order_and_normalising_ignores_their_lengths():
    rng = np.random.default_rng(0)
    symbols = list("abcdef")
    weights = rng.normal(size=(len(symbols), 5))
    scaled = weights * np.arange(1, len(symbols) + 1)[:, None]  # the same directions, other lengths
    points, explained = project(weights, symbols)
    assert points.shape == (len(symbols), 2) and 0 < explained[1] <= explained[0] <= 1
    assert np.allclose(project(scaled, symbols)[0], points)
    assert not np.allclose(project(scaled, symbols, normalize=False)[0], project(weights, symbols, normalize=False)[0])
    assert np.allclose(np.linalg.norm(unit_rows(weights), axis=1), 1.0)
    assert not unit_rows(np.zeros((2, 3))).any()  # a padding row stays zero
    with pytest.raises(ValueError, match="one row per symbol"):
        project(weights, symbols[:-1])
