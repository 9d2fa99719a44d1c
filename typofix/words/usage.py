"""How often people write a word: Zipf frequencies (log10 uses per billion words) read from packaged tables.

Two tables, one reader: `data/usage.tsv.gz` covers the word list's words (the fitted scorer's `usage`
feature) and `data/token-usage.tsv.gz` every token of wordfreq's English list, names, jargon and chat
included (the misspelling detector's evidence). Both are built from wordfreq by scripts in data/. They have
90,000 and 300,000 rows and a run asks about a few words a page, so each is kept as sorted arrays in the index
cache (`typofix.words.indexcache`) and looked up by binary search: a run maps it in a millisecond instead of
building a dictionary for most of a second.
"""

from __future__ import annotations

import gzip
from functools import lru_cache
from pathlib import Path

import numpy as np

from typofix.files.packagedata import packaged
from typofix.words.indexcache import cached, file_digest


def read_zipf_table(path: str | Path) -> dict[str, float]:
    """word -> Zipf frequency from a gzip file of `word<TAB>zipf` rows; an unreadable file is a ValueError."""
    try:
        with gzip.open(path, "rt", encoding="ascii") as lines:
            return {word: float(zipf) for word, zipf in (line.split("\t") for line in lines)}
    except (OSError, ValueError) as err:
        raise ValueError(f"cannot read the usage frequencies {path}: {err}") from None


class TokenUsage:
    """Zipf frequencies of lowercase tokens as two arrays: the tokens, sorted, as fixed-width bytes, and their
    frequencies; a token that is not there has frequency 0."""

    def __init__(self, tokens: np.ndarray, zipf: np.ndarray):
        self.tokens, self.zipf = tokens, zipf

    @classmethod
    def from_table(cls, table: dict[str, float], dtype=np.float32) -> "TokenUsage":
        words = sorted(table)
        return cls(np.array([w.encode("ascii") for w in words]), np.array([table[w] for w in words], dtype))

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "TokenUsage":
        if len(arrays["tokens"]) != len(arrays["zipf"]):
            raise ValueError("token and frequency arrays differ in length")
        return cls(arrays["tokens"], arrays["zipf"])

    def arrays(self) -> dict[str, np.ndarray]:
        return {"tokens": self.tokens, "zipf": self.zipf}

    def get(self, token: str, default: float = 0.0) -> float:
        """The token's Zipf frequency, or `default` where the table lacks it (or it is not ASCII)."""
        try:
            key = token.encode("ascii")
        except UnicodeEncodeError:
            return default
        if len(key) > self.tokens.dtype.itemsize:  # longer than every token (and no conversion of the table)
            return default
        at = int(np.searchsorted(self.tokens, key))
        return float(self.zipf[at]) if at < len(self.tokens) and self.tokens[at] == key else default

    def get_many(self, tokens: list[str]) -> np.ndarray:
        """(N,) `get` of every token, 0.0 for those the table lacks, by one binary search for all of them."""
        if not tokens or not len(self.tokens):
            return np.zeros(len(tokens), dtype=np.float64)
        # A token that is not ASCII is in no table, nor one longer than the longest token: each looks for b"",
        # which no table holds. The keys are of the table's own width: a wider one would have numpy convert the
        # whole table (10 MB, 24 ms) on every call that has a long token (a URL, an identifier).
        width = self.tokens.dtype.itemsize
        keys = np.array([t.encode("ascii") if t.isascii() and len(t) <= width else b"" for t in tokens],
                        dtype=self.tokens.dtype)
        at = np.minimum(np.searchsorted(self.tokens, keys), len(self.tokens) - 1)
        return np.where(self.tokens[at] == keys, self.zipf[at], 0.0)

    def __len__(self) -> int:
        return len(self.tokens)


@lru_cache(maxsize=1)
def token_usage() -> TokenUsage:
    """Lowercase token -> Zipf frequency over real text of every register (0 where wordfreq lacks it)."""
    return _cached_table("token-usage", "token-usage.tsv.gz", np.float32)


@lru_cache(maxsize=1)
def listed_usage() -> TokenUsage:
    """Listed word -> Zipf frequency (data/usage.tsv.gz, the fitted scorer's `usage` feature), each the float
    the table's text says (float64: the feature is the number it was fitted on)."""
    return _cached_table("usage", "usage.tsv.gz", np.float64)


def _cached_table(name: str, file: str, dtype) -> TokenUsage:
    path = packaged(file)
    try:
        digest = file_digest(path)
    except OSError as err:
        raise ValueError(f"cannot read the usage frequencies {path}: {err}") from None
    return cached(name, digest, lambda: TokenUsage.from_table(read_zipf_table(path), dtype), TokenUsage.from_arrays)
