"""Pure scoring functions for the benchmark: no I/O, no checkers.

Conventions shared by every function here:

* ``rows`` is a list of ``(typo, target)`` pairs, one per line of an eval TSV.
* ``predictions`` maps each typo to a checker's ranked candidates (best first).
  An empty list means the checker flagged the word but offered nothing; the
  word is then left as it was, so its top-1 is the typo itself.
* Rows are scored one by one. A typo that occurs with several targets (Birkbeck's
  ``a`` for ``and``, ``at``, ``the``, ...) keeps one row per target and the same
  prediction is scored against each: at most one of those rows can be right at
  top-1, and a row is right at top-k only if its own target is among the k.
  This keeps every denominator equal to the file's row count, as the eval
  README states ("a corrector can be right on at most one of them").
* Ties between candidates are not broken here: the order a checker returns is
  its ranking. Checkers whose own output is unordered are ranked by the adapter
  in ``bench/peers.py``, deterministically.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from typofix.words.distance import osa_distance  # the eval README's distance; pure Python, no torch

Rows = Sequence[tuple[str, str]]
Predictions = Mapping[str, Sequence[str]]

BUCKETS = ("1", "2", "3+")


def lowercase_candidates(candidates: Sequence[str]) -> list[str]:
    """Candidates lowercased, first occurrence kept.

    The eval sets are lowercase; Aspell and Hunspell suggest ``Kathy`` or
    ``DOT`` with their dictionary's capitals. The harness applies this to every
    checker alike, so a capitalised suggestion counts as its lowercase word.
    """
    return list(dict.fromkeys(c.lower() for c in candidates))


def top1(word: str, candidates: Sequence[str]) -> str:
    """The checker's correction of ``word``: its first candidate, or the word itself if it offers none."""
    return candidates[0] if candidates else word


def top_k_accuracy(rows: Rows, predictions: Predictions, k: int) -> float:
    """Share of rows whose target is among the first ``k`` candidates (k=1 is the correction itself)."""
    if not rows:
        return 0.0
    hits = sum(target in _first_k(typo, predictions[typo], k) for typo, target in rows)
    return hits / len(rows)


def _first_k(word: str, candidates: Sequence[str], k: int) -> list[str]:
    """The first ``k`` candidates, with the empty list read as 'left unchanged' like ``top1`` does."""
    return list(candidates[:k]) if candidates else [word]


def unchanged_share(rows: Rows, predictions: Predictions) -> float:
    """Share of rows whose correction is the typo itself (the checker accepted it or had nothing to offer)."""
    if not rows:
        return 0.0
    return sum(top1(typo, predictions[typo]) == typo for typo, _ in rows) / len(rows)


def changed_words(words: Sequence[str], predictions: Predictions) -> list[tuple[str, str]]:
    """The correct words a checker changed, as ``(word, correction)``: its false corrections."""
    return [(w, top1(w, predictions[w])) for w in words if top1(w, predictions[w]) != w]


def distance_bucket(distance: int) -> str:
    """The edit-distance bucket of a typo: ``"1"``, ``"2"`` or ``"3+"``.

    A distance of 0 (typo equal to its target, which the eval sets exclude)
    counts as ``"1"`` rather than failing on a hand-made TSV.
    """
    if distance <= 1:
        return "1"
    if distance == 2:
        return "2"
    return "3+"


def accuracy_by_bucket(rows: Rows, predictions: Predictions) -> dict[str, tuple[int, int]]:
    """Top-1 hits and row counts per edit-distance bucket of (typo, target): ``{bucket: (hits, rows)}``."""
    tally = {bucket: [0, 0] for bucket in BUCKETS}
    for typo, target in rows:
        cell = tally[distance_bucket(osa_distance(typo, target))]
        cell[0] += top1(typo, predictions[typo]) == target
        cell[1] += 1
    return {bucket: (hits, n) for bucket, (hits, n) in tally.items()}


@dataclass
class SetScore:
    """One checker's scores on one eval set, and how long its one batched call took."""

    checker: str
    set_name: str
    rows: int
    words: int  # distinct typos sent in the timed call
    seconds: float  # wall time of the call
    cpu_seconds: float  # CPU time of the call, child processes included
    top1: float
    top5: float
    unchanged: float
    by_bucket: dict[str, tuple[int, int]]

    @property
    def words_per_second(self) -> float:
        """Throughput of the timed call."""
        return self.words / self.seconds if self.seconds > 0 else float("inf")


def score_set(
    checker: str, set_name: str, rows: Rows, predictions: Predictions, seconds: float, cpu_seconds: float = 0.0
) -> SetScore:
    """Every per-set score of one checker from its predictions for the set's distinct typos."""
    return SetScore(
        checker=checker,
        set_name=set_name,
        rows=len(rows),
        words=len(predictions),
        seconds=seconds,
        cpu_seconds=cpu_seconds,
        top1=top_k_accuracy(rows, predictions, 1),
        top5=top_k_accuracy(rows, predictions, 5),
        unchanged=unchanged_share(rows, predictions),
        by_bucket=accuracy_by_bucket(rows, predictions),
    )


@dataclass
class FalseCorrections:
    """What one checker did to a sample of correct words: the ones it changed, with its corrections."""

    checker: str
    sample_name: str
    size: int
    changed: list[tuple[str, str]]


def score_correct_words(checker: str, sample_name: str, words: Sequence[str], predictions: Predictions) -> FalseCorrections:
    """Count the false corrections of one checker on a sample of correct words (duplicates count each time)."""
    return FalseCorrections(checker, sample_name, len(words), changed_words(words, predictions))
