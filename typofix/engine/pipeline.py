"""The text pipeline: text in, corrections out, every character outside the corrected words as it was.

A text is split into pieces (`typofix.words.text`); a word is judged as written (`Sam` is a word, `sam` a
typo of "same") and left alone when it is accepted; each distinct word to correct gets its candidates once,
for its lowercase form (`typofix.engine.passes`), remembered across calls, and each occurrence chooses among
them in its context (word bigrams, `typofix.words.context`). Real-word errors (form for from) are found among
the accepted words, reported and never applied.

Text as people type it: the confidence rule weighs a word's corrections against the word itself, and how
far a correction must beat it depends on what the word may be (`margin`): a word typed without its capitals
or its apostrophe (monday, dont) is repaired to the dictionary's form (Monday, don't) unless a correction
beats it by `repair_confidence`; a name (a known name in lower case, or a capitalised unknown word inside a
sentence: Krzysztof) stays unless a correction beats it by `name_confidence`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from itertools import accumulate
from operator import itemgetter
from typing import NamedTuple

import numpy as np

from typofix.engine.candidates import Neighbours
from typofix.engine.detector import Detector, DocumentVocabulary, Occurrence, english_at, evidence_matrix
from typofix.engine.passes import Passes, decide_between
from typofix.engine.ranking import Candidate
from typofix.engine.results import Correction, Suggestion
from typofix.engine.settings import DecodingSettings
from typofix.words.context import BigramModel
from typofix.words.distance import one_edit_from, osa_distance
from typofix.words.casing import APOSTROPHE, CASE, CasedForms, Repair, among_words, pronouns_at
from typofix.words.lexicon import AcceptedWords, Lexicon
from typofix.words.shape import code_share, in_code_token, leading_mark, surroundings
from typofix.words.text import Piece, match_case, neighbours, split_text, starts_sentence

_CACHE_SIZE = 100_000
# Real-word errors are reported when a one-edit neighbour is this much (log) likelier in context: e^8 ~ 3000x
# (on the dev prose's clean text, 52 reports in 21,960 correct words).
REAL_WORD_GAIN = 8.0
# A line whose non-space characters are this much code punctuation or more is no prose for the pronoun's capital.
PROSE_CODE_SHARE = 0.1
_TEXT = itemgetter(0)  # a Piece's text
CONTEXT_CANDIDATES = 8  # per word, the best this many (the typo itself among them) are reranked in context


class Proposals(NamedTuple):
    """What the engine alone makes of a call's texts, before the detector has its say."""

    split: list[list[Piece]]  # each text's pieces
    starts: list[list[int]]  # where each piece starts in its text
    chosen: dict[tuple[int, int], str]  # (text, piece) -> what the word becomes
    proposed: dict[tuple[int, int], str]  # (text, piece) of each rewrite -> what the word is if not misspelt
    repeats: list  # per text, its document's counts of the words as written (`DocumentVocabulary`, Counter)


class TextPipeline:
    """Corrects texts and words with `passes`, leaving alone what `is_accepted` accepts as written
    (`are_accepted`: the same of many words at once, a text's distinct words)."""

    def __init__(self, passes: Passes, is_accepted: Callable[[str], bool],
                 are_accepted: Callable[[list[str]], list[bool]], settings: DecodingSettings,
                 lexicon: Lexicon | None, neighbours: Neighbours | None, max_word_len: int,
                 accepted: AcceptedWords | None = None):
        self.passes, self.is_accepted, self.are_accepted, self.settings = passes, is_accepted, are_accepted, settings
        self.lexicon, self.neighbours, self.max_word_len = lexicon, neighbours, max_word_len
        self.accepted = accepted  # for the repairs' forms (`cased`); None: no repairs
        self._cased: CasedForms | None = None
        # word -> its best corrections and its own candidate: text repeats words, so each is decoded once (and
        # judged per occurrence: the same letters may be a name in one place and a typo in another)
        self._candidates: dict[str, tuple[list[Candidate], Candidate | None]] = {}
        self._context: BigramModel | None = None
        self._one_edit: dict[str, list[str]] = {}  # real-word checks: a word's listed one-edit neighbours
        # Words, as written, known to be accepted and not recased: text repeats its words (a run of `check` asks
        # for 30,000 words a file at a time, of 8,000 distinct), and a word accepted stays accepted (words are
        # added, never taken away), so only the others are looked up again. Bounded as `_candidates` is.
        self._left_alone: set[str] = set()
        # A token's repair (`typofix.words.casing`) depends on its letters alone: each found once, not once an
        # occurrence or a call (margin's, for the words to correct). Bounded as `_candidates` is.
        self._repairs: dict[str, Repair | None] = {}
        self._detector: Detector | None = None

    def correct_many(self, texts: list[str], document: DocumentVocabulary | None = None,
                     separate: bool = False) -> list[str]:
        """Each text with its misspelled words corrected, all their words decoded in shared batches. The texts
        are one document, or continue `document` (a stream read in batches: it counts their words too);
        `separate`: each text is a document of its own (the rows of a table, the requests of a server)."""
        split, _, chosen = self._choose(texts, document, separate)
        return ["".join(chosen.get((t, i), piece.text) for i, piece in enumerate(pieces))
                for t, pieces in enumerate(split)]

    def corrections_many(self, texts: list[str], document: DocumentVocabulary | None = None,
                         only: Collection[str] | None = None,
                         detect_threshold: float | None = None) -> list[list[Correction]]:
        """Per text, what `correct_many` changes in it, in text order (the texts one document, or continuing
        `document`); with `only`, of the words it would search, only those (lowercase) are searched and may
        change: the others stay as they are (an accepted word's capitals, the pronoun I, still written).
        `detect_threshold`: the detector's threshold for these texts (None: the settings')."""
        split, starts, chosen = self._choose(texts, document, only=only, threshold=detect_threshold)
        found: list[list[Correction]] = [[] for _ in texts]
        for (t, i), fixed in sorted(chosen.items()):  # (the pieces chosen for, not every piece of every text)
            written = split[t][i].text
            if fixed != written:
                found[t].append(Correction(starts[t][i], starts[t][i] + len(written), written, fixed))
        return found

    def suggest_many(self, words: list[str], k: int, with_typo: bool = False, attention: bool = False
                     ) -> list[list[Suggestion]]:
        """Up to `k` corrections of each word, best first: its corrections and, where it is typed without its
        capitals or apostrophe, its repaired form, never the typo itself (`with_typo`: the typo too, competing
        under the confidence rule, so that the first is what `correct_many` gives). An accepted word comes
        first as itself; input that is not one correctable word (a URL, a number, a phrase, an acronym) gets
        its `correct_many` with score 0.0. `attention`: each suggestion with the model's attention weights."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        single = {}
        for word in words:
            pieces = split_text(word, self.max_word_len, self.settings.leave_special)
            if len(pieces) == 1 and pieces[0].word:
                single[word] = word.lower()
        judged = self.passes.judged(sorted(set(single.values())), k, attention) if self.settings.use_lexicon else {}
        accepted = {}
        if self.settings.use_lexicon:  # all of them looked up at once (one search of the mapped word lists)
            accepted = dict(zip(single, self.are_accepted(list(single))))
            self._look_up_repairs([word for word, known in accepted.items() if not known])  # for their margins
        others = [w for w in words if w not in single]
        passed = dict(zip(others, self.correct_many(others)))
        found = []
        for word in words:
            if word not in single:
                found.append([Suggestion(passed[word], 0.0, word)])
            elif not self.settings.use_lexicon:
                ranked = self.passes.rank([single[word]], k, attention=attention)[single[word]]
                found.append([Suggestion(match_case(word, c.word), c.score, word, c.attn) for c in ranked])
            else:
                found.append(self._suggested(word, *judged[single[word]], k, with_typo, accepted[word]))
        return found

    def _suggested(self, word: str, others: list[Candidate], keep: Candidate | None, k: int,
                   with_typo: bool, accepted: bool) -> list[Suggestion]:
        """One word's suggestions from its corrections `others` and its own candidate `keep` (`accepted`: whether
        `is_accepted(word)`)."""
        if keep is None:  # characters the model cannot read: left as they are
            return [Suggestion(word, 0.0, word)]
        if accepted:
            ranked = decide_between(others, keep, self.settings.min_confidence, k, first=True)
            first = self.recased(word) or word
            return [Suggestion(first if c is ranked[0] else match_case(word, c.word), c.score, word, c.attn)
                    for c in ranked]
        margin, repaired = self.margin(word, [Piece(word, True)], 0)
        ranked = decide_between(others, keep, margin, k + 1)
        listed: dict[str, Suggestion] = {}  # by the word written: a repair may also be a candidate (you're)
        for c in ranked:
            score = c.score
            if c.word == keep.word:
                if repaired is None and not with_typo:
                    continue  # the typo itself is no suggestion
                shown = repaired or word
                if not math.isfinite(score):  # a contraction's repair: first by rule, shown with its own score
                    score = keep.score
            else:
                shown = match_case(word, c.word)
            listed.setdefault(shown, Suggestion(shown, score, word, c.attn))
        return list(listed.values())[:k]

    def margin(self, written: str, pieces: list[Piece], i: int) -> tuple[float, str | None]:
        """How far a correction must beat the typo `written` (piece `i` of `pieces`) to replace it, and the
        repaired form the typo stands for, if any (see the module docstring)."""
        s = self.settings
        own = self.own_word_near(written)
        if own is not None:
            return math.inf, match_case(written, own) if own.islower() else own  # the user's word: the answer
        repair = self._repair(written)
        if repair is not None:
            # A contraction's letters are no word (dont): the apostrophe is all that is missing. A capitalised
            # dictionary word or a name typed in lower case may be a slip of a common word (`abel` for able,
            # `agan` for again): weighed.
            margin = math.inf if repair.kind == APOSTROPHE else s.repair_confidence
            return margin, repair.form
        if written[:1].isupper() and written[1:].islower() and not starts_sentence(pieces, i):
            return s.name_confidence, None  # a capitalised unknown word inside a sentence: a name
        return s.min_confidence, None

    def _repair(self, written: str) -> Repair | None:
        """The repair of the token `written` (`CasedForms.repair`; None without the repairs' forms), remembered."""
        if written not in self._repairs:
            if len(self._repairs) >= _CACHE_SIZE:
                self._repairs.clear()
            self._repairs[written] = self.cased.repair(written) if self.cased is not None else None
        return self._repairs[written]

    def _look_up_repairs(self, tokens: Iterable[str]) -> None:
        """Look up the forms of those of `tokens` whose repair is not remembered yet all at once, ahead of
        their `_repair`s (`CasedForms.look_up`)."""
        if self.cased is not None:
            self.cased.look_up([token for token in tokens if token not in self._repairs])

    def own_word_near(self, written: str) -> str | None:
        """The user's own word one edit from `written` (the closest, the first listed among equals), if any."""
        return one_edit_from(written, self.accepted.user) if self.accepted is not None else None

    def recased(self, written: str) -> str | None:
        """The dictionary's form of an accepted word typed in lower case that the dictionary writes with
        capitals only (`debian`, `unix`: accepted as terms or acronyms, written Debian, Unix), else None."""
        if self.cased is None or not written.islower() or self.accepted.listed_as(written):
            return None
        return self._case_repair(written)

    def recased_many(self, words: list[str]) -> dict[str, str]:
        """{word: `recased(word)`} of those of the accepted `words` that have one, the dictionary's lookups of
        all of them together."""
        lower = [word for word in words if word.islower()]
        if self.cased is None or not lower:
            return {}
        unlisted = [word for word, listed in zip(lower, self.accepted.listed_as_many(lower)) if not listed]
        return {word: form for word in unlisted if (form := self._case_repair(word)) is not None}

    def _case_repair(self, written: str) -> str | None:
        repair = self.cased.repair(written)
        return repair.form if repair is not None and repair.kind == CASE else None

    @property
    def cased(self) -> CasedForms | None:
        """The repairs' forms (`typofix.words.casing`), built on first use from the acceptance dictionary's
        capitalised words, the word list's contractions and the names."""
        if self._cased is None and self.accepted is not None and self.lexicon is not None:
            self._cased = CasedForms(self.accepted.case_forms, self.lexicon.__contains__, self.accepted.names)
        return self._cased

    def _choose(self, texts: list[str], document: DocumentVocabulary | None = None, separate: bool = False,
                only: Collection[str] | None = None, threshold: float | None = None
                ) -> tuple[list[list[Piece]], list[list[int]], dict[tuple[int, int], str]]:
        """The pieces of each text, where each starts in it, and {(text, piece): what it becomes} for its words
        to correct (`only` those, lowercase, where given): the engine's proposals, kept where the detector finds
        the word a misspelling (`threshold`, else the settings' `detect_threshold`)."""
        found = self._propose(texts, document, separate, only)
        chosen = found.chosen
        threshold = self.settings.detect_threshold if threshold is None else threshold
        if found.proposed and threshold > 0:
            keys = list(found.proposed)
            probabilities = self.detector.probabilities(evidence_matrix(self._occurrences(texts, found, keys)))
            for key, p in zip(keys, probabilities):
                if p < threshold:
                    chosen[key] = found.proposed[key]  # not a misspelling: the word, or the name it is, as it is
        if self.settings.leave_special:
            self._pronouns(texts, found, chosen)
        return found.split, found.starts, chosen

    def _pronouns(self, texts: list[str], found: "Proposals", chosen: dict[tuple[int, int], str]) -> None:
        """The pronoun typed in lower case (i, i'm, i'll) written I, I'm, I'll in copied text on lines of English
        prose (not code, not another language, where a lone i is a variable or a word of its own), among words
        (`among_words`: not a command's argument, `npm i && npm test`)."""
        for t, pieces in enumerate(found.split):
            for i, (text, is_word) in enumerate(pieces):
                spans = pronouns_at(text) if not is_word else []  # (its pattern keeps paths, options, numerals out)
                start = found.starts[t][i]
                spans = [(a, b) for a, b in spans if among_words(texts[t], start + a, start + b, self._is_word)]
                if spans and self._prose_line(texts[t], start + spans[0][0]):  # the (first) pronoun's line
                    letters = list(text)
                    for at, _ in spans:
                        letters[at] = "I"
                    chosen[t, i] = "".join(letters)

    def _is_word(self, word: str) -> bool:
        """Whether `word` (as written) is a word of the language: one the acceptance dictionary has."""
        return self.accepted is not None and (word in self.accepted or word.lower() in self.accepted)

    def occurrences_many(self, texts: list[str], document: DocumentVocabulary | None = None
                         ) -> list[list[Occurrence]]:
        """Per text, every rewrite the engine proposes before the detector has its say, with the detector's
        evidence (`typofix.engine.detector.Occurrence`), in text order: what the detector is fitted on. The
        texts are one document, or continue `document`, as in `correct_many`."""
        found = self._propose(texts, document)
        keys = sorted(found.proposed)
        per_text = [[] for _ in texts]
        for (t, _), occurrence in zip(keys, self._occurrences(texts, found, keys)):
            per_text[t].append(occurrence)
        return per_text

    def _occurrences(self, texts: list[str], found: "Proposals", keys: list[tuple[int, int]]) -> list[Occurrence]:
        """The detector's `Occurrence` of each proposed rewrite `keys` (text, piece)."""
        occurrences = []
        for t, i in keys:
            pieces = found.split[t]
            written = pieces[i].text
            others, keep = self._candidates[written.lower()]
            fixed = found.chosen[t, i].lower()
            score = next((c.score for c in others if c.word == fixed), others[0].score if others else keep.score)
            occurrences.append(Occurrence(written, fixed, score - keep.score, texts[t], found.starts[t][i],
                                          starts_sentence(pieces, i), found.repeats[t][written],
                                          self._context_fit(fixed, *neighbours(pieces, i))))
        return occurrences

    def _context_fit(self, word: str, left: str | None, right: str | None) -> float:
        """How well `word` fits between its neighbours: the mean bigram evidence of its pairs with them (0 with
        no neighbour, or no bigram model)."""
        pairs = [(left, word)] * (left is not None) + [(word, right)] * (right is not None)
        bigrams = self.bigrams() if pairs else None  # a word alone never reads them
        if bigrams is None:
            return 0.0
        return float(bigrams.pair_evidence([a for a, _ in pairs], [b for _, b in pairs]).mean())

    @property
    def detector(self) -> Detector:
        """The fitted misspelling detector of this preset (`detector_table`), read on first use."""
        if self._detector is None:
            self._detector = Detector.load(self.settings.detector_table)
        return self._detector

    def _propose(self, texts: list[str], document: DocumentVocabulary | None = None, separate: bool = False,
                 only: Collection[str] | None = None) -> "Proposals":
        """What the engine alone makes of the texts (`Proposals`): their pieces, what each word becomes, and
        for each proposed rewrite (a correction, not a repair of case or apostrophe) what the word is if it is
        not misspelt: its repaired form (barry: Barry), or itself. With `only`, the words to correct are those
        of them (lowercase): the others are neither searched nor changed (nor repaired)."""
        split = [split_text(text, self.max_word_len, self.settings.leave_special) for text in texts]
        starts = [list(accumulate(map(len, map(_TEXT, pieces[:-1])), initial=0)) for pieces in split]  # (in C)
        words = [text for pieces in split for text, is_word in pieces if is_word]
        if separate:  # each text its own document
            repeats = [Counter(p.text for p in pieces if p.word) for pieces in split]
        else:
            document = document if document is not None else DocumentVocabulary()
            document.add(words)
            repeats = [document] * len(texts)
        # Acceptance looks at the word as written (`Sam` is a word, `sam` a typo of "same"); candidates are
        # found, and remembered, for the lowercase form, then judged per occurrence in its context.
        left_alone = self._left_alone
        written = [word for word in dict.fromkeys(words) if word not in left_alone]
        # Each distinct word judged once, all of them together (one lookup in the mapped word lists for the lot).
        accepted = [word for word, known in zip(written, self.are_accepted(written)) if known]
        to_correct = set(written).difference(accepted)
        if only is not None:
            to_correct = {word for word in to_correct if word.lower() in only}
        recased = self.recased_many(accepted)
        if len(left_alone) + len(accepted) > _CACHE_SIZE:
            left_alone.clear()
        left_alone.update(word for word in accepted if word not in recased)
        self._look_up_repairs(to_correct)  # for their `margin`s below
        self._search({word.lower() for word in to_correct})
        k = CONTEXT_CANDIDATES if self.uses_context else 1
        near = self.settings.context_max_edits
        chosen = {}  # (text, piece) -> correction of each word to correct
        repairs = set()  # (text, piece) whose answer is sure by rule, not the engine's guess
        fallback = {}  # (text, piece) -> its repaired form, where it has one
        in_context = []  # (text, piece, candidates, left, right, repaired) of those whose neighbours may have a say
        changing = to_correct.union(recased)  # (most words of a text are neither: looked at once)
        for t, pieces in enumerate(split):
            for i, (text, is_word) in enumerate(pieces):
                if text not in changing or not is_word:
                    continue
                if text in recased:
                    chosen[t, i] = recased[text]
                    continue
                word = text.lower()
                others, keep = self._candidates[word]
                repaired = None
                if keep is None:  # the model alone, or characters it cannot read: ranked as they came
                    ranked = others
                else:
                    margin, repaired = self.margin(text, pieces, i)
                    ranked = decide_between(others, keep, margin, k)
                    if repaired is not None and math.isinf(margin):
                        repairs.add((t, i))  # a contraction without its apostrophe, or the user's own word
                    elif repaired is not None:
                        fallback[t, i] = repaired  # not misspelt, a name or a capitalised word is that word
                    if self.uses_context:  # what the context may choose from: the best, the typo, the near
                        ranked = [c for j, c in enumerate(ranked) if j == 0 or c.word == word
                                  or osa_distance(word, c.word) <= near]
                chosen[t, i] = written_as(text, ranked[0].word, repaired)
                # The bigrams count words in lower case, so they cannot tell Paris from paris: where the scores
                # keep a word's repaired form, its neighbours may not overturn it.
                if self.uses_context and len(ranked) > 1 and (repaired is None or ranked[0].word != word):
                    left, right = neighbours(pieces, i)
                    if left is not None or right is not None:
                        in_context.append((t, i, ranked, left, right, repaired))
        if in_context:
            asked = [(ranked, left, right, split[t][i].text.lower(), repaired)
                     for t, i, ranked, left, right, repaired in in_context]
            for (t, i, *_, repaired), best in zip(in_context, self._in_context(asked)):
                chosen[t, i] = written_as(split[t][i].text, best, repaired)
        # A repair by rule (dont: don't) is English: on a line of another language or code (German's im, a
        # shell's -dont) the word is left as it is; so is a name's capitals, unless the word is a name of four
        # letters or more in English prose (barry: Barry; a short one is as often an abbreviation: pam, ty).
        # The same for a word written with the dictionary's capitals (paris: Paris, que: Que).
        recasings = [key for key, fixed in chosen.items()
                     if fixed != split[key[0]][key[1]].text and fixed.lower() == split[key[0]][key[1]].text.lower()]
        for t, i in {*repairs, *fallback, *recasings}:
            written = split[t][i].text
            if (t, i) in repairs:  # (the user's own word needs no English around it)
                if (chosen[t, i] != written and self.own_word_near(written) is None
                        and not self._in_prose(texts[t], written, starts[t][i])):
                    chosen[t, i] = written
                continue
            if len(written) < 4 or not self._in_prose(texts[t], written, starts[t][i]):
                fallback.pop((t, i), None)
                if chosen[t, i].lower() == written.lower():
                    chosen[t, i] = written
        # Only what the engine weighed against the word itself (not the model alone) goes to the detector.
        proposed = {(t, i): fallback.get((t, i)) or split[t][i].text for (t, i), fixed in chosen.items()
                    if (t, i) not in repairs and fixed.lower() != split[t][i].text.lower()
                    and self._candidates[split[t][i].text.lower()][1] is not None}
        return Proposals(split, starts, chosen, proposed, repeats)

    def weigh(self, words: Iterable[str]) -> dict[str, tuple[list[Candidate], Candidate | None]]:
        """Per lowercase word: its `CONTEXT_CANDIDATES` best corrections (best first, the word itself not among
        them) and its own candidate (None: characters the model cannot read; without a lexicon, the model's
        own outputs and None), from the one search that correcting text uses and remembers: a caller that
        weighs a run's words first, in one large batch, corrects its texts from the same search after."""
        wanted = {w.lower() for w in words}
        self._search(wanted)
        return {w: self._candidates[w] for w in wanted}

    def remembered(self, words: Iterable[str]) -> set[str]:
        """Those of the lowercase `words` whose search it remembers (`weigh` answers them without a search)."""
        return {word for word in words if word in self._candidates}

    def remember(self, searched: dict[str, tuple[list[Candidate], Candidate | None]]) -> None:
        """Take `searched` (another pipeline's `weigh` of the same model and settings) as this one's own search
        of those words: processes that share a run's words search each word once."""
        self._make_room(len(searched))
        self._candidates.update(searched)

    def _make_room(self, count: int) -> bool:
        """Forget every remembered search where `count` more words would pass `_CACHE_SIZE` (bounded memory on
        endless streams); whether it did."""
        if len(self._candidates) + count <= _CACHE_SIZE:
            return False
        self._candidates.clear()
        return True

    def _search(self, words: set[str]) -> None:
        """Search the lowercase `words` not yet remembered, in shared batches, and remember them."""
        # (each word looked up: `words - keys()` reads every remembered word, a whole run's, at every call)
        new = sorted(w for w in words if w not in self._candidates)
        if not new:
            return
        if self._make_room(len(new)):
            new = sorted(words)
        if self.settings.use_lexicon:
            # As many as a text's context may choose from, with a context or not: the search does not depend on
            # how many are kept, and `weigh` hands out the runners-up.
            # Remembered without their attention weights, which nothing asks of a remembered search: a run's
            # words would otherwise hold a (T, S) array for each of their candidates
            self._candidates.update((w, ([Candidate(c.word, c.score) for c in others],
                                         None if keep is None else Candidate(keep.word, keep.score)))
                                    for w, (others, keep) in self.passes.judged(new, CONTEXT_CANDIDATES).items())
        else:  # the model alone: its beam is as wide as the candidates asked for
            k = CONTEXT_CANDIDATES if self.uses_context else 1
            self._candidates.update((w, (c, None)) for w, c in self.passes.rank(new, k).items())

    def _in_prose(self, text: str, word: str, start: int) -> bool:
        """Whether `word`, at `start` in `text`, stands in English prose: a plain token on a line that is no code
        and is likelier English than not."""
        token = surroundings(text, start, start + len(word)).token
        return not (in_code_token(token) or leading_mark(token)) and self._prose_line(text, start)

    @staticmethod
    def _prose_line(text: str, offset: int) -> bool:
        """Whether the line of `text` at `offset` is no code and its sentence there likelier English than not."""
        where = surroundings(text, offset, offset)
        return code_share(where.line) < PROSE_CODE_SHARE and english_at(where.line, where.line_offset) >= 0.5

    def _in_context(self, occurrences: list[tuple[list[Candidate], str | None, str | None, str, str | None]]
                    ) -> list[str]:
        """The best candidate of each occurrence (its candidates, its left and right neighbour or None, the
        typo, the typo's repaired form or None) by channel score + context_weight * the neighbours' evidence;
        one bigram lookup for all of them. The typo itself is looked up as its repaired form (`im` as i'm)."""
        firsts, seconds = [], []  # the pairs to score: (left neighbour, candidate), (candidate, right neighbour)
        for ranked, left, right, typo, repaired in occurrences:
            for c in ranked:
                looked_up = repaired.lower() if repaired is not None and c.word == typo else c.word
                if left is not None:
                    firsts.append(left)
                    seconds.append(looked_up)
                if right is not None:
                    firsts.append(looked_up)
                    seconds.append(right)
        evidence = iter(self.context.pair_evidence(firsts, seconds).tolist())
        weight, best = self.settings.context_weight, []
        for ranked, left, right, *_ in occurrences:
            sides = (left is not None) + (right is not None)
            scores = [c.score + weight * sum(next(evidence) for _ in range(sides)) for c in ranked]
            best.append(ranked[scores.index(max(scores))].word)
        return best

    @property
    def uses_context(self) -> bool:
        """Whether `context` is a model, asked without reading it: a word with no neighbours never needs it."""
        return self.settings.context_weight > 0 and self.lexicon is not None

    @property
    def context(self) -> BigramModel | None:
        """The word-bigram model that ranks candidates in text (None when `context_weight` is 0 or there is no
        lexicon); read on first use (a few hundredths of a second), so single words never pay for it."""
        return self.bigrams() if self.settings.context_weight > 0 else None

    def bigrams(self) -> BigramModel | None:
        """The word-bigram model whatever `context_weight` says (None without a lexicon), read once."""
        if self._context is None and self.lexicon is not None:
            self._context = BigramModel.load(self.lexicon.counts, mix=self.settings.context_mix,
                                             total=self.lexicon.total)
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


def written_as(typed: str, word: str, repaired: str | None) -> str:
    """What a typed word becomes when `word` (lowercase) is chosen: the repaired form where the choice is the
    typo itself and it has one, else `word` in the typed word's case."""
    if repaired is not None and word == typed.lower():
        return repaired
    return match_case(typed, word)
