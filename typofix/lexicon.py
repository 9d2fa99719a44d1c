"""The word list: membership, frequency prior, and a prefix trie for lexicon-constrained decoding."""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path


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

    def __len__(self) -> int:
        return len(self.children)

    def within(self, word: str, max_edits: int) -> list[str]:
        """Every word at most `max_edits` optimal-string-alignment edits from `word` (insertions, deletions,
        substitutions, adjacent transpositions), found by walking the trie with one row of the edit-distance
        table per node and pruning a branch once no cell of its row is within reach: lexicon words two edits
        away in ~10-30 ms, where generating every string two edits away and looking each up takes seconds."""
        width = len(word) + 1
        found = []
        # Each entry: (node, prefix written so far, its row, the parent's row, the parent's last character).
        stack = [(child, char, list(range(width)), None, "") for char, child in self.children[0].items()]
        while stack:
            node, prefix, above, above2, previous = stack.pop()
            char = prefix[-1]
            row = [above[0] + 1]
            for j in range(1, width):
                cost = min(row[j - 1] + 1, above[j] + 1, above[j - 1] + (word[j - 1] != char))
                if above2 is not None and j > 1 and word[j - 1] == previous and word[j - 2] == char:
                    cost = min(cost, above2[j - 2] + 1)  # the last two characters swapped
                row.append(cost)
            if row[-1] <= max_edits and self.is_word[node]:
                found.append(prefix)
            if min(row) <= max_edits:
                stack.extend((child, prefix + c, row, above, char) for c, child in self.children[node].items())
        return found

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
