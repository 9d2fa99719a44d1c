"""Ranking a typo's candidates: the hand-set noisy channel (`channel_score`), the fitted scorer
(`FittedScorer`), and `Ranker`, which ranks by the one `DecodingSettings.scorer` names.

The hand channel adds to the model's length-normalised log-probability a weighted log prior and charges each
edit and a changed first letter: four weights a grid search chose (`bench/tune_decoding.py`). The fitted
scorer has one weight per *feature* of a (typo, candidate) pair, fitted by `bench/fit_rerank.py` as a
conditional logit: over each dev typo's candidates, the probability of the right one is softmax(features @
weights), and the weights maximise it. The features say what the hand channel says, and what it cannot:

* the model: log P_model(word | typo) normalised by length^alpha (as the hand channel has it), per step, and
  the number of steps (a short output's per-step score is less telling);
* the word's log prior;
* edits from the typo, one indicator each for 1, 2, 3 and 4+ (the hand channel charges each edit the same;
  the dev sets say a third edit costs far more than a second);
* whether the first letters differ;
* how different they sound: Metaphone edits between the typo's code and the word's, and whether their
  Soundex codes differ (most far-off misspellings keep the word's sound);
* how alike they look and sound beyond an edit count: Jaro-Winkler similarity of the spellings (it weighs a
  shared start and letters a little out of place, as readers do), whether the last letters differ, how many
  first letters they share (up to 4), whether their Metaphone codes are the same and how similar they are
  relative to their length (two edits between long codes say less than two between short ones);
* whether the word is the model's favourite among the candidates (the model ranks well where its scores are
  close to others');
* how often today's English uses the word: its Zipf frequency from wordfreq (`data/usage.tsv.gz`, built by
  `data/build_usage.py`; 0 for a word wordfreq lacks), beside the log prior's Google Books counts, which
  are formal and old (`pome`, `propylene`);
* how far apart they sound as phones (`typofix.engine.sounds`): the weighted phone distance between the typo
  as the letter-to-phone model hears it and the word as CMUdict says it, and whether that distance is 0; and
  the same two again for a word three or more edits away (0 for nearer ones), where the letters say least and
  the sound most (they took birkbeck-dev's cross-validated top-1 from 52.65 to 52.99%, docs/tuning.md).

The typo itself (the confidence rule's "leave it") has 0 edits, looks and sounds the same as itself, and is
never the model's favourite, so its score differs from a correction's by the model, its frequencies and how
alike the correction is; the confidence rule's threshold is tuned on these scores.

Weights belong to one model's scores and one preset's candidates, so each preset has its table
(`DecodingSettings.rerank_table`): `data/rerank.json` for the default, `data/rerank-fast.json` for the fast
preset's smaller model. A table carries the alpha its model scores were normalised with and the top-1 the fit
reached, beside the weights. What each feature gained when it came in: docs/tuning.md.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Indel, JaroWinkler, Levenshtein, Postfix, Prefix

from typofix.engine.scoring import Hypothesis
from typofix.engine.settings import DecodingSettings
from typofix.files.packagedata import packaged, read_json_table
from typofix.words.distance import osa_distance
from typofix.words.lexicon import Lexicon
from typofix.words.phonetic import sound_codes
from typofix.words.usage import TokenUsage, listed_usage

FEATURES = ("model_score", "model_per_step", "steps", "log_prior", "one_edit", "two_edits", "three_edits",
            "four_plus_edits", "first_letter_differs", "sound_edits", "soundex_differs", "similarity",
            "last_letter_differs", "shared_prefix", "same_metaphone", "metaphone_similarity", "model_best", "usage",
            "phone_distance", "same_phones", "far_phone_distance", "far_same_phones")
# The phone channel's features (`typofix.engine.sounds`): a table that weighs them 0, or lacks them (one fitted
# before they existed), never asks for a pronunciation.
PHONE_FEATURES = ("phone_distance", "same_phones", "far_phone_distance", "far_same_phones")
# The features only the model's scores give: what a candidate not yet scored by the model is ranked without.
MODEL_FEATURES = ("model_score", "model_per_step", "model_best")
MAX_SHARED_PREFIX = 4  # a longer shared start says no more than four letters do


# --- the hand-set noisy channel ---------------------------------------------------------------------------


def rerank(hyps: list[Hypothesis], words: list[str], lexicon: Lexicon, weight: float, typo: str = "",
           edit_weight: float = 0.0, first_letter_weight: float = 0.0) -> list[tuple[str, Hypothesis]]:
    """The noisy channel: rank one input's candidates by

        score + weight * log P_prior(word) - edit_weight * edits(typo, word)
              - first_letter_weight * [word and typo start differently]

    where `score` is the (length-normalised) log P_model(word | typo), the prior the lexicon's unigram
    frequency, and `edits` the optimal-string-alignment distance: a second, plain channel term that keeps the
    model from preferring a frequent word several edits away to the word one edit away (off at 0). The last
    term encodes that people seldom get the first letter wrong: in birkbeck-dev's rows two edits away, 6.5%
    do (off at 0)."""
    rescored = [(w, replace(h, score=channel_score(h.score, w, typo, lexicon, weight, edit_weight,
                                                    first_letter_weight)))
                for h, w in zip(hyps, words)]
    return sorted(rescored, key=lambda pair: -pair[1].score)


def channel_score(model_score: float, word: str, typo: str, lexicon: Lexicon, prior_weight: float,
                  edit_weight: float = 0.0, first_letter_weight: float = 0.0, edits: int | None = None) -> float:
    """The noisy-channel score of `word` as the correction of `typo` (see `rerank`); `edits`, when the caller
    knows it (a neighbour found one edit away), saves computing the distance."""
    score = model_score + prior_weight * lexicon.log_prior(word)
    if edit_weight:
        score -= edit_weight * (edits if edits is not None else osa_distance(typo, word))
    if first_letter_weight and word[:1] != typo[:1]:
        score -= first_letter_weight
    return score


# --- the fitted scorer --------------------------------------------------------------------------------------


def table_path(name: str = "rerank.json") -> Path:
    """The packaged table `name` of data/ (shipped as package data `typofix.wordlist`): rerank.json, the default
    preset's, or rerank-fast.json, the fast preset's (`DecodingSettings.rerank_table`)."""
    return packaged(name)


def features(typo: str, words: list[str], log_probs: np.ndarray, steps: np.ndarray, log_priors: np.ndarray,
             edits: np.ndarray, alpha: float, phone_distances: np.ndarray | None = None) -> np.ndarray:
    """The (N, len(FEATURES)) features of `words` as corrections of `typo`: their model log-probabilities
    (EOS included) and decoder steps, log priors, edit distances and phone distances from the typo, all (N,).
    The typo may be among `words` (the confidence rule weighs it); it is never the model's favourite
    correction. Without `phone_distances` the phone features are 0 (a table that does not weigh them)."""
    return features_many([typo], [words], log_probs, steps, log_priors, edits, alpha, phone_distances)


def features_many(typos: list[str], words: list[list[str]], log_probs: np.ndarray, steps: np.ndarray,
                  log_priors: np.ndarray, edits: np.ndarray, alpha: float,
                  phone_distances: np.ndarray | None = None) -> np.ndarray:
    """`features` of many typos at once: `words[i]` are typo i's candidates, and the numbers (M,) run over all
    of them, typo by typo; returns (M, F) in the same order. The string measures are one rapidfuzz call each
    for all M pairs, and the comparisons one numpy step each: a call per typo, let alone per pair, cost a fifth
    of the fast preset's time."""
    sizes = [len(group) for group in words]
    flat = [w for group in words for w in group]  # (M,)
    owner = np.repeat(np.arange(len(typos)), sizes)  # (M,) each pair's typo number
    pair_typos = _objects(typos)[owner]  # (M,) each pair's typo
    typo_codes = [sound_codes(typo) for typo in typos]
    codes = [_sound_codes(w) for w in flat]
    typo_metaphones = _objects([metaphone for metaphone, _ in typo_codes])[owner]  # (M,) each pair's typo's codes
    typo_soundexes = _objects([soundex for _, soundex in typo_codes])[owner]
    metaphones, soundexes = _objects([metaphone for metaphone, _ in codes]), _objects([soundex for _, soundex in codes])
    pair_typos, typo_metaphones, words_of = pair_typos.tolist(), typo_metaphones.tolist(), _objects(flat)
    # w[:1] != typo[:1] is no shared first letter, unless both are empty (and so for the last letter)
    prefix, suffix = _pairwise(pair_typos, flat, Prefix.similarity), _pairwise(pair_typos, flat, Postfix.similarity)
    some = (_lengths(typos)[owner] > 0) | (_lengths(flat) > 0)
    out = np.empty((len(flat), len(FEATURES)), dtype=np.float64)  # (M, F)
    out[:, 0] = log_probs / steps ** alpha
    out[:, 1] = log_probs / steps
    out[:, 2] = steps
    out[:, 3] = log_priors
    for column, count in ((4, 1), (5, 2), (6, 3)):
        out[:, column] = edits == count
    out[:, 7] = edits >= 4
    out[:, 8] = (prefix == 0) & some
    out[:, 9] = _pairwise(typo_metaphones, metaphones.tolist(), Levenshtein.distance)
    out[:, 10] = soundexes != typo_soundexes
    out[:, 11] = _pairwise(pair_typos, flat, JaroWinkler.similarity)
    out[:, 12] = (suffix == 0) & some
    out[:, 13] = np.minimum(prefix, MAX_SHARED_PREFIX)
    out[:, 14] = metaphones == _objects(typo_metaphones)
    out[:, 15] = _pairwise(typo_metaphones, metaphones.tolist(), Indel.normalized_similarity)
    # The model's favourite of each typo's candidates other than the typo (the first, where scores tie).
    out[:, 16] = 0.0
    other = words_of != _objects(pair_typos)
    score = np.where(other, out[:, 0], -np.inf)
    best = np.full(len(typos), -np.inf)
    np.maximum.at(best, owner, score)
    hits = np.flatnonzero(other & (score == best[owner]))
    first = np.ones(len(hits), dtype=bool)
    first[1:] = owner[hits][1:] != owner[hits][:-1]
    out[hits[first], 16] = 1.0
    out[:, 17] = usage_frequencies().get_many(flat)
    out[:, 18] = phone_distances if phone_distances is not None else 0.0
    out[:, 19] = phone_distances == 0 if phone_distances is not None else 0.0
    # The typo itself is no word said some way: its phone features are 0, so that it scores as under a table
    # without them and the confidence rule's scale stays where `typofix check`'s thresholds were set.
    out[~other, 18:20] = 0.0
    far = edits >= 3
    out[:, 20] = out[:, 18] * far
    out[:, 21] = out[:, 19] * far
    return out


def usage_frequencies() -> TokenUsage:
    """Listed word -> Zipf frequency (log10 uses per billion words) from the packaged data/usage.tsv.gz, looked
    up in the index cache's arrays (`typofix.words.usage.listed_usage`)."""
    return listed_usage()


def _pairwise(a: list[str], b: list[str], scorer) -> np.ndarray:
    """(M,) `scorer(a[i], b[i])` for each pair, in one rapidfuzz call (the same values as one call per pair)."""
    return process.cpdist(a, b, scorer=scorer, dtype=np.float64) if a else np.zeros(0)


# A word's sound codes, kept: the same frequent words are candidates of many typos.
_sound_codes = lru_cache(maxsize=1 << 16)(sound_codes)


def _objects(strings: list[str]) -> np.ndarray:
    """(N,) the strings as an object array, for comparisons and gathers in one numpy step."""
    out = np.empty(len(strings), dtype=object)
    out[:] = strings
    return out


def _lengths(strings: list[str]) -> np.ndarray:
    return np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))


@dataclass(frozen=True)
class FittedScorer:
    """Linear weights over `FEATURES` and the alpha the model score feature was normalised with."""

    weights: np.ndarray  # (F,)
    alpha: float

    @classmethod
    def from_table(cls, table: dict) -> "FittedScorer":
        weights = table.get("weights", {})
        needed = set(FEATURES) - set(PHONE_FEATURES)
        if not needed <= set(weights) or not set(weights) <= set(FEATURES) or "alpha" not in table:
            raise ValueError(f"not a fitted scorer table: expected an alpha and weights for {', '.join(FEATURES)}")
        return cls(np.array([float(weights.get(name, 0.0)) for name in FEATURES]), float(table["alpha"]))

    @property
    def uses_phones(self) -> bool:
        """Whether scoring needs pronunciations (the phone features weigh something)."""
        return any(self.weights[FEATURES.index(name)] for name in PHONE_FEATURES)

    @classmethod
    def load(cls, path: str | Path | None = None) -> "FittedScorer":
        """The table at `path`, or the default preset's packaged one (each read once per process)."""
        return _load(str(path or table_path()))

    def scores_many(self, typos: list[str], words: list[list[str]], log_probs, steps, log_priors,
                    edits, phone_distances=None) -> np.ndarray:
        """(M,) scores of each typo's candidates `words[i]` as its corrections, all typos at once; higher is
        better (see `features_many`)."""
        return self._features(typos, words, log_probs, steps, log_priors, edits, phone_distances) @ self.weights

    def scores_without_model(self, typos: list[str], words: list[list[str]], steps, log_priors, edits,
                             phone_distances=None) -> np.ndarray:
        """(M,) `scores_many` with the model's features at 0: what the cheap features alone say of each
        candidate, to choose which ones are worth the model's time."""
        out = self._features(typos, words, np.zeros(len(steps)), steps, log_priors, edits, phone_distances)
        out[:, [FEATURES.index(name) for name in MODEL_FEATURES]] = 0.0
        return out @ self.weights

    def _features(self, typos: list[str], words: list[list[str]], log_probs, steps, log_priors, edits,
                  phone_distances) -> np.ndarray:
        """`features_many` of the candidates, the per-candidate values as float64 arrays."""
        array = lambda values: np.asarray(values, dtype=np.float64)  # noqa: E731
        return features_many(typos, words, array(log_probs), array(steps), array(log_priors), array(edits),
                             self.alpha, phone_distances)


@lru_cache(maxsize=4)
def _load(path: str) -> FittedScorer:
    return FittedScorer.from_table(read_json_table(path, "fitted scorer table"))


# --- ranking by one of them ---------------------------------------------------------------------------------


@dataclass
class Candidate:
    """One ranked candidate of a typo: the word, its score (higher is better), and the attention weights
    (T, S) of the model writing it, T its characters then EOS, S the typo's characters (None without them)."""

    word: str
    score: float
    attn: np.ndarray | None = None


class Ranker:
    """Ranks each typo's scored outputs: by `scorer`, the fitted scorer, or where it is None (`scorer="hand"`,
    or no network: no model score to weigh) by the hand-set noisy channel with `settings`' weights. `sounds`:
    the phone channel, which a scorer that weighs the phone features needs."""

    def __init__(self, lexicon: Lexicon, settings: DecodingSettings, scorer: FittedScorer | None, sounds=None):
        if scorer is not None and scorer.uses_phones and sounds is None:
            raise ValueError("this fitted scorer weighs how words sound: it needs the phone channel")
        self.lexicon, self.settings, self.scorer, self.sounds = lexicon, settings, scorer, sounds
        self._phones: dict[tuple[str, str], float] = {}  # (typo, word) -> phone distance, see `phone_distances`

    def rank_many(self, typos: list[str], candidates: list[dict[str, Hypothesis]],
                  edits: list[dict[str, int]], hear: bool = True) -> list[list[Candidate]]:
        """Each typo's candidates (output -> its hypothesis) best first, all typos in one call of the fitted
        scorer; `edits`: the distances from the typo the caller knows (the rest are worked out). An empty
        output (the model ending at once) would delete the word from a text, so it is never offered. Without
        `hear`, the typos are not heard: the phone features count 0 (as under a table without them)."""
        s = self.settings
        if self.scorer is None:
            ranked = [[Candidate(w, channel_score(h.score, w, typo, self.lexicon, s.prior_weight, s.edit_weight,
                                                  s.first_letter_weight, near.get(w)), h.attn)
                       for w, h in cands.items() if w] for typo, cands, near in zip(typos, candidates, edits)]
        else:
            words = [[w for w in cands if w] for cands in candidates]
            hyps = [cands[w] for cands, group in zip(candidates, words) for w in group]
            flat = [w for group in words for w in group]
            distances = [d for ds in _distances(typos, edits, words) for d in ds]
            phones = self.phone_distances(typos, words) if hear and self.scorer.uses_phones else None
            scores = self.scorer.scores_many(
                typos, words, [h.log_prob for h in hyps], [len(h.ids) + 1 for h in hyps],
                self.lexicon.log_priors(flat), distances, phones).tolist()
            ranked, start = [], 0
            for group in words:
                ranked.append([Candidate(w, score, h.attn) for w, h, score in
                               zip(group, hyps[start:start + len(group)], scores[start:start + len(group)])])
                start += len(group)
        return [sorted(scored, key=lambda c: -c.score) for scored in ranked]

    def phone_distances(self, typos: list[str], words: list[list[str]]) -> np.ndarray:
        """`Sounds.distances`, each pair worked out once until `forget`: a wide pass ranks the cheap pass's
        candidates again, and its neighbours twice (to choose those the model scores, then to rank them)."""
        pairs = [(typo, w) for typo, group in zip(typos, words) for w in group]
        todo = [pair for pair in dict.fromkeys(pairs) if pair not in self._phones]
        if todo:
            asked = list(dict.fromkeys(typo for typo, _ in todo))
            groups = {typo: [] for typo in asked}
            for typo, w in todo:
                groups[typo].append(w)
            found = self.sounds.distances(asked, [groups[typo] for typo in asked]).tolist()
            self._phones.update(zip(((typo, w) for typo in asked for w in groups[typo]), found))
        return np.array([self._phones[pair] for pair in pairs], dtype=np.float64)

    def forget(self) -> None:
        """Drop the phone distances `phone_distances` remembers (a caller's batch is done: memory stays bounded
        by one batch on endless streams)."""
        self._phones.clear()

    def best_without_model(self, typos: list[str], words: list[list[str]], edits: list[dict[str, int]],
                           n: int) -> list[list[str]]:
        """Of each typo's `words` (not yet scored by the model), those two edits away or nearer and the `n` best
        others by the scorer without its model terms (the hand channel with no model score, or the fitted scorer
        with its model features at 0), in their given order; `edits` as in `rank_many`."""
        if all(len(group) <= n for group in words):  # (a shortcut: nothing to choose)
            return words
        s = self.settings
        distances = _distances(typos, edits, words)
        if self.scorer is None:
            scores = [channel_score(0.0, w, typo, self.lexicon, s.prior_weight, s.edit_weight, s.first_letter_weight,
                                    d) for typo, group, ds in zip(typos, words, distances) for w, d in zip(group, ds)]
        else:
            flat = [w for group in words for w in group]
            phones = self.phone_distances(typos, words) if self.scorer.uses_phones else None
            scores = self.scorer.scores_without_model(
                typos, words, [len(w) + 1 for w in flat], self.lexicon.log_priors(flat),
                [d for ds in distances for d in ds], phones).tolist()
        kept, start = [], 0
        for group, ds in zip(words, distances):
            mine = scores[start:start + len(group)]
            # The near ones (two edits at most) are always scored: the model's favourite, a feature of every
            # candidate's score, is nearly always one of them, and dropping it would move the others' scores.
            far = [i for i, d in enumerate(ds) if d > 2]
            best = set(sorted(far, key=lambda i: -mine[i])[:n])
            kept.append([w for i, (w, d) in enumerate(zip(group, ds)) if d <= 2 or i in best])
            start += len(group)
        return kept


def _distances(typos: list[str], edits: list[dict[str, int]], words: list[list[str]]) -> list[list[int]]:
    """Each typo's `words`' edit distances from it: the caller's (`edits`), or worked out (OSA)."""
    return [[near[w] if near.get(w) is not None else osa_distance(typo, w) for w in group]
            for typo, near, group in zip(typos, edits, words)]
