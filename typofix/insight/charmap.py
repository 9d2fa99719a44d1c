"""The character-embedding map as numbers: which class a character is in, and the embeddings projected on
their first two principal components. Pure numpy, so the web explorer (`typofix.apps.serve`) draws the same map as
`typofix.insight.plots` without importing matplotlib or torch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

VOWELS = frozenset("aeiou")


def char_class(symbol: str) -> str:
    """'vowel', 'consonant' or 'other' (y counts as a consonant: it is one in most of its positions)."""
    if symbol in VOWELS:
        return "vowel"
    return "consonant" if len(symbol) == 1 and symbol.isalpha() else "other"


def pca(weights) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean (E,), components (2, E), explained variance ratios (2,)) of the rows of `weights` (N, E)."""
    x = np.asarray(weights, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2:
        raise ValueError(f"need a 2-D matrix with at least 2 rows, got shape {x.shape}")
    mean = x.mean(axis=0)
    _, s, vt = np.linalg.svd(x - mean, full_matrices=False)
    variance = s**2
    explained = variance / variance.sum() if variance.sum() > 0 else np.zeros_like(variance)
    # Fewer than 2 dimensions (E == 1): pad, so callers always get two axes.
    components = np.zeros((2, x.shape[1]))
    components[: min(2, len(vt))] = vt[:2]
    return mean, components, np.pad(explained[:2], (0, max(0, 2 - len(explained))))


def unit_rows(weights: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1 (an all-zero row, e.g. padding, stays zero)."""
    return weights / np.maximum(np.linalg.norm(weights, axis=1, keepdims=True), 1e-12)


def check_rows(weights: np.ndarray, symbols: Sequence[str]) -> None:
    if weights.ndim != 2 or weights.shape[0] != len(symbols):
        raise ValueError(f"embedding matrix has shape {weights.shape}, expected one row per symbol ({len(symbols)})")


def project(weights, symbols: Sequence[str], normalize: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(points (N, 2), explained variance ratios (2,)): the embeddings (one row per symbol) on their first two
    principal components, every row scaled to unit length first when `normalize` (the map then shows which
    characters the model treats alike, not how often each was seen; see `plots.plot_embeddings`)."""
    weights = np.asarray(weights, dtype=float)
    check_rows(weights, symbols)
    if normalize:
        weights = unit_rows(weights)
    mean, components, explained = pca(weights)
    return (weights - mean) @ components.T, explained  # (N, E) @ (E, 2) -> (N, 2)
