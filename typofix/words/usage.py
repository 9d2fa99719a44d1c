"""How often people write a word: Zipf frequencies (log10 uses per billion words) read from packaged tables.

Two tables, one reader: `data/usage.tsv.gz` covers the word list's words (the fitted scorer's `usage`
feature) and `data/token-usage.tsv.gz` every token of wordfreq's English list, names, jargon and chat
included (the misspelling detector's evidence). Both are built from wordfreq by scripts in data/. The second
has 300,000 rows and the detector asks it about a few words a page, so it is kept as sorted arrays in the index
cache (`typofix.words.indexcache`) and looked up by binary search: a run maps it in a millisecond instead of
building a dictionary for a second.
"""

from __future__ import annotations

import gzip
import hashlib
from functools import lru_cache
from pathlib import Path

import numpy as np

from typofix.files.packagedata import packaged
from typofix.words.indexcache import cached


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
    def from_table(cls, table: dict[str, float]) -> "TokenUsage":
        words = sorted(table)
        return cls(np.array([w.encode("ascii") for w in words]), np.array([table[w] for w in words], np.float32))

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
        at = int(np.searchsorted(self.tokens, key))
        return float(self.zipf[at]) if at < len(self.tokens) and self.tokens[at] == key else default

    def __len__(self) -> int:
        return len(self.tokens)


@lru_cache(maxsize=1)
def token_usage() -> TokenUsage:
    """Lowercase token -> Zipf frequency over real text of every register (0 where wordfreq lacks it)."""
    path = packaged("token-usage.tsv.gz")
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as err:
        raise ValueError(f"cannot read the usage frequencies {path}: {err}") from None
    return cached("token-usage", digest, lambda: TokenUsage.from_table(read_zipf_table(path)),
                  TokenUsage.from_arrays)
