"""The misspelling detector: how likely a word the engine would rewrite is a misspelling at all, as written, in
its sentence and its document.

Ranking answers "if this is a misspelling, of what?"; the detector answers the question before it. An unknown
token is not presumed a misspelling: commands, options, jargon, names, chat abbreviations and other languages
are correct text the dictionary lacks. The detector weighs evidence that generalises beyond the words it was
fitted on:

* usage: how often people write the token (`typofix.words.usage.token_usage`, every register: chat, tech,
  names) against how often they write its correction: `teh` is written, `the` a thousand times more;
* the correction itself: how many edits away (a misspelling is nearly always one slip from its word), a swap
  of two neighbouring letters, a first or last letter changed (slips keep the first letter; code's names add
  one: `pprint`, `uname`), the engine's margin (the correction's score over the word's own);
* the word's shape: its length, no vowel (`thx`, `npm`), a letter stretched (`sooo`), its capitals;
* its surroundings (`typofix.words.shape`): symbols in its token, a leading dash or sigil, quotes, a line that
  reads as a command or code;
* the document: a word written several times is the writer's word (`DocumentVocabulary`);
* the language of its line (`typofix.words.language`) and how many words the line has.

Gradient-boosted trees over these (`FEATURES`, `Detector`), fitted on dev data only by `bench/fit_detector.py`
into `data/detector.json` (`detector-fast.json` for the fast preset, whose scores have their own scale): a
probability under the logistic loss, compared with `DecodingSettings.detect_threshold`, the one knob that
decides rewriting in `correct` and reporting in `check`, `typofix lsp` and `typofix-ispell`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from typofix.files.packagedata import packaged, read_json_table
from typofix.words.distance import is_swap, osa_distance
from typofix.words.indexcache import cached, file_digest
from typofix.words.language import english_probability, sentence_around
from typofix.words.shape import (code_share, has_option, hyphenated, in_code_token, leading_mark, line_bounds,
                                 no_vowel, quoted, stretched, token_around)
from typofix.words.usage import token_usage

FEATURES = ("usage", "absent", "correction_usage", "usage_gap", "edits", "one_edit", "two_edits", "swap",
            "first_differs", "last_differs", "margin",
            "short", "four_letters", "no_vowel", "stretched", "title_inside", "title_start", "upper",
            "code_token", "leading_mark", "hyphenated", "quoted", "code_share", "option_line", "repeats",
            "english", "line_words", "context_fit")
MARGIN_CLIP = (-10.0, 20.0)  # the engine's margins beyond these say nothing more
ENGLISH_CLIP = 4.0  # log-odds of the sentence's language beyond +-4 say nothing more
# A sentence of this many words or more (with its neighbours on the line while it has fewer) with P(English)
# below this is another language (one or two words are too few to tell: `die`, `also`). On the dev sets it
# leaves 2,792 of the 2,794 proposals on foreign lines alone and no misspelling in English text of any genre.
FOREIGN_WORDS, FOREIGN_BELOW = 3, 0.2
_WORD = re.compile(r"[A-Za-z]{2,}")  # what counts as a word of a line


@dataclass(frozen=True)
class Occurrence:
    """One written word the engine would rewrite, and where: what the detector weighs.

    `text[start:start + len(written)] == written`; `margin` is the best correction's score minus the word's
    own; `repeats` how many times the document writes the word (this time included); `context_fit` how well
    the correction fits between the word's neighbours (mean bigram evidence, 0 without neighbours)."""

    written: str
    correction: str
    margin: float
    text: str
    start: int
    starts_sentence: bool
    repeats: int
    context_fit: float


@dataclass(frozen=True)
class Detection:
    """A word the engine would rewrite: where, into what, the detector's probability that it is a misspelling
    and the evidence behind it (feature name -> value), for `explain`, the explorer and the fit."""

    start: int
    end: int
    before: str
    after: str
    probability: float
    evidence: dict[str, float]


ROWS_AT_ONCE = 512  # occurrences whose trees are walked together (`Detector.probabilities`): tens of MB at most


def evidence(occurrence: Occurrence, lines: dict | None = None) -> np.ndarray:
    """(len(FEATURES),) the occurrence's features, in `FEATURES` order. `lines`: the features of the lines
    seen so far (`_line_evidence`), shared by the occurrences of one batch."""
    o = occurrence
    usage = token_usage()
    lower, fixed = o.written.lower(), o.correction.lower()
    own, theirs = usage.get(lower, 0.0), usage.get(fixed, 0.0)
    edits = osa_distance(lower, fixed)
    end = o.start + len(o.written)
    token, word_start = token_around(o.text, o.start, end)
    line_start, line_end = line_bounds(o.text, o.start, end)
    key = (id(o.text), line_start)
    line = lines.get(key) if lines is not None else None
    if line is None:
        line = _line_evidence(o.text[line_start:line_end])
        if lines is not None:
            lines[key] = line
    title = o.written[:1].isupper() and o.written[1:].islower()
    english = min(max(english_at(line.text, o.start - line_start), 1e-6), 1 - 1e-6)
    return np.array([
        own, own == 0.0, theirs, theirs - own,
        min(edits, 4), edits == 1, edits == 2, is_swap(lower, fixed),
        lower[:1] != fixed[:1], lower[-1:] != fixed[-1:],
        min(max(o.margin, MARGIN_CLIP[0]), MARGIN_CLIP[1]) / 10.0,
        len(lower) <= 3, len(lower) == 4, no_vowel(lower), stretched(lower),
        title and not o.starts_sentence, title and o.starts_sentence, o.written.isupper(),
        in_code_token(token), leading_mark(token), hyphenated(token),
        quoted(token, word_start, len(o.written)),
        line.code_share, line.option,
        math.log(max(o.repeats, 1)),
        min(max(math.log(english / (1 - english)), -ENGLISH_CLIP), ENGLISH_CLIP) / ENGLISH_CLIP,
        math.log(line.words), o.context_fit,
    ], dtype=np.float64)


class _LineEvidence(NamedTuple):
    """What the detector weighs of a word's line, the same for each of its words: worked out once a line (a
    long line holds thousands of words, and each read it whole again: minutes for a megabyte on one line)."""

    text: str
    code_share: float
    option: bool
    words: int  # (at least 1)


def _line_evidence(line: str) -> _LineEvidence:
    return _LineEvidence(line, code_share(line), has_option(line), max(_words_in(line), 1))


def not_english(features: np.ndarray) -> np.ndarray:
    """(N,) True for a word on a line of `FOREIGN_WORDS` words or more whose sentence is not English by the
    language identifier (P(English) below `FOREIGN_BELOW`; `english_at`): text in another language is left
    alone, whatever the trees say. A rule, not a fitted score, so that it holds for the languages the detector
    was never fitted on."""
    english = features[:, FEATURES.index("english")] * ENGLISH_CLIP  # back to log-odds
    words = features[:, FEATURES.index("line_words")]
    return (english < math.log(FOREIGN_BELOW / (1 - FOREIGN_BELOW))) & (words >= math.log(FOREIGN_WORDS))


def in_foreign_sentence(line: str, offset: int) -> bool:
    """Whether the word of `line` at `offset` is written in another language, by the rule `not_english` applies
    to the detector's evidence: a line of `FOREIGN_WORDS` words or more where the word's sentence is not English
    (`english_at` below `FOREIGN_BELOW`). For a front door that judges the engine's proposals by rules of its own
    rather than by the detector (`typofix check`, `typofix lsp`)."""
    return _words_in(line) >= FOREIGN_WORDS and english_at(line, offset) < FOREIGN_BELOW


@lru_cache(maxsize=16)  # (asked again for each word of a line: a long line holds thousands)
def _words_in(line: str) -> int:
    return len(_WORD.findall(line))


def evidence_matrix(occurrences: list[Occurrence]) -> np.ndarray:
    """(N, len(FEATURES)) the features of each occurrence (`evidence`), in order."""
    lines: dict = {}  # (the text, where a line starts) -> that line's evidence, for the batch
    return np.array([evidence(o, lines) for o in occurrences],
                    dtype=np.float64).reshape(len(occurrences), len(FEATURES))


def english_at(line: str, offset: int) -> float:
    """The probability that the word of `line` at `offset` is written in English, told from its sentence
    (`sentence_around`): a line can hold a sentence of another language beside English ones, and each is left
    alone or corrected as it reads. A sentence that is not English (below `FOREIGN_BELOW`) says so whatever its
    line says; otherwise the sentence or the line, whichever is surer of English: the few words of a sentence's
    start or end on a hard-wrapped line (`substantal donation over AMOUNT2.`) tell less than the line around them."""
    sentence = _span_english(sentence_around(line, offset, FOREIGN_WORDS))
    return sentence if sentence < FOREIGN_BELOW else max(sentence, _span_english(line))


@lru_cache(maxsize=4096)
def _span_english(span: str) -> float:
    """P(English) of a line or sentence (`typofix.words.language`: its model is read on the first call), once
    per span: its words share it."""
    return english_probability(span)


class Detector:
    """P(misspelling | evidence) from a fitted ensemble of gradient-boosted regression trees: the log-odds are
    `base` plus each tree's leaf value, and the probability their sigmoid.

    Trees, not one weighted sum, because the evidence interacts: a frequent token is someone's word when it is
    short (`lol`, `idk`) and a slip when it is one letter from a far more frequent word (`teh`); an absent
    token is a typo alone and a term when the document repeats it (`gcloud`). Each tree is five flat arrays,
    node by node: the feature tested (-1 at a leaf), the threshold (`x <= threshold` goes left), the left and
    the right child, and the leaf's value."""

    def __init__(self, base: float, trees: list[dict[str, np.ndarray]]):
        # All trees walked at once, a level per step, as one (trees, nodes) table each, padded with leaves: a
        # tree at a time was a Python loop of ~100 numpy steps per call, most of `typofix correct` on one word.
        width = max((len(t["feature"]) for t in trees), default=1)
        table = {name: np.stack([np.pad(np.asarray(t[name], dtype=kind), (0, width - len(t[name])),
                                        constant_values=-1 if name == "feature" else 0) for t in trees])
                 if trees else np.zeros((0, width), dtype=kind) for name, kind in _TREE_ARRAYS}
        self._set(base, table)

    def _set(self, base: float, table: dict[str, np.ndarray]) -> None:
        self.base, self._table = base, table

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "Detector":
        """The detector whose `arrays()` these are (from the index cache: no JSON to parse)."""
        table = {name: arrays[name] for name, _ in _TREE_ARRAYS}
        if len({a.shape for a in table.values()}) != 1 or arrays["base"].shape != (1,):
            raise ValueError("detector arrays do not agree")
        detector = cls.__new__(cls)
        detector._set(float(arrays["base"][0]), table)
        return detector

    def arrays(self) -> dict[str, np.ndarray]:
        return {**self._table, "base": np.array([self.base])}

    @classmethod
    def load(cls, table: str = "detector.json") -> "Detector":
        """The fitted detector in the packaged data file `table` (a path works too), kept as arrays in the index
        cache (`typofix.words.indexcache`): its JSON took a tenth of a second to read on every run."""
        path = packaged(table) if "/" not in table else table
        try:
            digest = file_digest(path)
        except OSError as err:
            raise ValueError(f"cannot read the misspelling detector {path}: {err}") from None
        return cached("detector", digest, lambda: cls.from_table(path), cls.from_arrays)

    @classmethod
    def from_table(cls, path) -> "Detector":
        """The fitted detector in the JSON file at `path`."""
        data = read_json_table(path, "misspelling detector")
        try:
            if tuple(data["features"]) != FEATURES:
                raise ValueError(f"its features {data['features']} are not this version's {list(FEATURES)}")
            trees = [{"feature": np.array(t["feature"], dtype=np.int64),
                      "threshold": np.array(t["threshold"], dtype=np.float64),
                      "left": np.array(t["left"], dtype=np.int64), "right": np.array(t["right"], dtype=np.int64),
                      "value": np.array(t["value"], dtype=np.float64)} for t in data["trees"]]
            return cls(float(data["base"]), trees)
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"malformed misspelling detector {path}: {err}") from None

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """(N,) P(misspelling) of (N, len(FEATURES)) features, `ROWS_AT_ONCE` rows at a time: the trees are
        walked for all rows together, in (trees, rows) arrays, so a batch of all a long line's words (6,000)
        had held 150 MB of them."""
        features = np.asarray(features, dtype=np.float32)  # as the trees were fitted: thresholds fall between these
        if len(features) > ROWS_AT_ONCE:
            return np.concatenate([self._probabilities(features[at:at + ROWS_AT_ONCE])
                                   for at in range(0, len(features), ROWS_AT_ONCE)])
        return self._probabilities(features)

    def _probabilities(self, features: np.ndarray) -> np.ndarray:
        table = self._table
        trees = np.arange(len(table["feature"]))[:, None]  # (T, 1)
        rows = np.arange(len(features))[None, :]  # (1, N)
        node = np.zeros((len(trees), len(features)), dtype=np.int64)  # (T, N) every row starts at each root
        while True:
            feature = table["feature"][trees, node]  # (T, N), -1 at a leaf
            inner = feature >= 0
            if not inner.any():
                break
            tested = features[rows, np.where(inner, feature, 0)]  # (T, N)
            child = np.where(tested <= table["threshold"][trees, node], table["left"][trees, node],
                             table["right"][trees, node])
            node = np.where(inner, child, node)
        # The leaf values added tree by tree onto the base, in order, as a running sum: the same floats as a loop.
        leaves = np.concatenate([np.full((1, len(features)), self.base), table["value"][trees, node]])  # (T + 1, N)
        logits = np.cumsum(leaves, axis=0)[-1] if len(features) else np.zeros(0)
        return np.where(not_english(features), 0.0, 1.0 / (1.0 + np.exp(-logits)))

    def detections(self, occurrences: list[Occurrence]) -> list[Detection]:
        """Each occurrence's `Detection`."""
        features = evidence_matrix(occurrences)
        return [Detection(o.start, o.start + len(o.written), o.written, o.correction, float(p),
                          dict(zip(FEATURES, row.tolist())))
                for o, p, row in zip(occurrences, self.probabilities(features), features)]


_TREE_ARRAYS = (("feature", np.int64), ("threshold", np.float64), ("left", np.int64), ("right", np.int64),
                ("value", np.float64))


class DocumentVocabulary:
    """How many times the document read so far writes each word, as written; bounded: past `limit` distinct
    words, those written once are forgotten (a stream never grows it without end)."""

    def __init__(self, limit: int = 200_000):
        self.counts: Counter[str] = Counter()
        self.limit = limit

    def add(self, words) -> None:
        self._make_room()
        self.counts.update(words)

    def _make_room(self) -> None:
        """Forget the words written once when the vocabulary is full (before a batch is counted, never in
        the middle of one, so a batch's own words always count)."""
        if len(self.counts) > self.limit:
            self.counts = Counter({w: n for w, n in self.counts.items() if n > 1})

    def __getitem__(self, word: str) -> int:
        return self.counts[word]

    def earlier(self, words) -> dict[str, int]:
        """{word: times written so far} for those of `words` read before: what a worker process needs to judge
        a batch as one process reading the whole document would (`typofix.engine.jobs`)."""
        self._make_room()
        return {w: self.counts[w] for w in set(words) if w in self.counts}

    @classmethod
    def continuing(cls, earlier: dict[str, int]) -> "DocumentVocabulary":
        """A document of which only `earlier` is known (see `earlier`)."""
        document = cls()
        document.counts = Counter(earlier)
        return document
