"""The context model: how much a word's neighbours in the text say for or against a candidate correction.

A word-bigram model of Google Books counts (`data/bigrams.bin.gz`, built by `data/build_bigrams.py`): for a
candidate `w` between a left word `l` and a right word `r`, the evidence is

    log(mix * P(w | l) / P(w) + 1 - mix) + log(mix * P(r | w) / P(r) + 1 - mix)

each term the log of how much more likely the pair is than its two words side by side by chance, interpolated
with "no evidence" (`mix`); 0 for a missing neighbour or a word the model lacks (a typo, a name). The counts are
only the most frequent pairs: a pair of known words that is not listed gets the smaller of its chance count
and the smallest listed count (it would be listed were it more frequent), so an unlikely pair of frequent
words counts against a candidate. The corrector adds `context_weight` times this to the noisy-channel score.
"""

from __future__ import annotations

import gzip
import math
import zlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from typofix.files.packagedata import packaged

MAGIC = "typofix-bigrams"
LOG_SCALE = 10.0  # counts are stored as round(LOG_SCALE * ln(count))


class ContextError(ValueError):
    """A bigram file that is missing or malformed."""


def bundled_bigrams_path() -> Path:
    """The packaged data/bigrams.bin.gz."""
    return packaged("bigrams.bin.gz")


class BigramModel:
    """Word-pair counts, with the words' own counts (the word list's: `counts`, a word -> count mapping);
    `evidence` scores candidates between two neighbours."""

    def __init__(self, words: list[str], keys: np.ndarray, pair_logs: np.ndarray, counts: Mapping[str, int],
                 mix: float = 0.9, total: int | None = None):
        self.ids = dict(zip(words, range(len(words))))
        self.size = len(words)
        self.keys, self.pair_logs = keys, pair_logs  # (N,) sorted left_id * V + right_id, (N,) ln count
        self.counts = counts
        # (the word list knows its total: summing a mapped list's counts read every page of them, 0.1 s)
        self.log_total = math.log(max(1, sum(counts.values()) if total is None else total))
        self.log_floor = float(pair_logs.min()) if len(pair_logs) else 0.0  # the smallest listed pair
        self.mix = mix

    @classmethod
    def load(cls, counts: Mapping[str, int], path: str | Path | None = None, mix: float = 0.9,
             total: int | None = None) -> "BigramModel":
        """Read a bigram file (None: the bundled one), for words with `counts` (`total`: their sum, where the
        caller knows it); a few hundredths of a second."""
        path = Path(path) if path is not None else bundled_bigrams_path()
        try:
            data = gzip.decompress(path.read_bytes())
        except FileNotFoundError:
            raise ContextError(f"bigram file not found: {path}") from None
        except (OSError, EOFError, zlib.error) as err:
            raise ContextError(f"cannot read bigram file {path}: {err}") from None
        try:
            head, _, rest = data.partition(b"\n")
            magic, version, *sizes = head.decode("ascii").split()
            if magic != MAGIC or version != "1" or len(sizes) != 2:
                raise ValueError("unknown header")
            size, count = map(int, sizes)
            *words, body = rest.split(b"\n", size)
            body = np.frombuffer(body, dtype=np.uint8)
            if len(words) != size or len(body) != 5 * count:
                raise ValueError("wrong length")
            words = b"\n".join(words).decode("ascii").split("\n")
            keys = np.cumsum(body[:4 * count].view("<u4"), dtype=np.int64)
            pair_logs = body[4 * count:].astype(np.float32) / LOG_SCALE
        except (ValueError, UnicodeDecodeError) as err:
            raise ContextError(f"{path}: not a typofix bigram file ({err})") from None
        return cls(words, keys, pair_logs, counts, mix, total)

    def pair_evidence(self, lefts: list[str], rights: list[str]) -> np.ndarray:
        """log(mix * P(left right) / (P(left) P(right)) + 1 - mix) per pair of lowercase words; 0 where either
        word has no count."""
        counts, ids = self.counts, self.ids
        out = np.zeros(len(lefts), dtype=np.float64)
        known = [i for i, (a, b) in enumerate(zip(lefts, rights)) if counts.get(a) and counts.get(b)]
        if not known:
            return out
        left_counts = np.array([counts[lefts[i]] for i in known], dtype=np.float64)
        right_counts = np.array([counts[rights[i]] for i in known], dtype=np.float64)
        a = np.array([ids.get(lefts[i], -1) for i in known], dtype=np.int64)
        b = np.array([ids.get(rights[i], -1) for i in known], dtype=np.int64)
        keys = a * self.size + b
        at = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        listed = (self.keys[at] == keys) & (a >= 0) & (b >= 0)
        chance = np.log(left_counts) + np.log(right_counts) - self.log_total  # ln count of the pair by chance
        pair = np.where(listed, self.pair_logs[at], np.minimum(chance, self.log_floor))
        ratio = np.exp(np.clip(pair - chance, -30.0, 30.0))
        out[known] = np.log(self.mix * ratio + 1.0 - self.mix)
        return out

    def evidence(self, candidates: list[str], left: str | None, right: str | None) -> np.ndarray:
        """The context evidence (module docstring) of each candidate between `left` and `right` (None: no
        neighbour on that side)."""
        out = np.zeros(len(candidates), dtype=np.float64)
        if left is not None:
            out += self.pair_evidence([left] * len(candidates), candidates)
        if right is not None:
            out += self.pair_evidence(candidates, [right] * len(candidates))
        return out
