"""Listed words by how they sound: the words whose pronunciation is within two phone edits of a typo's.

A pronunciation is a string of phone characters (`typofix.words.phones`), so the deletion index that finds the
words two letter-edits from a typo (`typofix.words.neighbours.DeletionIndex`) finds the pronunciations two
phone-edits from the typo's heard one as well. Homophones share one key (`their`, `there`, `they're`). The
matches are ranked by the weighted phone distance, then by how often the word is used, so `lones` (L OW N Z)
reaches loans and `juse` (JH UW S) juice, where letters and Metaphone codes are three or more edits apart.
"""

from __future__ import annotations

import numpy as np

from typofix.words.indexcache import strings, text_array
from typofix.words.neighbours import DeletionIndex
from typofix.words.phones import phone_distance

MAX_PHONE_EDITS = 2


class PhoneIndex:
    """Pronunciation -> the listed words said so, and the deletion index over the pronunciations.

    `words` most frequent first and `phones` (the same length) each word's pronunciations: their order is the
    ranking among equally distant words."""

    def __init__(self, words: list[str], phones: list[tuple[str, ...]]):
        keys: dict[str, list[int]] = {}
        for row, said in enumerate(phones):
            for key in said:
                keys.setdefault(key, []).append(row)
        self._set(words, list(keys), [rows for rows in keys.values()], None)

    def _set(self, words: list[str], keys: list[str], rows: list[list[int]], index: DeletionIndex | None) -> None:
        self.words, self.keys, self.rows = words, keys, rows
        self.index = index or DeletionIndex(keys, MAX_PHONE_EDITS)

    @classmethod
    def from_arrays(cls, arrays) -> "PhoneIndex":
        words, keys = strings(arrays["words"]), strings(arrays["keys"])
        flat, ends = arrays["key_rows"], arrays["key_ends"]
        if len(ends) != len(keys) or (len(ends) and int(ends[-1]) != len(flat)):
            raise ValueError("phone index arrays do not agree")
        starts = np.concatenate([[0], ends[:-1]]).astype(np.int64)
        rows = [flat[a:b].tolist() for a, b in zip(starts.tolist(), ends.tolist())]
        index = cls.__new__(cls)
        deletions = {name[len("deletions_"):]: value for name, value in arrays.items() if name.startswith("deletions_")}
        index._set(words, keys, rows, DeletionIndex.from_arrays(keys, deletions))
        return index

    def arrays(self) -> dict[str, np.ndarray]:
        return {"words": text_array(self.words), "keys": text_array(self.keys),
                "key_rows": np.array([r for rows in self.rows for r in rows], dtype=np.int64),
                "key_ends": np.cumsum([len(rows) for rows in self.rows]).astype(np.int64),
                **{f"deletions_{name}": value for name, value in self.index.arrays().items()}}

    def near_many(self, heard: list[tuple[str, ...]], n: int, exclude=None) -> list[list[str]]:
        """For each typo, given the pronunciations it was heard as: up to `n` listed words said within two phone
        edits of one of them, nearest (weighted phone distance) first, then most frequent; without the words in
        `exclude[i]`."""
        exclude = exclude if exclude is not None else [()] * len(heard)
        flat = [(i, said) for i, group in enumerate(heard) for said in group if said]
        # Wide enough to hold the nearest: the deletion index returns matches in frequency order, not distance.
        matches = self.index.near_many([said for _, said in flat], 8 * n, MAX_PHONE_EDITS) if flat and n else []
        best: list[dict[int, float]] = [{} for _ in heard]
        for (i, said), keys in zip(flat, matches):
            for key in [said] * (said in self._key_row) + keys:
                distance = phone_distance(said, key)
                for row in self.rows[self._key_row[key]]:
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
            rows = [r for said in group if said in self._key_row for r in self.rows[self._key_row[said]]]
            result.append([self.words[r] for r in dict.fromkeys(rows)][:n])
        return result

    @property
    def _key_row(self) -> dict[str, int]:
        if not hasattr(self, "_key_rows"):
            self._key_rows = {key: k for k, key in enumerate(self.keys)}
        return self._key_rows
