"""Letters to phones with the letter-to-phone model: `typofix pronounce`, and the phone channel's view of a
typo (how a writer who spells by ear heard it).

The model is the corrector's `Seq2Seq` trained on CMUdict (`typofix-train experiment=g2p`), whose outputs are
phone characters (`typofix.words.phones`); it runs through the same steppers and the same beam search as the
corrector. Its bundled file is `typofix/models/g2p-int8.onnxz`, resolved like every other model
(`typofix.files.modelfile.resolve_model`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from typofix.engine.search import beam_search
from typofix.engine.stepper import Stepper, length_batches, load_stepper
from typofix.files.modelfile import PRONOUNCER, ModelError
from typofix.words.phones import PHONE_ALPHABET, to_arpabet
from typofix.words.vocab import Vocab

BATCH_SIZE = 256
# The most phones a word's pronunciation may have beyond twice its letters: each word its own limit (never its
# batch's longest word's, so that its answer does not depend on the words batched with it), long enough for a
# short word spelled out letter by letter (CMUdict's longest: w 7 phones, tv 9, fyi 15; of six letters or more,
# at most four more than its letters)
PHONE_ROOM = 10
REMEMBERED = 100_000  # words whose pronunciations `best_many` keeps (a few MB)


@dataclass(frozen=True)
class Pronunciation:
    """One pronunciation of a word: its phone characters, ARPAbet, the model's length-normalised log
    probability (0.0 for a dictionary's), and the attention weights (T, S) of writing it (None without)."""

    word: str
    phones: str
    score: float = 0.0
    attn: np.ndarray | None = None

    @property
    def arpabet(self) -> str:
        return to_arpabet(self.phones)

    def as_json(self) -> dict:
        return {"word": self.word, "phones": self.arpabet, "score": round(self.score, 4)}


class Pronouncer:
    """Runs a letter-to-phone model: the `k` likeliest pronunciations of each word, by beam search."""

    def __init__(self, stepper: Stepper, vocab: Vocab, source: str = "model"):
        if not all(c in vocab.alphabet for c in PHONE_ALPHABET):
            raise ModelError(f"{source}: not a letter-to-phone model (its alphabet has no phones)")
        self.stepper, self.vocab = stepper, vocab
        self._best: dict[str, tuple[Pronunciation, ...]] = {}

    @classmethod
    def load(cls, path: str | Path | None = None) -> "Pronouncer":
        """The model at `path`, or the bundled one."""
        stepper, vocab = load_stepper(path, bundled=PRONOUNCER)
        return cls(stepper, vocab, str(path or "the bundled letter-to-phone model"))

    def readable(self, word: str) -> str:
        """The letters of `word` the model reads: lower case, other characters dropped (a name's capital, a
        digit)."""
        return "".join(c for c in word.lower() if c in self.vocab.alphabet and c not in PHONE_ALPHABET)

    def pronounce_many(self, words: list[str], k: int = 1, beam: int | None = None,
                       attention: bool = True) -> list[list[Pronunciation]]:
        """Up to `k` pronunciations of each word, likeliest first (none for a word with no letter), from a beam
        of `beam` (default max(k, 4)); without `attention`, none of them carries its attention weights."""
        beam = max(k, beam or 4)
        letters = [self.readable(w) for w in words]
        found: dict[str, list[Pronunciation]] = {}
        for chunk, src, src_len in length_batches(sorted({w for w in letters if w}), self.vocab, BATCH_SIZE):
            hyps = beam_search(self.stepper, src, src_len, beam=beam, alpha=1.0, max_len=2 * src_len + PHONE_ROOM,
                               attention=attention)
            for word, best in zip(chunk, hyps):
                phones = [(self._phones(h.ids), h) for h in best]
                found[word] = [Pronunciation(word, p, h.score, h.attn) for p, h in phones if p]
        return [found.get(w, [])[:k] for w in letters]

    def best_many(self, words: list[str], k: int = 2) -> list[tuple[Pronunciation, ...]]:
        """The `k` likeliest pronunciations of each word from a beam of `k` (the phone channel's question,
        asked of every unknown word: the narrowest beam that holds them), kept per word: the channel asks about
        the same typos and words again. The channel reads phones only: no attention weights."""
        missing = [w for w in dict.fromkeys(words) if w not in self._best]
        for word, found in zip(missing, self.pronounce_many(missing, k, beam=k, attention=False)):
            self._best[word] = tuple(found)
        answer = [self._best[w][:k] for w in words]
        # A server or a Spark worker meets new typos without end: the oldest answers go first.
        for word in list(self._best)[:max(0, len(self._best) - REMEMBERED)]:
            del self._best[word]
        return answer

    def _phones(self, ids) -> str:
        # A stray letter (the model was never trained to write one, but nothing forbids it) is dropped.
        return "".join(c for c in self.vocab.decode(ids) if c in PHONE_ALPHABET)
