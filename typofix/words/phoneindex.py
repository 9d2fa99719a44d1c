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

from typofix.words.indexcache import TextList, find_strings, sorted_strings, strings, taken, text_array
from typofix.words.neighbours import DeletionIndex, expand_spans
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
        self._set(words, list(keys), flat, ends, None, None)

    def _set(self, words, keys, key_rows: np.ndarray, key_ends: np.ndarray, index: DeletionIndex | None,
             lookup: dict[str, np.ndarray] | None) -> None:
        # key k is said by the words key_rows[key_ends[k - 1]:key_ends[k]] (from 0 for key 0), most frequent first
        # (`_spans`: no array of the starts, a copy of all the ends that a run would read whole)
        self.words, self.keys, self.key_rows, self.key_ends = words, keys, key_rows, key_ends
        self.index = index or DeletionIndex(keys, MAX_PHONE_EDITS)
        # Keys and words are found by binary search in sorted arrays that the index cache maps, and a word's
        # keys are a slice: dictionaries of them cost a run a third of a second to build before its first word.
        self._lookup = lookup if lookup is not None else _lookup_arrays(words, keys, key_rows, key_ends)

    @classmethod
    def from_arrays(cls, arrays, words: list[str] | None = None) -> "PhoneIndex":
        """The index whose `arrays()` these are; `words`: the list it was built from, where the caller holds it
        (the lexicon's, most frequent first), instead of a second copy of 100,000 strings read from the arrays."""
        words = strings(arrays["words"]) if words is None else words
        keys = TextList(arrays["keys"])  # read in place: most runs look up a few keys, if any
        key_rows, key_ends = np.asarray(arrays["key_rows"]), np.asarray(arrays["key_ends"])
        if len(key_ends) != len(keys) or (len(key_ends) and int(key_ends[-1]) != len(key_rows)):
            raise ValueError("phone index arrays do not agree")
        lookup = {name: arrays[name] for name in _LOOKUP}
        if len(lookup["key_sorted"]) != len(keys) or len(lookup["row_key_ends"]) != len(words):
            raise ValueError("phone index lookup arrays do not agree")
        deletions = {name[len("deletions_"):]: value for name, value in arrays.items() if name.startswith("deletions_")}
        index = cls.__new__(cls)
        index._set(words, keys, key_rows, key_ends, DeletionIndex.from_arrays(keys, deletions), lookup)
        return index

    def arrays(self) -> dict[str, np.ndarray]:
        return {"words": text_array(self.words), "keys": text_array(self.keys), "key_rows": self.key_rows,
                "key_ends": self.key_ends, **self._lookup,
                **{f"deletions_{name}": value for name, value in self.index.arrays().items()}}

    def key_numbers(self, keys: list[str]) -> np.ndarray:
        """(N,) each key's number, -1 for a key no word has."""
        return find_strings(self._lookup["key_sorted"], self._lookup["key_sorted_number"], keys)

    def _key_rows(self, k: int) -> np.ndarray:
        """The rows of the words said as key `k`, most frequent first."""
        return self.key_rows[int(self.key_ends[k - 1]) if k > 0 else 0:int(self.key_ends[k])]

    def _spans(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(starts, ends) of the keys' rows in `key_rows`."""
        keys = np.asarray(keys, dtype=np.int64)
        ends = np.asarray(self.key_ends[keys], dtype=np.int64)
        starts = np.where(keys > 0, self.key_ends[np.maximum(keys - 1, 0)], 0).astype(np.int64)
        return starts, ends

    def rows_of(self, key: str) -> list[int]:
        """The rows of the words said as `key`, most frequent first ([] for a key no word has)."""
        k = int(self.key_numbers([key])[0])
        return [] if k < 0 else self._key_rows(k).tolist()

    def said(self, word: str) -> tuple[str, ...]:
        """How the index says `word`: its pronunciations (() for a word it does not hold)."""
        return self.said_many([word])[0]

    def said_many(self, words: list[str]) -> list[tuple[str, ...]]:
        """`said` of every word, by one binary search for all of them."""
        rows = find_strings(self._lookup["word_sorted"], self._lookup["word_sorted_row"], words).tolist()
        ends, row_keys = self._lookup["row_key_ends"], self._lookup["row_keys"]
        found = []
        for row in rows:
            if row < 0:
                found.append(())
            else:
                lo, hi = int(ends[row - 1]) if row else 0, int(ends[row])
                found.append(tuple(self.keys[k] for k in row_keys[lo:hi].tolist()))
        return found

    def said_keys(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Every word's pronunciations as key numbers: (index in `words`, key), word by word, its keys in key order
        (`said_many` without strings; a word the index does not hold has none)."""
        rows = find_strings(self._lookup["word_sorted"], self._lookup["word_sorted_row"], words)
        listed = np.flatnonzero(rows >= 0)
        ends = self._lookup["row_key_ends"]
        rows = rows[listed]
        starts = np.where(rows > 0, ends[np.maximum(rows - 1, 0)], 0)
        whose, positions = expand_spans(listed, starts, ends[rows])
        return whose, self._lookup["row_keys"][positions].astype(np.int64)

    def keys_spelled(self, keys: np.ndarray) -> list[str]:
        """The pronunciations that are keys number `keys`."""
        return taken(self.keys, keys)

    def near_many(self, heard: list[tuple[str, ...]], n: int, exclude=None) -> list[list[str]]:
        """For each typo, given the pronunciations it was heard as: up to `n` listed words said within two phone
        edits of one of them, nearest (weighted phone distance) first, then most frequent; without the words in
        `exclude[i]`."""
        exclude = exclude if exclude is not None else [()] * len(heard)
        result: list[list[str]] = [[] for _ in heard]
        flat = [said for group in heard for said in group if said]
        if not flat or not n:
            return result
        said_by = np.array([i for i, group in enumerate(heard) for said in group if said], dtype=np.int64)
        # (pronunciation, key) pairs: each pronunciation's own key where a word is said so (distance 0), and the
        # keys the deletion index finds within two edits (never the pronunciation itself), in key numbers.
        own = self.key_numbers(flat)
        listed = np.flatnonzero(own >= 0)
        query, keys = self.index.near_rows_many(flat, WIDTH * n, MAX_PHONE_EDITS)
        flat_objects = np.array(flat, dtype=object)
        found = phone_distances(flat_objects[query].tolist(), self.keys_spelled(keys))
        query = np.concatenate([listed, query])
        keys = np.concatenate([own[listed], keys])
        distances = np.concatenate([np.zeros(len(listed)), found])  # a string is 0 from itself
        # Every (typo, word said as the pair's key) at the pair's distance, then each typo's words nearest
        # first, then by row (most frequent first), each word at its nearest.
        pair, positions = expand_spans(np.arange(len(keys)), *self._spans(keys))
        owner = said_by[query][pair]
        rows, distance = self.key_rows[positions], distances[pair]
        order = np.lexsort([distance, rows, owner])  # by typo, then word, nearest first
        owner, rows, distance = owner[order], rows[order], distance[order]
        first = np.ones(len(owner), dtype=bool)
        first[1:] = (owner[1:] != owner[:-1]) | (rows[1:] != rows[:-1])
        owner, rows, distance = owner[first], rows[first], distance[first]
        order = np.lexsort([rows, distance, owner])
        owner, rows = owner[order], rows[order]
        # Only the first n of a typo's, and as many more as it leaves out, can be among its n.
        place = np.arange(len(owner)) - np.searchsorted(owner, owner)
        room = n + np.fromiter(map(len, exclude), dtype=np.int64, count=len(exclude))
        near = place < room[owner]
        for i, row in zip(owner[near].tolist(), rows[near].tolist()):
            found_words = result[i]
            if len(found_words) < n and self.words[row] not in exclude[i]:
                found_words.append(self.words[row])
        # Its lookups touch nearly all of the index's 40 MB: unmapped until the next batch asks, they are out of
        # the run's memory while the model scores (`check` of the standard library: peak RSS 283 -> 255 MB).
        self.index.let_go()
        return result

    def said_as_many(self, heard: list[tuple[str, ...]], n: int) -> list[list[str]]:
        """For each typo, up to `n` listed words said exactly as one of its heard pronunciations (the likeliest
        first), most frequent first: a dictionary lookup, cheap enough for every unknown word."""
        numbers = self.key_numbers([said for group in heard for said in group]).tolist()
        result, at = [], 0
        for group in heard:
            keys = [k for k in numbers[at:at + len(group)] if k >= 0]
            at += len(group)
            rows = [r for k in keys for r in self._key_rows(k).tolist()]
            result.append([self.words[r] for r in dict.fromkeys(rows)][:n])
        return result


_LOOKUP = ("key_sorted", "key_sorted_number", "word_sorted", "word_sorted_row", "row_keys", "row_key_ends")


def _lookup_arrays(words: list[str], keys: list[str], key_rows: np.ndarray, key_ends: np.ndarray) -> dict:
    """The arrays `said_many` and `key_numbers` search: keys and words sorted (UTF-8 bytes, which sort as the
    strings do) with their numbers, and each word's keys (`row_keys[row_key_ends[row - 1]:row_key_ends[row]]`,
    in key order)."""
    key_sorted, key_number = sorted_strings(keys)
    word_sorted, word_row = sorted_strings(words)
    owners = np.repeat(np.arange(len(keys), dtype=np.int64), np.diff(np.concatenate([[0], key_ends])))
    by_row = np.argsort(key_rows, kind="stable")  # entries grouped by word, keys in index order
    ends = np.cumsum(np.bincount(key_rows, minlength=len(words))).astype(np.int64) if len(words) else key_ends[:0]
    return {"key_sorted": key_sorted, "key_sorted_number": key_number, "word_sorted": word_sorted,
            "word_sorted_row": word_row, "row_keys": owners[by_row], "row_key_ends": ends}
