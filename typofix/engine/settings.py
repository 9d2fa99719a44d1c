"""Every knob of the correction engine in one frozen object, with its tuned default and the presets.

The CLI, `evaluate`, the tuner and `Corrector` pass a `DecodingSettings` whole; none of them keeps loose
copies of these defaults. How a word is corrected (see `typofix.engine.corrector`):

1. an accepted word (the acceptance dictionary, the word list, the user's words) and a special token (acronym,
   roman numeral, initial, code) are left as they are, unless `leave_accepted` / `leave_special` are off;
2. the cheap pass: the model encodes the typo once, writes its greedy (lexicon-constrained) answer (unless
   `greedy` is off), and scores that answer, the typo itself and the `shortlist` lexicon neighbours the channel
   likes best as one prefix trie; the noisy channel reranks them;
3. the wide pass, only for words whose cheap answer is uncertain (its margin over the runner-up below
   `wide_margin`, or `wide_min_edits` or more edits from the typo): the `one_edit_candidates` most frequent
   words one edit away, the `two_edit_candidates` most frequent two edits away and the `sound_candidates` that
   sound most like the typo (`typofix.words.phonetic`: for misspellings 3+ edits away), scored from the same
   encoding, and with `beam` above 1 a beam search of that width too;
4. in text, context (`context_weight`, 0 turns it off): each occurrence's candidates (the typo itself among
   them) are reranked with `context_weight` times the evidence of its neighbouring words (`typofix.words.context`, a
   word-bigram model interpolated with "no evidence" by `context_mix`), choosing among the best candidate, the
   typo and the candidates at most `context_max_edits` edits from it; a single word has no context;
5. the confidence rule: the best correction replaces the typo only when its score beats the typo's own
   (the typo as a name or a term we lack) by at least `min_confidence` (negative: the typo must be clearly
   more likely to stay, since the model scores copying any word highly).

The fast preset runs a smaller bundled model (`bundled_model`), skips the greedy decode (with that model the
greedy answer cost two points of top-1 on the dev sets), widens only with sound-alikes, and scores with its
own fitted table (`rerank_table`), fitted to that model's scores and those candidates.

Scores are the noisy channel: log P_model(word | typo) / length^alpha + prior_weight * log P(word)
- edit_weight * edits(typo, word) - first_letter_weight * [first letters differ].
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace

from typofix.files.modelfile import BUNDLED


SCORERS = ("fitted", "hand")


@dataclass(frozen=True)
class DecodingSettings:
    """The correction engine's settings; `DecodingSettings()` is the tuned default, `preset("fast")` the fast one."""

    # How candidates are scored: "fitted", the weights `bench/fit_rerank.py` fitted to the dev sets
    # (`typofix.engine.ranking`, data/rerank.json; it reads `alpha` from its table), or "hand", the noisy channel
    # below with its four hand-tuned weights.
    scorer: str = "fitted"
    # The fitted scorer's table, a file of data/ (shipped as `typofix.wordlist`): its weights were fitted with
    # one model's scores and one preset's candidates, so each preset names its own (`bench.fit_rerank --preset`).
    rerank_table: str = "rerank.json"
    # The noisy channel (`search.channel_score`); alpha also normalises the beam search's scores.
    alpha: float = 1.75
    prior_weight: float = 0.03
    edit_weight: float = 0.1
    first_letter_weight: float = 0.1
    # The cheap pass: the model's own greedy answer (lexicon-constrained) and the `shortlist` one-edit words.
    greedy: bool = True
    shortlist: int = 6
    # The wide pass. beam 1: its candidates are the neighbours alone (one edit, two edits, sound-alikes), scored
    # as a trie; a wider beam adds the model's own beam search (on the dev sets, beam 12 gave the same top-1 as
    # beam 1 at 0.6x its speed, now that sound-alikes reach the far-off words). beam 1, wide_margin 0 and
    # wide_min_edits 0: no wide pass at all.
    beam: int = 1
    # In the fitted scorer's units (`bench.tune_decoding --scorer fitted`); the hand channel's were 0.7 and 3.
    # With the stage-5 model, wide_min_edits 0 (the margin alone decides) gave the same norvig-testset1 and
    # birkbeck-dev 48.05% against 47.97% with 3, sending 43% of typos wide instead of 47%. 8 (and min_confidence
    # -5) since the int8 step's fixed ranges: the tuner's first with wide_min_edits 0, mean 69.02 against 69.00
    # for 6 and -3, the same 44% of typos wide; `typofix evaluate` birkbeck-dev 3,566 rows against 3,563.
    wide_margin: float = 8.0
    wide_min_edits: int = 0
    # The wide pass's candidates besides the cheap pass's: the most frequent one edit away (a large number: all
    # of them), two edits away, and sound-alikes. On the dev sets, 0 / 3 / 3 give the top-1 of all / 5 / 5
    # (norvig-testset1 87.5%, birkbeck-dev 45.0%) at 1.4x the speed (the cheap pass's `shortlist` already holds
    # the likely one-edit words), and on the dev prose 66.0% fixed instead of 65.3%. Ten sound-alikes rather
    # than three since the fitted scorer's similarity features (`typofix.engine.ranking`) can rank them: top-1 among the
    # candidates on birkbeck-dev 49.5% against 49.2% with three (and 49.5% with twenty and ten two-edit words).
    one_edit_candidates: int = 0
    two_edit_candidates: int = 3
    sound_candidates: int = 10
    prune: bool = True  # stop the wide beam's hypotheses that can no longer beat the cheap answer
    # Context in text (typofix.words.context): weight of the neighbours' evidence (0: off) and its interpolation.
    # (1.0 for the fitted scorer, whose scores spread wider: 67.4% of the dev prose's misspellings fixed against
    # 64.7% at 0.3; the hand channel's was 0.3, the fast preset's)
    context_weight: float = 1.0
    context_mix: float = 0.9
    context_max_edits: int = 2  # the context may pick the best candidate, the typo, or one this near the typo
    # What is left alone.
    # The fitted scorer's (the hand channel's was -0.5). -3.0 since the similarity and usage features
    # (`bench.tune_decoding --scorer fitted`, with wide_margin 6: birkbeck-dev 50.55% against 49.68% at -1.0,
    # norvig-testset1 the same; the dev prose 13 correct words broken of 20,599, against 12 at -1.5); -5.0 with
    # wide_margin 8 since the int8 step's fixed ranges (above; the dev prose the same 794 fixed, 13 broken).
    min_confidence: float = -5.0
    leave_accepted: bool = True
    leave_special: bool = True
    # The model alone: no lexicon constraint, no candidates, no prior, nothing accepted.
    use_lexicon: bool = True
    # The bundled model to run where no model file is given: "default", or "fast" (a quarter of its width,
    # `conf/experiment/fast.yaml`; a decoder step costs about a quarter as much).
    bundled_model: str = "default"

    def __post_init__(self):
        for name in ("beam",):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("shortlist", "wide_min_edits", "one_edit_candidates", "two_edit_candidates", "sound_candidates",
                     "context_max_edits"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be at least 0, got {getattr(self, name)}")
        if not (self.rerank_table.endswith(".json") and "/" not in self.rerank_table):
            raise ValueError(f"rerank_table must name a .json table of data/, got {self.rerank_table!r}")
        if self.scorer not in SCORERS:
            raise ValueError(f"scorer must be one of {', '.join(SCORERS)}, got {self.scorer!r}")
        if self.bundled_model not in BUNDLED:
            raise ValueError(f"bundled_model must be one of {', '.join(BUNDLED)}, got {self.bundled_model!r}")
        if self.min_confidence != self.min_confidence:  # nan: no word would ever compare
            raise ValueError("min_confidence must be a number, got nan")
        if not 0.0 < self.context_mix <= 1.0:
            raise ValueError(f"context_mix must be in (0, 1], got {self.context_mix}")
        for name in ("alpha", "prior_weight", "edit_weight", "first_letter_weight", "wide_margin", "context_weight"):
            value = getattr(self, name)
            if not value >= 0:  # also rejects nan
                raise ValueError(f"{name} must be a number >= 0, got {value}")

    @classmethod
    def preset(cls, name: str, **overrides) -> "DecodingSettings":
        """A named preset ("default", "fast" or "hand") with some fields overridden (None values are ignored)."""
        try:
            base = PRESETS[name]
        except KeyError:
            raise ValueError(f"unknown preset {name!r}; choose from {', '.join(PRESETS)}") from None
        return base.with_(**overrides)

    def with_(self, **overrides) -> "DecodingSettings":
        """A copy with the given fields changed; None means "keep this one" (an option the user did not set)."""
        known = {f.name for f in fields(self)}
        unknown = set(overrides) - known
        if unknown:
            raise ValueError(f"unknown decoding setting(s): {', '.join(sorted(unknown))}")
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})

    def as_dict(self) -> dict:
        return asdict(self)


PRESETS: dict[str, DecodingSettings] = {
    "default": DecodingSettings(),
    # The previous default: the hand-set noisy channel with the values `bench.tune_decoding` chose for it
    # (whole dev sets: norvig-testset1 87.5%, birkbeck-dev 44.8%); `bench.network_value` compares networks by it.
    "hand": DecodingSettings(scorer="hand", min_confidence=-0.5, wide_margin=0.7, wide_min_edits=3, context_weight=0.3,
                             sound_candidates=3),
    # Chosen on the dev sets with the fast model (whole sets, top-1 norvig-testset1 / birkbeck-dev). With the
    # hand-set channel: greedy on 81.1 / 40.0, off 83.4 / 42.0 (wide_margin 0.3), 85.3 / 42.9 (0.7). With its own
    # fitted table (`bench.fit_rerank --preset fast`, cross-validated 84.5 / 47.0 against the hand channel's
    # 83.4 / 43.3 among these candidates) and the gate and confidence rule `bench.tune_decoding --preset fast
    # --scorer fitted --beams 1` chose (-3 and 6, then the default's too; -5 and 8 gave 0.1 points more on
    # birkbeck-dev and nothing on norvig-testset1): 86.0 / 46.2 at the same speed, the dev prose 66.4% fixed against 64.6%,
    # the same 11 correct words broken. Three two-edit words as well gave 85.7 / 47.6 at 0.62x the speed on
    # birkbeck-dev (the preset exists for speed), context weight 0.3 rather than the default's 1.0 fixed 61.5%.
    "fast": DecodingSettings(bundled_model="fast", rerank_table="rerank-fast.json", min_confidence=-3.0,
                             greedy=False, shortlist=3, wide_margin=6.0, two_edit_candidates=0, sound_candidates=3),
}
