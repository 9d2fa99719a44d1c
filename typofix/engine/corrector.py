"""The correction engine's front: load a model, then correct text and suggest, explain and trace words.

`Corrector` is a thin facade over the engine's rooms: `stepper` (the model file and its runtime, torch-free
with the bundled ONNX model), `search` and `scoring` (the model's outputs, in numpy), `candidates` (the
lexicon words near a typo), `ranking` (the hand channel and the fitted scorer), `passes` (the cheap and the
wide pass, the confidence rule) and `pipeline` (text: acceptance, context, real-word errors). Its results are
`typofix.engine.results`' types. No Lightning or Hydra either way: a model file describes itself.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from typofix.engine.candidates import Neighbours
from typofix.engine.detector import Detection, DocumentVocabulary, Occurrence
from typofix.engine.inputs import takes_text, takes_texts
from typofix.engine.passes import BATCH_SIZE, Passes
from typofix.engine.pipeline import REAL_WORD_GAIN, TextPipeline
from typofix.engine.ranking import FittedScorer, Ranker, table_path
from typofix.engine.results import Correction, Suggestion, Trace, Weighed
from typofix.engine.search import LexiconConstraint
from typofix.engine.settings import DecodingSettings
from typofix.engine.sounds import Sounds
from typofix.engine.stepper import Stepper, load_stepper
from typofix.files.modelfile import ModelError, resolve_model
from typofix.words.context import BigramModel
from typofix.words.lexicon import AcceptedWords, Lexicon
from typofix.words.text import MAX_WORD_LEN
from typofix.words.vocab import Vocab

__all__ = ["Corrector", "Correction", "DecodingSettings", "Detection", "ModelError", "Suggestion", "Trace",
           "Weighed", "load_stepper"]

# A user's own word has no corpus count; this one (about the 30,000th most frequent listed word's) lets it win
# where it is the closest word without outranking common words one edit away.
USER_WORD_COUNT = 1_000_000


@dataclass(frozen=True)
class SearchMemory:
    """Some words' search, as one Corrector hands it to another of the same model and settings (picklable:
    `Corrector.search_memory`, `Corrector.remember`)."""

    settings: DecodingSettings
    searched: dict = field(default_factory=dict)  # lowercase word -> (its corrections, its own candidate)

    def __len__(self) -> int:
        return len(self.searched)



class Corrector:
    """Corrects words and text with a trained model, its word list and a `DecodingSettings`.

    Acceptance is apart from generation: a word the acceptance dictionary, the word list or the user knows is
    left as it is (`settings.leave_accepted`), and so are the special tokens `typofix.words.text` sets aside
    (`settings.leave_special`). Any other word gets its candidates through the cheap and, where its answer is
    uncertain, the wide pass (`typofix.engine.passes`), and the confidence rule, under which the typo stays
    unless its best correction beats the typo's own score by `settings.min_confidence`.
    `use_lexicon=False` is the model alone; `stepper=None` is the lexicon alone, no network, to measure what
    the model adds.
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
        self._model_path: Path | None = None  # set by `load`, which knows the model file (see `identity`)
        # Built now, not on first use: building the trie takes a noticeable fraction of a second, and that
        # belongs to loading, not to the first batch a benchmark times.
        self.constraint = (LexiconConstraint(self.lexicon.trie, vocab.symbols, vocab.eos_id, self.lexicon,
                                             settings.prior_weight) if self.lexicon is not None else None)
        self.scorer = FittedScorer.load(table_path(settings.rerank_table)) if settings.scorer == "fitted" else None
        self.neighbours = Neighbours(self.lexicon, settings) if self.lexicon is not None else None
        # The phone channel, where the wide pass or the scorer asks how words sound (never without a network).
        hears = settings.phone_candidates or (self.scorer is not None and self.scorer.uses_phones)
        self.sounds = (Sounds(self.lexicon, self.neighbours.by_frequency)
                       if self.lexicon is not None and stepper is not None and hears else None)
        if self.neighbours is not None:
            self.neighbours.sounds = self.sounds
        ranker = (Ranker(self.lexicon, settings, self.scorer if stepper is not None else None, self.sounds)
                  if self.lexicon is not None else None)
        self.passes = Passes(stepper, vocab, self.lexicon, settings, self.constraint, self.neighbours, ranker,
                             batch_size)
        self.pipeline = TextPipeline(self.passes, self.is_accepted, self.are_accepted, settings, self.lexicon,
                                     self.neighbours, max_word_len,
                                     self.accepted if isinstance(self.accepted, AcceptedWords) else None)

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
        model = resolve_model(path, settings.bundled_model, onnx=device == "cpu")  # (its file names `identity`)
        # The bundled model, checked when it was built, is started on its first search, where a run needs one; a
        # file the user names is read now, so a damaged one is told before any work.
        stepper, vocab = load_stepper(model, device, settings.bundled_model, when_needed=path is None)
        lexicon = accepted = None
        if settings.use_lexicon:
            lexicon = Lexicon.from_tsv(lexicon_path)
            user_words = list(user_words)
            # A user's word can be a correction (a middling prior), where the model can write its characters.
            lexicon.add_words([w.lower() for w in user_words if vocab.covers(w.lower())], USER_WORD_COUNT)
            accepted = AcceptedWords.load(accepted_path, extra=user_words)
            accepted.derive_with(lexicon.counts_of)
        corrector = cls(stepper, vocab, lexicon, settings, accepted)
        corrector._model_path = model
        return corrector

    @property
    def identity(self) -> str | None:
        """A digest of everything its searches depend on (`typofix.engine.searchstore.search_identity`): two
        correctors of one identity search every word alike. None where `load` did not make it (it knows the
        model file): its searches are not kept between runs."""
        if self._model_path is None:
            return None
        from typofix.engine.searchstore import search_identity  # (with SQLite, which only `check` needs)

        return search_identity(self._model_path, self.lexicon.digest if self.lexicon is not None else "",
                               self.settings)

    @takes_text
    def correct(self, text: str) -> str:
        """`text` (a word, a line, a document) with its misspelled words corrected, in their case, and every
        other character as it was."""
        return self.pipeline.correct_many([text])[0]

    @takes_texts
    def correct_many(self, texts: list[str], document: DocumentVocabulary | None = None) -> list[str]:
        """`correct` of every text, all their words decoded in shared batches. The texts are one document (a
        word written in several of them is the writer's word, `typofix.engine.detector`), or continue
        `document`, where a stream is read in batches: it counts each batch's words as it goes."""
        return self.pipeline.correct_many(texts, document)

    @takes_texts
    def correct_each(self, texts: list[str]) -> list[str]:
        """`correct` of every text, each a document of its own (the rows of a table, a server's requests: a word
        repeated in one says nothing of another), decoded in shared batches."""
        return self.pipeline.correct_many(texts, separate=True)

    @takes_texts
    def corrections_many(self, texts: list[str], document: DocumentVocabulary | None = None,
                         only: Collection[str] | None = None,
                         detect_threshold: float | None = None) -> list[list[Correction]]:
        """Per text, what `correct_many` changes in it ("misspelling" corrections), in text order; the texts are
        one document, or continue `document` (a file read in parts). `only`: the words (lowercase) to search
        and correct; the others stay as they are (`check` leaves out the words no finding could come of).
        `detect_threshold`: the misspelling detector's threshold for these texts (None: the settings'; `check`
        asks it of prose files only)."""
        return self.pipeline.corrections_many(texts, document, only, detect_threshold)

    @takes_texts
    def weigh(self, words: Iterable[str]) -> dict[str, Weighed]:
        """Per lowercase word: its corrections, best first, and its own score (`Weighed`), from the search that
        correcting text uses, remembered: weigh a run's distinct words first, in one large batch, and the texts
        corrected after are decided from the same search (a finding's confidence is `Weighed.margin`)."""
        return {word: Weighed(word, keep.score if keep is not None else None,
                              tuple(Suggestion(c.word, c.score, word) for c in others))
                for word, (others, keep) in self.pipeline.weigh(words).items()}

    @takes_texts
    def listed_near(self, words: list[str], n: int | None = None) -> list[list[str]] | None:
        """Per lowercase word, every listed word (the word list's, the user's among them) within two edits of it
        (optimal string alignment), other than itself, most frequent first, or the `n` most frequent of them:
        every correction the engine can offer it that near is among them (`check` searches no word none of
        whose could be reported). None without a lexicon: the model alone may write any string."""
        return self.neighbours.listed_near(words, n) if self.neighbours is not None else None

    def search_memory(self, words: Iterable[str]) -> SearchMemory:
        """The search of `words` (lowercased; searched now where not yet) as `remember` takes it in another
        process: a run split over processes searches each word once, in one of them."""
        return SearchMemory(self.settings, self.pipeline.weigh(words))

    def remembered(self, words: Iterable[str]) -> set[str]:
        """Those of the lowercase `words` searched already (here, or handed over by `remember`): `weigh` answers
        them without a search."""
        return self.pipeline.remembered(words)

    def remember(self, memory: SearchMemory) -> None:
        """Take `memory` (`search_memory` of a Corrector of the same model and settings) as this one's own
        search of its words: correcting text after uses it as if these words had been searched here."""
        if memory.settings != self.settings:
            raise ValueError("a search memory of other settings")
        self.pipeline.remember(memory.searched)

    @takes_text
    def leaves_alone(self, word: str) -> bool:
        """True for a word, as written, that correcting text never changes: accepted, and not a word the
        dictionary writes with capitals typed in lower case (`debian`: Debian)."""
        return self.is_accepted(word) and self.pipeline.recased(word) is None

    @takes_texts
    def leave_alone_many(self, words: list[str]) -> list[bool]:
        """`leaves_alone` of each of `words`, the word lists' lookups of all of them together (one search of
        the mapped lists for a file's distinct words)."""
        accepted = self.are_accepted(words)
        recased = self.pipeline.recased_many([word for word, known in zip(words, accepted) if known])
        return [known and word not in recased for word, known in zip(words, accepted)]

    @takes_texts
    def occurrences_many(self, texts: list[str], document: DocumentVocabulary | None = None
                         ) -> list[list[Occurrence]]:
        """Per text, each rewrite the engine proposes before the misspelling detector has its say, with what
        the detector weighs (`typofix.engine.detector.Occurrence`): what `bench.fit_detector` fits it on. The
        texts are one document, or continue `document`."""
        return self.pipeline.occurrences_many(texts, document)

    @takes_texts
    def detections_many(self, texts: list[str]) -> list[list[Detection]]:
        """Per text, each rewrite the engine proposes with the detector's probability that the word is a
        misspelling and its evidence (`correct` applies those at `settings.detect_threshold` or more)."""
        return [self.pipeline.detector.detections(found) for found in self.occurrences_many(texts)]

    @takes_texts
    def real_word_errors(self, texts: list[str], min_gain: float = REAL_WORD_GAIN) -> list[list[Correction]]:
        """Per text, its accepted words that are probably another word in their context ("real-word"
        corrections, reported only: `correct` never applies them); see `TextPipeline.real_word_errors`."""
        return self.pipeline.real_word_errors(texts, min_gain)

    @takes_text
    def suggest(self, word: str, k: int = 5, with_typo: bool = False) -> list[Suggestion]:
        """Up to `k` corrections of `word`, best first, with their scores (see `suggest_many`)."""
        return self.pipeline.suggest_many([word], k, with_typo)[0]

    @takes_texts
    def suggest_many(self, words: list[str], k: int = 5, with_typo: bool = False,
                     attention: bool = False) -> list[list[Suggestion]]:
        """`suggest` for every word, decoded in shared batches: its corrections, never the typo itself (a word
        typed without its capitals or apostrophe gets the dictionary's form among them: monday -> Monday). An
        accepted word comes first as itself; input that is not one correctable word (a URL, a number, a phrase,
        an acronym) gets its `correct` with score 0.0. `with_typo`: the typo competes too, at its own score
        under the confidence rule, so that the first is what `correct` writes (for `typofix evaluate`).
        `attention`: each with the model's attention weights as its evidence (`Suggestion.attn`; the explorer's)."""
        return self.pipeline.suggest_many(words, k, with_typo, attention)

    @takes_text
    def explain(self, word: str, k: int = 5) -> list[Suggestion]:
        """The model's `k` best corrections of one lowercase-able word with their attention weights, searched
        even when the word is accepted and ranked without the confidence rule (this shows what the model does,
        not what `correct` would keep)."""
        typo = word.lower()
        return [Suggestion(c.word, c.score, typo, c.attn)
                for c in self.passes.rank([typo], k, decide=False, attention=True)[typo]]

    @takes_texts
    def trace(self, words: list[str]) -> dict[str, Trace]:
        """How each word's candidates are found and scored (`typofix.engine.results.Trace`): each pass's
        candidates with log P_model, decoder steps, edits, prior and that pass's score, as `suggest` searches
        the lowercase word, accepted or not (the confidence rule aside: the typo itself is a candidate with
        its own score). Words the model cannot read are left out. Needs a lexicon."""
        if self.lexicon is None:
            raise ValueError("tracing follows the lexicon's passes: this corrector has no lexicon")
        readable = sorted({w.lower() for w in words if w and self.vocab.covers(w.lower())})
        traced: dict[str, Trace] = {}
        self.passes.search(readable, trace=traced)
        return {w: traced[w.lower()] for w in words if w.lower() in traced}

    @takes_text
    def is_accepted(self, word: str) -> bool:
        """True for a word, as written, that the corrector leaves alone as a word."""
        return self.settings.leave_accepted and self.accepted is not None and word in self.accepted

    @takes_texts
    def are_accepted(self, words: list[str]) -> list[bool]:
        """`is_accepted` of each of `words`, looked up together where the accepted words can (`contains_many`:
        one search of the mapped word lists for all of them)."""
        if not (self.settings.leave_accepted and self.accepted is not None):
            return [False] * len(words)
        if hasattr(self.accepted, "contains_many"):
            return self.accepted.contains_many(words)
        return [word in self.accepted for word in words]

    @property
    def context(self) -> BigramModel | None:
        """The word-bigram model that ranks candidates in text (None when `context_weight` is 0 or there is no
        lexicon), read on first use."""
        return self.pipeline.context
