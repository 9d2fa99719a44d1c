"""Decoding on a real (tiny) model: beam search (`typofix.engine.search`, through the torch stepper) against greedy
(`typofix.nn.decode`), the lexicon constraint, scoring, reranking."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from typofix.nn.checkpoint import build_model, read_checkpoint
from typofix.nn.decode import greedy
from typofix.words.lexicon import Lexicon
from typofix.engine.search import (Hypothesis, LexiconConstraint, beam_search, channel_score, forced_hypotheses,
                            forced_log_probs, length_normalised, rerank, stack_attention, take_rows, trie_hypotheses)
from typofix.nn.torch_stepper import TorchStepper
from typofix.words.distance import osa_distance

WORDS = ["speling", "recieve", "teh", "a", "acommodation", "definately", "wierd", "x"]


@pytest.fixture(scope="module")
def model_vocab(tiny_ckpt):
    return build_model(read_checkpoint(tiny_ckpt))


@pytest.fixture(scope="module")
def stepper(model_vocab):
    return TorchStepper(model_vocab[0])


@pytest.fixture(scope="module")
def batch(model_vocab):
    """src (B, S), src_len (B,) as numpy arrays (the search's input)."""
    _, vocab = model_vocab
    src = np.full((len(WORDS), max(map(len, WORDS))), vocab.pad_id, dtype=np.int64)  # (B, S)
    for row, word in enumerate(WORDS):
        src[row, :len(word)] = vocab.encode(word)
    return src, np.array([len(w) for w in WORDS])


@pytest.fixture(scope="module")
def small_lexicon():
    return Lexicon({"spelling": 50, "spell": 40, "receive": 30, "the": 100, "tea": 5, "a": 90, "weird": 7})


def test_beam_of_width_one_is_greedy(model_vocab, stepper, batch):
    model, vocab = model_vocab
    found = greedy(model, *map(torch.from_numpy, batch))
    beams = beam_search(stepper, *batch, beam=1, alpha=0.0)  # raw scores: nothing after the first EOS can win
    assert [vocab.decode(row) for row in found.ids] == [vocab.decode(b[0].ids) for b in beams]
    assert torch.allclose(found.log_probs, torch.tensor([b[0].log_prob for b in beams]), atol=1e-4)


def test_constrained_beam_writes_only_lexicon_words(model_vocab, stepper, batch, small_lexicon):
    _, vocab = model_vocab
    constraint = LexiconConstraint(small_lexicon.trie, vocab.symbols, vocab.eos_id)
    beams = beam_search(stepper, *batch, beam=4, constraint=constraint)
    assert all(beams)
    for hyps in beams:
        words = [vocab.decode(h.ids) for h in hyps]
        assert set(words) <= set(small_lexicon.counts)
        assert len(set(words)) == len(words)  # distinct paths, distinct words


def test_beam_scores_sorted_and_attention_shaped(stepper, batch):
    src, src_len = batch
    beams = beam_search(stepper, src, src_len, beam=5, n_best=3, alpha=0.7)
    for hyps, length in zip(beams, src_len.tolist()):
        assert 1 <= len(hyps) <= 3
        scores = [h.score for h in hyps]
        assert scores == sorted(scores, reverse=True)
        for h in hyps:
            assert h.score == pytest.approx(length_normalised(h.log_prob, len(h.ids) + 1, 0.7))
            assert h.attn.shape == (len(h.ids) + 1, length)  # (T, S): every output step incl. EOS
            assert np.allclose(h.attn.sum(-1), np.ones(len(h.ids) + 1), atol=1e-5)
    attn = stack_attention([hyps[0] for hyps in beams])  # (B, T, S), zero-padded
    assert attn.shape == (len(WORDS), max(len(b[0].ids) + 1 for b in beams), src.shape[1])
    assert np.array_equal(attn[0, :len(beams[0][0].ids) + 1, :src_len[0]], beams[0][0].attn)


def test_batching_does_not_change_results(model_vocab, stepper, batch, small_lexicon):
    """Padding, and words leaving the batch early, must not change any word's hypotheses."""
    _, vocab = model_vocab
    src, src_len = batch
    constraint = LexiconConstraint(small_lexicon.trie, vocab.symbols, vocab.eos_id)
    together = beam_search(stepper, src, src_len, beam=3, constraint=constraint)
    for i in range(len(WORDS)):
        alone = beam_search(stepper, src[i:i + 1, :src_len[i]], src_len[i:i + 1], beam=3, constraint=constraint)[0]
        assert [h.ids for h in alone] == [h.ids for h in together[i]]
        assert [h.log_prob for h in alone] == pytest.approx([h.log_prob for h in together[i]], abs=1e-4)


def test_constraint_masks_follow_the_trie(model_vocab, small_lexicon):
    _, vocab = model_vocab
    constraint = LexiconConstraint(small_lexicon.trie, vocab.symbols, vocab.eos_id)
    trie = small_lexicon.trie
    spell, spel = trie.walk("spell"), trie.walk("spel")
    allowed = constraint.allowed([0, spel, spell])  # (3, V)
    ids = lambda chars: {vocab.encode(c)[0] for c in chars}  # noqa: E731
    assert set(np.flatnonzero(allowed[0]).tolist()) == ids("srtaw")
    assert set(np.flatnonzero(allowed[1]).tolist()) == ids("l")  # no EOS: "spel" is no word
    assert set(np.flatnonzero(allowed[2]).tolist()) == ids("i") | {vocab.eos_id}
    assert constraint.advance([spel], vocab.encode("l")) == [spell]


def test_forced_scores_agree_with_greedy(model_vocab, stepper, batch):
    model, _ = model_vocab
    found = greedy(model, *map(torch.from_numpy, batch))
    outputs = [[i for i in row.tolist() if i not in (model.eos_id, model.pad_id)] for row in found.ids]
    log_probs, _ = forced_log_probs(stepper, *batch, outputs)  # (B, T)
    assert log_probs.sum(axis=1).tolist() == pytest.approx(found.log_probs.tolist(), abs=1e-4)


def test_rerank_adds_the_weighted_prior(model_vocab, stepper, batch, small_lexicon):
    _, vocab = model_vocab
    constraint = LexiconConstraint(small_lexicon.trie, vocab.symbols, vocab.eos_id)
    hyps = beam_search(stepper, *batch, beam=4, constraint=constraint)[2]
    words = [vocab.decode(h.ids) for h in hyps]
    assert [w for w, _ in rerank(hyps, words, small_lexicon, 0.0)] == words
    ranked = rerank(hyps, words, small_lexicon, 1000.0)  # the prior dominates: most frequent first
    assert [w for w, _ in ranked] == sorted(words, key=lambda w: -small_lexicon.count(w))
    for word, h in ranked:
        original = hyps[words.index(word)]
        assert h.score == pytest.approx(original.score + 1000.0 * small_lexicon.log_prior(word))


def test_length_normalisation():
    assert length_normalised(-6.0, 3, 0.0) == -6.0
    assert length_normalised(-6.0, 3, 1.0) == -2.0
    assert math.isclose(length_normalised(-6.0, 4, 0.5), -3.0)


def test_forced_hypotheses_match_the_beams(stepper, batch):
    """A candidate scored from outside the beam gets the very score and attention the beam gave it."""
    src, src_len = batch
    beams = beam_search(stepper, src, src_len, beam=3, alpha=0.5)
    rows = [i for i, hyps in enumerate(beams) for _ in hyps]
    found = [h for hyps in beams for h in hyps]
    forced = forced_hypotheses(stepper, src[rows], src_len[rows], [h.ids for h in found], alpha=0.5)
    for beam_hyp, forced_hyp in zip(found, forced):
        assert forced_hyp.ids == beam_hyp.ids
        assert forced_hyp.score == pytest.approx(beam_hyp.score, abs=1e-4)
        assert np.allclose(forced_hyp.attn, beam_hyp.attn, atol=1e-5)


def test_trie_scoring_equals_scoring_each_output_alone(stepper, batch, model_vocab):
    """Outputs that share prefixes share decoder steps, and each still gets the score and attention it gets
    alone, from one encoding of its word."""
    _, vocab = model_vocab
    src, src_len = batch
    outputs = [[vocab.encode(w) for w in ("spelling", "spell", "spelt", "speling", "s")],
               [vocab.encode(w) for w in ("receive", "recieve", "relieve", "receive")], [],
               [vocab.encode("a"), []]]  # a repeated output, a word with none, the empty output (EOS at once)
    rows = [0, 1, 2, 3]
    shared = trie_hypotheses(stepper, take_rows(stepper.encode(src, src_len), rows), src_len[rows], outputs, 0.5)
    for row, (outs, hyps) in enumerate(zip(outputs, shared)):
        alone = forced_hypotheses(stepper, src[[row] * len(outs)], src_len[[row] * len(outs)], outs, 0.5) if outs else []
        assert [h.ids for h in hyps] == outs
        for got, want in zip(hyps, alone):
            assert got.score == pytest.approx(want.score, abs=1e-4)
            assert np.allclose(got.attn, want.attn, atol=1e-5)


def test_the_stop_bound_never_loses_the_best(model_vocab, stepper, batch):
    """With a floor (the best reranked score so far), beam search drops only hypotheses that cannot beat it:
    the best reranked result above the floor is the one the unpruned search finds."""
    _, vocab = model_vocab
    src, src_len = batch
    lexicon = Lexicon.from_tsv()
    constraint = LexiconConstraint(lexicon.trie, vocab.symbols, vocab.eos_id, lexicon, prior_weight=0.1)

    def best(hyps, typo):
        return max((channel_score(h.score, vocab.decode(h.ids), typo, lexicon, 0.1), vocab.decode(h.ids))
                   for h in hyps)

    full = beam_search(stepper, src, src_len, beam=6, alpha=1.0, constraint=constraint)
    # Floors just below each word's true best: the pruned search must still find it.
    floor = np.array([best(hyps, w)[0] - 0.05 for hyps, w in zip(full, WORDS)], dtype=np.float32)
    pruned = beam_search(stepper, src, src_len, beam=6, alpha=1.0, constraint=constraint, floor=floor)
    for word, got, want in zip(WORDS, pruned, full):
        assert best(got, word)[1] == best(want, word)[1], word
    # And the bound itself is an upper bound: no finished hypothesis scores above the bound of its first step.
    assert sum(len(h) for h in pruned) <= sum(len(h) for h in full)


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


def test_osa_distance():
    assert osa_distance("speling", "spelling") == 1
    assert osa_distance("recieve", "receive") == 1  # a transposition is one edit
    assert osa_distance("ca", "abc") == 3  # no substring edited twice
    assert osa_distance("", "abc") == 3 and osa_distance("same", "same") == 0
