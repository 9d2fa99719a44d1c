"""Lexicon words near a typo, found without the model: the candidates the corrector adds to the model's own.

* one edit away (`one_edit_words`): every string one edit from the typo, looked up; a few hundred lookups;
* two edits away (`DeletionIndex`): the most frequent listed words two edits from the typo, by a deletion
  index (the idea of SymSpell, Garbe 2012): two strings within two edits share a string that deleting at most
  two characters from each reaches. The deletions of every frequent word are hashed once, in numpy, into one
  sorted array; a typo's own deletions are hashed and looked up there, and the matches checked with the exact
  distance, most frequent first. Where walking the lexicon trie took ~4 ms a typo, this takes a fraction.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property, lru_cache

import numpy as np
from rapidfuzz.distance import OSA
from rapidfuzz.process import cpdist

from typofix.words.distance import one_edit_strings
from typofix.words.indexcache import TextList, lengths_of, let_go

_BASE = np.uint64(0x100000001B3)  # an odd multiplier: invertible modulo 2^64, so a hash can be shifted down
_BASE_INV = np.uint64(pow(int(_BASE), -1, 1 << 64))
# The polynomial hash of a short string lives in its low bits (a one-character string's is its code point, a
# two-character one's first character never reaches above bit 7), and an index keeps only the high bits (the low
# ones hold the row). Unmixed, every string of one or two characters shared a handful of hash values: on the phone
# index (3.9 M deletions of 109 k pronunciations) half the hashes were shared, one by 9,403 entries, and a typo's
# pronunciation matched 4,300 entries to keep 24 keys. Multiplying by an odd constant (a bijection modulo 2^64: no
# two hashes become one) carries every bit up into the kept ones.
_MIX = np.uint64(0x9E3779B97F4A7C15)


def one_edit_words(word: str, lexicon, letters: str) -> set[str]:
    """Lexicon words one edit from `word` (Damerau: a deletion, an adjacent transposition, a substitution or
    an insertion of one of `letters`), `word` itself excluded."""
    edits = one_edit_strings(word, letters)
    edits.discard(word)
    return edits & lexicon.counts.keys()  # one C-level intersection, not a lookup per string


def deletion_hashes(words: list[str], max_deletes: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """The hash of every string that deleting up to `max_deletes` (0, 1 or 2) characters of each word leaves:
    (hashes, index of the word), one entry per (word, deletion). Words of one length are hashed together, all
    their deletions in a few numpy steps (a table of (word, deletion); a step per deleted position or pair of
    positions had been hundreds of small steps a batch)."""
    hashes, rows = [], []
    by_length: dict[int, list[int]] = {}
    for row, word in enumerate(words):
        by_length.setdefault(len(word), []).append(row)
    for length, group in by_length.items():
        # Words of one length: their code points are one UTF-32 buffer, a row per word.
        codes = np.frombuffer("".join([words[r] for r in group]).encode("utf-32-le"), dtype=np.uint32)
        codes = codes.astype(np.uint64).reshape(len(group), length)
        group = np.array(group)
        powers = _BASE ** np.arange(length, dtype=np.uint64)  # wraps modulo 2^64, as every product here does
        prefix = np.zeros((len(group), length + 1), dtype=np.uint64)  # prefix[:, k]: hash of the first k chars
        single, first, second, order = _deleted_positions(length, max_deletes)
        table = np.empty((len(group), 1 + len(single) + len(first)), dtype=np.uint64)  # (words, deletions)
        with np.errstate(over="ignore"):
            prefix[:, 1:] = np.cumsum(codes * powers, axis=1, dtype=np.uint64)
            total = prefix[:, -1:]  # (words, 1)
            table[:, 0] = total[:, 0]
            # delete character i: the tail moves down one power; and j: the middle one power, the tail two
            table[:, 1:1 + len(single)] = prefix[:, single] + (total - prefix[:, single + 1]) * _BASE_INV
            table[:, 1 + len(single):] = (prefix[:, first] + (prefix[:, second] - prefix[:, first + 1]) * _BASE_INV
                                          + (total - prefix[:, second + 1]) * _BASE_INV * _BASE_INV)
        hashes.append(table[:, order].T.ravel())  # deletion by deletion, each for every word of the group
        rows.append(np.tile(group, table.shape[1]))
    return np.concatenate(hashes) * _MIX, np.concatenate(rows)


@lru_cache(maxsize=256)
def _deleted_positions(length: int, max_deletes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For a word of `length`: the positions deleted alone (0 .. length - 1, where `max_deletes` >= 1), the pairs
    deleted together (first < second, where it is 2), and the order of the table's columns (the word, then those
    singles, then those pairs) that lists the word, then each position i deleted alone and with each after it."""
    single = np.arange(length if max_deletes >= 1 else 0, dtype=np.int64)
    pairs = [(i, j) for i in range(length) for j in range(i + 1, length)] if max_deletes >= 2 else []
    first = np.array([i for i, _ in pairs], dtype=np.int64)
    second = np.array([j for _, j in pairs], dtype=np.int64)
    order, column = [0], 1 + len(single)
    for i in single.tolist():
        after = length - 1 - i if max_deletes >= 2 else 0
        order += [1 + i, *range(column, column + after)]
        column += after
    return single, first, second, np.array(order, dtype=np.int64)


class DeletionIndex:
    """The most frequent words of a word list within two edits of a typo, from hashed deletions (see the
    module docstring). `words` must be ordered most frequent first: that order is the ranking."""

    def __init__(self, words: Sequence[str], max_edits: int = 2):
        hashes, rows = deletion_hashes(words, max_edits)
        # One sort of plain integers instead of an argsort (twice as fast, and building is start-up time): the
        # word's row goes in the low bits of the entry, the hash's top `KEY_BITS` bits above it, so the entries
        # sort by key, then row (each key's span lists its rows in order). Only the top bits are kept: a 32-bit
        # key halves the mapped table a lookup's binary search reads (the phone index's 3.9 M deletions: 31 MB
        # as whole hashes, nearly all of it read by a long text's lookups), and two strings that share a key
        # (about one lookup in a thousand meets one) cost a candidate that `near_many`'s real distance drops.
        bits = np.uint64(_row_bits(words))
        packed = np.sort(_keys(hashes).astype(np.uint64) << bits | rows.astype(np.uint64))
        rows = (packed & ((np.uint64(1) << bits) - np.uint64(1))).astype(np.uint32)
        self._set(words, max_edits, (packed >> bits).astype(np.uint32), rows)

    @classmethod
    def from_arrays(cls, words: Sequence[str], arrays) -> "DeletionIndex":
        """The index whose `arrays()` these are, for the same `words`, without hashing a deletion."""
        index = cls.__new__(cls)
        index._set(words, int(arrays["max_edits"][0]), arrays["hashes"], arrays["rows"])
        return index

    def arrays(self) -> dict[str, np.ndarray]:
        """The index as named numpy arrays (for `typofix.words.indexcache`)."""
        return {"hashes": self._hashes, "rows": self._rows, "max_edits": np.array([self.max_edits])}

    def _set(self, words: Sequence[str], max_edits: int, hashes: np.ndarray, rows: np.ndarray) -> None:
        # hashes: every deletion's key (`_keys`), sorted; rows: the word each belongs to
        if hashes.dtype != np.uint32:
            raise ValueError("deletion index arrays of another format")
        self.words, self.max_edits, self._hashes, self._rows = words, max_edits, hashes, rows

    def let_go(self) -> None:
        """Unmap the index's pages until its next lookup (`typofix.words.indexcache.let_go`)."""
        let_go(self._hashes, self._rows)

    @cached_property
    def lengths(self) -> np.ndarray:
        """(N,) each word's length, worked out on the first search (not at loading; a list read in place is not
        decoded for this)."""
        return lengths_of(self.words)

    def near(self, typo: str, n: int, max_edits: int = 2, exclude=()) -> list[str]:
        """Up to `n` listed words at most `max_edits` (1 or 2) optimal-string-alignment edits from `typo`, most
        frequent first, without `typo` itself and the words in `exclude`."""
        return self.near_many([typo], n, max_edits, [exclude])[0]

    def near_many(self, typos: list[str], n: int, max_edits: int = 2, exclude=None) -> list[list[str]]:
        """`near` for each typo (`exclude[i]` for typo i): `near_rows_many`'s rows as words."""
        owner, rows = self.near_rows_many(typos, n, max_edits, exclude)
        words = self._strings(rows)
        result: list[list[str]] = [[] for _ in typos]
        for i, word in zip(owner.tolist(), words):
            result[i].append(word)
        return result

    def near_rows_many(self, typos: list[str], n: int, max_edits: int = 2, exclude=None
                       ) -> tuple[np.ndarray, np.ndarray]:
        """`near` for each typo (`exclude[i]` for typo i), as rows of the word list: (typo of each, row), by typo
        then row (most frequent first), all in a few numpy and rapidfuzz passes: their deletions hashed at once,
        the (typo, listed word) matches found by one binary search, and the matches' real distances computed in
        one call. An index built for `max_edits` 1 finds the words one edit away only.

        What it finds is each typo's `n` lowest rows (most frequent words) within `max_edits`: the matches are
        checked in row order until a typo has `n`. A short deletion (`ae` of `tea`) matches thousands of words,
        so rather than every match, each round takes the first `take` rows of each deletion's span (a span lists
        its rows in order): every row below the first one left out of some span is then there, and checked;
        the next round takes four times as many, only for the typos that still want words."""
        if max_edits > self.max_edits:
            raise ValueError(f"this index finds words up to {self.max_edits} edits away, not {max_edits}")
        found = _Found(typos, n, exclude)
        todo = [i for i, typo in enumerate(typos) if typo and n > 0]
        if not todo:
            return found.pairs(todo)
        hashes, owner = deletion_hashes([typos[i] for i in todo], self.max_edits)
        hashes = _keys(hashes)
        # Looked up in sorted order: each binary search then starts where the last one ended, and the table's
        # pages are read in order (half the time of searching in the typos' order).
        by_hash = np.argsort(hashes)
        hashes, owner = hashes[by_hash], owner[by_hash]
        lo = np.searchsorted(self._hashes, hashes, side="left")
        # Only a deletion whose key is there has a span to end (on the phone index about half of them): the
        # second search is for those alone.
        keep = self._hashes[np.minimum(lo, len(self._hashes) - 1)] == hashes if len(self._hashes) else lo < 0
        lo, hashes, owner = lo[keep], hashes[keep], owner[keep]
        hi = np.searchsorted(self._hashes, hashes, side="right")
        typo_length = np.fromiter((len(typos[i]) for i in todo), dtype=np.int64, count=len(todo))
        size = len(self.words)
        have = np.zeros(len(todo), dtype=np.int64)  # words found so far, per typo of `todo`
        # Matches read but not yet checked (at or beyond their round's bound), by typo then row.
        waiting_owner = waiting_rows = np.zeros(0, dtype=np.int64)
        taken, take = 0, 8 * n  # each span's first `taken` rows are read; this round reads up to `take`
        while True:
            full = have >= n
            live = ~full[owner] & (hi - lo > taken)
            waiting = ~full[waiting_owner]
            if not live.any() and not waiting.any():
                return found.pairs(todo)
            span_owner, span_lo, span_hi = owner[live], lo[live], hi[live]
            # Below `bound`, every row of a typo's matches is among its spans' first `take` rows.
            cut = span_hi - span_lo > take
            bound = np.full(len(todo), size, dtype=np.int64)
            np.minimum.at(bound, span_owner[cut], self._rows[span_lo[cut] + take].astype(np.int64))
            whose, positions = expand_spans(span_owner, span_lo + taken, np.minimum(span_hi, span_lo + take))
            rows = self._rows[positions].astype(np.int64)
            # A word longer or shorter than the typo by more than `max_edits` is further than that: dropped here,
            # in numpy, instead of after a Python lookup and a distance each (most of a short typo's matches).
            near = np.abs(self.lengths[rows] - typo_length[whose]) <= max_edits
            # Each (typo, word) once, by typo then row: rows are most frequent first.
            whose, rows = unique_pairs(np.concatenate([waiting_owner[waiting], whose[near]]),
                                       np.concatenate([waiting_rows[waiting], rows[near]]), size)
            now = rows < bound[whose]
            self._check(todo, whose[now], rows[now], max_edits, have, found)
            waiting_owner, waiting_rows = whose[~now], rows[~now]
            taken, take = take, 4 * take

    def _check(self, todo, owner, rows, max_edits, have, found: "_Found") -> None:
        """Check the matches (by typo, then row) most frequent first, in rounds of growing width, each typo only
        until it has `n`: two-edit matches run to hundreds a typo, of which the first few dozen usually hold the
        `n` wanted. Adds to `found` and `have` (the count per typo of `todo`)."""
        n = found.n
        starts = np.searchsorted(owner, np.arange(len(todo) + 1))
        rank = np.arange(len(owner)) - starts[owner]  # a match's place among its typo's
        # The strings of the pairs by one gather of object arrays (twice as fast as a list comprehension).
        asked_by = np.array([found.typos[i] for i in todo], dtype=object)
        low, high = 0, 8 * n
        while True:
            chosen = np.flatnonzero((rank >= low) & (rank < high) & (have[owner] < n))
            if not len(chosen):
                return
            words = self._strings(rows[chosen])
            whose = owner[chosen]
            distance = cpdist(asked_by[whose].tolist(), words, scorer=OSA.distance, score_cutoff=max_edits,
                              dtype=np.int32)
            # Distance 0 is the typo itself, never its own neighbour.
            hits = np.flatnonzero((distance <= max_edits) & (distance > 0))
            hits = found.allowed(hits, whose, words, todo)
            # In row order, each typo's first `n - have` hits.
            who = whose[hits]
            place = np.arange(len(who)) - np.searchsorted(who, who) + have[who]
            kept = hits[place < n]
            found.add(whose[kept], rows[chosen][kept])
            have += np.bincount(whose[kept], minlength=len(todo))
            low, high = high, 4 * high

    def _strings(self, rows: np.ndarray) -> list[str]:
        """The words at `rows`."""
        return (self.words.take(rows) if isinstance(self.words, TextList)  # (a few, for one word)
                else self.word_objects[rows].tolist())

    @cached_property
    def word_objects(self) -> np.ndarray:
        """The words as an object array (references to the same strings), made on the first search."""
        return np.array(list(self.words), dtype=object)


class _Found:
    """The words `DeletionIndex.near_rows_many` has found so far, as (typo, row) arrays, and what it leaves out."""

    def __init__(self, typos: list[str], n: int, exclude):
        self.typos, self.n = typos, n
        # Only typos with words to leave out are looked at word by word.
        self.exclude = None if exclude is None or not any(exclude) else exclude
        self._owners: list[np.ndarray] = []
        self._rows: list[np.ndarray] = []

    def allowed(self, hits: np.ndarray, whose: np.ndarray, words: list[str], todo: list[int]) -> np.ndarray:
        """Of the `hits` (positions in `words`, owned by `whose`, numbers in `todo`), those not excluded."""
        if self.exclude is None:
            return hits
        exclude = self.exclude
        return hits[[words[k] not in exclude[todo[who]] for k, who in zip(hits.tolist(), whose[hits].tolist())]]

    def add(self, whose: np.ndarray, rows: np.ndarray) -> None:
        self._owners.append(whose)
        self._rows.append(rows)

    def pairs(self, todo: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """(typo of each, row), by typo then row: each round's rows lie beyond the rows of the rounds before."""
        if not self._owners:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        owner, rows = np.concatenate(self._owners), np.concatenate(self._rows)
        order = np.argsort(owner, kind="stable")
        return np.asarray(todo, dtype=np.int64)[owner[order]], rows[order]


def expand_spans(owner: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every position of the spans lo[i]:hi[i] with the owner of its span: (owners, positions), span by span.
    How a batch of binary searches becomes one flat list of (query, match) pairs without a Python loop."""
    lengths = hi - lo
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    ends = np.cumsum(lengths)
    positions = np.arange(total, dtype=np.int64) + np.repeat(lo - (ends - lengths), lengths)
    return np.repeat(np.asarray(owner, dtype=np.int64), lengths), positions


def unique_pairs(owner: np.ndarray, item: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (owner, item) pairs, items below `size`, sorted by owner then item: (owners, items). One sort
    of packed integers (np.unique would import numpy.ma on its first call: 30 ms of a command's start-up)."""
    pairs = np.sort(np.asarray(owner, dtype=np.int64) * size + item)
    pairs = pairs[np.diff(pairs, prepend=-1) != 0]
    return pairs // size, pairs % size


KEY_BITS = 32  # of a deletion's hash, what the index keeps (the rows live below them, `_row_bits`: up to 32)


def _keys(hashes: np.ndarray) -> np.ndarray:
    """The index's keys of 64-bit deletion hashes: their top `KEY_BITS` bits (the mixed hash's best)."""
    return (hashes >> np.uint64(64 - KEY_BITS)).astype(np.uint32)


def _row_bits(words: list[str]) -> int:
    """Low bits of a packed entry that hold the word's row."""
    return max(1, (len(words) - 1).bit_length())
