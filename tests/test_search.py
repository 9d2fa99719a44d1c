"""Beam search (`typofix.engine.search`) on a real tiny model through the torch stepper: its stopping rules
against a plain one-word-at-a-time reference (greedy is its width-1 case), the lexicon constraint, the stop
bound, batching."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import TYPOS
from typofix.engine.ranking import channel_score
from typofix.engine.scoring import length_normalised, stack_attention
from typofix.engine.search import LexiconConstraint, beam_search
from typofix.words.lexicon import Lexicon
from typofix.words.text import max_output_length


@pytest.fixture(scope="module")
def small_lexicon():
    return Lexicon({"spelling": 50, "spell": 40, "receive": 30, "the": 100, "tea": 5, "a": 90, "weird": 7})


def one_word_search(stepper, src, length, beam, alpha, constraint=None, max_len=None):
    """The search's rules written out for one word and one hypothesis at a time, as the docstring of
    `beam_search` states them: of the `2 * beam` best continuations, an EOS among the first `beam` finishes
    a hypothesis and the `beam` best others go on; stop when none is left, or when `beam` are finished and the
    best live one, ended at the next step, would not rank among them; at `max_len` the live ones are kept.
    Returns (ids, log_prob) pairs, best first."""
    max_len = max_len or max_output_length(np.array([length]))
    memory, state = stepper.encode(src[None, :length], np.array([length]))
    live = [([], np.float32(0.0), state, 0)]  # (ids, raw log P, decoder state, trie node)
    finished = []  # (score, ids, log_prob)
    for t in range(1, max_len + 1):
        options = []  # (raw log P, order, hypothesis, id, state after it)
        for slot, (ids, total, st, node) in enumerate(live):
            y = np.array([ids[-1] if ids else stepper.sos_id])
            log_probs, after, _ = stepper.step(y, st, memory)
            log_probs = log_probs[0]
            log_probs[[stepper.pad_id, stepper.sos_id]] = -np.inf
            if constraint is not None:
                log_probs[~constraint.allowed([node])[0]] = -np.inf
            for v in range(len(log_probs)):
                options.append((np.float32(total + log_probs[v]), slot * len(log_probs) + v, slot, v, after))
        options.sort(key=lambda o: (-o[0], o[1]))
        alive = []
        for rank, (total, _, slot, v, after) in enumerate(options[:2 * beam]):
            if total == -np.inf:
                continue
            ids, node = live[slot][0], live[slot][3]
            if v == stepper.eos_id:
                if rank < beam:
                    finished.append((length_normalised(float(total), t, alpha), ids, float(total)))
            elif len(alive) < beam:
                next_node = constraint.advance([node], [v])[0] if constraint is not None else 0
                alive.append((ids + [v], total, after, next_node))
        if not alive:
            break
        if len(finished) >= beam:
            kth = sorted((f[0] for f in finished), reverse=True)[beam - 1]
            if length_normalised(float(alive[0][1]), t + 1, alpha) <= kth:
                break
        if t == max_len:
            if not finished:
                finished += [(length_normalised(float(total), t, alpha), ids, float(total))
                             for ids, total, _, _ in alive]
            break
        live = alive
    return [(ids, log_prob) for _, ids, log_prob in sorted(finished, key=lambda f: -f[0])[:beam]]


@pytest.mark.parametrize("beam", [1, 2, 3])
@pytest.mark.parametrize("constrained", [False, True])
def test_the_search_follows_its_rules_word_by_word(tiny_model, tiny_stepper, tiny_batch, small_lexicon, beam,
                                                   constrained):
    """Greedy (width 1) and wider beams are one loop with one set of stopping rules: batched, each step's
    choices made for all words at once, it finds what the rules find one word and one hypothesis at a time."""
    _, vocab = tiny_model
    src, src_len = tiny_batch
    constraint = LexiconConstraint(small_lexicon.trie, vocab.symbols, vocab.eos_id) if constrained else None
    for max_len in (None, 3):  # 3: some words run out of steps
        found = beam_search(tiny_stepper, src, src_len, beam=beam, alpha=0.7, constraint=constraint, max_len=max_len)
        for row, (hyps, length) in enumerate(zip(found, src_len.tolist())):
            want = one_word_search(tiny_stepper, src[row], length, beam, 0.7, constraint, max_len)
            assert [h.ids for h in hyps] == [ids for ids, _ in want], TYPOS[row]
            assert [h.log_prob for h in hyps] == pytest.approx([lp for _, lp in want], abs=1e-4)


def test_constrained_beam_writes_only_lexicon_words(tiny_model, tiny_stepper, tiny_batch, small_lexicon):
    _, vocab = tiny_model
    constraint = LexiconConstraint(small_lexicon.trie, vocab.symbols, vocab.eos_id)
    beams = beam_search(tiny_stepper, *tiny_batch, beam=4, constraint=constraint)
    assert all(beams)
    for hyps in beams:
        words = [vocab.decode(h.ids) for h in hyps]
        assert set(words) <= set(small_lexicon.counts)
        assert len(set(words)) == len(words)  # distinct paths, distinct words


def test_beam_scores_sorted_and_attention_shaped(tiny_stepper, tiny_batch):
    src, src_len = tiny_batch
    beams = beam_search(tiny_stepper, src, src_len, beam=5, n_best=3, alpha=0.7)
    for hyps, length in zip(beams, src_len.tolist()):
        assert 1 <= len(hyps) <= 3
        scores = [h.score for h in hyps]
        assert scores == sorted(scores, reverse=True)
        for h in hyps:
            assert h.score == pytest.approx(length_normalised(h.log_prob, len(h.ids) + 1, 0.7))
            assert h.attn.shape == (len(h.ids) + 1, length)  # (T, S): every output step incl. EOS
            assert np.allclose(h.attn.sum(-1), np.ones(len(h.ids) + 1), atol=1e-5)
    attn = stack_attention([hyps[0] for hyps in beams])  # (B, T, S), zero-padded
    assert attn.shape == (len(TYPOS), max(len(b[0].ids) + 1 for b in beams), src.shape[1])
    assert np.array_equal(attn[0, :len(beams[0][0].ids) + 1, :src_len[0]], beams[0][0].attn)


@pytest.mark.parametrize("beam", [1, 3])
def test_batching_does_not_change_results(tiny_model, tiny_stepper, tiny_batch, small_lexicon, beam):
    """Padding, and words leaving the tiny_batch early, must not change any word's hypotheses."""
    _, vocab = tiny_model
    src, src_len = tiny_batch
    constraint = LexiconConstraint(small_lexicon.trie, vocab.symbols, vocab.eos_id)
    together = beam_search(tiny_stepper, src, src_len, beam=beam, constraint=constraint)
    for i in range(len(TYPOS)):
        alone = beam_search(tiny_stepper, src[i:i + 1, :src_len[i]], src_len[i:i + 1], beam=beam,
                            constraint=constraint)[0]
        assert [h.ids for h in alone] == [h.ids for h in together[i]]
        assert [h.log_prob for h in alone] == pytest.approx([h.log_prob for h in together[i]], abs=1e-4)


def test_an_encoding_given_is_the_encoding_used(tiny_stepper, tiny_batch):
    src, src_len = tiny_batch
    fresh = beam_search(tiny_stepper, src, src_len, beam=2)
    given = beam_search(tiny_stepper, None, src_len, beam=2, encoded=tiny_stepper.encode(src, src_len))
    assert [[h.ids for h in hyps] for hyps in given] == [[h.ids for h in hyps] for hyps in fresh]


def test_constraint_masks_follow_the_trie(tiny_model, small_lexicon):
    _, vocab = tiny_model
    constraint = LexiconConstraint(small_lexicon.trie, vocab.symbols, vocab.eos_id)
    trie = small_lexicon.trie
    spell, spel = trie.walk("spell"), trie.walk("spel")
    allowed = constraint.allowed([0, spel, spell])  # (3, V)
    ids = lambda chars: {vocab.encode(c)[0] for c in chars}  # noqa: E731
    assert set(np.flatnonzero(allowed[0]).tolist()) == ids("srtaw")
    assert set(np.flatnonzero(allowed[1]).tolist()) == ids("l")  # no EOS: "spel" is no word
    assert set(np.flatnonzero(allowed[2]).tolist()) == ids("i") | {vocab.eos_id}
    assert constraint.advance([spel], vocab.encode("l")) == [spell]


@pytest.mark.parametrize("beam", [1, 6])
def test_the_stop_bound_never_loses_the_best(tiny_model, tiny_stepper, tiny_batch, beam):
    """With a floor (the best reranked score so far), beam search drops only hypotheses that cannot beat it:
    the best reranked result above the floor is the one the unpruned search finds."""
    _, vocab = tiny_model
    src, src_len = tiny_batch
    lexicon = Lexicon.from_tsv()
    constraint = LexiconConstraint(lexicon.trie, vocab.symbols, vocab.eos_id, lexicon, prior_weight=0.1)

    def best(hyps, typo):
        return max((channel_score(h.score, vocab.decode(h.ids), typo, lexicon, 0.1), vocab.decode(h.ids))
                   for h in hyps)

    full = beam_search(tiny_stepper, src, src_len, beam=beam, alpha=1.0, constraint=constraint)
    # Floors just below each word's true best: the pruned search must still find it.
    floor = np.array([best(hyps, w)[0] - 0.05 for hyps, w in zip(full, TYPOS)], dtype=np.float32)
    pruned = beam_search(tiny_stepper, src, src_len, beam=beam, alpha=1.0, constraint=constraint, floor=floor)
    for word, got, want in zip(TYPOS, pruned, full):
        assert best(got, word)[1] == best(want, word)[1], word
    assert sum(len(h) for h in pruned) <= sum(len(h) for h in full)
    with pytest.raises(ValueError, match="a floor needs a lexicon constraint"):
        beam_search(tiny_stepper, src, src_len, beam=beam, floor=floor)
