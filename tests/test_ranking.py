"""Ranking (`typofix.engine.ranking`): the hand-set channel, the fitted scorer (its features, its table, the
fitting script's logit), and the engine ranking by the one its settings name."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from bench import fit_rerank
from typofix.engine.corrector import Corrector
from typofix.engine.ranking import (FEATURES, PHONE_FEATURES, Candidate, FittedScorer, Ranker, channel_score,
                                    features, features_many, rerank, table_path, usage_frequencies)
from typofix.engine.scoring import Hypothesis
from typofix.engine.settings import DecodingSettings
from typofix.engine.sounds import Sounds
from typofix.words.distance import osa_distance
from typofix.words.lexicon import Lexicon
from typofix.words.phonetic import sound_codes
from typofix.words.usage import read_zipf_table

COLUMN = {name: i for i, name in enumerate(FEATURES)}
SMALL_LEXICON = {"spelling": 50, "spell": 40, "receive": 30, "the": 100, "tea": 5, "a": 90, "weird": 7}


@pytest.fixture(scope="module")
def small_lexicon():
    return Lexicon(SMALL_LEXICON)


def test_rerank_adds_the_weighted_prior(small_lexicon):
    words = ["spell", "tea", "the", "spelling"]
    hyps = [Hypothesis([], -1.0, -1.0), Hypothesis([], -1.5, -1.5), Hypothesis([], -2.0, -2.0),
            Hypothesis([], -2.5, -2.5)]
    assert [w for w, _ in rerank(hyps, words, small_lexicon, 0.0)] == words
    ranked = rerank(hyps, words, small_lexicon, 1000.0)  # the prior dominates: most frequent first
    assert [w for w, _ in ranked] == sorted(words, key=lambda w: -small_lexicon.count(w))
    for word, h in ranked:
        original = hyps[words.index(word)]
        assert h.score == pytest.approx(original.score + 1000.0 * small_lexicon.log_prior(word))


def test_edit_weight_prefers_the_nearer_word(small_lexicon):
    hyps = [Hypothesis([], -1.0, -1.0), Hypothesis([], -1.2, -1.2)]  # the model slightly prefers "spell"
    words = ["spell", "spelling"]
    assert [w for w, _ in rerank(hyps, words, small_lexicon, 0.0, "speling")] == ["spell", "spelling"]
    ranked = rerank(hyps, words, small_lexicon, 0.0, "speling", edit_weight=0.5)
    assert [w for w, _ in ranked] == ["spelling", "spell"]  # 1 edit away beats 2 edits away
    assert ranked[0][1].score == pytest.approx(-1.2 - 0.5)


def test_first_letter_weight_prefers_the_same_first_letter(small_lexicon):
    hyps = [Hypothesis([], -1.0, -1.0), Hypothesis([], -1.1, -1.1)]  # the model slightly prefers "well"
    words = ["well", "spell"]
    assert [w for w, _ in rerank(hyps, words, small_lexicon, 0.0, "sell")] == ["well", "spell"]
    ranked = rerank(hyps, words, small_lexicon, 0.0, "sell", first_letter_weight=0.3)
    assert [w for w, _ in ranked] == ["spell", "well"]
    assert ranked[1][1].score == pytest.approx(-1.0 - 0.3)


def test_the_ranker_ranks_by_the_hand_channel_or_the_fitted_scorer(small_lexicon):
    """One call ranks every typo's candidates: best first, the empty output never offered, the attention kept,
    and the fitted scorer's order is its scores' (the hand channel's is `channel_score`'s)."""
    settings = DecodingSettings(scorer="hand")
    attn = np.ones((2, 4))
    found = [{"spelling": Hypothesis([1], -1.2, -1.2, attn), "spell": Hypothesis([2], -1.0, -1.0), "": Hypothesis(
        [], -0.1, -0.1), "speling": Hypothesis([3], -0.9, -0.9)}, {"tea": Hypothesis([4], -2.0, -2.0)}]
    edits = [{"spelling": 1, "speling": 0}, {}]
    hand = Ranker(small_lexicon, settings, None).rank_many(["speling", "tae"], found, edits)
    for typo, ranked, cands in zip(["speling", "tae"], hand, found):
        assert all(isinstance(c, Candidate) for c in ranked) and "" not in [c.word for c in ranked]
        expected = {w: channel_score(h.score, w, typo, small_lexicon, settings.prior_weight, settings.edit_weight,
                                     settings.first_letter_weight) for w, h in cands.items() if w}
        assert {c.word: c.score for c in ranked} == pytest.approx(expected)
        assert [c.score for c in ranked] == sorted(expected.values(), reverse=True)
    assert next(c for c in hand[0] if c.word == "spelling").attn is attn
    scorer = FittedScorer.load()
    sounds = Sounds(small_lexicon, lambda: list(small_lexicon.counts))  # the bundled table weighs how words sound
    if scorer.uses_phones:
        with pytest.raises(ValueError, match="needs the phone channel"):
            Ranker(small_lexicon, settings, scorer)
    fitted = Ranker(small_lexicon, settings, scorer, sounds).rank_many(["speling", "tae"], found, edits)
    for typo, ranked, cands, near in zip(["speling", "tae"], fitted, found, edits):
        words = [w for w in cands if w]
        scores = scorer.scores_many([typo], [words], [cands[w].log_prob for w in words],
                                    [len(cands[w].ids) + 1 for w in words],
                                    [small_lexicon.log_prior(w) for w in words],
                                    [near.get(w, osa_distance(typo, w)) for w in words],
                                    sounds.distances([typo], [words]))
        assert {c.word: c.score for c in ranked} == pytest.approx(dict(zip(words, scores.tolist())))
        assert [c.score for c in ranked] == pytest.approx(sorted(scores.tolist(), reverse=True))


def test_features_of_the_typo_itself_and_of_a_far_sound_alike():
    words = ["recieve", "receive", "relieve", "deceive", "rx"]
    edits = np.array([osa_distance("recieve", w) for w in words])
    out = features("recieve", words, np.array([-1.0, -2.0, -3.0, -4.0, -5.0]), np.array([8.0, 8.0, 8.0, 8.0, 3.0]),
                   np.zeros(5), edits, alpha=1.0)
    assert out.shape == (5, len(FEATURES))
    typo, receive, _, deceive, rx = out
    # The typo itself: no edit, same first letter, same sound.
    assert not typo[COLUMN["one_edit"]:COLUMN["four_plus_edits"] + 1].any()
    assert typo[COLUMN["first_letter_differs"]] == 0 and typo[COLUMN["sound_edits"]] == 0
    assert typo[COLUMN["soundex_differs"]] == 0
    assert receive[COLUMN["one_edit"]] == 1 and receive[COLUMN["two_edits"]] == 0  # a transposition is one edit
    assert deceive[COLUMN["first_letter_differs"]] == 1
    assert rx[COLUMN["four_plus_edits"]] == 1 and rx[COLUMN["sound_edits"]] > 0
    assert out[:, COLUMN["model_score"]].tolist() == pytest.approx([-1 / 8, -2 / 8, -3 / 8, -4 / 8, -5 / 3])
    assert out[:, COLUMN["steps"]].tolist() == [8, 8, 8, 8, 3]


def test_similarity_features_and_the_models_favourite_which_is_never_the_typo():
    words = ["definately", "definitely", "defiantly", "finitely"]
    edits = np.array([osa_distance("definately", w) for w in words])
    # The typo has the best model score, but it is no correction: the favourite is the best of the others.
    out = features("definately", words, np.array([-0.5, -1.0, -2.0, -3.0]), np.full(4, 11.0), np.zeros(4), edits,
                   alpha=1.0)
    typo, definitely, defiantly, finitely = out
    assert out[:, COLUMN["model_best"]].tolist() == [0, 1, 0, 0]
    assert typo[COLUMN["similarity"]] == 1.0 and typo[COLUMN["same_metaphone"]] == 1
    assert 1.0 > definitely[COLUMN["similarity"]] > finitely[COLUMN["similarity"]]
    assert definitely[COLUMN["shared_prefix"]] == 4 and finitely[COLUMN["shared_prefix"]] == 0  # capped at 4
    assert definitely[COLUMN["same_metaphone"]] == 1 and definitely[COLUMN["metaphone_similarity"]] == 1.0
    assert defiantly[COLUMN["same_metaphone"]] == 1  # sounds the same to Metaphone, spelled differently
    assert finitely[COLUMN["same_metaphone"]] == 0 and 0 < finitely[COLUMN["metaphone_similarity"]] < 1.0
    assert not out[:, COLUMN["last_letter_differs"]].any()
    only_typo = features("qzx", ["qzx"], np.array([-1.0]), np.array([4.0]), np.zeros(1), np.zeros(1), alpha=1.0)
    assert only_typo[0, COLUMN["model_best"]] == 0


def test_features_of_many_typos_at_once_are_each_typos_own():
    """The engine scores all typos of a batch in one call (`features_many`): the same numbers as typo by typo,
    the model's favourite chosen within each typo's candidates (a typo with none is skipped)."""
    typos = ["recieve", "teh", "zzz", "x"]
    groups = [["recieve", "receive", "relieve"], ["the", "tea", "teh", "ten"], [], ["x", "xi"]]
    rng = np.random.default_rng(1)
    sizes = [len(g) for g in groups]
    log_probs, steps = rng.normal(-2.0, 1.0, sum(sizes)), rng.integers(2, 9, sum(sizes)).astype(float)
    priors, edits = rng.normal(-12.0, 2.0, sum(sizes)), rng.integers(0, 4, sum(sizes)).astype(float)
    together = features_many(typos, groups, log_probs, steps, priors, edits, alpha=1.75)
    bounds = np.cumsum([0] + sizes)
    alone = [features(t, g, log_probs[a:b], steps[a:b], priors[a:b], edits[a:b], alpha=1.75)
             for t, g, a, b in zip(typos, groups, bounds[:-1], bounds[1:])]
    assert together.shape == (sum(sizes), len(FEATURES))
    assert np.array_equal(together, np.vstack(alone))
    favourite = together[:, COLUMN["model_best"]]
    assert [favourite[a:b].sum() for a, b in zip(bounds[:-1], bounds[1:])] == [1, 1, 0, 1]
    assert favourite[bounds[3]] == 0  # "x" itself is never its own favourite


def test_letter_and_code_features_are_the_plain_comparisons_of_each_pair():
    """The comparisons made for all pairs in one numpy step are each pair's own: first and last letters differ
    (an empty string has none), the shared start (up to 4 letters), the same Metaphone and Soundex codes."""
    rng = random.Random(3)
    typos = ["".join(rng.choice("abce") for _ in range(rng.randint(1, 6))) for _ in range(60)] + ["e\u0301t\u00e9"]
    groups = [["".join(rng.choice("abce") for _ in range(rng.randint(0, 6))) for _ in range(rng.randint(0, 5))]
              + [typo] for typo in typos]
    size = sum(map(len, groups))
    got = features_many(typos, groups, np.zeros(size), np.ones(size), np.zeros(size), np.ones(size), alpha=1.0)
    pairs = [(typo, w) for typo, group in zip(typos, groups) for w in group]
    column = lambda name: got[:, COLUMN[name]].tolist()  # noqa: E731
    assert column("first_letter_differs") == [float(w[:1] != t[:1]) for t, w in pairs]
    assert column("last_letter_differs") == [float(w[-1:] != t[-1:]) for t, w in pairs]
    assert column("shared_prefix") == [float(len(os.path.commonprefix([t, w])[:4])) for t, w in pairs]
    assert column("same_metaphone") == [float(sound_codes(t)[0] == sound_codes(w)[0]) for t, w in pairs]
    assert column("soundex_differs") == [float(sound_codes(t)[1] != sound_codes(w)[1]) for t, w in pairs]


def test_usage_is_todays_frequency_and_zero_for_a_word_wordfreq_lacks():
    words = ["teh", "the", "tea", "pome"]
    out = features("teh", words, np.full(4, -1.0), np.full(4, 4.0), np.zeros(4), np.array([0, 1, 1, 4]), alpha=1.0)
    teh, the, tea, pome = out[:, COLUMN["usage"]]
    assert teh == 0.0 and the > tea > pome > 0  # Zipf frequencies: "the" about 7.7, "pome" under 2


def test_the_usage_table_covers_listed_words_only_in_the_lists_order():
    """data/usage.tsv.gz (data/build_usage.py): one row per word of words.tsv that wordfreq knows, in words.tsv's
    order, Zipf frequencies in (0, 8] (`the`, the commonest English word, is about 7.7)."""
    listed = [line.split("\t", 1)[0] for line in (fit_rerank.ROOT / "data/words.tsv").read_text().splitlines()]
    usage = read_zipf_table(fit_rerank.ROOT / "data/usage.tsv.gz")
    rank = {word: i for i, word in enumerate(listed)}
    assert set(usage) <= set(rank) and len(usage) > len(listed) / 2
    assert [rank[w] for w in usage] == sorted(rank[w] for w in usage)
    assert all(0 < zipf <= 8 for zipf in usage.values())


def test_the_usage_lookup_answers_what_the_table_says():
    """The scorer reads the table from the index cache's sorted arrays: every listed word's frequency is the
    table's float exactly, and a word it lacks (unlisted, not ASCII, longer than any) has 0."""
    table = read_zipf_table(fit_rerank.ROOT / "data/usage.tsv.gz")
    words = list(table)
    absent = ["zzzqqx", "café", "x" * 80, "the" + "\u00e9"]
    looked_up = usage_frequencies().get_many(words + absent)
    assert looked_up.dtype == np.float64
    assert looked_up[:len(words)].tolist() == [table[w] for w in words]
    assert looked_up[len(words):].tolist() == [0.0] * len(absent)


def test_hand_weights_rank_as_the_hand_channel_does():
    """The fitting script's baseline is the engine's hand channel, written as weights over the same features."""
    settings = DecodingSettings(scorer="hand", prior_weight=0.05, edit_weight=0.2, first_letter_weight=0.3,
                                alpha=1.5)
    lexicon = Lexicon({"there": 500, "three": 300, "their": 400, "tree": 50, "ether": 10})
    typo, words = "thre", ["there", "three", "their", "tree", "ether", "thre"]
    rng = random.Random(0)
    log_probs = np.array([-rng.uniform(0.1, 8) for _ in words])
    steps = np.array([len(w) + 1.0 for w in words])
    edits = np.array([osa_distance(typo, w) for w in words])
    fitted = features(typo, words, log_probs, steps, np.array([lexicon.log_prior(w) for w in words]), edits,
                      settings.alpha) @ fit_rerank.hand_weights(settings)
    hand = [channel_score(lp / n ** settings.alpha, w, typo, lexicon, settings.prior_weight, settings.edit_weight,
                          settings.first_letter_weight) for w, lp, n in zip(words, log_probs, steps)]
    assert fitted.tolist() == pytest.approx(hand)


def test_the_logit_learns_to_put_the_right_candidate_first():
    """On rows where the right word is always the one with fewer edits and a better model score, the fit finds
    weights that rank it first on every row and rewards both."""
    rng = np.random.default_rng(0)
    words, feats, own = {}, {}, {}
    rows = []
    for i in range(40):
        typo = f"t{i}"
        x = np.zeros((4, len(FEATURES)))
        x[:, COLUMN["model_score"]] = rng.normal(-1.0, 0.3, 4)
        x[:, COLUMN["two_edits"]] = 1
        x[1, COLUMN["model_score"]] = x[:, COLUMN["model_score"]].max() + 0.5  # the right one: better scored
        x[1, COLUMN["two_edits"]], x[1, COLUMN["one_edit"]] = 0, 1  # and nearer
        x[3] = 0  # the typo itself
        words[typo], feats[typo], own[typo] = ["a", "right", "b", typo], x, np.array([0, 0, 0, 1], dtype=bool)
        rows.append((typo, "right"))
    candidates = SimpleNamespace(words=words, features=feats, is_typo=own)
    weights = fit_rerank.fit(rows, candidates)
    assert fit_rerank.top1(rows, candidates, weights) == 1.0
    assert weights[COLUMN["model_score"]] > 0 and weights[COLUMN["one_edit"]] > weights[COLUMN["two_edits"]]


@pytest.mark.parametrize("preset", ["default", "fast"])
def test_each_presets_packaged_table_prefers_near_words_and_knows_its_fit(preset):
    """Each preset scores with its own table (data/rerank.json, data/rerank-fast.json), fitted to its model."""
    name = DecodingSettings.preset(preset).rerank_table
    scorer = FittedScorer.load(table_path(name))
    w = dict(zip(FEATURES, scorer.weights))
    # Nearer is likelier, for words that sound as far from the typo as each other (a phone apart): three or
    # more edits away, a table with the phone channel lets the sound decide (its far-band phone features).
    far = w["far_phone_distance"]
    assert w["one_edit"] > w["two_edits"] > w["three_edits"] + far > w["four_plus_edits"] + far
    assert w["phone_distance"] <= 0 and w["same_phones"] >= 0  # sounding alike is likelier (0: no phone channel)
    # Frequent words are likelier: today's usage carries it (the books' prior, beside it, weighs little).
    assert w["usage"] > 0 and w["usage"] > abs(w["log_prior"])
    assert w["first_letter_differs"] < 0 and w["similarity"] > 0 and w["metaphone_similarity"] > 0
    table = json.loads((fit_rerank.ROOT / "data" / name).read_text())
    assert f"--preset {preset} " in table["source"]
    assert set(table["top1"]) == {"norvig-testset1", "birkbeck-dev"}  # dev sets only, never a holdout set
    # The fit beat the hand-set channel it replaces, held out (cross-validated), on both sets.
    assert all(row["fitted, cross-validated"] > row["hand-set channel"] for row in table["top1"].values())


def test_the_presets_tables_differ():
    assert DecodingSettings.preset("default").rerank_table != DecodingSettings.preset("fast").rerank_table
    assert FittedScorer.load(table_path("rerank.json")) is not FittedScorer.load(table_path("rerank-fast.json"))


def test_a_table_without_every_feature_is_refused(tmp_path):
    table = {"alpha": 1.75, "weights": dict.fromkeys(FEATURES[1:], 1.0)}
    with pytest.raises(ValueError, match="not a fitted scorer table"):
        FittedScorer.from_table(table)
    unknown = {"alpha": 1.75, "weights": dict.fromkeys(FEATURES + ("loudness",), 1.0)}
    with pytest.raises(ValueError, match="not a fitted scorer table"):
        FittedScorer.from_table(unknown)


def test_a_table_fitted_before_the_phone_features_weighs_them_zero():
    """A table without the phone channel's features (fitted before they existed) loads and never asks how a
    word sounds; one that weighs them does."""
    old = FittedScorer.from_table({"alpha": 1.75, "weights": {f: 1.0 for f in FEATURES if f not in PHONE_FEATURES}})
    assert not old.uses_phones
    assert all(old.weights[FEATURES.index(f)] == 0.0 for f in PHONE_FEATURES)
    new = FittedScorer.from_table({"alpha": 1.75, "weights": dict.fromkeys(FEATURES, 1.0)})
    assert new.uses_phones


def test_an_unreadable_table_is_refused(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    with pytest.raises(ValueError, match="cannot read the fitted scorer table"):
        FittedScorer.load(path)


def test_the_scorer_setting_decides_the_ranking(tiny_ckpt):
    """Same model, same candidates: the fitted scorer and the hand channel give the typo's candidates
    different scores, and each ranks by its own."""
    fitted = Corrector.load(tiny_ckpt, settings=DecodingSettings())
    hand = Corrector.load(tiny_ckpt, settings=DecodingSettings(scorer="hand"))
    assert fitted.settings.scorer == "fitted" and hand.scorer is None
    f, h = fitted.suggest("recieve", 5), hand.suggest("recieve", 5)
    assert [s.score for s in f] == sorted((s.score for s in f), reverse=True)
    assert [s.score for s in h] == sorted((s.score for s in h), reverse=True)
    assert {s.word: s.score for s in f} != {s.word: s.score for s in h}


def test_cli_refuses_an_unknown_scorer():
    run = subprocess.run([sys.executable, "-m", "typofix", "correct", "--scorer", "learned", "teh"],
                         capture_output=True, text=True)
    assert run.returncode != 0
    assert "scorer must be one of fitted, hand" in run.stderr and "Traceback" not in run.stderr


def test_the_cheap_features_alone_are_the_scores_without_the_models_terms(small_lexicon):
    """`scores_without_model` is `scores_many` less what the model's features add, so choosing candidates by it
    never reads a model score; `best_without_model` keeps the best of those, in their given order."""
    scorer = FittedScorer.load()
    sounds = Sounds(small_lexicon, lambda: list(small_lexicon.counts))
    typo, words = "speling", ["spelling", "spell", "the", "weird", "tea"]
    steps = [len(w) + 1 for w in words]
    priors = [small_lexicon.log_prior(w) for w in words]
    edits = [osa_distance(typo, w) for w in words]
    phones = sounds.distances([typo], [words])
    log_probs = np.array([-0.5, -3.0, -9.0, -7.0, -8.0])
    full = scorer.scores_many([typo], [words], log_probs, steps, priors, edits, phones)
    cheap = scorer.scores_without_model([typo], [words], steps, priors, edits, phones)
    model = features_many([typo], [words], log_probs, np.array(steps, dtype=float), np.array(priors),
                          np.array(edits), scorer.alpha, phones)
    columns = [COLUMN[name] for name in ("model_score", "model_per_step", "model_best")]
    assert full - cheap == pytest.approx(model[:, columns] @ scorer.weights[columns])
    ranker = Ranker(small_lexicon, DecodingSettings(), scorer, sounds)
    kept = ranker.best_without_model([typo], [words], [{}], 1)[0]
    far = sorted((i for i in range(len(words)) if edits[i] > 2), key=lambda i: -cheap[i])
    assert len(far) > 1  # else nothing was chosen
    assert kept == [w for i, w in enumerate(words) if edits[i] <= 2 or i == far[0]]  # the near ones always
    assert ranker.best_without_model([typo], [words], [{}], 9) == [words]  # fewer than asked: all of them
