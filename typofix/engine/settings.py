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
   sound most like the typo (`typofix.words.phonetic`: for misspellings 3+ edits away), of which those two
   edits away or nearer and the `wide_model_candidates` best others by the cheap features are scored from the
   same encoding, and with `beam` above 1 a beam search of that width too;
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

from dataclasses import asdict, dataclass, field, fields, replace

from typofix.files.modelfile import BUNDLED

SCORERS = ("fitted", "hand")


def knob(default, help: str | None = None, metavar: str | None = None, low: float | None = None,
         low_open: bool = False, high: float | None = None, choices: tuple | None = None,
         switch: tuple[str, object, str] | None = None):
    """A setting with what its command-line option and its check need: `help` and `metavar` (no help: no
    option), the range [`low`, `high`] (`low_open`: `low` itself excluded) or `choices`, and `switch`, a flag
    that sets the value to a constant: (flag, value, help)."""
    return field(default=default, metadata={"help": help, "metavar": metavar, "low": low, "low_open": low_open,
                                            "high": high, "choices": choices, "switch": switch})


def out_of_range(spec, value) -> str | None:
    """What is wrong with `value` for the setting `spec` (a dataclass field made by `knob`), or None."""
    meta = spec.metadata
    if meta.get("choices") is not None and value not in meta["choices"]:
        return f"must be one of {', '.join(meta['choices'])}, got {value!r}"
    low, high = meta.get("low"), meta.get("high")
    if low is not None and high is not None:
        inside = (value > low if meta["low_open"] else value >= low) and value <= high
        bracket = "(" if meta["low_open"] else "["
        return None if inside else f"must be in {bracket}{low:g}, {high:g}], got {value}"
    if low is not None and not value >= low:
        return f"must be at least {low:g}, got {value}" if isinstance(value, int) else \
            f"must be a number >= {low:g}, got {value}"
    if isinstance(value, float) and value != value:  # nan: no score would ever compare
        return "must be a number, got nan"
    return None


@dataclass(frozen=True)
class DecodingSettings:
    """The correction engine's settings; `DecodingSettings()` is the tuned default, `preset("fast")` the fast one.

    Each field's metadata (`knob`) is the one source of its range and its command-line option: the CLI's
    options are generated from it and `__post_init__` checks it. How each default was chosen: docs/tuning.md.
    """

    # How candidates are scored: "fitted", the weights `bench/fit_rerank.py` fitted to the dev sets
    # (`typofix.engine.ranking`; it reads `alpha` from its table), or "hand", the noisy channel of the four
    # weights below.
    scorer: str = knob("fitted", "how candidates are ranked: fitted (weights fitted to the dev sets' misspellings, "
                       "the default) or hand (the noisy channel of the four weights below)", "{fitted,hand}",
                       choices=SCORERS)
    # The fitted scorer's table, a file of data/ (shipped as `typofix.wordlist`): its weights were fitted with
    # one model's scores and one preset's candidates, so each preset names its own.
    rerank_table: str = knob("rerank.json")
    # The noisy channel (`typofix.engine.ranking`); alpha also normalises the beam search's scores.
    alpha: float = knob(1.75, "length normalisation: log P / length^A", "A", low=0)
    prior_weight: float = knob(0.03, "weight of log P(word) in the hand-set noisy channel", "W", low=0)
    edit_weight: float = knob(0.1, "penalty per edit between typo and candidate", "M", low=0)
    first_letter_weight: float = knob(0.1, "penalty for a candidate that starts with another letter than the typo",
                                      "B", low=0)
    # The cheap pass: the model's own greedy answer (lexicon-constrained) and the `shortlist` one-edit words.
    greedy: bool = knob(True)
    shortlist: int = knob(6, "one-edit neighbours the cheap pass scores with the model", "N", low=0)
    homophone_candidates: int = knob(3, "the N most frequent words said exactly as the typo sounds (the letter-to-"
                                     "phone model's pronunciation) join the cheap pass", "N", low=0)
    # Whether the cheap pass hears the typo (the letter-to-phone model): its homophones and the scorer's phone
    # features. Off: only the words that go wide are heard, and the cheap pass ranks without the phone features.
    cheap_phones: bool = knob(True)
    # The wide pass. beam 1: its candidates are the neighbours alone (one edit, two edits, sound-alikes), scored
    # as a trie; a wider beam adds the model's own beam search. beam 1, wide_margin 0 and wide_min_edits 0: no
    # wide pass at all. The margin is in the scorer's units.
    beam: int = knob(1, "beam width of the wide search for uncertain words; 1 (the default): its candidates alone, "
                     "no beam search", "N", low=1)
    wide_margin: float = knob(8.0, "a cheap answer that beats leaving the word by less than D gets the wide search",
                              "D", low=0)
    wide_min_edits: int = knob(3, low=0)  # a cheap answer this many edits away (or more) gets the wide pass too
    # The wide pass's candidates besides the cheap pass's: the most frequent one edit away (the cheap pass's
    # shortlist already holds the likely ones), two edits away, and sound-alikes (for the far-off misspellings).
    one_edit_candidates: int = knob(0, "the N most frequent words one edit away join the wide search (besides the "
                                    "cheap pass's shortlist)", "N", low=0)
    two_edit_candidates: int = knob(3, "the N most frequent words two edits away join the wide search", "N", low=0)
    sound_candidates: int = knob(10, "the N words that sound most like the typo (Metaphone, Soundex) join the wide "
                                 "search", "N", low=0)
    phone_candidates: int = knob(10, "the N listed words said most like the typo (the letter-to-phone model's "
                                 "pronunciation, within two phone edits) join the wide search", "N", low=0)
    # Of the wide pass's neighbours more than two edits away, only the N best by the scorer without its model
    # terms (edits, frequency, sound, phones) are scored with the model (0: all of them); the nearer ones always
    # are. A far neighbour the cheap features rank low seldom wins (figures: docs/tuning.md, "Less model work").
    wide_model_candidates: int = knob(4, "of the wide search's neighbours 3+ edits away, score only the N best by "
                                      "the cheap features (edits, frequency, sound) with the model; 0: all", "N",
                                      low=0)
    prune: bool = knob(True)  # stop the wide beam's hypotheses that can no longer beat the cheap answer
    # Context in text (`typofix.words.context`): weight of the neighbours' evidence (0: off) and its interpolation.
    context_weight: float = knob(1.0, "weight of the neighbouring words' evidence (word bigrams) in text; 0 is "
                                 "--no-context", "W", low=0,
                                 switch=("--no-context", 0.0, "in text, rank a misspelled word's candidates without "
                                         "its neighbouring words (the word-bigram model; on by default)"))
    context_mix: float = knob(0.9, "interpolation of the bigram evidence with none, in (0, 1]", "L", low=0,
                              low_open=True, high=1)
    # The context may pick the best candidate, the typo, or one this near the typo.
    context_max_edits: int = knob(2, "in context, a candidate other than the best may win only when it is at most "
                                  "N edits from the typo", "N", low=0)
    # What is left alone. The confidence rule: the best correction replaces the typo only when its score beats
    # the typo's own by at least min_confidence (negative: the model scores copying any word highly, so the
    # typo must be clearly more likely to stay).
    min_confidence: float = knob(-5.0, "rewrite an unknown word only when its best correction's score beats the "
                                 "word's own by C (higher: fewer, surer corrections)", "C")
    # Text as people type it (`typofix.words.casing`): a word typed without its capitals or its apostrophe
    # (monday, dont) becomes the dictionary's form, and a name (a capitalised unknown word inside a sentence, or
    # a known name typed in lower case) stays a name, unless the best correction beats the typo's own score by
    # this much: the same rule as `min_confidence`, with the margin these cheaper repairs deserve.
    repair_confidence: float = knob(0.0, "a word typed without its capitals or apostrophe (monday, dont) becomes "
                                    "the dictionary's form (Monday, don't) unless a correction beats it by C", "C")
    name_confidence: float = knob(9.0, "a name (a capitalised unknown word inside a sentence, or a known name in "
                                  "lower case) is rewritten only when a correction beats it by C", "C")
    # The misspelling detector (`typofix.engine.detector`): an unknown word the engine would rewrite is rewritten
    # (correct) or reported (check, lsp, ispell) only when the detector's probability that it is a misspelling
    # is at least this; 0 turns the detector off (every proposal is taken).
    detect_threshold: float = knob(0.75, "rewrite or report an unknown word only when the misspelling detector's "
                                   "probability that it is one is at least P (higher: fewer, surer changes; "
                                   "0: no detector)", "P", low=0, high=1)
    detector_table: str = knob("detector.json")  # the fitted detector; one per preset, as the scores' scale is
    leave_accepted: bool = knob(True, switch=("--correct-accepted", False, "correct words the dictionary accepts "
                                              "too (by default a word that is a word is never rewritten)"))
    leave_special: bool = knob(True, switch=("--correct-special", False, "correct acronyms, roman numerals, "
                                             "initials and code-like tokens too (left alone by default)"))
    # The model alone: no lexicon constraint, no candidates, no prior, nothing accepted.
    use_lexicon: bool = knob(True, switch=("--no-lexicon", False, "the model alone: no word-list constraint, no "
                                           "candidates, no frequency prior, no word left alone"))
    # The bundled model to run where no model file is given: "default", or "fast" (a quarter of its width,
    # `conf/experiment/fast.yaml`; a decoder step costs about a quarter as much).
    bundled_model: str = knob("default", choices=BUNDLED)

    def __post_init__(self):
        for spec in fields(self):
            problem = out_of_range(spec, getattr(self, spec.name))
            if problem:
                raise ValueError(f"{spec.name} {problem}")
        if not (self.rerank_table.endswith(".json") and "/" not in self.rerank_table):
            raise ValueError(f"rerank_table must name a .json table of data/, got {self.rerank_table!r}")

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
    # The hand-set noisy channel with the values `bench.tune_decoding` chose for it (the default before the
    # fitted scorer); `bench.network_value` compares networks by it.
    "hand": DecodingSettings(scorer="hand", min_confidence=-0.5, wide_margin=0.7, wide_min_edits=3, context_weight=0.3,
                             sound_candidates=3, phone_candidates=0, homophone_candidates=0),
    # Speed first: the smaller bundled model with its own fitted table, no greedy decode (with this model it cost
    # top-1), a narrower cheap pass and sound-alikes alone in the wide pass. Figures: docs/tuning.md.
    "fast": DecodingSettings(bundled_model="fast", rerank_table="rerank-fast.json", detector_table="detector-fast.json",
                             min_confidence=-3.0,
                             greedy=False, shortlist=3, wide_margin=6.0, wide_min_edits=0, two_edit_candidates=0,
                             sound_candidates=3, phone_candidates=0, homophone_candidates=0),
}
