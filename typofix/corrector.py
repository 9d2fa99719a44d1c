"""The correction path: load a model, then correct words and text.

Torch-free: the one beam search (`typofix.search`, numpy) reaches the model through a stepper, either
onnxruntime running the ONNX export (`onnx_model`; the bundled default, so `typofix correct` never imports
torch) or torch running a checkpoint (`torch_stepper`, imported only for a .pt / .ckpt file). No Lightning or
Hydra either way: a model file describes itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from typofix.lexicon import Lexicon
from typofix.modelfile import ModelError, bundled_model_path, bundled_onnx_path
from typofix.search import Hypothesis, LexiconConstraint, Stepper, beam_search, forced_hypotheses, rerank
from typofix.text import MAX_WORD_LEN, match_case, split_text
from typofix.vocab import Vocab

__all__ = ["Candidate", "Corrector", "ModelError", "bundled_model_path", "load_stepper", "one_edit_words"]

# Decoding defaults, chosen on the dev sets only (norvig-testset1, birkbeck-dev) on the bundled model with
# `python -m bench.tune_decoding --model typofix/models/default.onnxz --beams 16 24 32 --alphas 1.25 1.5 1.75 2.0
# --edits on --two-edits 5` (run per beam and alpha): the best Birkbeck top-1 among settings that keep
# norvig-testset1 at 86% and change at most 0.5% of a frequency-drawn sample of correct words. Beam 24 gains
# 0.2 points over 16 at 1.4x the time, 32 adds 0.04 more. A first-letter weight of 0.1 instead of 0.2 would
# give norvig 86.4 and Birkbeck 44.9. Words with a count of 10M or more (the most common few thousand) are
# left alone outright; rarer listed words are decoded too, which fixes some real-word errors (decoding every
# word would gain 0.1 point on Birkbeck and change 1.1% of the correct words).
DEFAULT_BEAM = 24
DEFAULT_PRIOR_WEIGHT = 0.03
DEFAULT_ALPHA = 1.75
DEFAULT_KNOWN_MIN_COUNT = 10_000_000
DEFAULT_EDIT_CANDIDATES = True
DEFAULT_EDIT_WEIGHT = 0.1
DEFAULT_TWO_EDIT_CANDIDATES = 5
DEFAULT_FIRST_LETTER_WEIGHT = 0.2
BATCH_SIZE = 256
_CACHE_SIZE = 100_000


def load_stepper(path: str | Path | None = None, device: str = "cpu") -> tuple[Stepper, Vocab]:
    """The stepper and vocabulary of the model at `path`: a .onnxz file runs on onnxruntime, anything else (a
    slim export, a training checkpoint) on torch. None: the bundled ONNX model when onnxruntime is installed,
    else the bundled torch model."""
    if path is None:
        onnx_path = bundled_onnx_path()
        if device == "cpu" and onnx_path.is_file() and _has_onnxruntime():
            path = onnx_path
        else:
            path = bundled_model_path()
    path = Path(path)
    if path.suffix == ".onnxz":
        if device != "cpu":
            raise ModelError(f"{path}: an ONNX model runs on the CPU only; give a .pt model for device {device!r}")
        from typofix.onnx_model import OnnxStepper

        return OnnxStepper.load(path)
    try:
        from typofix.torch_stepper import TorchStepper
    except ImportError as err:
        raise ModelError(f"{path}: a torch model needs torch ({err}); or give a .onnxz model") from None
    return TorchStepper.load(path, device)


def _has_onnxruntime() -> bool:
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass
class Candidate:
    """One correction of a word: the word, its noisy-channel score (higher is better), and the attention
    weights (T, S) of the model writing it, T its characters then EOS, S the input's characters."""

    word: str
    score: float
    attn: np.ndarray | None = None


class Corrector:
    """Corrects words and text with a trained model.

    A word is decoded by (lexicon-constrained) beam search, the lexicon words one edit away join the beam's
    candidates when `edit_candidates`, so do the `two_edit_candidates` most frequent lexicon words two edits
    away (all scored by the same model), and all are reranked by the noisy channel
    log P_model(word | typo) / length^alpha + prior_weight * log P(word) - edit_weight * edits(typo, word)
    - first_letter_weight * [word and typo start differently]
    (`search.rerank`). Words in the lexicon with at least
    `known_min_count` occurrences are left alone (0 turns that off); `use_lexicon=False` uses the model alone:
    no constraint, no edit candidates, no prior, nothing left alone. Text keeps every character outside the
    corrected words (see `typofix.text`).
    """

    def __init__(self, stepper: Stepper, vocab: Vocab, lexicon: Lexicon | None, beam: int = DEFAULT_BEAM,
                 prior_weight: float = DEFAULT_PRIOR_WEIGHT, alpha: float = DEFAULT_ALPHA,
                 known_min_count: int = DEFAULT_KNOWN_MIN_COUNT, edit_candidates: bool = DEFAULT_EDIT_CANDIDATES,
                 edit_weight: float = DEFAULT_EDIT_WEIGHT, two_edit_candidates: int = DEFAULT_TWO_EDIT_CANDIDATES,
                 first_letter_weight: float = DEFAULT_FIRST_LETTER_WEIGHT, max_word_len: int = MAX_WORD_LEN,
                 batch_size: int = BATCH_SIZE):
        if beam < 1:
            raise ValueError(f"beam must be at least 1, got {beam}")
        if two_edit_candidates < 0:
            raise ValueError(f"two_edit_candidates must be at least 0, got {two_edit_candidates}")
        self.stepper, self.vocab, self.lexicon = stepper, vocab, lexicon
        self.beam, self.prior_weight, self.alpha = beam, prior_weight, alpha
        self.known_min_count, self.edit_candidates, self.edit_weight = known_min_count, edit_candidates, edit_weight
        self.two_edit_candidates, self.first_letter_weight = two_edit_candidates, first_letter_weight
        self.max_word_len, self.batch_size = max_word_len, batch_size
        # Built now, not on first use: building the trie takes a noticeable fraction of a second, and that
        # belongs to loading, not to the first batch a benchmark times.
        self.constraint = (LexiconConstraint(lexicon.trie, vocab.symbols, vocab.eos_id) if lexicon is not None
                           else None)
        self._best: dict[str, str] = {}  # word -> its correction: text repeats words, so decode each once

    @classmethod
    def load(cls, path: str | Path | None = None, beam: int = DEFAULT_BEAM, use_lexicon: bool = True,
             prior_weight: float = DEFAULT_PRIOR_WEIGHT, alpha: float = DEFAULT_ALPHA,
             known_min_count: int = DEFAULT_KNOWN_MIN_COUNT, edit_candidates: bool = DEFAULT_EDIT_CANDIDATES,
             edit_weight: float = DEFAULT_EDIT_WEIGHT, two_edit_candidates: int = DEFAULT_TWO_EDIT_CANDIDATES,
             first_letter_weight: float = DEFAULT_FIRST_LETTER_WEIGHT, lexicon_path: str | Path | None = None,
             device: str = "cpu") -> "Corrector":
        """A corrector for the model at `path` (an ONNX export .onnxz, a slim export or a training checkpoint;
        None: the bundled model, see `load_stepper`) with the word list at `lexicon_path` (None: the bundled one)."""
        stepper, vocab = load_stepper(path, device)
        lexicon = Lexicon.from_tsv(lexicon_path) if use_lexicon else None
        return cls(stepper, vocab, lexicon, beam, prior_weight, alpha, known_min_count, edit_candidates,
                   edit_weight, two_edit_candidates, first_letter_weight)

    # --- public API ----------------------------------------------------------------------------------------

    def correct(self, word: str) -> str:
        """The correction of one word (or short text), in the input's case."""
        return self.correct_many([word])[0]

    def correct_text(self, text: str) -> str:
        """`text` with its misspelled words corrected and every other character as it was."""
        return self.correct_many([text])[0]

    def correct_many(self, texts: list[str]) -> list[str]:
        """`correct_text` of every item, all their words decoded in shared batches."""
        split = [split_text(text, self.max_word_len) for text in texts]
        words = {p.text.lower() for pieces in split for p in pieces if p.word}
        if len(self._best) + len(words) > _CACHE_SIZE:
            self._best.clear()  # bounded memory on endless streams
        todo = words - self._best.keys()
        for word, ranked in self._rank(sorted(todo), 1, want_scores=False).items():
            self._best[word] = ranked[0].word
        return ["".join(match_case(p.text, self._best[p.text.lower()]) if p.word else p.text for p in pieces)
                for pieces in split]

    def suggest(self, word: str, k: int = 5) -> list[tuple[str, float]]:
        """Up to `k` corrections of `word`, best first, with their scores (the beam's finished hypotheses, plus
        the lexicon words one edit away when `edit_candidates`)."""
        return self.suggest_many([word], k)[0]

    def suggest_many(self, words: list[str], k: int = 5) -> list[list[tuple[str, float]]]:
        """`suggest` for every word, decoded in shared batches. A known word comes first as itself; input that
        is not one correctable word (a URL, a number, a phrase) gets its `correct_text` with score 0.0."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        single = {}
        for word in words:
            pieces = split_text(word, self.max_word_len)
            if len(pieces) == 1 and pieces[0].word:
                single[word] = word.lower()
        ranked = self._rank(sorted(set(single.values())), k, want_scores=True)
        others = [w for w in words if w not in single]
        passed = dict(zip(others, self.correct_many(others)))
        return [[(match_case(w, c.word), c.score) for c in ranked[single[w]]] if w in single else [(passed[w], 0.0)]
                for w in words]

    def explain(self, word: str, k: int = 5) -> list[Candidate]:
        """The model's `k` best corrections of one lowercase-able word with their attention weights, decoded
        even when the word is known (this shows what the model does, not what `correct` would keep)."""
        return self._decode([word.lower()], k)[word.lower()]

    # --- decoding ------------------------------------------------------------------------------------------

    def is_known(self, word: str) -> bool:
        """True for a lowercase word the corrector leaves alone."""
        return (self.lexicon is not None and self.known_min_count > 0
                and self.lexicon.count(word) >= self.known_min_count)

    def _rank(self, words: list[str], k: int, want_scores: bool) -> dict[str, list[Candidate]]:
        """Up to `k` candidates for each lowercase word. A known word ranks itself first (scored by the model
        when `want_scores`, else 0.0) and is decoded only when more than one candidate is asked for."""
        known = [w for w in words if self.is_known(w)]
        unknown = [w for w in words if not self.is_known(w)]
        ranked = self._decode(unknown + (known if k > 1 else []), k)
        scores = self._score(known) if want_scores else dict.fromkeys(known, 0.0)
        for word in known:
            rest = [c for c in ranked.get(word, []) if c.word != word]
            ranked[word] = [Candidate(word, scores[word])] + rest[:k - 1]
        return ranked

    def _batches(self, words: list[str]):
        """Batches of similar length (padding costs as much as characters): (words, src (B, S), src_len (B,))."""
        ordered = sorted(words, key=len)
        for start in range(0, len(ordered), self.batch_size):
            chunk = ordered[start:start + self.batch_size]
            src = np.full((len(chunk), len(chunk[-1])), self.vocab.pad_id, dtype=np.int64)  # (B, S), longest last
            for row, word in enumerate(chunk):
                src[row, :len(word)] = self.vocab.encode(word)
            yield chunk, src, np.array([len(w) for w in chunk], dtype=np.int64)

    def _decode(self, words: list[str], k: int) -> dict[str, list[Candidate]]:
        """Beam search (constrained to the lexicon when there is one), joined by lexicon neighbours
        (`_add_neighbours`), reranked by the noisy channel; the top `k` per word."""
        result: dict[str, list[Candidate]] = {}
        for chunk, src, src_len in self._batches([w for w in words if w and self.vocab.covers(w)]):
            beams = beam_search(self.stepper, src, src_len, beam=self.beam, alpha=self.alpha,
                                constraint=self.constraint)
            found = [{self.vocab.decode(h.ids): h for h in hyps} for hyps in beams]  # per word: output -> hyp
            if self.lexicon is not None and (self.edit_candidates or self.two_edit_candidates):
                self._add_neighbours(chunk, src, src_len, found)
            for word, candidates in zip(chunk, found):
                result[word] = self._ranked(word, candidates)[:k] or [Candidate(word, 0.0)]
        for word in words:  # characters the model cannot read: left as they are
            result.setdefault(word, [Candidate(word, 0.0)])
        return result

    def _add_neighbours(self, chunk: list[str], src, src_len, found: list[dict]) -> None:
        """Add to `found` the lexicon words near each input that the beam missed, scored by the model itself:
        the beam's search errors (a dropped letter it never put back) get a second chance. Near: one edit away
        (all of them, when `edit_candidates`), and the `two_edit_candidates` most frequent two edits away (on the
        Birkbeck dev set, the 5 most frequent bring the whole gain of taking all ~40 at an eighth of the cost)."""
        pairs = [(row, other) for row, word in enumerate(chunk)
                 for other in self._neighbours(word) if other not in found[row]]
        for start in range(0, len(pairs), 4 * self.batch_size):  # bounded: short words have many neighbours
            part = pairs[start:start + 4 * self.batch_size]
            rows = [row for row, _ in part]
            hyps = forced_hypotheses(self.stepper, src[rows], src_len[rows], [self.vocab.encode(w) for _, w in part],
                                     self.alpha)
            for (row, other), hyp in zip(part, hyps):
                found[row][other] = hyp

    def _neighbours(self, word: str) -> list[str]:
        """The lexicon words `_add_neighbours` scores for `word`: one edit away, then the most frequent two away."""
        near = one_edit_words(word, self.lexicon, self.vocab.alphabet)
        far = []
        if self.two_edit_candidates:
            far = sorted((w for w in self.lexicon.trie.within(word, 2) if w != word and w not in near),
                         key=lambda w: (-self.lexicon.count(w), w))[:self.two_edit_candidates]
        return (sorted(near) if self.edit_candidates else []) + far

    def _ranked(self, typo: str, candidates: dict[str, Hypothesis]) -> list[Candidate]:
        """The candidates for `typo` best first: by the noisy channel with a lexicon, by the model's score
        without one. An empty output (the model ending at once) would delete the word from a text, so it is
        never offered."""
        words, hyps = list(candidates), list(candidates.values())
        pairs = (rerank(hyps, words, self.lexicon, self.prior_weight, typo, self.edit_weight,
                        self.first_letter_weight)
                 if self.lexicon is not None
                 else sorted(zip(words, hyps), key=lambda pair: -pair[1].score))
        return [Candidate(w, h.score, h.attn) for w, h in pairs if w]

    def _score(self, words: list[str]) -> dict[str, float]:
        """The noisy-channel score of each word as its own correction (the model forced to write it)."""
        scores = {}
        for chunk, src, src_len in self._batches([w for w in words if self.vocab.covers(w)]):
            hyps = forced_hypotheses(self.stepper, src, src_len, [self.vocab.encode(w) for w in chunk], self.alpha)
            for word, hyp in zip(chunk, hyps):
                scores[word] = self._ranked(word, {word: hyp})[0].score
        return {w: scores.get(w, 0.0) for w in words}


def one_edit_words(word: str, lexicon: Lexicon, letters: str) -> set[str]:
    """Lexicon words one edit from `word` (Damerau: a deletion, an adjacent transposition, a substitution or
    an insertion of one of `letters`), `word` itself excluded."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    edits = {a + b[1:] for a, b in splits if b}
    edits |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    edits |= {a + c + b[1:] for a, b in splits if b for c in letters}
    edits |= {a + c + b for a, b in splits for c in letters}
    edits.discard(word)
    return {w for w in edits if w in lexicon}
