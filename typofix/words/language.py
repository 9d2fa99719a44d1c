"""How likely a span of text (a line, a sentence) is English, so that text in another language is left alone.

The evidence is py3langid's naive Bayes model (byte n-grams, BSD, a 4.6 MB wheel) restricted to `LANGUAGES`,
the major written languages: English against the others, taken as one "not English" hypothesis, their even
mixture. The log-likelihood ratio of the two is tempered by the span's length (naive Bayes counts every n-gram
as independent evidence, so its raw ratio is overconfident, more so the longer the span) and scaled; `TEMPER`
and `SCALE` were fitted on the dev sets (docs/language.md). Then

    P(English | span) = sigmoid(SCALE * ratio + logit(prior))

so a span with no evidence at all (empty, digits, punctuation, an emoji) gets `prior` back, and a short span
gets little evidence and stays near it: one or two words cannot tell English from German (`die`, `also`,
`man`), and the answer says so rather than guessing. Pass as `prior` what is known about the text around the
span, or score a short line together with its neighbours (`english_probabilities`).

The model is read on the first call that has a letter to look at, once per process. py3langid's own loader
unpacks its whole 142-class model every time (0.6-0.75 s, 105 MiB), which a `typofix correct` run would pay
for a line; so the restricted model is built once, kept in typofix's index cache as a few arrays
(`RestrictedModel`), and memory-mapped from there: later processes load it in 30 ms and read only the pages a
text needs. A call then costs 50-100 us for a line of 20-90 characters. Measurements and the choice of
library: docs/language.md.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import re
import threading
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from typofix.words.indexcache import cached, strings, text_array

# The major written languages: every big Latin-script one (those a Latin-script English corrector can mistake for
# English, and those it must never rewrite) and the big ones of other scripts, which must be there for text in
# those scripts to have somewhere to go. Left out: py3langid's small, regional and creole classes (Nigerian
# Pidgin, Bikol, Kabyle, Breton, Sotho, Xhosa, Quechua, ...) and Latin, which between them take about one English
# line in twenty (`lol`, `thanks`, `ty Priyanka!!`) and are not what people ask a spell checker about.
# Restricting to English and its six big neighbours instead wins short English lines but calls 11% of
# man-page lines in Swedish, Danish, Polish, Turkish, Indonesian... English (docs/language.md): the wider set
# costs little.
LANGUAGES = tuple("en de fr es it pt nl sv da no fi is pl cs sk sl hr sr bs mk sq hu ro tr az uz id ms tl vi ca "
                  "gl eu et lv lt ga cy af eo sw ru uk be bg kk el he ar fa ur hi bn ta ka hy zh ja ko th".split())
# The ratio is computed at temperature len(span in UTF-8 bytes) ** TEMPER and multiplied by SCALE: the pair with
# the least log loss on dev text only (the dev foreign set and translated man pages against the dev English
# sources, weighed half and half: `python -m bench.language_id --fit`; py3langid's own normalisation is TEMPER
# 0.5). SCALE was 0.8 until a fit that had used held-out text was redone.
TEMPER = 0.3
SCALE = 0.65
# No letter, no language: such a span gets the prior without asking the model.
_LETTER = re.compile(r"[^\W\d_]")
_WORD = re.compile(r"\S*[^\W\d_]\S*")
# Where a sentence (or clause) ends inside a line: a full stop, question or exclamation mark, colon or
# semicolon before a space.
_SENTENCE_BREAK = re.compile(r"(?<=[.!?:;])\s+")


def _logit(p: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


class RestrictedModel:
    """py3langid's model restricted to some languages, as the arrays typofix's index cache keeps and maps.

    py3langid reads its model from an LZMA-packed npz of all 142 classes and turns the automaton into Python
    lists, half a second and 105 MiB a process; restricted to 60 languages its probability table is 12 MiB. Here
    that is done once: the table, the class priors and labels, and the byte automaton as flat arrays (the
    distinct 256-byte transition rows, each state's row offset, each state's feature or -1: what py3langid keeps
    as array.array and lists, so it reads them through memoryviews just the same). Scores are py3langid's to
    the last bit: the same numbers, the same code (`LanguageIdentifier.rank`). Mapped from the cache, a process
    reads only the pages a text needs, and shares them with every other process that maps them."""

    LAYOUT = 1  # what `arrays` holds; a change retires the cached ones

    def __init__(self, arrays: dict[str, np.ndarray]):
        self._arrays = arrays

    def arrays(self) -> dict[str, np.ndarray]:
        return self._arrays

    @classmethod
    def build(cls, languages: Sequence[str]) -> RestrictedModel:
        """Read py3langid's model and keep the columns of `languages` (the slow part: once per cache)."""
        from py3langid.langid import MODEL_FILE, LanguageIdentifier

        model = LanguageIdentifier.from_model_file(MODEL_FILE)  # raw naive Bayes scores
        model.set_languages(list(languages))
        return cls.from_arrays({
            "ptc": np.ascontiguousarray(model.nb_ptc), "pc": np.asarray(model.nb_pc),
            "classes": text_array(list(model.nb_classes)),
            "nextmove": np.asarray(model.tk_nextmove), "rowbase": np.asarray(model._rowbase, dtype=np.uint32),
            "output": np.asarray(model.tk_output, dtype=np.int32)})

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> RestrictedModel:
        """The model over `arrays`, checked for shape (a cached copy that fails is rebuilt: ValueError)."""
        ptc, pc, nextmove, rowbase, output = (arrays[k] for k in ("ptc", "pc", "nextmove", "rowbase", "output"))
        if (ptc.ndim != 2 or pc.shape != (ptc.shape[1],) or len(strings(arrays["classes"])) != len(pc)
                or nextmove.ndim != 1 or nextmove.size % 256 or rowbase.shape != output.shape
                or not rowbase.size or int(rowbase.max()) + 256 > nextmove.size or int(output.max()) >= ptc.shape[0]):
            raise ValueError("not a restricted py3langid model")
        return cls(arrays)

    @classmethod
    def cached(cls, languages: Sequence[str]) -> RestrictedModel:
        """The model for `languages` from typofix's index cache, built and saved there on first use."""
        import py3langid
        from py3langid.langid import MODEL_DIR, MODEL_FILE

        made_of = f"{cls.LAYOUT} py3langid {py3langid.__version__} {(MODEL_DIR / MODEL_FILE).stat().st_size} "
        source = hashlib.sha256((made_of + " ".join(languages)).encode()).hexdigest()
        return cached("langid", source, lambda: cls.build(languages), cls.from_arrays)

    def identifier(self):
        """A py3langid LanguageIdentifier over these arrays, without copying them."""
        from py3langid.langid import LanguageIdentifier

        a = self._arrays
        model = LanguageIdentifier(a["ptc"], a["pc"], strings(a["classes"]), memoryview(a["nextmove"]),
                                   memoryview(a["output"]), tk_row=())
        # What its constructor would make of the state -> row map (a list of 100,000 ints), made once, at build.
        model._rowbase = memoryview(a["rowbase"])
        return model


class EnglishIdentifier:
    """Scores spans of text for how likely they are English; loads the model (`RestrictedModel.cached`) on the
    first call that has a letter to look at."""

    def __init__(self, languages: Sequence[str] = LANGUAGES, temper: float = TEMPER, scale: float = SCALE):
        if "en" not in languages:
            raise ValueError("the languages must include English (en)")
        self.languages = tuple(dict.fromkeys(languages))
        self.temper, self.scale = temper, scale
        self._model = None
        self._lock = threading.Lock()

    def _loaded(self):
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = RestrictedModel.cached(self.languages).identifier()
        return self._model

    def evidence(self, text: str) -> float:
        """The calibrated log-odds that `text` is English rather than another language, before any prior:
        positive for English, negative for not, 0.0 where there is nothing to tell (no letters)."""
        if not _LETTER.search(text):
            return 0.0
        scores = self._loaded().rank(text)
        floor = scores[-1][1]
        if scores[0][1] <= -1e30 or scores[0][1] == floor:  # no n-gram the model knows: no evidence
            return 0.0
        temperature = len(text.encode("utf-8", "surrogatepass")) ** self.temper
        english, others = None, []
        for language, score in scores:
            if language == "en":
                english = score / temperature
            else:
                others.append(score / temperature)
        top = max(others)
        mixture = top + math.log(sum(math.exp(s - top) for s in others) / len(others))
        return self.scale * (english - mixture)

    def english_probability(self, text: str, prior: float = 0.5) -> float:
        """P(English | text) for a text whose prior probability of being English is `prior`."""
        return _sigmoid(self.evidence(text) + _logit(prior))

    def english_probabilities(self, spans: Sequence[str], prior: float = 0.5, min_words: int = 5) -> list[float]:
        """P(English) of each span of a sequence (the lines or sentences of one text, in order). A span of fewer
        than `min_words` words is scored with its neighbours (the spans before and after it, nearest first,
        until `min_words` are together), since text around a short line is most often in its language."""
        counts = [len(_WORD.findall(span)) for span in spans]
        found = []
        for i, span in enumerate(spans):
            lo, hi = _widened(counts, i, min_words)
            found.append(self.english_probability(span if lo == hi else " ".join(spans[lo:hi + 1]), prior))
        return found


def _widened(counts: Sequence[int], i: int, min_words: int) -> tuple[int, int]:
    """The first and last of the spans around span `i` (their word `counts` in order) taken together so that
    they hold `min_words` words, nearest first, one from each side in turn (all of them where they hold fewer)."""
    lo = hi = i
    words = counts[i]
    while words < min_words and (lo > 0 or hi < len(counts) - 1):
        if lo > 0:
            lo -= 1
            words += counts[lo]
        if words < min_words and hi < len(counts) - 1:
            hi += 1
            words += counts[hi]
    return lo, hi


def sentence_around(line: str, offset: int, min_words: int = 3) -> str:
    """The sentence (or clause) of `line` that holds `line[offset]`, with the sentences beside it on the line
    while it has fewer than `min_words` words: the span a word's language is told from. Per sentence, because a
    line can change language from one sentence to the next (`We met in Paris. Je ne sais pas pourquoi.`);
    widened, because one or two words cannot tell languages apart (`die`, `also`, `Merci!`)."""
    starts, ends, words = _sentences(line)
    if len(starts) == 1:
        return line
    here = min(bisect.bisect_right(ends, offset), len(ends) - 1)  # (the first sentence ending after the offset)
    lo, hi = _widened(words, here, min_words)
    return line[starts[lo]:ends[hi]]


@lru_cache(maxsize=16)  # (asked again for each word of a line: a long line holds thousands)
def _sentences(line: str) -> tuple[list[int], list[int], list[int]]:
    """Where each sentence of `line` starts and ends, and its words."""
    breaks = list(_SENTENCE_BREAK.finditer(line))
    starts = [0] + [m.end() for m in breaks]
    ends = [m.start() for m in breaks] + [len(line)]
    return starts, ends, [len(_WORD.findall(line[a:b])) for a, b in zip(starts, ends)]


_shared: EnglishIdentifier | None = None
_shared_lock = threading.Lock()


def identifier() -> EnglishIdentifier:
    """The process's one EnglishIdentifier (the model is read once, on its first call)."""
    global _shared
    if _shared is None:
        with _shared_lock:
            if _shared is None:
                _shared = EnglishIdentifier()
    return _shared


def english_probability(text: str, prior: float = 0.5) -> float:
    """The probability in [0, 1] that `text` (a line, a sentence, a paragraph) is English, given that
    `prior` is its probability before reading it. Text with no letters, or too short to tell (one or two words),
    gets `prior` or close to it; a sentence gets near 0 or 1."""
    return identifier().english_probability(text, prior)


def english_probabilities(spans: Sequence[str], prior: float = 0.5, min_words: int = 5) -> list[float]:
    """`english_probability` of each span of one text, a short span scored together with its neighbours."""
    return identifier().english_probabilities(spans, prior, min_words)
