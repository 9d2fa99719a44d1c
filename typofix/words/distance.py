"""Edit distance between two spellings: the one measure the engine, the noise model and the benchmarks share."""

from __future__ import annotations

from rapidfuzz.distance import OSA


def osa_distance(a: str, b: str) -> int:
    """Optimal string alignment (restricted Damerau-Levenshtein) distance: insertions, deletions,
    substitutions and adjacent transpositions cost 1, and no substring is edited twice. Computed by rapidfuzz
    (C++, a fraction of a microsecond; the correction path asks for it thousands of times a second, and the
    pure-Python table took ~90 microseconds a pair); a test checks it against the textbook recurrence."""
    return OSA.distance(a, b)
