"""Misspellings people are known to make, from typofix's own data: the dev sets of real misspellings
(data/eval: Norvig's test set and the Birkbeck dev half, `typo<TAB>correct`), never a list copied from
another checker. `--known-only` reports these alone, codespell's way: high precision, and blind to what
the lists lack; and a known misspelling is never excused as the project's vocabulary."""

from __future__ import annotations

from functools import lru_cache

from typofix.files.misspellings import read_misspellings
from typofix.files.packagedata import packaged

DEV_SETS = ("norvig-testset1.tsv", "birkbeck-dev.tsv")
MIN_LENGTH = 3  # the lists' one- and two-letter rows (a -> and) are slips of context, not of spelling


@lru_cache(maxsize=1)
def known_misspellings() -> dict[str, frozenset[str]]:
    """Lowercase known misspelling -> the words it was a misspelling of."""
    table: dict[str, set[str]] = {}
    for name in DEV_SETS:
        for typo, correct in read_misspellings(packaged("eval", name)):
            if typo != correct and len(typo) >= MIN_LENGTH and typo.isalpha():
                table.setdefault(typo, set()).add(correct)
    return {typo: frozenset(words) for typo, words in table.items()}
