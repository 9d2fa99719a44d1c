"""Lexicon words that sound like a typo: candidates for the misspellings three or more edits away.

Bad spellers write by sound (`aboute` for `about`, `cort` for `caught`, `simerly` for `similarly`): on
birkbeck-dev 40% of the rows are three or more edits from their target, where the deletion indexes of
`typofix.neighbours` cannot reach. Sound codes can: two spellings that sound alike mostly share a code, or
have codes one edit apart. The codes come from jellyfish (Rust, MIT, maintained since 2010): Metaphone
(Philips 1990), fine-grained, and Soundex, coarse (first letter and three consonant classes); writing them
here would be more code to get wrong, and slower.

A typo's pool is every listed word whose Metaphone code is within one edit of the typo's and every word that
shares its Soundex code (median ~100 words on birkbeck-dev). The pool is ranked by a cheap score, spelling
similarity (normalised Levenshtein), sound distance (Metaphone edits) and frequency, and the best few go to
the model, which scores them as it scores every other candidate. Ranking weights were chosen on the dev sets
(birkbeck-dev and norvig-testset1 rows three or more edits away): the target is in the top 10 of 40% of them.
"""

from __future__ import annotations

import re

import jellyfish
import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein


SIMILARITY_WEIGHT = 5.0  # per unit of normalised Levenshtein similarity (0..1)
SOUND_WEIGHT = 1.0  # per Metaphone edit between the typo's code and the word's
FREQUENCY_WEIGHT = 0.4  # per factor of ten in corpus count
MAX_LENGTH_GAP = 3  # letters between the typo's length and a candidate's: a cheap first cut of the pool
_NONE = np.zeros(0, dtype=np.int64)

_NOT_LETTER = re.compile("[^a-z]")


def sound_codes(word: str) -> tuple[str, str]:
    """(Metaphone, Soundex) of the letters of `word`; ("", "") when it has none."""
    letters = _NOT_LETTER.sub("", word.lower())
    return (jellyfish.metaphone(letters), jellyfish.soundex(letters)) if letters else ("", "")


class SoundIndex:
    """The listed words that sound most like a typo (see the module docstring), from `counts` (word -> count)."""

    def __init__(self, counts: dict[str, int]):
        self.words = [w for w in counts if _NOT_LETTER.sub("", w)]
        self._log_count = np.log10(np.maximum(np.array([counts[w] for w in self.words], dtype=np.float64), 1.0))
        self._length = np.array([len(w) for w in self.words])
        codes = [sound_codes(w) for w in self.words]
        # Object arrays: a pool of a few hundred words is picked out in one fancy index, not a Python loop.
        self._words = np.array(self.words, dtype=object)
        self._metaphone = np.array([m for m, _ in codes], dtype=object)
        self._by_metaphone = _rows_by(m for m, _ in codes)
        self._by_soundex = _rows_by(s for _, s in codes)
        # Metaphone codes one edit apart share a code with one letter (or none) deleted (SymSpell's idea): a
        # dict from each such deletion to the codes that reach it. Codes are short (a few letters), so this is
        # small, and a lookup is a handful of dict reads (a hashed array index costs more at this size).
        self._by_deletion: dict[str, list[str]] = {}
        for metaphone in self._by_metaphone:
            for variant in _deletions(metaphone):
                self._by_deletion.setdefault(variant, []).append(metaphone)

    def near_many(self, typos: list[str], n: int, exclude=None) -> list[list[str]]:
        """Up to `n` listed words that sound like each typo, best first, without the typo itself and the words
        in `exclude[i]` for typo i (those the corrector already has)."""
        exclude = exclude if exclude is not None else [()] * len(typos)
        return [self._near(typo, n, skip) for typo, skip in zip(typos, exclude)]

    def _close_codes(self, metaphone: str) -> set[str]:
        """The listed Metaphone codes at most one edit from `metaphone`."""
        shared = {code for variant in _deletions(metaphone) for code in self._by_deletion.get(variant, ())}
        return {code for code in shared if Levenshtein.distance(metaphone, code, score_cutoff=1) <= 1}

    def _near(self, typo: str, n: int, skip) -> list[str]:
        metaphone, soundex = sound_codes(typo)
        if n <= 0 or not metaphone:
            return []
        groups = [self._by_metaphone[code] for code in self._close_codes(metaphone)]
        rows = np.unique(np.concatenate([self._by_soundex.get(soundex, _NONE), *groups]))
        rows = rows[np.abs(self._length[rows] - len(typo)) <= MAX_LENGTH_GAP]
        if not len(rows):
            return []
        pool = self._words[rows]
        similarity = process.cdist([typo], pool, scorer=Levenshtein.normalized_similarity, dtype=np.float32)[0]
        sound = process.cdist([metaphone], self._metaphone[rows], scorer=Levenshtein.distance, dtype=np.int32)[0]
        score = SIMILARITY_WEIGHT * similarity - SOUND_WEIGHT * sound + FREQUENCY_WEIGHT * self._log_count[rows]
        found = []
        for i in np.argsort(-score, kind="stable").tolist():
            if pool[i] != typo and pool[i] not in skip:
                found.append(pool[i])
                if len(found) == n:
                    break
        return found


def _rows_by(codes) -> dict[str, np.ndarray]:
    """code -> the rows (word indexes) that have it."""
    rows: dict[str, list[int]] = {}
    for row, code in enumerate(codes):
        rows.setdefault(code, []).append(row)
    return {code: np.array(found, dtype=np.int64) for code, found in rows.items()}


def _deletions(code: str) -> set[str]:
    """`code` and every string one deletion from it."""
    return {code, *(code[:i] + code[i + 1:] for i in range(len(code)))}
