"""The phone channel: how a typo sounds and how each candidate sounds, for the wide pass's candidates and the
fitted scorer's features (Toutanova & Moore 2002, "Pronunciation Modeling for Improved Spelling Correction":
letters to phones for the typo, the phones of each candidate, a phone-level error model beside the letter one).

* heard: the typo's likeliest pronunciations, from the letter-to-phone model (`typofix.engine.pronounce`);
* said: a word's pronunciations, CMUdict's where it has the word, else the model's best;
* the phone index: the listed words by pronunciation (`typofix.words.phoneindex`), built on first use and kept
  in the index cache (`typofix.words.indexcache`); the listed words CMUdict lacks are pronounced by the model
  when it is built, so that scoring a candidate never waits for the model.

The cheap pass asks for every unknown word (the words said exactly as it is heard, and the scorer's phone
features), the wide pass for the words the cheap pass was unsure of (the words said nearest it); nothing is
read before the first unknown word.
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
from typofix.words.neighbours import expand_spans
from typofix.words.phoneindex import PhoneIndex
from typofix.words.phones import Pronunciations, phone_distances

HEARD = 2  # pronunciations of a typo the channel weighs: the model's two likeliest
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
        """Each word's pronunciations: for a listed word, the phone index's (CMUdict's, or the model's made
        ahead for the words it lacks); for any other, the model's best now."""
        found = self.index.said_many(words)
        unknown = [w for w, said in zip(words, found) if not said]
        if unknown:
            guessed = dict(zip(unknown, self.pronouncer.best_many(unknown, 1)))
            found = [said or tuple(p.phones for p in guessed[w]) for w, said in zip(words, found)]
        return found

    def distances(self, typos: list[str], words: list[list[str]]) -> np.ndarray:
        """(M,) for each typo's candidates `words[i]`, typo by typo: the weighted phone distance between the
        nearest of the typo's heard pronunciations and the nearest of the word's (capped at `FAR`). The typo
        itself, as its own candidate, is heard as it is: distance 0."""
        flat = [w for group in words for w in group]
        out = np.full(len(flat), FAR)
        if not flat:
            return out
        heard = self.heard(typos)
        owner = np.repeat(np.arange(len(typos)), [len(group) for group in words])  # (M,) each candidate's typo
        # (candidate, pronunciation) pairs: a listed word's from the index (as key numbers, spelled out below),
        # the typo's own as heard, any other word's from the model.
        itself = np.array([w == typos[i] for w, i in zip(flat, owner.tolist())], dtype=bool)
        others = np.flatnonzero(~itself)
        whose, keys = self.index.said_keys([flat[k] for k in others.tolist()])
        whose = others[whose]
        unsaid = np.setdiff1d(others, whose, assume_unique=True).tolist()  # no key: not listed, or said as nothing
        guessed = self.pronouncer.best_many([flat[k] for k in unsaid], 1) if unsaid else []
        guesses = [(k, p.phones) for k, found in zip(unsaid, guessed) for p in found]
        typo_said = [(k, said) for k in np.flatnonzero(itself).tolist() for said in heard[owner[k]]]
        candidate = np.concatenate([whose, np.array([k for k, _ in guesses + typo_said], dtype=np.int64)])
        said = self.index.keys_spelled(keys) + [p for _, p in guesses + typo_said]
        # Each pair against each of its typo's heard pronunciations.
        heard_count = np.array([len(h) for h in heard], dtype=np.int64)
        heard_flat = np.array([p for h in heard for p in h] or [""], dtype=object)
        heard_start = np.cumsum(heard_count) - heard_count
        times = heard_count[owner[candidate]]
        pair, positions = expand_spans(np.arange(len(candidate)), heard_start[owner[candidate]],
                                       heard_start[owner[candidate]] + times)
        if len(pair):
            said_of = np.array(said, dtype=object)
            np.minimum.at(out, candidate[pair], phone_distances(heard_flat[positions].tolist(),
                                                                said_of[pair].tolist()))
        return out

    def alike(self, typos: list[str], n: int, exclude=None) -> list[list[str]]:
        """Up to `n` listed words said within two phone edits of each typo's heard pronunciations, nearest
        first (`PhoneIndex.near_many`)."""
        if not typos:  # every word listed: no reason to read the index
            return []
        return self.index.near_many(self.heard(typos), n, exclude)

    def said_as(self, typos: list[str], n: int) -> list[list[str]]:
        """Up to `n` listed words said exactly as each typo is heard, most frequent first
        (`PhoneIndex.said_as_many`), the typo itself left out."""
        if not typos:
            return []
        found = self.index.said_as_many(self.heard(typos), n + 1)
        return [[w for w in words if w != typo][:n] for typo, words in zip(typos, found)]

    @property
    def index(self) -> PhoneIndex:
        if self._index is None:
            model = _file_digest(str(self.model_path))
            self._index = cached(f"phones-{model}", self.lexicon.digest, self._build_index,
                                 lambda arrays: PhoneIndex.from_arrays(arrays, self.words_by_frequency()))
        return self._index

    def _build_index(self) -> PhoneIndex:
        """Every listed word with its pronunciations: CMUdict's, or for a word it lacks the model's (made ahead,
        data/lexicon-phones.txt.gz; a user's word is pronounced now)."""
        words = self.words_by_frequency()
        model = Pronunciations.for_lexicon()
        said = [self.dictionary.of(w) or model.of(w) for w in words]
        missing = [w for w, found in zip(words, said) if not found]
        guessed = (dict(zip(missing, self.pronouncer.pronounce_many(missing, 1, beam=1, attention=False)))
                   if missing else {})
        said = [found or tuple(p.phones for p in guessed[w]) for w, found in zip(words, said)]
        return PhoneIndex(words, said)


@lru_cache(maxsize=4)
def _file_digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]
