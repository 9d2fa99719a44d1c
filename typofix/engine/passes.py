"""The two passes that find and rank a typo's candidates, and the confidence rule that decides between them
and the typo itself.

A batch of typos of similar length is encoded once. The cheap pass, for every typo: the model's own greedy
answer on the lexicon's prefix trie (`settings.greedy`), the `shortlist` of its one-edit neighbours, the
`homophone_candidates` words said exactly as the typo sounds (`typofix.engine.sounds`) and the typo itself,
scored together as one prefix trie. The wide pass, only where the cheap answer is uncertain
(its best correction clears the confidence rule by less than `wide_margin`, or is `wide_min_edits` or more
edits away): more neighbours (`typofix.engine.candidates`), and a beam search where `settings.beam` > 1,
scored from the same encoding. Each pass ranks all its candidates (`typofix.engine.ranking`).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from typofix.engine.candidates import Neighbours
from typofix.engine.heap import release_freed_memory
from typofix.engine.ranking import Candidate, Ranker
from typofix.engine.results import Trace, TracedCandidate
from typofix.engine.scoring import Hypothesis, take_rows, take_steps, trie_hypotheses
from typofix.engine.search import LexiconConstraint, beam_search
from typofix.engine.settings import DecodingSettings
from typofix.engine.stepper import Stepper, length_batches
from typofix.words.distance import osa_distance
from typofix.words.lexicon import Lexicon
from typofix.words.vocab import Vocab

BATCH_SIZE = 256


class Passes:
    """A typo's ranked candidates through the cheap and the wide pass (see the module docstring), or, without
    a lexicon, the model's own beam search; without a network (`stepper` None), the neighbours ranked by the
    channel alone (`channel_alone`), to measure what the model adds."""

    def __init__(self, stepper: Stepper | None, vocab: Vocab, lexicon: Lexicon | None, settings: DecodingSettings,
                 constraint: LexiconConstraint | None, neighbours: Neighbours | None, ranker: Ranker | None,
                 batch_size: int = BATCH_SIZE):
        self.stepper, self.vocab, self.lexicon, self.settings = stepper, vocab, lexicon, settings
        self.constraint, self.neighbours, self.ranker, self.batch_size = constraint, neighbours, ranker, batch_size

    def rank(self, words: list[str], k: int, decide: bool = True, accepted=frozenset(),
             attention: bool = False) -> dict[str, list[Candidate]]:
        """Up to `k` candidates for each lowercase word, best first. With `decide`, the typo itself comes first
        when it is in `accepted` (it was written as an accepted word), or unless the best correction beats it by
        `min_confidence` (for `correct`, `suggest`); without, all candidates in score order, the typo itself
        only where it is a listed word (for `explain`). `attention`: each candidate with the model's attention
        weights (for `explain` and the explorer; the rest read none)."""
        result: dict[str, list[Candidate]] = {}
        if not self.settings.use_lexicon:
            covered = [w for w in words if w and self.vocab.covers(w)]
            result.update(self.model_alone(covered, k, attention))
            return {w: result.get(w) or [Candidate(w, 0.0)] for w in words}
        if decide:
            for word, (others, keep) in self.judged(words, k, attention).items():
                result[word] = ([Candidate(word, 0.0)] if keep is None  # characters the model cannot read
                                else decide_between(others, keep, self.settings.min_confidence, k,
                                                    first=word in accepted))
            return result
        for word in words:
            if not word or not self.vocab.covers(word):
                result[word] = [Candidate(word, 0.0)]
        for word, (ranked, keep) in self.search([w for w in words if w not in result], attention=attention).items():
            listed = [c for c in ranked if c.word != word or word in self.lexicon]
            result[word] = listed[:k] or [keep]
        return result

    def judged(self, words: list[str], k: int, attention: bool = False
               ) -> dict[str, tuple[list[Candidate], Candidate | None]]:
        """Per lowercase word: its `k` best corrections (the typo itself not among them) and the typo's own
        candidate with its own score, for the caller's confidence rule (None: a word of characters the model
        cannot read, which is left as it is); `attention` as in `rank`."""
        result: dict[str, tuple[list[Candidate], Candidate | None]] = {}
        for word in words:
            if not word or not self.vocab.covers(word):
                result[word] = ([], None)
        # Trimmed batch by batch, as the search hands them on: a word's whole ranking (every candidate scored)
        # is held only while its batch is, not for all the words of a large call (a run's 20,000 at once).
        for word, (ranked, keep) in self._searched([w for w in words if w not in result], attention=attention):
            result[word] = ([c for c in ranked if c.word != word][:k], keep)
        return result

    def model_alone(self, words: list[str], k: int, attention: bool = False) -> dict[str, list[Candidate]]:
        """Plain beam search, no lexicon: the model's own top `k` (an empty output is never offered)."""
        result = {}
        for chunk, src, src_len in self.batches(words):
            beams = beam_search(self.stepper, src, src_len, beam=max(k, self.settings.beam), alpha=self.settings.alpha,
                                attention=attention)
            for word, hyps in zip(chunk, beams):
                found = [Candidate(self.vocab.decode(h.ids), h.score, h.attn) for h in hyps if h.ids]
                result[word] = found[:k] or [Candidate(word, 0.0)]
        return result

    def search(self, words: list[str], trace: dict[str, Trace] | None = None, attention: bool = False
               ) -> dict[str, tuple[list[Candidate], Candidate]]:
        """Per word: its candidates ranked (the typo itself among them) and the typo's own candidate, through
        the cheap pass for all and the wide pass for the uncertain. `trace`: filled with each word's `Trace`;
        `attention` as in `rank`."""
        return dict(self._searched(words, trace, attention))

    def _searched(self, words: list[str], trace: dict[str, Trace] | None = None, attention: bool = False
                  ) -> Iterator[tuple[str, tuple[list[Candidate], Candidate]]]:
        """`search`'s (word, (ranked candidates, own candidate)), handed on a batch at a time."""
        if self.stepper is None:
            yield from self.channel_alone(words, trace).items()
            return
        s = self.settings
        for chunk, src, src_len in self.batches(words):
            encoded = self.stepper.encode(src, src_len)  # once per typo, for every pass and candidate
            found = [{} for _ in chunk]  # per word: output -> its hypothesis
            # The greedy decode's rows, which the cheap pass's trie reuses where its candidates share the greedy
            # answer's prefixes (a third of its rows on birkbeck-dev).
            trail = [] if s.greedy and not attention else None
            if s.greedy:
                greedy = beam_search(self.stepper, None, src_len, beam=1, alpha=s.alpha, constraint=self.constraint,
                                     encoded=encoded, attention=attention, trail=trail)
                found = [{self.vocab.decode(h.ids): h for h in hyps} for hyps in greedy]
            one_edit = self.neighbours.one_edit(chunk)  # most frequent first
            edits = [dict(found) for found in self.neighbours.shortlist_many(chunk, one_edit)]
            homophones = self.neighbours.said_alike(chunk) if s.cheap_phones else [{} for _ in chunk]
            for word, near, alike in zip(chunk, edits, homophones):
                near.update((w, d) for w, d in alike.items() if w not in near)
                near[word] = 0  # the typo itself: what the confidence rule weighs the corrections against
            self._score_into(found, chunk, encoded, src_len, [list(near) for near in edits], attention, trail)
            ranked = self.ranker.rank_many(chunk, found, edits, hear=s.cheap_phones)
            if trace is not None:
                for word, cands, near, scored in zip(chunk, found, edits, ranked):
                    trace[word] = Trace(word, self._traced(word, cands, near, scored))

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
                                        floor=floor if s.prune and s.scorer == "hand" else None, attention=attention)
                more = []
                wides = self.neighbours.wide([chunk[r] for r in uncertain], s.one_edit_candidates,
                                             [one_edit[r] for r in uncertain])
                if not s.cheap_phones:  # the homophones the cheap pass did not hear
                    for wide, alike in zip(wides, self.neighbours.said_alike([chunk[r] for r in uncertain])):
                        wide.update((w, d) for w, d in alike.items() if w not in wide)
                for row, hyps, wide in zip(uncertain, beams, wides):
                    for h in hyps:
                        found[row].setdefault(self.vocab.decode(h.ids), h)
                    edits[row].update((w, d) for w, d in wide.items() if w not in edits[row])
                    more.append([w for w in wide if w not in found[row]])
                if s.wide_model_candidates:
                    more = self.ranker.best_without_model([chunk[r] for r in uncertain], more,
                                                          [edits[r] for r in uncertain], s.wide_model_candidates)
                self._score_into([found[r] for r in uncertain], [chunk[r] for r in uncertain], sub, sub_len, more,
                                 attention, trail and take_steps(trail, rows, len(chunk)))
                widened = self.ranker.rank_many([chunk[r] for r in uncertain], [found[r] for r in uncertain],
                                                [edits[r] for r in uncertain])
                for row, cands in zip(uncertain, widened):
                    ranked[row] = cands
                    if trace is not None:
                        word = chunk[row]
                        trace[word] = Trace(word, trace[word].cheap, self._traced(word, found[row], edits[row], cands))
            self.ranker.forget()  # the batch is ranked: its phone distances are not asked again
            for word, cands in zip(chunk, ranked):
                yield word, (cands, next(c for c in cands if c.word == word))
            release_freed_memory()

    def channel_alone(self, words: list[str], trace: dict[str, Trace] | None = None
                      ) -> dict[str, tuple[list[Candidate], Candidate]]:
        """`search` with no network: each word's candidates are the wide pass's neighbours (every lexicon word
        one edit away, the `two_edit_candidates` most frequent two away, the `sound_candidates` sound-alikes) and
        the typo itself, ranked by the channel alone (prior, edits, first letter; log P_model counts 0). The
        model-proposed candidates (greedy, beam) are missing, since nothing proposes them. Traced as one pass."""
        edits = self.neighbours.wide(words)
        for word, near in zip(words, edits):
            near[word] = 0
        found = [{w: Hypothesis([], 0.0, 0.0) for w in near} for near in edits]
        ranked = self.ranker.rank_many(words, found, edits)
        if trace is not None:
            for word, cands, near, scored in zip(words, found, edits, ranked):
                trace[word] = Trace(word, self._traced(word, cands, near, scored))
        return {word: (cands, next(c for c in cands if c.word == word)) for word, cands in zip(words, ranked)}

    def batches(self, words: list[str]):
        """`length_batches` of `words` at this engine's batch size."""
        return length_batches(words, self.vocab, self.batch_size)

    def _score_into(self, found: list[dict], chunk: list[str], encoded, src_len, outputs: list[list[str]],
                    attention: bool, known: list | None = None) -> None:
        """Score each word's `outputs` not yet in `found` (as one prefix trie per word) and add them; `known`: a
        greedy decode's trail of the same encoding (`trie_hypotheses`)."""
        todo = [[w for w in outs if w not in cands] for outs, cands in zip(outputs, found)]
        if not any(todo):
            return
        hyps = trie_hypotheses(self.stepper, encoded, src_len, [[self.vocab.encode(w) for w in outs] for outs in todo],
                               self.settings.alpha, attention, known)
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

    def _traced(self, typo: str, candidates: dict[str, Hypothesis], edits: dict[str, int],
                ranked: list[Candidate]) -> dict[str, TracedCandidate]:
        """A pass's candidates as found (the empty output, never offered, left out) with their scores."""
        scores = {c.word: c.score for c in ranked}
        return {w: TracedCandidate(w, h.log_prob, len(h.ids) + 1,
                                   edits[w] if edits.get(w) is not None else osa_distance(typo, w),
                                   self.lexicon.log_prior(w), scores[w])
                for w, h in candidates.items() if w}


def decide_between(others: list[Candidate], keep: Candidate, margin: float, k: int,
                   first: bool = False) -> list[Candidate]:
    """The confidence rule: the typo competes with its corrections `others` (best first) at its own score plus
    `margin` (`min_confidence`, or a repair's wider one); the best `k`, or with `first` the typo itself first."""
    stay = Candidate(keep.word, keep.score + margin, keep.attn)
    if first:
        return ([stay] + others)[:k]
    return sorted(others + [stay], key=lambda c: -c.score)[:k]
