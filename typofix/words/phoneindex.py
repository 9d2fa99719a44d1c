"""Listed words by how they sound: the words whose pronunciation is within two phone edits of a typo's.

A pronunciation is a string of phone characters (`typofix.words.phones`), so the deletion index that finds the
words two letter-edits from a typo (`typofix.words.neighbours.DeletionIndex`) finds the pronunciations two
phone-edits from the typo's heard one as well. Homophones share one key (`their`, `there`, `they're`). The
matches are ranked by the weighted phone distance, then by how often the word is used, so `lones` (L OW N Z)
reaches loans and `juse` (JH UW S) juice, where letters and Metaphone codes are three or more edits apart.
The index also answers how a listed word is said (`said`), so scoring never reads a dictionary.
"""

from __future__ import annotations

import numpy as np

from typofix.words.indexcache import strings, text_array
from typofix.words.neighbours import DeletionIndex
from typofix.words.phones import phone_distances

MAX_PHONE_EDITS = 2
# The deletion index returns matches in frequency order, not by distance: take this many times the words asked
# for, then rank those by distance (docs/tuning.md: three times found 16 fewer birkbeck-dev targets in 1,494).
WIDTH = 8


class PhoneIndex:
    """Pronunciation -> the listed words said so, and the deletion index over the pronunciations.

    `words` most frequent first and `phones` (the same length) each word's pronunciations: their order is the
    ranking among equally distant words. Everything it holds is numpy arrays and two lists of strings, so the
    index cache (`typofix.words.indexcache`) keeps it on disk."""

    def __init__(self, words: list[str], phones: list[tuple[str, ...]]):
        keys: dict[str, list[int]] = {}
        for row, said in enumerate(phones):
            for key in said:
                keys.setdefault(key, []).append(row)
        flat = np.array([row for rows in keys.values() for row in rows], dtype=np.int64)
        ends = np.cumsum([len(rows) for rows in keys.values()]).astype(np.int64)
        self._set(words, list(keys), flat, ends, None)

    def _set(self, words, keys, key_rows: np.ndarray, key_ends: np.ndarray, index: DeletionIndex | None) -> None:
        # key k is said by the words key_rows[key_starts[k]:key_ends[k]], most frequent first
        self.words, self.keys, self.key_rows, self.key_ends = words, keys, key_rows, key_ends
        self.key_starts = np.concatenate([[0], key_ends[:-1]]).astype(np.int64)
        self.index = index or DeletionIndex(keys, MAX_PHONE_EDITS)
        self._key_number = {key: k for k, key in enumerate(keys)}
        self._row_of: dict[str, int] | None = None

    @classmethod
    def from_arrays(cls, arrays) -> "PhoneIndex":
        words, keys = strings(arrays["words"]), strings(arrays["keys"])
        key_rows, key_ends = np.asarray(arrays["key_rows"]), np.asarray(arrays["key_ends"])
        if len(key_ends) != len(keys) or (len(key_ends) and int(key_ends[-1]) != len(key_rows)):
            raise ValueError("phone index arrays do not agree")
        deletions = {name[len("deletions_"):]: value for name, value in arrays.items() if name.startswith("deletions_")}
        index = cls.__new__(cls)
        index._set(words, keys, key_rows, key_ends, DeletionIndex.from_arrays(keys, deletions))
        return index

    def arrays(self) -> dict[str, np.ndarray]:
        return {"words": text_array(self.words), "keys": text_array(self.keys), "key_rows": self.key_rows,
                "key_ends": self.key_ends,
                **{f"deletions_{name}": value for name, value in self.index.arrays().items()}}

    def rows_of(self, key: str) -> list[int]:
        """The rows of the words said as `key`, most frequent first ([] for a key no word has)."""
        k = self._key_number.get(key)
        return [] if k is None else self.key_rows[self.key_starts[k]:self.key_ends[k]].tolist()

    def said(self, word: str) -> tuple[str, ...]:
        """How the index says `word`: its pronunciations (() for a word it does not hold)."""
        if self._row_of is None:
            self._row_of = {w: row for row, w in enumerate(self.words)}
            owners = np.repeat(np.arange(len(self.keys)), np.diff(np.concatenate([[0], self.key_ends])))
            order = np.argsort(self.key_rows, kind="stable")  # entries grouped by word, keys in index order
            self._keys_by_row, self._rows_sorted = owners[order], self.key_rows[order]
        row = self._row_of.get(word)
        if row is None:
            return ()
        lo, hi = np.searchsorted(self._rows_sorted, [row, row + 1])
        return tuple(self.keys[k] for k in self._keys_by_row[lo:hi].tolist())

    def near_many(self, heard: list[tuple[str, ...]], n: int, exclude=None) -> list[list[str]]:
        """For each typo, given the pronunciations it was heard as: up to `n` listed words said within two phone
        edits of one of them, nearest (weighted phone distance) first, then most frequent; without the words in
        `exclude[i]`."""
        exclude = exclude if exclude is not None else [()] * len(heard)
        flat = [(i, said) for i, group in enumerate(heard) for said in group if said]
        matches = self.index.near_many([said for _, said in flat], WIDTH * n, MAX_PHONE_EDITS) if flat and n else []
        pairs = [(i, said, key) for (i, said), keys in zip(flat, matches)
                 for key in [said] * (said in self._key_number) + keys]
        distances = phone_distances([said for _, said, _ in pairs], [key for _, _, key in pairs]).tolist()
        best: list[dict[int, float]] = [{} for _ in heard]
        for (i, _, key), distance in zip(pairs, distances):
            for row in self.rows_of(key):
                if distance < best[i].get(row, np.inf):
                    best[i][row] = distance
        result = []
        for i, found in enumerate(best):
            ranked = sorted(found, key=lambda row: (found[row], row))
            result.append([w for w in (self.words[r] for r in ranked) if w not in exclude[i]][:n])
        return result

    def said_as_many(self, heard: list[tuple[str, ...]], n: int) -> list[list[str]]:
        """For each typo, up to `n` listed words said exactly as one of its heard pronunciations (the likeliest
        first), most frequent first: a dictionary lookup, cheap enough for every unknown word."""
        result = []
        for group in heard:
            rows = [r for said in group for r in self.rows_of(said)]
            result.append([self.words[r] for r in dict.fromkeys(rows)][:n])
        return result
