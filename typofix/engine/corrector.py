"""The correction path: load a model, then correct words and text.

Torch-free: the one beam search (`typofix.engine.search`, numpy) reaches the model through a stepper, either
onnxruntime running the ONNX export (`onnx_model`; the bundled default, so `typofix correct` never imports
torch) or torch running a checkpoint (`torch_stepper`, imported only for a .pt / .ckpt file). No Lightning or
Hydra either way: a model file describes itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from typofix.words.context import BigramModel
from typofix.words.indexcache import cached
from typofix.words.lexicon import AcceptedWords, Lexicon
from typofix.words.neighbours import DeletionIndex
from typofix.words.phonetic import SoundIndex
from typofix.engine.ranking import FittedScorer, table_path
from typofix.files.modelfile import ModelError, bundled_int8_path, bundled_model_path, bundled_onnx_path
from typofix.engine.settings import DecodingSettings
from typofix.engine.search import (Hypothesis, LexiconConstraint, Stepper, beam_search, channel_score, take_rows,
                            trie_hypotheses)
from typofix.words.text import MAX_WORD_LEN, Piece, match_case, neighbours, split_text
from typofix.words.distance import osa_distance
from typofix.words.vocab import Vocab

__all__ = ["Candidate", "Corrector", "DecodingSettings", "ModelError", "bundled_model_path", "load_stepper"]

BATCH_SIZE = 256
# Two-edit candidates come from the most frequent words only: the index of all 77k (the list before Aspell's
# words were added) took 0.8 s to build, of these 0.3 s, and the wide pass wants the most frequent two-edit
# words anyway.
TWO_EDIT_WORDS = 40_000
_CACHE_SIZE = 100_000
# Real-word errors are reported when a one-edit neighbour is this much (log) likelier in context: e^8 ~ 3000x
# (on the dev prose's clean text, 52 reports in 21,960 correct words).
REAL_WORD_GAIN = 8.0
CONTEXT_CANDIDATES = 8  # per word, the best this many (the typo itself among them) are reranked in context


def load_stepper(path: str | Path | None = None, device: str = "cpu",
                 bundled: str = "default") -> tuple[Stepper, Vocab]:
    """The stepper and vocabulary of the model at `path`: a .onnxz file runs on onnxruntime, anything else (a
    slim export, a training checkpoint) on torch. None: the bundled model named `bundled` ("default", or "fast",
    the fast preset's smaller one), its int8 ONNX export when onnxruntime is installed (else its float one),
    else its torch export."""
    if path is None:
        onnx_paths = [p for p in (bundled_int8_path(bundled), bundled_onnx_path(bundled)) if p.is_file()]
        if device == "cpu" and onnx_paths and _has_onnxruntime():
            path = onnx_paths[0]
        else:
            path = bundled_model_path(bundled)
    path = Path(path)
    if path.suffix == ".onnxz":
        if device != "cpu":
            raise ModelError(f"{path}: an ONNX model runs on the CPU only; give a .pt model for device {device!r}")
        from typofix.engine.onnx_stepper import OnnxStepper

        return OnnxStepper.load(path)
    try:
        from typofix.nn.torch_stepper import TorchStepper
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
    """Corrects words and text with a trained model, its word list and a `DecodingSettings`.

    Acceptance is apart from generation: a word the acceptance dictionary, the word list or the user knows is
    left as it is (`settings.leave_accepted`), and so are the special tokens `typofix.words.text` sets aside
    (`settings.leave_special`). Any other word goes through the engine `typofix.engine.settings` describes: a cheap
    pass for every word (encode once, greedy answer, a channel-shortlisted handful of neighbours and the typo
    itself scored as one prefix trie), a wide pass (more neighbours scored from the same encoding, and a beam
    search where `settings.beam` > 1) only where the cheap answer is uncertain, and the confidence rule, under
    which the typo stays unless its best correction beats the typo's own score by `settings.min_confidence`.
    `use_lexicon=False` is the model alone; `stepper=None` is the lexicon alone, no network (`_channel_alone`),
    to measure what the model adds.
    """

    def __init__(self, stepper: Stepper | None, vocab: Vocab, lexicon: Lexicon | None,
                 settings: DecodingSettings = DecodingSettings(), accepted=None, max_word_len: int = MAX_WORD_LEN,
                 batch_size: int = BATCH_SIZE):
        if lexicon is None and settings.use_lexicon:
            settings = settings.with_(use_lexicon=False)
        if stepper is None and not settings.use_lexicon:
            raise ValueError("a corrector needs a model, a lexicon or both")
        self.stepper, self.vocab, self.settings = stepper, vocab, settings
        self.lexicon = lexicon if settings.use_lexicon else None
        # Accepted words: whatever answers `in` (typofix.words.lexicon.AcceptedWords); without one, the word list.
        self.accepted = accepted if accepted is not None else self.lexicon
        self.max_word_len, self.batch_size = max_word_len, batch_size
        # Built now, not on first use: building the trie takes a noticeable fraction of a second, and that
        # belongs to loading, not to the first batch a benchmark times.
        self.constraint = (LexiconConstraint(self.lexicon.trie, vocab.symbols, vocab.eos_id, self.lexicon,
                                             settings.prior_weight) if self.lexicon is not None else None)
        # word -> its ranked candidates: text repeats words, so each is decoded once (and chosen per occurrence)
        self._candidates: dict[str, list[Candidate]] = {}
        self._context: BigramModel | None = None
        self._one_edit: dict[str, list[str]] = {}  # real-word checks: a word's listed one-edit neighbours
        self._deletion_index: DeletionIndex | None = None
        self._one_edit_index: DeletionIndex | None = None
        self._sound_index: SoundIndex | None = None
        self._words_by_frequency: list[str] | None = None
        self.scorer = FittedScorer.load(table_path(settings.rerank_table)) if settings.scorer == "fitted" else None

    @classmethod
    def load(cls, path: str | Path | None = None, settings: DecodingSettings | None = None, fast: bool = False,
             lexicon_path: str | Path | None = None, accepted_path: str | Path | None = None,
             user_words: Iterable[str] = (), device: str = "cpu") -> "Corrector":
        """A corrector for the model at `path` (an ONNX export .onnxz, a slim export or a training checkpoint;
        None: the bundled model `settings.bundled_model`, see `load_stepper`) with `settings` (None: the tuned
        default, or the fast preset when `fast`), the word list at `lexicon_path` and the acceptance dictionary
        at `accepted_path` (None: the bundled ones), plus `user_words`, which are accepted and may be corrections
        too."""
        settings = settings if settings is not None else DecodingSettings.preset("fast" if fast else "default")
        stepper, vocab = load_stepper(path, device, settings.bundled_model)
        lexicon = accepted = None
        if settings.use_lexicon:
            lexicon = Lexicon.from_tsv(lexicon_path)
            user_words = [w.lower() for w in user_words]
            lexicon.add_words(user_words, USER_WORD_COUNT)  # a user's word can be a correction: a middling prior
            accepted = AcceptedWords.load(accepted_path, extra=user_words)
        return cls(stepper, vocab, lexicon, settings, accepted)

    # --- public API ----------------------------------------------------------------------------------------

    def correct(self, word: str) -> str:
        """The correction of one word (or short text), in the input's case."""
        return self.correct_many([word])[0]

    def correct_text(self, text: str) -> str:
        """`text` with its misspelled words corrected and every other character as it was."""
        return self.correct_many([text])[0]

    def correct_many(self, texts: list[str]) -> list[str]:
        """`correct_text` of every item, all their words decoded in shared batches."""
        split, chosen = self._choose(texts)
        return ["".join(chosen.get((t, i), piece.text) for i, piece in enumerate(pieces))
                for t, pieces in enumerate(split)]

    def corrections_many(self, texts: list[str]) -> list[list[tuple[int, str, str]]]:
        """Per text, what `correct_many` changes in it: (offset of the word in the text, the word as written,
        its correction), in text order."""
        split, chosen = self._choose(texts)
        found = []
        for t, pieces in enumerate(split):
            offset, changes = 0, []
            for i, piece in enumerate(pieces):
                fixed = chosen.get((t, i), piece.text)
                if fixed != piece.text:
                    changes.append((offset, piece.text, fixed))
                offset += len(piece.text)
            found.append(changes)
        return found

    def _choose(self, texts: list[str]) -> tuple[list[list[Piece]], dict[tuple[int, int], str]]:
        """The pieces of each text and {(text, piece): what it becomes} for its words to correct."""
        split = [split_text(text, self.max_word_len, self.settings.leave_special) for text in texts]
        # Acceptance looks at the word as written (`Sam` is a word, `sam` a typo of "same"); candidates are
        # found, and remembered, for the lowercase form, then chosen per occurrence in its context.
        written = {p.text for pieces in split for p in pieces if p.word}
        to_correct = {word for word in written if not self.is_accepted(word)}  # each distinct word judged once
        words = {word.lower() for word in to_correct}
        if len(self._candidates) + len(words) > _CACHE_SIZE:
            self._candidates.clear()  # bounded memory on endless streams
        k = CONTEXT_CANDIDATES if self.context is not None else 1
        found = self._rank(sorted(words - self._candidates.keys()), k)
        if self.context is not None:  # what the context may choose from: the best, the typo, the near ones
            near = self.settings.context_max_edits
            found = {word: [c for j, c in enumerate(ranked) if j == 0 or c.word == word
                            or osa_distance(word, c.word) <= near] for word, ranked in found.items()}
        self._candidates.update(found)
        chosen = {}  # (text, piece) -> correction of each word to correct
        in_context = []  # (text, piece, candidates, left, right) of those whose neighbours may have a say
        for t, pieces in enumerate(split):
            for i, piece in enumerate(pieces):
                if piece.word and piece.text in to_correct:
                    ranked = self._candidates[piece.text.lower()]
                    chosen[t, i] = match_case(piece.text, ranked[0].word)
                    if self.context is not None and len(ranked) > 1:
                        left, right = neighbours(pieces, i)
                        if left is not None or right is not None:
                            in_context.append((t, i, ranked, left, right))
        if in_context:
            for (t, i, ranked, _, _), best in zip(in_context, self._in_context([r[2:] for r in in_context])):
                chosen[t, i] = match_case(split[t][i].text, best)
        return split, chosen

    def _in_context(self, occurrences: list[tuple[list[Candidate], str | None, str | None]]) -> list[str]:
        """The best candidate of each occurrence (its candidates, its left and right neighbour or None) by
        channel score + context_weight * the neighbours' evidence; one bigram lookup for all of them."""
        firsts, seconds = [], []  # the pairs to score: (left neighbour, candidate), (candidate, right neighbour)
        for ranked, left, right in occurrences:
            for c in ranked:
                if left is not None:
                    firsts.append(left)
                    seconds.append(c.word)
                if right is not None:
                    firsts.append(c.word)
                    seconds.append(right)
        evidence = iter(self.context.pair_evidence(firsts, seconds).tolist())
        weight, best = self.settings.context_weight, []
        for ranked, left, right in occurrences:
            sides = (left is not None) + (right is not None)
            scores = [c.score + weight * sum(next(evidence) for _ in range(sides)) for c in ranked]
            best.append(ranked[scores.index(max(scores))].word)
        return best

    @property
    def context(self) -> BigramModel | None:
        """The word-bigram model that ranks candidates in text (None when `context_weight` is 0 or there is no
        lexicon); read on first use (a few hundredths of a second), so single words never pay for it."""
        return self._bigrams() if self.settings.context_weight > 0 else None

    def _bigrams(self) -> BigramModel | None:
        if self._context is None and self.lexicon is not None:
            self._context = BigramModel.load(self.lexicon.counts, mix=self.settings.context_mix)
        return self._context

    def real_word_errors(self, texts: list[str], min_gain: float = REAL_WORD_GAIN) -> list[list[tuple[int, str, str]]]:
        """Per text, the accepted words that are probably another word (real-word errors: form for from):
        (offset, the word as written, the likelier word in its case) where a listed word one edit away is more
        likely between the same neighbours by a factor of e^`min_gain` or more (bigram probabilities,
        `typofix.words.context`, with the unigram prior). Only reported, never corrected. Words of 1-2 letters and
        words with a neighbour on one side only are not judged (too little to go on)."""
        bigrams = self._bigrams()
        found = []
        for text in texts:
            pieces = split_text(text, self.max_word_len, self.settings.leave_special)
            offset, errors = 0, []
            for i, piece in enumerate(pieces):
                word = piece.text.lower()
                if (bigrams is not None and piece.word and len(word) > 2 and word in self.lexicon
                        and self.is_accepted(piece.text)):
                    left, right = neighbours(pieces, i)
                    if left is not None and right is not None:
                        better = self._likelier(word, left, right, bigrams, min_gain)
                        if better is not None:
                            errors.append((offset, piece.text, match_case(piece.text, better)))
                offset += len(piece.text)
            found.append(errors)
        return found

    def _likelier(self, word: str, left: str, right: str, bigrams: BigramModel, min_gain: float) -> str | None:
        """The listed word one edit from `word` that is likelier between `left` and `right` by e^min_gain, if any."""
        others = self._one_edit.get(word)
        if others is None:
            others = self._one_edit[word] = sorted(self.one_edit_index.near(word, len(self.lexicon), 1))
        if not others:
            return None
        words = [word, *others]
        scores = bigrams.evidence(words, left, right) + np.array([self.lexicon.log_prior(w) for w in words])
        best = int(np.argmax(scores[1:])) + 1
        return words[best] if scores[best] - scores[0] >= min_gain else None

    def suggest(self, word: str, k: int = 5) -> list[tuple[str, float]]:
        """Up to `k` corrections of `word`, best first, with their scores; the first is what `correct` gives."""
        return self.suggest_many([word], k)[0]

    def suggest_many(self, words: list[str], k: int = 5) -> list[list[tuple[str, float]]]:
        """`suggest` for every word, decoded in shared batches. An accepted word comes first as itself; input
        that is not one correctable word (a URL, a number, a phrase, an acronym) gets its `correct_text` with
        score 0.0."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        single, accepted = {}, set()
        for word in words:
            pieces = split_text(word, self.max_word_len, self.settings.leave_special)
            if len(pieces) == 1 and pieces[0].word:
                single[word] = word.lower()
                if self.is_accepted(word):
                    accepted.add(word.lower())
        ranked = self._rank(sorted(set(single.values())), k, accepted=accepted)
        others = [w for w in words if w not in single]
        passed = dict(zip(others, self.correct_many(others)))
        return [[(match_case(w, c.word), c.score) for c in ranked[single[w]][:k]] if w in single
                else [(passed[w], 0.0)] for w in words]

    def explain(self, word: str, k: int = 5) -> list[Candidate]:
        """The model's `k` best corrections of one lowercase-able word with their attention weights, searched
        even when the word is accepted and ranked without the confidence rule (this shows what the model does,
        not what `correct` would keep)."""
        return self._rank([word.lower()], k, decide=False)[word.lower()]

    def is_accepted(self, word: str) -> bool:
        """True for a word, as written, that the corrector leaves alone as a word."""
        return self.settings.leave_accepted and self.accepted is not None and word in self.accepted

    # --- the engine ----------------------------------------------------------------------------------------

    def _rank(self, words: list[str], k: int, decide: bool = True, accepted=frozenset()) -> dict[str, list[Candidate]]:
        """Up to `k` candidates for each lowercase word, best first. With `decide`, the typo itself comes first
        when it is in `accepted` (it was written as an accepted word), or unless the best correction beats it by
        `min_confidence` (for `correct`, `suggest`); without, all candidates in score order, the typo itself
        only where it is a listed word (for `explain`)."""
        result: dict[str, list[Candidate]] = {}
        for word in words:  # characters the model cannot read: left as they are
            if not word or not self.vocab.covers(word):
                result[word] = [Candidate(word, 0.0)]
        todo = [w for w in words if w not in result]
        if not self.settings.use_lexicon:
            result.update(self._model_alone(todo, k))
            return result
        for word, (ranked, keep) in self._search(todo, k).items():
            if decide:
                # The confidence rule as a score: the typo competes with its own score plus min_confidence.
                stay = Candidate(word, keep.score + self.settings.min_confidence, keep.attn)
                others = [c for c in ranked if c.word != word]
                if word in accepted:
                    result[word] = ([stay] + others)[:k]
                else:
                    result[word] = sorted(others + [stay], key=lambda c: -c.score)[:k]
            else:
                listed = [c for c in ranked if c.word != word or word in self.lexicon]
                result[word] = listed[:k] or [keep]
        return result

    def _model_alone(self, words: list[str], k: int) -> dict[str, list[Candidate]]:
        """Plain beam search, no lexicon: the model's own top `k` (an empty output is never offered)."""
        result = {}
        for chunk, src, src_len in self._batches(words):
            beams = beam_search(self.stepper, src, src_len, beam=max(k, self.settings.beam), alpha=self.settings.alpha)
            for word, hyps in zip(chunk, beams):
                found = [Candidate(self.vocab.decode(h.ids), h.score, h.attn) for h in hyps if h.ids]
                result[word] = found[:k] or [Candidate(word, 0.0)]
        return result

    def _search(self, words: list[str], k: int, trace: dict | None = None) -> dict[str, tuple[list[Candidate], Candidate]]:
        """Per word: its candidates ranked by the noisy channel (the typo itself among them) and the typo's own
        candidate. The cheap pass for all, the wide pass for the uncertain; see the class docstring. `trace`
        (for the tuner, `bench.tune_decoding`): filled with each word's candidates of each pass as
        {word: {"cheap" or "wide": {candidate: (log P_model, decoder steps, edits or None)}}}."""
        if self.stepper is None:
            return self._channel_alone(words)
        s = self.settings
        result = {}
        for chunk, src, src_len in self._batches(words):
            encoded = self.stepper.encode(src, src_len)  # once per typo, for every pass and candidate
            found = [{} for _ in chunk]  # per word: output -> its hypothesis
            if s.greedy:
                greedy = beam_search(self.stepper, None, src_len, beam=1, alpha=s.alpha, constraint=self.constraint,
                                     encoded=encoded)
                found = [{self.vocab.decode(h.ids): h for h in hyps} for hyps in greedy]
            one_edit = self.one_edit_index.near_many(chunk, len(self.lexicon), 1)  # most frequent first
            edits = [dict(self._shortlist(word, near)) for word, near in zip(chunk, one_edit)]
            for word, near in zip(chunk, edits):
                near[word] = 0  # the typo itself: what the confidence rule weighs the corrections against
            self._score_into(found, chunk, encoded, src_len, [list(near) for near in edits])
            ranked = self._ranked_many(chunk, found, edits)
            if trace is not None:
                for word, cands, near in zip(chunk, found, edits):
                    trace[word] = {"cheap": _traced(cands, near)}

            uncertain = [row for row, (word, cands) in enumerate(zip(chunk, ranked)) if self._uncertain(word, cands)]
            if uncertain and (s.beam > 1 or s.wide_margin > 0 or s.wide_min_edits):
                rows = np.array(uncertain)
                sub, sub_len = take_rows(encoded, rows), src_len[rows]
                beams = [[] for _ in uncertain]
                if s.beam > 1:  # beam 1: the wide pass is its neighbours alone, scored as a trie
                    # The wide search looks for a better first candidate: whatever cannot beat the cheap pass's
                    # best is dropped (the rest of a top-k are the best of the candidates scored on the way).
                    # The bound is the hand channel's, so the fitted scorer searches without it.
                    floor = np.array([ranked[r][0].score for r in uncertain], dtype=np.float32)
                    beams = beam_search(self.stepper, None, sub_len, beam=s.beam, alpha=s.alpha,
                                        constraint=self.constraint, encoded=sub,
                                        floor=floor if s.prune and s.scorer == "hand" else None)
                more = []
                wides = self._neighbours([chunk[r] for r in uncertain], s.one_edit_candidates,
                                         [one_edit[r] for r in uncertain])
                for row, hyps, wide in zip(uncertain, beams, wides):
                    for h in hyps:
                        found[row].setdefault(self.vocab.decode(h.ids), h)
                    edits[row].update((w, d) for w, d in wide.items() if w not in edits[row])
                    more.append([w for w in wide if w not in found[row]])
                self._score_into([found[r] for r in uncertain], [chunk[r] for r in uncertain], sub, sub_len, more)
                widened = self._ranked_many([chunk[r] for r in uncertain], [found[r] for r in uncertain],
                                            [edits[r] for r in uncertain])
                for row, cands in zip(uncertain, widened):
                    ranked[row] = cands
                    if trace is not None:
                        trace[chunk[row]]["wide"] = _traced(found[row], edits[row])
            for word, cands in zip(chunk, ranked):
                keep = next(c for c in cands if c.word == word)
                result[word] = (cands, keep)
        return result

    def _channel_alone(self, words: list[str]) -> dict[str, tuple[list[Candidate], Candidate]]:
        """`_search` with no network: each word's candidates are the wide pass's neighbours (every lexicon word
        one edit away, the `two_edit_candidates` most frequent two away, the `sound_candidates` sound-alikes) and
        the typo itself, ranked by the channel alone (prior, edits, first letter; log P_model counts 0). The
        model-proposed candidates (greedy, beam) are missing, since nothing proposes them."""
        edits = self._neighbours(words)
        for word, near in zip(words, edits):
            near[word] = 0
        ranked = self._ranked_many(words, [{w: Hypothesis([], 0.0, 0.0) for w in near} for near in edits], edits)
        return {word: (cands, next(c for c in cands if c.word == word)) for word, cands in zip(words, ranked)}

    def _score_into(self, found: list[dict], chunk: list[str], encoded, src_len, outputs: list[list[str]]) -> None:
        """Score each word's `outputs` not yet in `found` (as one prefix trie per word) and add them."""
        todo = [[w for w in outs if w not in cands] for outs, cands in zip(outputs, found)]
        if not any(todo):
            return
        hyps = trie_hypotheses(self.stepper, encoded, src_len, [[self.vocab.encode(w) for w in outs] for outs in todo],
                               self.settings.alpha)
        for cands, outs, scored in zip(found, todo, hyps):
            cands.update(zip(outs, scored))

    def _uncertain(self, word: str, ranked: list[Candidate]) -> bool:
        """Whether the cheap answer needs the wide search: its best correction clears the confidence rule by
        less than `wide_margin` (it may lose to leaving the word, or only just win), or it is `wide_min_edits`
        or more edits from the typo (a far guess of the greedy decoder)."""
        s = self.settings
        others = [c for c in ranked if c.word != word]
        keep = next(c for c in ranked if c.word == word)
        if not others or others[0].score - keep.score - s.min_confidence < s.wide_margin:
            return True
        return bool(s.wide_min_edits) and osa_distance(word, others[0].word) >= s.wide_min_edits

    def _shortlist(self, word: str, near: list[str]) -> list[tuple[str, int]]:
        """Of the lexicon words `near` one edit from `word`, those the cheap pass scores with the model: the
        `shortlist` best by the channel alone (prior and first letter), with their edit distance (1)."""
        s = self.settings
        best = sorted(near, key=lambda w: (-(s.prior_weight * self.lexicon.log_prior(w)
                                             - s.first_letter_weight * (w[:1] != word[:1])), w))
        return [(w, 1) for w in best[:s.shortlist]]

    def _neighbours(self, words: list[str], one_edit_limit: int | None = None,
                    one_edit: list[list[str]] | None = None) -> list[dict[str, int]]:
        """The wide pass's extra candidates of each word with their edit distance: the `one_edit_limit` most
        frequent lexicon words one edit away (None: all of them; `one_edit`: those words, most frequent first,
        where the caller has them), the `two_edit_candidates` most frequent two away (on birkbeck-dev, the 5
        most frequent bring the whole gain of taking all ~40 at an eighth of the cost), and the
        `sound_candidates` that sound most like it (any distance: the misspellings written by sound). The
        two-edit and sound-alike words are never one edit away, whatever the limit."""
        s = self.settings
        if one_edit is None:
            one_edit = self.one_edit_index.near_many(words, len(self.lexicon), 1)
        near = [dict.fromkeys(found, 1) for found in one_edit]  # every one-edit word: what the others exclude
        found = [dict.fromkeys(ones[:one_edit_limit], 1) for ones in one_edit]
        if s.two_edit_candidates:
            far = self.deletion_index.near_many(words, s.two_edit_candidates, 2, near)
            for ones, kept, twos in zip(near, found, far):
                ones.update(dict.fromkeys(twos, 2))
                kept.update(dict.fromkeys(twos, 2))
        if s.sound_candidates:
            # Only for spellings the word list lacks: a listed word (`subdirectories`, in the list though no
            # dictionary accepts it) is a real spelling, and a far-off word that sounds like it (`subdirectory`)
            # is no correction of it. On the dev prose they were 11 of 26 broken words, with no fix gained.
            unlisted = [i for i, word in enumerate(words) if word not in self.lexicon]
            alike = self.sound_index.near_many([words[i] for i in unlisted], s.sound_candidates,
                                               [near[i] for i in unlisted])
            for i, sounds in zip(unlisted, alike):
                found[i].update((w, osa_distance(words[i], w)) for w in sounds)
        return found

    @property
    def sound_index(self) -> SoundIndex:
        """Words by their sound codes, for the first wide pass that wants them: from the index cache
        (`typofix.words.indexcache`), or built (half a second for the bundled list) and saved there."""
        if self._sound_index is None:
            counts = self.lexicon.counts
            self._sound_index = cached("sound", self.lexicon.digest, lambda: SoundIndex(counts),
                                       lambda arrays: SoundIndex.from_arrays(counts, arrays))
        return self._sound_index

    @property
    def deletion_index(self) -> DeletionIndex:
        """The most frequent words two edits away, for the first wide pass: cached like `sound_index`."""
        if self._deletion_index is None:
            self._deletion_index = self._cached_deletions(f"two-edit-{TWO_EDIT_WORDS}", TWO_EDIT_WORDS, 2)
        return self._deletion_index

    @property
    def one_edit_index(self) -> DeletionIndex:
        """Every lexicon word one edit away, most frequent first (ten times faster than generating every string
        one edit away and looking each up): cached like `sound_index` (half a second to build)."""
        if self._one_edit_index is None:
            self._one_edit_index = self._cached_deletions("one-edit", len(self.lexicon), 1)
        return self._one_edit_index

    def _cached_deletions(self, name: str, size: int, max_edits: int) -> DeletionIndex:
        """The deletion index of the `size` most frequent words, from the index cache or built (and saved)."""
        words = self._by_frequency()[:size]
        return cached(name, self.lexicon.digest, lambda: DeletionIndex(words, max_edits),
                      lambda arrays: DeletionIndex.from_arrays(words, arrays))

    def _by_frequency(self) -> list[str]:
        """The lexicon's words, most frequent first (ties in list order); worked out once."""
        if self._words_by_frequency is None:
            counts = self.lexicon.counts
            words = list(counts)
            frequency = np.fromiter(counts.values(), dtype=np.int64, count=len(words))
            if np.all(frequency[1:] <= frequency[:-1]):  # the bundled list is in this order; a user's words are not
                self._words_by_frequency = words
            else:
                self._words_by_frequency = [words[i] for i in np.argsort(-frequency, kind="stable").tolist()]
        return self._words_by_frequency

    def _ranked_many(self, typos: list[str], candidates: list[dict[str, Hypothesis]],
                     edits: list[dict[str, int]]) -> list[list[Candidate]]:
        """Each typo's candidates best first by the fitted scorer (`typofix.engine.ranking`, all typos in one call) or
        the hand-set noisy channel (`search.channel_score`), as `settings.scorer` says. An empty output (the
        model ending at once) would delete the word from a text, so it is never offered."""
        s = self.settings
        if s.scorer == "hand" or self.stepper is None:  # no network: no model score to weigh
            ranked = [[Candidate(w, channel_score(h.score, w, typo, self.lexicon, s.prior_weight, s.edit_weight,
                                                  s.first_letter_weight, near.get(w)), h.attn)
                       for w, h in cands.items() if w] for typo, cands, near in zip(typos, candidates, edits)]
        else:
            words = [[w for w in cands if w] for cands in candidates]
            hyps = [cands[w] for cands, group in zip(candidates, words) for w in group]
            flat = [w for group in words for w in group]
            distances = [near[w] if near.get(w) is not None else osa_distance(typo, w)
                         for typo, near, group in zip(typos, edits, words) for w in group]
            scores = self.scorer.scores_many(
                typos, words, [h.log_prob for h in hyps], [len(h.ids) + 1 for h in hyps],
                [self.lexicon.log_prior(w) for w in flat], distances).tolist()
            ranked, start = [], 0
            for group in words:
                ranked.append([Candidate(w, score, h.attn) for w, h, score in
                               zip(group, hyps[start:start + len(group)], scores[start:start + len(group)])])
                start += len(group)
        return [sorted(scored, key=lambda c: -c.score) for scored in ranked]

    def _batches(self, words: list[str]):
        """Batches of similar length (padding costs as much as characters): (words, src (B, S), src_len (B,))."""
        ordered = sorted(words, key=len)
        for start in range(0, len(ordered), self.batch_size):
            chunk = ordered[start:start + self.batch_size]
            src = np.full((len(chunk), len(chunk[-1])), self.vocab.pad_id, dtype=np.int64)  # (B, S), longest last
            for row, word in enumerate(chunk):
                src[row, :len(word)] = self.vocab.encode(word)
            yield chunk, src, np.array([len(w) for w in chunk], dtype=np.int64)


def _traced(candidates: dict[str, Hypothesis], edits: dict[str, int]) -> dict[str, tuple[float, int, int | None]]:
    return {w: (h.log_prob, len(h.ids) + 1, edits.get(w)) for w, h in candidates.items() if w}


# A user's own word has no corpus count; this one (about the 30,000th most frequent listed word's) lets it win
# where it is the closest word without outranking common words one edit away.
USER_WORD_COUNT = 1_000_000
