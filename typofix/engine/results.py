"""What the engine hands out: a `Suggestion` for a word, a `Correction` for a change to a text, and a `Trace`
of how a word's candidates were found and scored (for tuning). Each result writes itself as a JSON object
(`as_json`), the one shape every --json writer uses."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from typofix.engine.explain import Change, changes, describe

WHY = ("misspelling", "real-word")  # why a text correction is offered


@dataclass(frozen=True)
class Suggestion:
    """One correction of a word: `word` (in the case of `typo`, the input as written), its `score` (higher is
    better; on the ranking's scale, `typofix.engine.ranking`) and its evidence: the changes that turn the typo
    into the word and, from `Corrector.explain` (and `suggest_many(..., attention=True)`), the attention weights
    `attn` (T, S) of the model writing it, T its characters then EOS, S the typo's characters (None otherwise, or
    for a model without attention)."""

    word: str
    score: float
    typo: str
    attn: np.ndarray | None = field(default=None, compare=False, repr=False)

    @property
    def changes(self) -> list[Change]:
        """What the correction changes, left to right (`typofix.engine.explain.changes`; none for the typo)."""
        return changes(self.typo, self.word)

    @property
    def explanation(self) -> str:
        """One line: ``recieve -> receive  (swap at 4-5: "ie" -> "ei")`` (`typofix.engine.explain.describe`)."""
        return describe(self.typo, self.word)

    def as_json(self, digits: int = 4, evidence: bool = False) -> dict:
        """{"word", "score"} (the score rounded to `digits`; null if it is not finite); with `evidence`, also
        the "explanation", the "changes" and the "attn" rows (null without attention), rounded to 6 places."""
        record = {"word": self.word, "score": round(self.score, digits) if math.isfinite(self.score) else None}
        if evidence:
            record.update(explanation=self.explanation, changes=[asdict(c) for c in self.changes],
                          attn=None if self.attn is None else np.round(np.asarray(self.attn, dtype=float), 6).tolist())
        return record


@dataclass(frozen=True)
class Correction:
    """One change to a text: `text[start:end]`, the word `before` as written, becomes `after` (in its case).
    `why`: "misspelling" (a word no dictionary accepts, corrected) or "real-word" (an accepted word that is
    probably another in its context, `Corrector.real_word_errors`: reported, never applied)."""

    start: int
    end: int
    before: str
    after: str
    why: str = "misspelling"

    def __post_init__(self):
        if self.why not in WHY:
            raise ValueError(f"why must be one of {', '.join(WHY)}, got {self.why!r}")

    def as_json(self) -> dict:
        return {"start": self.start, "end": self.end, "before": self.before, "after": self.after, "why": self.why}


@dataclass(frozen=True)
class Weighed:
    """A word as correcting text weighs it (`Corrector.weigh`): its `corrections`, best first (scores on the
    ranking's scale, `typo` the lowercase word), and the word's own score `own`, which the confidence rule
    weighs them against (None: characters the model cannot read, or the model alone, with no own score)."""

    word: str
    own: float | None
    corrections: tuple[Suggestion, ...] = ()

    def margin(self, correction: str) -> float | None:
        """How far `correction` (lowercase) beats the word itself: its score minus the word's own (the word
        itself: 0); None when it is not among the corrections or the word has no own score."""
        if self.own is None:
            return None
        if correction == self.word:
            return 0.0
        return next((c.score - self.own for c in self.corrections if c.word == correction), None)


@dataclass(frozen=True)
class TracedCandidate:
    """One candidate as a pass scored it: the word, log P_model(word | typo) with EOS included (0 without a
    network), the decoder steps (its characters + EOS), its edits from the typo (OSA), its log prior in the
    word list, and its `score` in that pass's ranking (the fitted scorer's or the hand channel's)."""

    word: str
    log_prob: float
    steps: int
    edits: int
    prior: float
    score: float


@dataclass(frozen=True)
class Trace:
    """How one typo's candidates were found and scored: those the cheap pass scored (the pass every word gets)
    and, when the gate sent the word on, those of the wide pass (the cheap pass's among them, ranked again
    with the rest), each pass's candidates in the order they were found. `final`: the pass the word's
    ranking comes from. The typo itself is among them (the confidence rule weighs the corrections against it)."""

    typo: str
    cheap: dict[str, TracedCandidate]
    wide: dict[str, TracedCandidate] | None = None

    @property
    def final(self) -> dict[str, TracedCandidate]:
        return self.cheap if self.wide is None else self.wide
