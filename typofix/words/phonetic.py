"""Lexicon words that sound like a typo: candidates for the misspellings three or more edits away.

Bad spellers write by sound (`aboute` for `about`, `cort` for `caught`, `simerly` for `similarly`): on
birkbeck-dev 40% of the rows are three or more edits from their target, where the deletion indexes of
`typofix.words.neighbours` cannot reach. Sound codes can: two spellings that sound alike mostly share a code, or
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

from typofix.words.indexcache import lengths_of, taken
from typofix.words.neighbours import expand_spans, unique_pairs


SIMILARITY_WEIGHT = 5.0  # per unit of normalised Levenshtein similarity (0..1)
SOUND_WEIGHT = 1.0  # per Metaphone edit between the typo's code and the word's
FREQUENCY_WEIGHT = 0.4  # per factor of ten in corpus count
MAX_LENGTH_GAP = 3  # letters between the typo's length and a candidate's: a cheap first cut of the pool

_NOT_LETTER = re.compile("[^a-z]")


def sound_codes(word: str) -> tuple[str, str]:
    """(Metaphone, Soundex) of the letters of `word`; ("", "") when it has none."""
    # Most words are plain lowercase letters already: the regex is for the rest (a third of the cost otherwise).
    letters = word if word.isascii() and word.isalpha() and word.islower() else _NOT_LETTER.sub("", word.lower())
    return (jellyfish.metaphone(letters), jellyfish.soundex(letters)) if letters else ("", "")


class SoundIndex:
    """The listed words that sound most like a typo (see the module docstring), from `counts` (word -> count).

    Everything it holds is numpy arrays (`arrays`, `from_arrays`), so `typofix.words.indexcache` can keep it on disk
    and a later run loads it instead of computing 250,000 sound codes."""

    def __init__(self, counts: dict[str, int]):
        words = list(counts)
        codes = [sound_codes(w) for w in words]
        rows = [row for row, (_, soundex) in enumerate(codes) if soundex]  # words with a letter
        metaphones, soundexes = [codes[r][0] for r in rows], [codes[r][1] for r in rows]
        self._set(counts, {
            "rows": np.array(rows, dtype=np.int64),  # (N,) each indexed word's row in `counts`
            "log_count": np.log10(np.maximum(np.array([counts[words[r]] for r in rows], dtype=np.float64), 1.0)),
            "metaphone": _code_array(metaphones),  # (N,) each word's codes
            **_CodeGroups.build(metaphones, with_deletions=True).arrays("metaphone"),
            **_CodeGroups.build(soundexes).arrays("soundex"),
        })

    @classmethod
    def from_arrays(cls, counts: dict[str, int], arrays) -> "SoundIndex":
        """The index whose `arrays()` these are, for the same `counts`, without computing a sound code."""
        index = cls.__new__(cls)
        index._set(counts, arrays)
        # The codes were computed by jellyfish, which may have changed since: recompute a sample (ValueError
        # tells the cache to build afresh).
        sample = np.linspace(0, len(index) - 1, num=min(64, len(index)), dtype=np.int64)
        if [sound_codes(word)[0] for word in index._words_at(sample)] != index._metaphones(sample):
            raise ValueError("sound codes differ from this jellyfish's")
        return index

    def _set(self, counts: dict[str, int], arrays) -> None:
        self._arrays = {name: arrays[name] for name in _ARRAYS}
        # The listed words in `counts` order: a word list read from the index cache gives them read in place
        # (`in_order`), decoded only where a pool asks for them (all 250,000 decoded and held as an object
        # array took 0.35 s and 10 MB of every run whose search went wide)
        in_order = getattr(counts, "in_order", None)
        self._listed = in_order()[0] if in_order is not None else list(counts)
        self._rows = self._arrays["rows"]  # (N,) each indexed word's place among them
        self._log_count = self._arrays["log_count"]
        self._length = lengths_of(self._listed)[self._rows]
        if self._arrays["metaphone"].dtype.kind != "S":
            raise ValueError("sound index arrays of another format")
        self._by_metaphone = _CodeGroups.from_arrays(self._arrays, "metaphone")
        self._by_soundex = _CodeGroups.from_arrays(self._arrays, "soundex")

    def arrays(self) -> dict[str, np.ndarray]:
        """The index as named numpy arrays (no Python objects: they save and load without pickle)."""
        return dict(self._arrays)

    def __len__(self) -> int:
        """How many words it indexes (the listed words with a letter)."""
        return len(self._rows)

    def _words_at(self, rows: np.ndarray) -> list[str]:
        """The indexed words at `rows` (N,), in that order."""
        return taken(self._listed, self._rows[rows])

    def near_many(self, typos: list[str], n: int, exclude=None) -> list[list[str]]:
        """Up to `n` listed words that sound like each typo, best first, without the typo itself and the words
        in `exclude[i]` for typo i (those the corrector already has). The pools of all typos are found at once
        (a few binary searches for all their codes); each pool is then scored with two rapidfuzz calls."""
        exclude = exclude if exclude is not None else [()] * len(typos)
        result: list[list[str]] = [[] for _ in typos]
        codes = [sound_codes(typo) for typo in typos]
        todo = [i for i, (metaphone, _) in enumerate(codes) if metaphone and n > 0]
        if not todo:
            return result
        metaphones = [codes[i][0] for i in todo]
        by_sound = self._by_metaphone.rows_of(*self._by_metaphone.within_one_edit(metaphones))
        by_letters = self._by_soundex.rows_of(*self._by_soundex.find([codes[i][1] for i in todo]))
        # Each (typo, word) once, by typo then row (the order the ranking's ties keep).
        owner, rows = unique_pairs(np.concatenate([by_sound[0], by_letters[0]]),
                                   np.concatenate([by_sound[1], by_letters[1]]), len(self))
        typo_length = np.array([len(typos[i]) for i in todo], dtype=np.int64)
        near = np.abs(self._length[rows] - typo_length[owner]) <= MAX_LENGTH_GAP
        owner, rows = owner[near], rows[near]
        starts = np.searchsorted(owner, np.arange(len(todo) + 1)).tolist()
        for who, i in enumerate(todo):
            if starts[who + 1] > starts[who]:
                result[i] = self._best(typos[i], metaphones[who], rows[starts[who]:starts[who + 1]], n, exclude[i])
        return result

    def _metaphones(self, rows: np.ndarray) -> list[str]:
        """The Metaphone codes of the words at `rows`, decoded where they are asked for (all 250,000 as Python
        strings were 15 MB of every run that read the index)."""
        return _decoded(self._arrays["metaphone"][rows])

    def _best(self, typo: str, metaphone: str, rows: np.ndarray, n: int, skip) -> list[str]:
        """The `n` best of the pool `rows` (sorted) for `typo`, not `typo` itself nor in `skip`."""
        pool = self._words_at(rows)
        similarity = process.cdist([typo], pool, scorer=Levenshtein.normalized_similarity, dtype=np.float32)[0]
        # The codes as their ASCII bytes, never decoded: an edit distance over bytes is the one over the letters.
        sound = process.cdist([metaphone.encode("utf-8")], self._arrays["metaphone"][rows].tolist(),
                              scorer=Levenshtein.distance, dtype=np.int32)[0]
        score = SIMILARITY_WEIGHT * similarity - SOUND_WEIGHT * sound + FREQUENCY_WEIGHT * self._log_count[rows]
        found = []
        for k in np.argsort(-score, kind="stable").tolist():
            if pool[k] != typo and pool[k] not in skip:
                found.append(pool[k])
                if len(found) == n:
                    break
        return found


class _CodeGroups:
    """Rows grouped by a code: the distinct codes sorted (`codes`), the rows of codes[i] at
    order[starts[i]:starts[i + 1]], and optionally every code's one-deletion variants (itself among them),
    sorted, with the code each came from (`variants`, `variant_of`): two codes one edit apart share a variant
    (SymSpell's idea), so the codes near a typo's are a handful of binary searches away. Arrays throughout, so
    that they save and load as they are (a dict of 60,000 codes would cost more to build than all the lookups
    of a long text)."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        self.codes, self.order, self.starts = arrays["codes"], arrays["order"], arrays["starts"]
        self.variants, self.variant_of = arrays.get("variants"), arrays.get("variant_of")
        self._arrays = arrays

    @classmethod
    def build(cls, codes: list[str], with_deletions: bool = False) -> "_CodeGroups":
        ordered = _code_array(codes)
        order = np.argsort(ordered, kind="stable")
        ordered = ordered[order]
        first = np.concatenate([[True], ordered[1:] != ordered[:-1]]) if len(codes) else np.zeros(0, dtype=bool)
        starts = np.flatnonzero(first)
        arrays = {"codes": ordered[starts], "order": order, "starts": np.append(starts, len(codes))}
        if with_deletions:
            variants, owners = _all_deletions(_decoded(arrays["codes"]))
            variants = _code_array(variants)
            by_variant = np.argsort(variants, kind="stable")
            arrays.update(variants=variants[by_variant], variant_of=owners[by_variant])
        return cls(arrays)

    @classmethod
    def from_arrays(cls, arrays, name: str) -> "_CodeGroups":
        prefix = f"{name}_"
        return cls({key[len(prefix):]: value for key, value in arrays.items() if key.startswith(prefix)})

    def arrays(self, name: str) -> dict[str, np.ndarray]:
        return {f"{name}_{key}": value for key, value in self._arrays.items()}

    def find(self, codes: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """The listed ones of `codes`: (index in `codes`, index of the listed code)."""
        lo, hi = self._spans(self.codes, codes)
        found = hi > lo  # codes are distinct: a span is one code or none
        return np.flatnonzero(found), lo[found]

    def within_one_edit(self, codes: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """The listed codes at most one (Levenshtein) edit from each of `codes`: (index in `codes`, index of
        the listed code), each pair once, by the first."""
        variants, whose = _all_deletions(codes)
        lo, hi = self._spans(self.variants, variants)
        owner, positions = expand_spans(whose, lo, hi)
        owner, listed = unique_pairs(owner, self.variant_of[positions], len(self.codes))
        # The codes as their bytes, never decoded (tens of thousands a batch): the edit distance over a code's
        # ASCII bytes is the one over its letters.
        asked = np.array([code.encode("utf-8") for code in codes], dtype=object)
        close = process.cpdist(asked[owner].tolist(), self.codes[listed].tolist(),
                               scorer=Levenshtein.distance, score_cutoff=1, dtype=np.int32) <= 1
        return owner[close], listed[close]

    def rows_of(self, owner: np.ndarray, listed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows of the codes `listed`, each with its `owner`: (owners, rows)."""
        whose, positions = expand_spans(owner, self.starts[listed], self.starts[listed + 1])
        return whose, self.order[positions]

    @staticmethod
    def _spans(listed: np.ndarray, wanted: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Where each of `wanted` runs in the sorted `listed`: (starts, ends); start == end where it is not."""
        if not wanted or not len(listed):
            return np.zeros(len(wanted), dtype=np.int64), np.zeros(len(wanted), dtype=np.int64)
        # Of the listed strings' own dtype: searchsorted would otherwise convert all of them on every call. That
        # cuts a string longer than the longest listed one, which is not listed: its span is made empty.
        encoded = [w.encode("utf-8") for w in wanted]
        keys = np.array(encoded, dtype=listed.dtype)
        lo, hi = np.searchsorted(listed, keys, side="left"), np.searchsorted(listed, keys, side="right")
        width = listed.dtype.itemsize  # bytes of the longest listed string
        too_long = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)) > width
        return lo, np.where(too_long, lo, hi)


def _code_array(codes: list[str]) -> np.ndarray:
    """Codes as one fixed-width array of UTF-8 bytes (they sort as the strings do): a code is a few ASCII
    letters, and numpy's unicode arrays spend four bytes a character (the variants' table was 20 MB)."""
    return np.array([c.encode("utf-8") for c in codes], dtype=bytes) if codes else np.zeros(0, dtype="S1")


def _decoded(codes: np.ndarray) -> list[str]:
    """The strings of a `_code_array`'s items."""
    return [c.decode("utf-8") for c in codes.tolist()]


def _deletions(code: str) -> set[str]:
    """`code` and every string one deletion from it."""
    return {code, *(code[:i] + code[i + 1:] for i in range(len(code)))}


def _all_deletions(codes: list[str]) -> tuple[list[str], np.ndarray]:
    """`_deletions` of every code, flat: (variants, index in `codes` of the code each came from)."""
    variants, owners = [], []
    for i, code in enumerate(codes):
        for variant in _deletions(code):
            variants.append(variant)
            owners.append(i)
    return variants, np.array(owners, dtype=np.int64)


_ARRAYS = ("rows", "log_count", "metaphone", "metaphone_codes", "metaphone_order", "metaphone_starts",
           "metaphone_variants", "metaphone_variant_of", "soundex_codes", "soundex_order", "soundex_starts")
