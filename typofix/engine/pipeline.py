"""The text pipeline: text in, corrections out, every character outside the corrected words as it was.

A text is split into pieces (`typofix.words.text`); a word is judged as written (`Sam` is a word, `sam` a
typo of "same") and left alone when it is accepted; each distinct word to correct gets its candidates once,
for its lowercase form (`typofix.engine.passes`), remembered across calls, and each occurrence chooses among
them in its context (word bigrams, `typofix.words.context`). Real-word errors (form for from) are found among
the accepted words, reported and never applied.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from typofix.engine.candidates import Neighbours
from typofix.engine.passes import Passes
from typofix.engine.ranking import Candidate
from typofix.engine.results import Correction, Suggestion
from typofix.engine.settings import DecodingSettings
from typofix.words.context import BigramModel
from typofix.words.distance import osa_distance
from typofix.words.lexicon import Lexicon
from typofix.words.text import Piece, match_case, neighbours, split_text

_CACHE_SIZE = 100_000
# Real-word errors are reported when a one-edit neighbour is this much (log) likelier in context: e^8 ~ 3000x
# (on the dev prose's clean text, 52 reports in 21,960 correct words).
REAL_WORD_GAIN = 8.0
CONTEXT_CANDIDATES = 8  # per word, the best this many (the typo itself among them) are reranked in context


class TextPipeline:
    """Corrects texts and words with `passes`, leaving alone what `is_accepted` accepts as written."""

    def __init__(self, passes: Passes, is_accepted: Callable[[str], bool], settings: DecodingSettings,
                 lexicon: Lexicon | None, neighbours: Neighbours | None, max_word_len: int):
        self.passes, self.is_accepted, self.settings = passes, is_accepted, settings
        self.lexicon, self.neighbours, self.max_word_len = lexicon, neighbours, max_word_len
        # word -> its ranked candidates: text repeats words, so each is decoded once (and chosen per occurrence)
        self._candidates: dict[str, list[Candidate]] = {}
        self._context: BigramModel | None = None
        self._one_edit: dict[str, list[str]] = {}  # real-word checks: a word's listed one-edit neighbours

    def correct_many(self, texts: list[str]) -> list[str]:
        """Each text with its misspelled words corrected, all their words decoded in shared batches."""
        split, chosen = self._choose(texts)
        return ["".join(chosen.get((t, i), piece.text) for i, piece in enumerate(pieces))
                for t, pieces in enumerate(split)]

    def corrections_many(self, texts: list[str]) -> list[list[Correction]]:
        """Per text, what `correct_many` changes in it, in text order."""
        split, chosen = self._choose(texts)
        found = []
        for t, pieces in enumerate(split):
            offset, changes = 0, []
            for i, piece in enumerate(pieces):
                fixed = chosen.get((t, i), piece.text)
                if fixed != piece.text:
                    changes.append(Correction(offset, offset + len(piece.text), piece.text, fixed))
                offset += len(piece.text)
            found.append(changes)
        return found

    def suggest_many(self, words: list[str], k: int) -> list[list[Suggestion]]:
        """Up to `k` corrections of each word, best first; the first is what `correct_many` gives. An accepted
        word comes first as itself; input that is not one correctable word (a URL, a number, a phrase, an
        acronym) gets its `correct_many` with score 0.0."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        single, accepted = {}, set()
        for word in words:
            pieces = split_text(word, self.max_word_len, self.settings.leave_special)
            if len(pieces) == 1 and pieces[0].word:
                single[word] = word.lower()
                if self.is_accepted(word):
                    accepted.add(word.lower())
        ranked = self.passes.rank(sorted(set(single.values())), k, accepted=accepted)
        others = [w for w in words if w not in single]
        passed = dict(zip(others, self.correct_many(others)))
        return [[Suggestion(match_case(w, c.word), c.score, w, c.attn) for c in ranked[single[w]][:k]] if w in single
                else [Suggestion(passed[w], 0.0, w)] for w in words]

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
        found = self.passes.rank(sorted(words - self._candidates.keys()), k)
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
        return self.bigrams() if self.settings.context_weight > 0 else None

    def bigrams(self) -> BigramModel | None:
        """The word-bigram model whatever `context_weight` says (None without a lexicon), read once."""
        if self._context is None and self.lexicon is not None:
            self._context = BigramModel.load(self.lexicon.counts, mix=self.settings.context_mix)
        return self._context

    def real_word_errors(self, texts: list[str], min_gain: float = REAL_WORD_GAIN) -> list[list[Correction]]:
        """Per text, the accepted words that are probably another word (real-word errors: form for from): a
        "real-word" `Correction` to the likelier word in its case where a listed word one edit away is more
        likely between the same neighbours by a factor of e^`min_gain` or more (bigram probabilities,
        `typofix.words.context`, with the unigram prior). Words of 1-2 letters and words with a neighbour on
        one side only are not judged (too little to go on)."""
        bigrams = self.bigrams()
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
                            errors.append(Correction(offset, offset + len(piece.text), piece.text,
                                                     match_case(piece.text, better), "real-word"))
                offset += len(piece.text)
            found.append(errors)
        return found

    def _likelier(self, word: str, left: str, right: str, bigrams: BigramModel, min_gain: float) -> str | None:
        """The listed word one edit from `word` that is likelier between `left` and `right` by e^min_gain, if any."""
        others = self._one_edit.get(word)
        if others is None:
            others = self._one_edit[word] = sorted(self.neighbours.one_edit_index.near(word, len(self.lexicon), 1))
        if not others:
            return None
        words = [word, *others]
        scores = bigrams.evidence(words, left, right) + np.array([self.lexicon.log_prior(w) for w in words])
        best = int(np.argmax(scores[1:])) + 1
        return words[best] if scores[best] - scores[0] >= min_gain else None
