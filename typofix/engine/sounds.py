"""The phone channel: how a typo sounds and how each candidate sounds, for the wide pass's candidates and the
fitted scorer's features (Toutanova & Moore 2002, "Pronunciation Modeling for Improved Spelling Correction":
letters to phones for the typo, the phones of each candidate, a phone-level error model beside the letter one).

* heard: the typo's likeliest pronunciations, from the letter-to-phone model (`typofix.engine.pronounce`);
* said: a word's pronunciations, CMUdict's where it has the word, else the model's best;
* the phone index: the listed words by pronunciation (`typofix.words.phoneindex`), built on first use and kept
  in the index cache (`typofix.words.indexcache`); the frequent listed words CMUdict lacks are pronounced by
  the model when it is built.

Everything is asked of the wide pass only, for the words the cheap pass was unsure of.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np

from typofix.engine.pronounce import Pronouncer
from typofix.files.modelfile import PRONOUNCER, resolve_model
from typofix.words.indexcache import cached
from typofix.words.lexicon import Lexicon
from typofix.words.phoneindex import PhoneIndex
from typofix.words.phones import Pronunciations, phone_distance

HEARD = 2  # pronunciations of a typo the channel weighs: the model's two likeliest
MODEL_PRONOUNCED = 40_000  # listed words CMUdict lacks get the model's pronunciation in the index if this frequent
FAR = 6.0  # a phone distance beyond this says no more (a cap, so one long word does not dominate a feature)


class Sounds:
    """The phone channel of one lexicon (see the module docstring)."""

    def __init__(self, lexicon: Lexicon, words_by_frequency: Callable[[], list[str]], model: str | Path | None = None):
        # Nothing is read until a wide pass asks: most text never needs a pronunciation.
        self.lexicon, self.words_by_frequency, self.model = lexicon, words_by_frequency, model
        self._pronouncer: Pronouncer | None = None
        self._index: PhoneIndex | None = None

    @property
    def model_path(self) -> Path:
        return resolve_model(self.model, PRONOUNCER)

    @property
    def dictionary(self) -> Pronunciations:
        return Pronunciations.bundled()

    @property
    def pronouncer(self) -> Pronouncer:
        if self._pronouncer is None:
            self._pronouncer = Pronouncer.load(self.model_path)
        return self._pronouncer

    def heard(self, typos: list[str]) -> list[tuple[str, ...]]:
        """Each typo's likeliest pronunciations (phone strings), by the model."""
        return [tuple(p.phones for p in found) for found in self.pronouncer.best_many(typos, HEARD)]

    def said(self, words: list[str]) -> list[tuple[str, ...]]:
        """Each word's pronunciations: CMUdict's, or the model's best for a word it lacks."""
        unlisted = [w for w in words if w not in self.dictionary]
        guessed = dict(zip(unlisted, self.pronouncer.best_many(unlisted, 1))) if unlisted else {}
        return [self.dictionary.of(w) or tuple(p.phones for p in guessed[w]) for w in words]

    def distances(self, typos: list[str], words: list[list[str]]) -> np.ndarray:
        """(M,) for each typo's candidates `words[i]`, typo by typo: the weighted phone distance between the
        nearest of the typo's heard pronunciations and the nearest of the word's (capped at `FAR`). The typo
        itself, as its own candidate, is heard as it is: distance 0."""
        heard = dict(zip(typos, self.heard(typos)))
        flat = [w for group in words for w in group]
        said = dict(zip(set(flat), self.said(list(set(flat)))))
        out = np.empty(len(flat), dtype=np.float64)
        k = 0
        for typo, group in zip(typos, words):
            for word in group:
                pairs = [(a, b) for a in heard[typo] for b in (heard[typo] if word == typo else said[word])]
                out[k] = min([phone_distance(a, b) for a, b in pairs], default=FAR)
                k += 1
        return np.minimum(out, FAR)

    def alike(self, typos: list[str], n: int, exclude=None) -> list[list[str]]:
        """Up to `n` listed words said within two phone edits of each typo's heard pronunciations, nearest
        first (`PhoneIndex.near_many`)."""
        return self.index.near_many(self.heard(typos), n, exclude)

    def said_as(self, typos: list[str], n: int) -> list[list[str]]:
        """Up to `n` listed words said exactly as each typo is heard, most frequent first
        (`PhoneIndex.said_as_many`), the typo itself left out."""
        found = self.index.said_as_many(self.heard(typos), n + 1)
        return [[w for w in words if w != typo][:n] for typo, words in zip(typos, found)]

    @property
    def index(self) -> PhoneIndex:
        if self._index is None:
            model = _file_digest(str(self.model_path))
            self._index = cached(f"phones-{MODEL_PRONOUNCED}-{model}", self.lexicon.digest, self._build_index,
                                 PhoneIndex.from_arrays)
        return self._index

    def _build_index(self) -> PhoneIndex:
        words = self.words_by_frequency()
        frequent = set(words[:MODEL_PRONOUNCED])
        pronounced = [w for w in words if w in self.dictionary or w in frequent]
        return PhoneIndex(pronounced, self.said(pronounced))


@lru_cache(maxsize=4)
def _file_digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]
