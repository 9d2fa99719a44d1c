"""Decoding: turn encoder states into words. Every decoder here calls `Decoder.step`, the same step training uses."""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch

from typofix.lexicon import Lexicon, PrefixTrie
from typofix.model import Seq2Seq
from typofix.typos import osa_distance


@dataclass
class Greedy:
    """Batched greedy output: ids (B, T) ending at EOS then padding, summed log-probabilities (B,), and the
    attention weights (B, T, S) or None for a model without attention."""

    ids: torch.Tensor
    log_probs: torch.Tensor
    attn: torch.Tensor | None


def max_output_length(src_len: torch.Tensor) -> int:
    """A correction is rarely much longer than its typo: allow the longest source plus a margin."""
    return int(src_len.max()) + 8


@torch.no_grad()
def greedy(model: Seq2Seq, src: torch.Tensor, src_len: torch.Tensor, max_len: int | None = None) -> Greedy:
    """Pick the most likely character at every step, for the whole batch at once, until every row ends."""
    max_len = max_len or max_output_length(src_len)
    enc_out, keys, src_mask, state = model.encode(src, src_len)
    batch = src.size(0)
    y = torch.full((batch,), model.sos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(batch, dtype=torch.bool, device=src.device)
    total = torch.zeros(batch, device=src.device)
    ids, weights = [], []
    for _ in range(max_len):
        logits, state, step_weights = model.decoder.step(y, state, keys, enc_out, src_mask)
        log_probs = torch.log_softmax(logits.float(), dim=-1)  # (B, V)
        best, y = log_probs.max(dim=-1)  # (B,), (B,)
        total = total + best.masked_fill(done, 0.0)
        y = y.masked_fill(done, model.pad_id)
        ids.append(y)
        weights.append(step_weights)
        done = done | (y == model.eos_id)
        if bool(done.all()):
            break
    attn = None if weights[0] is None else torch.stack(weights, dim=1)  # (B, T, S)
    return Greedy(torch.stack(ids, dim=1), total, attn)  # ids (B, T)


# --- beam search --------------------------------------------------------------------------------------------


@dataclass
class Hypothesis:
    """One finished output of beam search: ids without EOS, log P_model(output | input) with EOS included,
    the score the outputs of one word are ranked by, and the attention weights (T, S) of its T = len(ids) + 1
    steps over the word's S real source characters (None for a model without attention)."""

    ids: list[int]
    log_prob: float
    score: float
    attn: torch.Tensor | None = None


def stack_attention(hyps: list[Hypothesis]) -> torch.Tensor:
    """The attention of one hypothesis per word (e.g. each word's best) as one zero-padded batch (B, T, S)."""
    steps = max(h.attn.size(0) for h in hyps)
    chars = max(h.attn.size(1) for h in hyps)
    batch = hyps[0].attn.new_zeros(len(hyps), steps, chars)  # (B, T, S)
    for row, h in enumerate(hyps):
        batch[row, :h.attn.size(0), :h.attn.size(1)] = h.attn
    return batch


def length_normalised(log_prob: float, length: int, alpha: float) -> float:
    """log P / length ** alpha: alpha 0 ranks by the raw sum (favouring short outputs), 1 by the mean per step."""
    return log_prob / length ** alpha


class LexiconConstraint:
    """Keeps a decoder on the prefix trie of a word list: after a prefix, only characters that continue some
    word are allowed, and EOS only where a word ends.

    A hypothesis carries its trie node (an int). The allowed-id mask of a node is built the first time a
    decode visits it and cached as a row of one table, so a step gathers all its masks with one index."""

    def __init__(self, trie: PrefixTrie, symbols: list[str], eos_id: int):
        self.trie, self.symbols, self.eos_id = trie, symbols, eos_id
        self._char_ids = {s: i for i, s in enumerate(symbols)}
        self._row_of: dict[int, int] = {}
        self._masks = torch.zeros(1024, len(symbols), dtype=torch.bool)  # grows by doubling

    def _row(self, node: int) -> int:
        row = self._row_of.get(node)
        if row is None:
            row = len(self._row_of)
            if row == self._masks.size(0):
                self._masks = torch.cat([self._masks, torch.zeros_like(self._masks)])
            # Characters the vocabulary cannot write (none with the default alphabet) are simply unreachable.
            ids = [self._char_ids[c] for c in self.trie.children[node] if c in self._char_ids]
            if self.trie.is_word[node]:
                ids.append(self.eos_id)
            self._masks[row, ids] = True
            self._row_of[node] = row
        return row

    def allowed(self, nodes: list[int]) -> torch.Tensor:
        """(N, V) bool: which ids may follow each of the N hypotheses' prefixes."""
        rows = [self._row(n) for n in nodes]  # first: a new row may grow (replace) the table
        return self._masks[rows]

    def advance(self, nodes: list[int], ids: list[int]) -> list[int]:
        """The node after writing `ids[i]` at `nodes[i]` (never EOS: a finished hypothesis leaves the beam)."""
        return [self.trie.children[n][self.symbols[i]] for n, i in zip(nodes, ids)]


def _expand(tensor: torch.Tensor, words: torch.Tensor, beam: int) -> torch.Tensor:
    """Rows of `words`, each repeated `beam` times: (B, ...) -> (len(words) * beam, ...)."""
    return tensor[words].repeat_interleave(beam, dim=0)


@torch.no_grad()
def beam_search(model: Seq2Seq, src: torch.Tensor, src_len: torch.Tensor, beam: int = 5, n_best: int | None = None,
                alpha: float = 1.0, constraint: LexiconConstraint | None = None,
                max_len: int | None = None) -> list[list[Hypothesis]]:
    """Batched beam search: the `beam` best hypotheses of every word advance together, words x beams in one
    `decoder.step` per output character. Returns up to `n_best` (default `beam`) finished hypotheses per word,
    best first by length-normalised log-probability (`alpha`, see `length_normalised`).

    Finishing follows fairseq: an EOS among a word's `beam` best candidates finishes that hypothesis and the
    best `beam` others go on. A word stops when nothing is left to extend, or when it has `beam` finished
    hypotheses and its best live one, ended at the next step, would not rank among them (`_promising`): under
    a lexicon, short words ("begin") finish early, and stopping at the first `beam` of them would lose the
    longer word ("beginning") still on its way. The words still decoding shrink the batch as the others stop.
    With `beam=1` and `alpha=0` this is greedy decoding.
    """
    n_best = n_best or beam
    max_len = max_len or max_output_length(src_len)
    enc_out_w, keys_w, mask_w, (h, c) = model.encode(src, src_len)  # per word: (B, S, 2H), (B, S, A), (B, S)
    lengths = src_len.tolist()
    active = torch.arange(src.size(0), device=src.device)  # the words still decoding, in row-group order
    enc_out, keys, src_mask = (_expand(x, active, beam) for x in (enc_out_w, keys_w, mask_w))  # (N, ...), N = B * beam
    state = (_expand(h, active, beam), _expand(c, active, beam))  # 2 x (N, D)
    # Every beam of a word starts identical, so only the first may be extended at step one.
    scores = torch.full((src.size(0), beam), float("-inf"), device=src.device)
    scores[:, 0] = 0.0  # (A, beam)
    y = torch.full((len(enc_out),), model.sos_id, dtype=torch.long, device=src.device)
    nodes = [0] * len(y)
    history = torch.zeros(len(y), 0, dtype=torch.long, device=src.device)  # (N, t) ids written so far
    attn_history: torch.Tensor | None = None  # (N, t, S)
    finished: list[list[Hypothesis]] = [[] for _ in lengths]
    banned = [model.pad_id, model.sos_id]  # never written by a decoder; UNK stays possible only unconstrained

    for t in range(1, max_len + 1):
        logits, state, weights = model.decoder.step(y, state, keys, enc_out, src_mask)
        log_probs = torch.log_softmax(logits.float(), dim=-1)  # (N, V)
        log_probs[:, banned] = float("-inf")
        if constraint is not None:
            log_probs = log_probs.masked_fill(~constraint.allowed(nodes), float("-inf"))
        if weights is not None:
            step_attn = weights.unsqueeze(1)  # (N, 1, S)
            attn_history = step_attn if attn_history is None else torch.cat([attn_history, step_attn], dim=1)
        vocab = log_probs.size(-1)
        totals = (scores.reshape(-1, 1) + log_probs).reshape(len(active), beam * vocab)  # (N, V) -> (A, beam * V)
        top, index = totals.topk(min(2 * beam, beam * vocab), dim=1)  # (A, 2 * beam)
        parents = (index // vocab + torch.arange(len(active), device=src.device).unsqueeze(1) * beam).tolist()
        tokens, top = (index % vocab).tolist(), top.tolist()

        rows, next_ids, next_scores, still = [], [], [], []
        for a, word in enumerate(active.tolist()):
            alive = []
            for rank, (score, parent, token) in enumerate(zip(top[a], parents[a], tokens[a])):
                if score == float("-inf"):
                    break
                if token == model.eos_id:
                    if rank < beam:
                        finished[word].append(_finish(history, attn_history, parent, score, t, alpha, lengths[word]))
                elif len(alive) < beam:
                    alive.append((parent, token, score))
            if not alive or not _promising(finished[word], alive[0][2], t + 1, beam, alpha):
                continue
            # A word with fewer than `beam` live candidates fills its rows with dead copies (score -inf).
            alive += [(alive[0][0], alive[0][1], float("-inf"))] * (beam - len(alive))
            still.append(word)
            for parent, token, score in alive:
                rows.append(parent)
                next_ids.append(token)
                next_scores.append(score)
        if not still:
            break
        if t == max_len:  # out of steps: a word with nothing finished keeps its live hypotheses as they are
            _finish_unended(finished, still, beam, history, attn_history, rows, next_ids, next_scores, alpha, lengths)
            break

        rows_t = torch.tensor(rows, device=src.device)
        if len(still) != len(active):
            active = torch.tensor(still, device=src.device)
            enc_out, keys, src_mask = (_expand(x, active, beam) for x in (enc_out_w, keys_w, mask_w))
        y = torch.tensor(next_ids, device=src.device)
        state = (state[0][rows_t], state[1][rows_t])
        history = torch.cat([history[rows_t], y.unsqueeze(1)], dim=1)  # (N', t)
        attn_history = None if attn_history is None else attn_history[rows_t]
        scores = torch.tensor(next_scores, device=src.device).reshape(len(still), beam)  # (A', beam)
        if constraint is not None:
            nodes = constraint.advance([nodes[r] for r in rows], next_ids)

    return [sorted(hyps, key=lambda h: -h.score)[:n_best] for hyps in finished]


def _promising(finished: list[Hypothesis], best_live: float, length: int, beam: int, alpha: float) -> bool:
    """Whether a word should keep decoding: fewer than `beam` finished hypotheses, or its best live score
    `best_live` (raw), normalised as if it ended at `length`, beats the `beam`-th best finished one. Exact for
    alpha 0 (raw scores only fall); for alpha > 0 a heuristic, since a longer ending could still rise."""
    if len(finished) < beam:
        return True
    kth = sorted((h.score for h in finished), reverse=True)[beam - 1]
    return length_normalised(best_live, length, alpha) > kth


def _finish(history, attn_history, row: int, log_prob: float, length: int, alpha: float,
            src_len: int) -> Hypothesis:
    """The finished hypothesis of beam row `row` (its EOS just written as output number `length`)."""
    attn = None if attn_history is None else attn_history[row, :, :src_len].clone()  # (T, S)
    return Hypothesis(history[row].tolist(), log_prob, length_normalised(log_prob, length, alpha), attn)


def _finish_unended(finished, words, beam, history, attn_history, rows, ids, scores, alpha, lengths) -> None:
    """At the length limit, give each word of `words` that has no finished hypothesis its live ones (no EOS)."""
    for a, word in enumerate(words):
        if finished[word]:
            continue
        for i in range(a * beam, (a + 1) * beam):
            if scores[i] == float("-inf"):
                continue
            hyp = _finish(history, attn_history, rows[i], scores[i], history.size(1) + 1, alpha, lengths[word])
            hyp.ids.append(ids[i])
            finished[word].append(hyp)


# --- scoring given outputs and reranking ----------------------------------------------------------------------


@torch.no_grad()
def score_outputs(model: Seq2Seq, src: torch.Tensor, src_len: torch.Tensor, outputs: list[list[int]]) -> list[float]:
    """log P_model(output | input) of given outputs (ids without EOS), one per row, EOS included: how the
    model rates a candidate it did not have to find itself (the input word, a lexicon neighbour)."""
    return output_log_probs(model, src, src_len, outputs).sum(dim=1).tolist()


@torch.no_grad()
def output_log_probs(model: Seq2Seq, src: torch.Tensor, src_len: torch.Tensor,
                     outputs: list[list[int]]) -> torch.Tensor:
    """Per step: log P_model(output_t | output_<t, input) of given outputs (ids without EOS), (B, T) with the
    EOS step last and 0 past each row's end. With the input itself as the output, step t says how much the
    model believes input character t (typo localization)."""
    return _forced(model, src, src_len, outputs)[0]


@torch.no_grad()
def forced_hypotheses(model: Seq2Seq, src: torch.Tensor, src_len: torch.Tensor, outputs: list[list[int]],
                      alpha: float = 1.0) -> list[Hypothesis]:
    """Given outputs (ids without EOS) as hypotheses, one per row, scored and with attention exactly as beam
    search would have found them: candidates from elsewhere (lexicon neighbours) join a beam's on equal terms."""
    log_probs, attn = _forced(model, src, src_len, outputs)  # (B, T), (B, T, S) or None
    totals, lengths = log_probs.sum(dim=1).tolist(), src_len.tolist()
    return [Hypothesis(list(ids), total, length_normalised(total, len(ids) + 1, alpha),
                       None if attn is None else attn[row, :len(ids) + 1, :lengths[row]].clone())
            for row, (ids, total) in enumerate(zip(outputs, totals))]


def _forced(model: Seq2Seq, src, src_len, outputs: list[list[int]]):
    """Teacher-forced pass over given outputs: per-step log-probabilities (B, T), 0 past each row's EOS, and
    the attention weights (B, T, S) or None."""
    width = max(len(ids) for ids in outputs) + 1
    tgt_in = torch.full((len(outputs), width), model.pad_id, dtype=torch.long, device=src.device)  # (B, T)
    tgt_out = torch.full_like(tgt_in, model.pad_id)  # (B, T)
    for row, ids in enumerate(outputs):
        tgt_in[row, :len(ids) + 1] = torch.tensor([model.sos_id, *ids])
        tgt_out[row, :len(ids) + 1] = torch.tensor([*ids, model.eos_id])
    logits, attn = model(src, src_len, tgt_in)  # (B, T, V), (B, T, S)
    log_probs = torch.log_softmax(logits.float(), dim=-1).gather(-1, tgt_out.unsqueeze(-1)).squeeze(-1)  # (B, T)
    return log_probs.masked_fill(tgt_out == model.pad_id, 0.0), attn


def rerank(hyps: list[Hypothesis], words: list[str], lexicon: Lexicon, weight: float, typo: str = "",
           edit_weight: float = 0.0) -> list[tuple[str, Hypothesis]]:
    """The noisy channel: rank one input's candidates by

        score + weight * log P_prior(word) - edit_weight * edits(typo, word)

    where `score` is the (length-normalised) log P_model(word | typo), the prior the lexicon's unigram
    frequency, and `edits` the optimal-string-alignment distance: a second, plain channel term that keeps the
    model from preferring a frequent word several edits away to the word one edit away (off at 0)."""
    def channel(h: Hypothesis, w: str) -> float:
        return h.score + weight * lexicon.log_prior(w) - (edit_weight * osa_distance(typo, w) if edit_weight else 0.0)

    rescored = [(w, replace(h, score=channel(h, w))) for h, w in zip(hyps, words)]
    return sorted(rescored, key=lambda pair: -pair[1].score)
