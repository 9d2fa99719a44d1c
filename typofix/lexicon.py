"""The word list: membership, frequency prior, and a prefix trie for lexicon-constrained decoding."""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path

import numpy as np


class LexiconError(ValueError):
    """A word list that is missing or malformed; the message names the file and line."""


def bundled_words_path() -> Path:
    """The packaged data/words.tsv (shipped as package data `typofix.wordlist`)."""
    return Path(str(resources.files("typofix.wordlist").joinpath("words.tsv")))


class PrefixTrie:
    """Every prefix of every word as a node; node 0 is the empty prefix.

    Stored as flat lists (children maps and an end-of-word flag) so a decoder can hold plain int node ids
    per hypothesis and ask which characters may come next.
    """

    def __init__(self, words):
        self.children: list[dict[str, int]] = [{}]
        self.is_word: list[bool] = [False]
        for word in words:
            node = 0
            for char in word:
                nxt = self.children[node].get(char)
                if nxt is None:
                    nxt = len(self.children)
                    self.children[node][char] = nxt
                    self.children.append({})
                    self.is_word.append(False)
                node = nxt
            self.is_word[node] = True
        self._flat = None

    def __len__(self) -> int:
        return len(self.children)

    def within(self, word: str, max_edits: int) -> list[str]:
        """Every word at most `max_edits` optimal-string-alignment edits from `word` (insertions, deletions,
        substitutions, adjacent transpositions).

        Walks the trie one depth at a time with one row of the edit-distance table per node, all nodes of a
        depth in one numpy array, and stops extending a node once no cell of its row is within reach: the words
        two edits from a typo in a few milliseconds, where generating every string two edits away and looking
        each up takes seconds."""
        parent, chars, first_child, is_word = self._arrays()
        target = np.frombuffer(word.encode("utf-32-le"), dtype=np.uint32)  # (n,) code points
        width = len(word) + 1
        nodes = np.zeros(1, dtype=np.int64)  # the frontier: trie nodes of one depth (M,)
        rows = np.arange(width, dtype=np.int32)[None, :]  # (M, n + 1) edit distances of their prefixes
        above = np.full_like(rows, width)  # (M, n + 1) the parents' rows (for transpositions)
        found = []
        while len(nodes):
            alive = rows.min(axis=1) <= max_edits  # (M,) a node all of whose cells are out of reach has no heirs
            nodes, rows, above = nodes[alive], rows[alive], above[alive]
            counts = first_child[nodes + 1] - first_child[nodes]  # (M,)
            heir_of = np.repeat(np.arange(len(nodes)), counts)  # (M',) frontier index of each child's parent
            starts = np.repeat(first_child[nodes] - np.cumsum(counts) + counts, counts)
            children = starts + np.arange(len(heir_of))  # (M',) children are stored contiguously per parent
            parent_rows, grand_rows = rows[heir_of], above[heir_of]  # (M', n + 1)
            char, parent_char = chars[children], chars[parent[children]]  # (M',)
            new = np.empty_like(parent_rows)
            new[:, 0] = parent_rows[:, 0] + 1
            for j in range(1, width):
                cost = np.minimum(new[:, j - 1] + 1, parent_rows[:, j] + 1)
                cost = np.minimum(cost, parent_rows[:, j - 1] + (target[j - 1] != char))
                if j > 1:  # the last two characters swapped
                    swapped = (target[j - 1] == parent_char) & (target[j - 2] == char)
                    cost = np.where(swapped, np.minimum(cost, grand_rows[:, j - 2] + 1), cost)
                new[:, j] = cost
            hits = children[is_word[children] & (new[:, -1] <= max_edits)]
            found.extend(self._spell(node) for node in hits.tolist())
            nodes, rows, above = children, new, parent_rows
        return found

    def _arrays(self):
        """The trie as flat arrays, built on first use: each node's parent and last character (a code point;
        the root's is 0), the children of node i at ids first_child[i]:first_child[i + 1] (ids are renumbered
        breadth-first so that holds), and is_word."""
        if self._flat is None:
            kids = [self.children[0]]  # per new id, the old children map; new ids are handed out breadth-first
            parent, letters, counts, ends = [0], [""], [], []
            for new_id, children in enumerate(kids):  # grows while it runs: a breadth-first queue
                counts.append(len(children))
                for letter, child in children.items():
                    kids.append(self.children[child])
                    parent.append(new_id)
                    letters.append(letter)
                    ends.append(child)
            is_word = np.zeros(len(kids), dtype=bool)
            is_word[1:] = np.array(self.is_word, dtype=bool)[ends]
            chars = np.frombuffer("".join(letters).encode("utf-32-le"), dtype=np.uint32)
            chars = np.concatenate([[0], chars]).astype(np.uint32)  # the root has no character
            first_child = np.concatenate([[1], 1 + np.cumsum(counts)])  # (N + 1,); the root's children start at 1
            self._flat = (np.array(parent, dtype=np.int64), chars, first_child, is_word)
        return self._flat

    def _spell(self, node: int) -> str:
        """The word a node of `_arrays`' numbering ends."""
        parent, chars, _, _ = self._flat
        letters = []
        while node:
            letters.append(chr(chars[node]))
            node = int(parent[node])
        return "".join(reversed(letters))

    def walk(self, prefix: str) -> int:
        """Node id of `prefix`, or -1 when no word starts with it."""
        node = 0
        for char in prefix:
            node = self.children[node].get(char, -1)
            if node < 0:
                return -1
        return node


class Lexicon:
    """Known words with corpus counts; `log_prior` is the smoothed unigram log-probability."""

    def __init__(self, counts: dict[str, int]):
        if not counts:
            raise LexiconError("the word list is empty")
        self.counts = counts
        self.total = sum(counts.values())
        self._trie: PrefixTrie | None = None

    @classmethod
    def from_tsv(cls, path: str | Path | None = None, min_count: int = 1) -> "Lexicon":
        """Read `word<TAB>count` lines (lowercase); None reads the bundled list."""
        path = Path(path) if path is not None else bundled_words_path()
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise LexiconError(f"word list not found: {path}") from None
        except (OSError, UnicodeDecodeError) as err:
            raise LexiconError(f"cannot read word list {path}: {err}") from None
        counts: dict[str, int] = {}
        for lineno, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            parts = line.split("\t")
            if len(parts) != 2 or not parts[1].strip().isdigit() or not parts[0]:
                raise LexiconError(f"{path}:{lineno}: expected 'word<TAB>count', got {line[:60]!r}")
            word, count = parts[0].strip(), int(parts[1])
            if word != word.lower():
                raise LexiconError(f"{path}:{lineno}: words must be lowercase, got {word!r}")
            if count >= min_count:
                counts[word] = counts.get(word, 0) + count
        return cls(counts)

    def __contains__(self, word: str) -> bool:
        return word in self.counts

    def __len__(self) -> int:
        return len(self.counts)

    def count(self, word: str) -> int:
        return self.counts.get(word, 0)

    def log_prior(self, word: str) -> float:
        """log P(word) with add-one smoothing, so unknown words get a finite, low score."""
        return math.log((self.counts.get(word, 0) + 1) / (self.total + len(self.counts)))

    @property
    def trie(self) -> PrefixTrie:
        """Built on first use: correcting without the lexicon constraint never pays for it."""
        if self._trie is None:
            self._trie = PrefixTrie(self.counts)
        return self._trie
