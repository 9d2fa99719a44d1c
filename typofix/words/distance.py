"""Edit distance between two spellings: the one measure the engine, the noise model and the benchmarks share."""

from __future__ import annotations

from collections.abc import Collection

from rapidfuzz.distance import OSA
from rapidfuzz.process import extractOne


def osa_distance(a: str, b: str) -> int:
    """Optimal string alignment (restricted Damerau-Levenshtein) distance: insertions, deletions,
    substitutions and adjacent transpositions cost 1, and no substring is edited twice. Computed by rapidfuzz
    (C++, a fraction of a microsecond; the correction path asks for it thousands of times a second, and the
    pure-Python table took ~90 microseconds a pair); a test checks it against the textbook recurrence."""
    return OSA.distance(a, b)


def one_edit_from(word: str, words: Collection[str]) -> str | None:
    """The one of `words` at most one edit from `word` (optimal string alignment, case ignored): the closest,
    the first in `words`' order among equals; None where none is."""
    if not words:
        return None
    found = extractOne(word.lower(), words, scorer=OSA.distance, processor=str.lower, score_cutoff=1)
    return found[0] if found is not None else None


def is_swap(word: str, other: str) -> bool:
    """Whether `other` is `word` with two neighbouring letters swapped (form -> from): the one slip that is
    plainly a slip."""
    if len(word) != len(other) or word == other:
        return False
    diff = [i for i, (a, b) in enumerate(zip(word, other)) if a != b]
    return (len(diff) == 2 and diff[1] == diff[0] + 1 and word[diff[0]] == other[diff[1]]
            and word[diff[1]] == other[diff[0]])


def one_edit_strings(word: str, letters: str) -> set[str]:
    """Every string one edit from `word` (a deletion, an adjacent transposition, a substitution or an insertion
    of one of `letters`): `word` itself among them only where swapping two equal neighbours gives it back."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    edits = {a + b[1:] for a, b in splits if b}
    edits |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    edits |= {a + c + b[1:] for a, b in splits if b for c in letters if c != b[0]}
    edits |= {a + c + b for a, b in splits for c in letters}
    return edits
