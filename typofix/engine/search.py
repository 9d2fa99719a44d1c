"""Search over a model's outputs, in numpy: batched beam search (optionally kept on a lexicon's prefix trie),
scoring given outputs, and noisy-channel reranking.

Torch-free: the model is reached only through a `Stepper` (two implementations: `torch_stepper.TorchStepper`
around `Seq2Seq`, `onnx_model.OnnxStepper` around the ONNX export of the same model), so the correction path
can run on onnxruntime without importing torch, and both runtimes share this one search.
Shapes: B words, S source length, N = B x beam decoder rows, V vocabulary, T output steps.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from typofix.words.indexcache import cached
from typofix.words.lexicon import Lexicon, PrefixTrie
from typofix.words.text import max_output_length
from typofix.words.distance import osa_distance

Arrays = tuple[np.ndarray, ...]


class Stepper(Protocol):
    """A trained encoder-decoder seen one decoder step at a time (what `Decoder.step` is to `Seq2Seq`).

    `encode(src (B, S) int64, src_len (B,) int64) -> (memory, state)`: `memory` the arrays the decoder reads
    but never changes (batch first: enc_out, attention keys, src_mask), `state` the decoder's arrays (h, c)
    (B, D). `step(y (N,) int64, state, memory) -> (log_probs (N, V) float32, state, attn (N, S) or None)`,
    where every array of `state` and `memory` has N rows: the search picks and repeats rows freely."""

    pad_id: int
    sos_id: int
    eos_id: int

    def encode(self, src: np.ndarray, src_len: np.ndarray) -> tuple[Arrays, Arrays]: ...

    def step(self, y: np.ndarray, state: Arrays, memory: Arrays) -> tuple[np.ndarray, Arrays, np.ndarray | None]: ...


@dataclass
class Hypothesis:
    """One finished output of beam search: ids without EOS, log P_model(output | input) with EOS included,
    the score the outputs of one word are ranked by, and the attention weights (T, S) of its T = len(ids) + 1
    steps over the word's S real source characters (None for a model without attention)."""

    ids: list[int]
    log_prob: float
    score: float
    attn: np.ndarray | None = None


def stack_attention(hyps: list[Hypothesis]) -> np.ndarray:
    """The attention of one hypothesis per word (e.g. each word's best) as one zero-padded batch (B, T, S)."""
    steps = max(h.attn.shape[0] for h in hyps)
    chars = max(h.attn.shape[1] for h in hyps)
    batch = np.zeros((len(hyps), steps, chars), dtype=hyps[0].attn.dtype)  # (B, T, S)
    for row, h in enumerate(hyps):
        batch[row, :h.attn.shape[0], :h.attn.shape[1]] = h.attn
    return batch


def length_normalised(log_prob: float, length: int, alpha: float) -> float:
    """log P / length ** alpha: alpha 0 ranks by the raw sum (favouring short outputs), 1 by the mean per step."""
    return log_prob / length ** alpha


class LexiconConstraint:
    """Keeps a decoder on the prefix trie of a word list: after a prefix, only characters that continue some
    word are allowed, and EOS only where a word ends.

    A hypothesis carries its trie node (an int). The allowed-id mask of a node is built the first time a
    decode visits it and cached as a row of one table, so a step gathers all its masks with one index."""

    def __init__(self, trie: PrefixTrie, symbols: list[str], eos_id: int, lexicon: Lexicon | None = None,
                 prior_weight: float = 0.0):
        self.trie, self.symbols, self.eos_id = trie, symbols, eos_id
        self.lexicon, self.prior_weight = lexicon, prior_weight  # for `bound`: the prior of the words below a node
        self._max_steps: np.ndarray | None = None  # (nodes,) see `_subtree_tables`
        self._best_prior: np.ndarray | None = None
        self._char_ids = {s: i for i, s in enumerate(symbols)}
        # The code point each id writes (specials, which are not single characters, never reach `advance`).
        self._code_points = np.array([ord(s) if len(s) == 1 else -1 for s in symbols], dtype=np.int64)
        self._row_of = np.full(len(trie), -1, dtype=np.int64)  # node -> its row of `_masks`, -1: not built yet
        self._rows_built = 0
        self._masks = np.zeros((1024, len(symbols)), dtype=bool)  # grows by doubling

    def _build_row(self, node: int) -> None:
        row = self._rows_built
        if row == len(self._masks):
            self._masks = np.concatenate([self._masks, np.zeros_like(self._masks)])
        # Characters the vocabulary cannot write (none with the default alphabet) are simply unreachable.
        ids = [self._char_ids[c] for c in self.trie.children(node) if c in self._char_ids]
        if self.trie.is_word[node]:
            ids.append(self.eos_id)
        self._masks[row, ids] = True
        self._row_of[node] = row
        self._rows_built += 1

    def allowed(self, nodes: list[int]) -> np.ndarray:
        """(N, V) bool: which ids may follow each of the N hypotheses' prefixes."""
        nodes = np.asarray(nodes, dtype=np.int64)
        rows = self._row_of[nodes]
        for node in sorted(set(nodes[rows < 0].tolist())):  # first: a new row may grow (replace) the table
            self._build_row(node)
        return self._masks[self._row_of[nodes]]

    def bound(self, nodes: np.ndarray, ids: np.ndarray, raw: np.ndarray, alpha: float) -> np.ndarray:
        """An upper bound on the final reranked score of writing `ids` at `nodes` with raw log-probability
        `raw` so far (all (A, K)): log-probabilities only fall, the length normalisation divides by at most the
        longest word below the node (plus EOS), the prior is at most the best of those words', and the edit
        and first-letter terms only subtract. A hypothesis whose bound is below the score to beat is dead."""
        if self._max_steps is None:
            self._max_steps, self._best_prior = self._subtree_tables()
        code_points = self._code_points[np.clip(ids, 0, len(self._code_points) - 1)]
        child = self.trie.child(nodes.ravel(), code_points.ravel()).reshape(nodes.shape)  # -1: no such word
        steps = self._max_steps[np.maximum(child, 0)]
        with np.errstate(divide="ignore", invalid="ignore"):
            best = raw / steps.astype(np.float32) ** alpha + self._best_prior[np.maximum(child, 0)]
        return np.where(child >= 0, best, -np.inf)

    def _subtree_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """Per trie node: the most decoder steps of any word through it and the weighted log prior of the most
        frequent of those words (`SubtreeBounds`, from the index cache when the lexicon has one)."""
        if self.lexicon is None:
            bounds = SubtreeBounds.build(self.trie, None)
        else:
            lexicon, trie = self.lexicon, self.trie
            bounds = cached("subtree", lexicon.digest, lambda: SubtreeBounds.build(trie, lexicon),
                            SubtreeBounds.from_arrays)
        return bounds.steps, (self.prior_weight * bounds.log_prior).astype(np.float32)

    def advance(self, nodes: list[int], ids: list[int]) -> list[int]:
        """The node after writing `ids[i]` at `nodes[i]` (never EOS: a finished hypothesis leaves the beam)."""
        return self.trie.child(np.array(nodes), self._code_points[np.asarray(ids, dtype=np.int64)]).tolist()


class SubtreeBounds:
    """Per trie node, over the words below it (itself included): `steps`, the most decoder steps any of them
    takes (its length + EOS), and `log_prior`, the best `Lexicon.log_prior` (0 without a lexicon). Node ids
    grow as the sorted words go in, so a parent's id is smaller than its children's."""

    def __init__(self, steps: np.ndarray, log_prior: np.ndarray):
        self.steps, self.log_prior = steps, log_prior  # (nodes,) int64, float64

    @classmethod
    def from_arrays(cls, arrays) -> "SubtreeBounds":
        return cls(arrays["steps"], arrays["log_prior"])

    def arrays(self) -> dict[str, np.ndarray]:
        return {"steps": self.steps, "log_prior": self.log_prior}

    @classmethod
    def build(cls, trie: PrefixTrie, lexicon: Lexicon | None) -> "SubtreeBounds":
        ends = np.flatnonzero(trie.is_word)  # word ends in sorted-word order
        depth = np.zeros(len(trie), dtype=np.int64)
        for _ in range(int(max(map(len, lexicon.counts))) if lexicon is not None else 64):
            depth[1:] = depth[trie.parent[1:]] + 1  # one more level right per pass (a parent's id is smaller)
        steps = np.full(len(trie), -1, dtype=np.int64)
        steps[ends] = depth[ends] + 1
        prior = np.full(len(trie), -np.inf)
        if lexicon is not None:
            counts = lexicon.counts
            words = sorted(counts)
            prior[ends] = np.log((np.array([counts[w] for w in words], dtype=np.float64) + 1)
                                 / (lexicon.total + len(counts)))  # `Lexicon.log_prior` of every word at once
        else:
            prior[ends] = 0.0
        for level in range(int(depth.max()), 0, -1):  # children before parents: a subtree's best reaches its root
            at = np.flatnonzero(depth == level)
            np.maximum.at(steps, trie.parent[at], steps[at])
            np.maximum.at(prior, trie.parent[at], prior[at])
        return cls(steps, prior)


def _expand(arrays: Arrays, words: np.ndarray, beam: int) -> Arrays:
    """Rows of `words` of every array, each repeated `beam` times: (B, ...) -> (len(words) * beam, ...)."""
    return tuple(np.repeat(a[words], beam, axis=0) for a in arrays)


def _top(totals: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k largest entries of every row, largest first, ties by lower index: values and indices (A, k)."""
    index = np.argpartition(-totals, k - 1, axis=1)[:, :k]  # (A, k), unordered
    values = np.take_along_axis(totals, index, axis=1)
    order = np.lexsort((index, -values), axis=1)  # by value, then by index: the same order on every run
    return np.take_along_axis(values, order, axis=1), np.take_along_axis(index, order, axis=1)


def beam_search(stepper: Stepper, src: np.ndarray | None, src_len: np.ndarray, beam: int = 5,
                n_best: int | None = None, alpha: float = 1.0, constraint: LexiconConstraint | None = None,
                max_len: int | None = None, encoded: tuple[Arrays, Arrays] | None = None,
                floor: np.ndarray | None = None) -> list[list[Hypothesis]]:
    """Batched beam search: the `beam` best hypotheses of every word advance together, words x beams in one
    `stepper.step` per output character. Returns up to `n_best` (default `beam`) finished hypotheses per word,
    best first by length-normalised log-probability (`alpha`, see `length_normalised`).

    Finishing follows fairseq: an EOS among a word's `beam` best candidates finishes that hypothesis and the
    best `beam` others go on. A word stops when nothing is left to extend, or when it has `beam` finished
    hypotheses and its best live one, ended at the next step, would not rank among them (`_promising`): under
    a lexicon, short words ("begin") finish early, and stopping at the first `beam` of them would lose the
    longer word ("beginning") still on its way. The words still decoding shrink the batch as the others stop.
    With `beam=1` and `alpha=0` this is greedy decoding.

    `encoded`: the words' `stepper.encode` output when the caller has it already (then `src` may be None): a
    typo is encoded once for all the searches and scorings of it. `floor` (B,), with a constraint: per word, a
    score its result must beat to matter (the caller's best candidate so far, reranked). A live hypothesis
    whose best possible final score (`LexiconConstraint.bound`) cannot reach its word's floor is dropped, and
    a word stops as soon as none is left: the search ends when no live hypothesis can still win.
    """
    n_best = n_best or beam
    max_len = max_len or max_output_length(src_len)
    memory_w, state_w = encoded if encoded is not None else stepper.encode(src, src_len)  # (B, S, ...), 2 x (B, D)
    if floor is not None and constraint is None:
        raise ValueError("a floor needs a lexicon constraint (its bound reads the trie)")
    if beam == 1 and floor is None:
        return _greedy_search(stepper, src_len, memory_w, state_w, constraint, max_len, alpha, n_best)
    lengths = [int(n) for n in src_len]
    active = np.arange(len(lengths))  # the words still decoding, in row-group order
    memory, state = _expand(memory_w, active, beam), _expand(state_w, active, beam)  # N = B * beam rows
    # Every beam of a word starts identical, so only the first may be extended at step one.
    scores = np.full((len(lengths), beam), -np.inf, dtype=np.float32)
    scores[:, 0] = 0.0  # (A, beam)
    y = np.full(len(active) * beam, stepper.sos_id, dtype=np.int64)  # (N,)
    nodes = [0] * len(y)
    history = np.zeros((len(y), 0), dtype=np.int64)  # (N, t) ids written so far
    attn_history: np.ndarray | None = None  # (N, t, S)
    finished: list[list[Hypothesis]] = [[] for _ in lengths]
    banned = [stepper.pad_id, stepper.sos_id]  # never written by a decoder; UNK stays possible only unconstrained

    for t in range(1, max_len + 1):
        log_probs, state, attn_history = _decoder_step(stepper, y, state, memory, banned, constraint, nodes,
                                                       attn_history)  # (N, V)
        vocab = log_probs.shape[-1]
        totals = (scores.reshape(-1, 1) + log_probs).reshape(len(active), beam * vocab)  # (N, V) -> (A, beam * V)
        top, index = _top(totals, min(2 * beam, beam * vocab))  # (A, 2 * beam)
        parents = index // vocab + np.arange(len(active))[:, None] * beam  # (A, 2 * beam)
        tokens = index % vocab
        if floor is not None:  # hopeless continuations (never EOS: a finished one is judged by the caller)
            bound = constraint.bound(np.array(nodes)[parents], tokens, top, alpha)  # (A, 2 * beam)
            top = np.where((tokens == stepper.eos_id) | (bound > floor[active][:, None]), top, -np.inf)
        parents, tokens, top = parents.tolist(), tokens.tolist(), top.tolist()

        rows, next_ids, next_scores, still = [], [], [], []
        for a, word in enumerate(active.tolist()):
            alive = []
            for rank, (score, parent, token) in enumerate(zip(top[a], parents[a], tokens[a])):
                if score == float("-inf"):
                    continue  # an impossible step, or (with a floor) one that cannot win
                if token == stepper.eos_id:
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

        if len(still) != len(active):
            active = np.array(still)
            memory = _expand(memory_w, active, beam)
        y = np.array(next_ids, dtype=np.int64)
        state = tuple(s[rows] for s in state)
        history = np.concatenate([history[rows], y[:, None]], axis=1)  # (N', t)
        attn_history = None if attn_history is None else attn_history[rows]
        scores = np.array(next_scores, dtype=np.float32).reshape(len(still), beam)  # (A', beam)
        if constraint is not None:
            nodes = constraint.advance([nodes[r] for r in rows], next_ids)

    return [sorted(hyps, key=lambda h: -h.score)[:n_best] for hyps in finished]


def _decoder_step(stepper: Stepper, y, state, memory, banned: list[int], constraint: LexiconConstraint | None,
                  nodes, attn_history: np.ndarray | None) -> tuple[np.ndarray, Arrays, np.ndarray | None]:
    """One decoder step of N rows for a search: log-probabilities (N, V) with the `banned` ids and (under a
    constraint) every id off the rows' trie nodes at -inf, the new state, and the attention history (N, t, S)
    with this step's weights appended (None for a model without attention)."""
    log_probs, state, weights = stepper.step(y, state, memory)  # (N, V)
    log_probs[:, banned] = -np.inf
    if constraint is not None:
        log_probs[~constraint.allowed(nodes)] = -np.inf
    if weights is not None:
        step_attn = weights[:, None, :]  # (N, 1, S)
        attn_history = step_attn if attn_history is None else np.concatenate([attn_history, step_attn], axis=1)
    return log_probs, state, attn_history


def _greedy_search(stepper: Stepper, src_len: np.ndarray, memory: Arrays, state: Arrays,
                   constraint: LexiconConstraint | None, max_len: int, alpha: float,
                   n_best: int) -> list[list[Hypothesis]]:
    """`beam_search` with `beam=1` and no floor, each step's choices made for all words at once instead of
    word by word (the cheap pass runs it for every typo). The same rules, so the same hypotheses: of a word's two
    best continuations, an EOS in first place finishes a hypothesis, the best other one goes on while it may
    still beat the best finished one (`_promising`), and at `max_len` a word with nothing finished keeps it."""
    lengths = [int(n) for n in src_len]
    active = np.arange(len(lengths))  # the words still decoding; row a of every array is word active[a]
    scores = np.zeros(len(lengths), dtype=np.float32)  # (A,) raw log P so far
    best_finished = np.full(len(lengths), -np.inf)  # (B,) the best finished score of each word
    y = np.full(len(lengths), stepper.sos_id, dtype=np.int64)  # (A,)
    nodes = np.zeros(len(lengths), dtype=np.int64)
    history = np.zeros((len(lengths), 0), dtype=np.int64)  # (A, t)
    attn_history: np.ndarray | None = None  # (A, t, S)
    finished: list[list[Hypothesis]] = [[] for _ in lengths]
    banned = [stepper.pad_id, stepper.sos_id]
    for t in range(1, max_len + 1):
        log_probs, state, attn_history = _decoder_step(stepper, y, state, memory, banned, constraint, nodes,
                                                       attn_history)  # (A, V)
        top, index = _top(scores[:, None] + log_probs, 2)  # (A, 2)
        ends = (index[:, 0] == stepper.eos_id) & np.isfinite(top[:, 0])
        for a in np.flatnonzero(ends).tolist():
            word = int(active[a])
            hyp = _finish(history, attn_history, a, float(top[a, 0]), t, alpha, lengths[word])
            finished[word].append(hyp)
            best_finished[word] = max(best_finished[word], hyp.score)
        going = np.where(index[:, 0] != stepper.eos_id, 0, 1)  # the best continuation that is not EOS
        ids = index[np.arange(len(index)), going]
        live = top[np.arange(len(top)), going]
        # `_promising` for beam 1: nothing finished yet, or the live one, ended at the next step, would win.
        ended_next = live.astype(np.float64) / float(t + 1) ** alpha
        keep = np.isfinite(live) & ((best_finished[active] == -np.inf) | (ended_next > best_finished[active]))
        still = np.flatnonzero(keep)
        if not len(still):
            break
        if t == max_len:  # out of steps: a word with nothing finished keeps its live hypothesis as it is
            for a in still.tolist():
                word = int(active[a])
                if not finished[word]:
                    hyp = _finish(history, attn_history, a, float(live[a]), history.shape[1] + 1, alpha, lengths[word])
                    hyp.ids.append(int(ids[a]))
                    finished[word].append(hyp)
            break
        if len(still) != len(active):
            active = active[still]
            memory = tuple(m[still] for m in memory)
        y = ids[still]
        state = tuple(s[still] for s in state)
        history = np.concatenate([history[still], y[:, None]], axis=1)
        attn_history = None if attn_history is None else attn_history[still]
        scores = live[still].astype(np.float32)
        if constraint is not None:
            nodes = np.asarray(constraint.advance(nodes[still].tolist(), y.tolist()), dtype=np.int64)
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
    attn = None if attn_history is None else attn_history[row, :, :src_len].copy()  # (T, S)
    return Hypothesis(history[row].tolist(), log_prob, length_normalised(log_prob, length, alpha), attn)


def _finish_unended(finished, words, beam, history, attn_history, rows, ids, scores, alpha, lengths) -> None:
    """At the length limit, give each word of `words` that has no finished hypothesis its live ones (no EOS)."""
    for a, word in enumerate(words):
        if finished[word]:
            continue
        for i in range(a * beam, (a + 1) * beam):
            if scores[i] == float("-inf"):
                continue
            hyp = _finish(history, attn_history, rows[i], scores[i], history.shape[1] + 1, alpha, lengths[word])
            hyp.ids.append(ids[i])
            finished[word].append(hyp)


# --- scoring given outputs and reranking ----------------------------------------------------------------------


def forced_log_probs(stepper: Stepper, src: np.ndarray, src_len: np.ndarray,
                     outputs: list[list[int]]) -> tuple[np.ndarray, np.ndarray | None]:
    """Teacher-forced steps over given outputs (ids without EOS), one per row: log P_model(output_t |
    output_<t, input) per step (B, T), EOS step last, 0 past each row's end, and the attention (B, T, S) or
    None. With the input itself as the output, step t says how much the model believes input character t."""
    width = max(len(ids) for ids in outputs) + 1
    tgt_in = np.full((len(outputs), width), stepper.pad_id, dtype=np.int64)  # (B, T)
    tgt_out = np.full_like(tgt_in, stepper.pad_id)  # (B, T)
    for row, ids in enumerate(outputs):
        tgt_in[row, :len(ids) + 1] = [stepper.sos_id, *ids]
        tgt_out[row, :len(ids) + 1] = [*ids, stepper.eos_id]
    memory, state = stepper.encode(src, src_len)
    picked, weights = [], []
    for t in range(width):
        log_probs, state, step_weights = stepper.step(tgt_in[:, t], state, memory)  # (B, V)
        picked.append(np.take_along_axis(log_probs, tgt_out[:, t:t + 1], axis=1)[:, 0])  # (B,)
        weights.append(step_weights)
    log_probs = np.stack(picked, axis=1)  # (B, T)
    log_probs[tgt_out == stepper.pad_id] = 0.0
    return log_probs, None if weights[0] is None else np.stack(weights, axis=1)  # (B, T, S)


def forced_hypotheses(stepper: Stepper, src: np.ndarray, src_len: np.ndarray, outputs: list[list[int]],
                      alpha: float = 1.0) -> list[Hypothesis]:
    """Given outputs (ids without EOS) as hypotheses, one per row, scored and with attention exactly as beam
    search would have found them: candidates from elsewhere (lexicon neighbours) join a beam's on equal terms."""
    log_probs, attn = forced_log_probs(stepper, src, src_len, outputs)  # (B, T), (B, T, S) or None
    # A running float32 sum, step by step, as beam search adds up its scores: the same candidate, the same float.
    totals = log_probs.cumsum(axis=1)[:, -1].tolist()
    return [Hypothesis(list(ids), total, length_normalised(total, len(ids) + 1, alpha),
                       None if attn is None else attn[row, :len(ids) + 1, :int(src_len[row])].copy())
            for row, (ids, total) in enumerate(zip(outputs, totals))]


def take_rows(encoded: tuple[Arrays, Arrays], rows) -> tuple[Arrays, Arrays]:
    """The encoder output (memory, state) of some words only, e.g. the uncertain ones that get a wider search."""
    memory, state = encoded
    return tuple(a[rows] for a in memory), tuple(a[rows] for a in state)


def trie_hypotheses(stepper: Stepper, encoded: tuple[Arrays, Arrays], src_len: np.ndarray,
                    outputs: list[list[list[int]]], alpha: float = 1.0) -> list[list[Hypothesis]]:
    """Given outputs for each word (`outputs[b]`: id lists without EOS), scored as `forced_hypotheses` scores
    them, but sharing work: each word is encoded once (`encoded`, its rows in `src_len` order) and outputs that
    share a prefix share its decoder steps, as if the outputs of a word were a little prefix trie decoded one
    depth at a time. One-edit neighbours of a typo share most of their prefixes, so this takes a fraction of
    the steps of scoring each from its first character."""
    memory_w, state_w = encoded
    trie = _OutputTrie(outputs)
    step_log_probs, step_attn = [], []  # per depth: (R_t, V), (R_t, S) or None
    state = None
    for t, (words, parents, tokens) in enumerate(trie.depths):
        memory = tuple(a[words] for a in memory_w)
        if t == 0:
            y = np.full(len(words), stepper.sos_id, dtype=np.int64)
            state = tuple(a[words] for a in state_w)
        else:
            y = tokens
            state = tuple(a[parents] for a in state)
        log_probs, state, weights = stepper.step(y, state, memory)  # (R_t, V), state of each prefix
        step_log_probs.append(log_probs)
        step_attn.append(weights)
    if not trie.ids:
        return [[] for _ in outputs]
    # Every output's steps gathered at once: rows[i, t] is output i's row among all depths' rows, stacked.
    offsets = np.cumsum([0] + [len(lp) for lp in step_log_probs])[:trie.path.shape[1]]  # (T,)
    past_end = trie.path < 0  # (C, T)
    rows = np.where(past_end, 0, trie.path + offsets)
    targets = np.where(past_end, 0, trie.targets(stepper.eos_id))  # (C, T): each step's id, EOS last
    picked = np.concatenate(step_log_probs)[rows, targets]  # (C, T)
    picked[past_end] = 0.0
    # A running float32 sum (cumsum adds in order, and + 0.0 past the end changes nothing), as beam search adds.
    totals = picked.cumsum(axis=1, dtype=np.float32)[:, -1].tolist()
    attn = None if step_attn[0] is None else np.concatenate(step_attn)[rows]  # (C, T, S)
    result, i = [], 0
    for b, outs in enumerate(outputs):
        hyps = []
        for ids in outs:
            weights = None if attn is None else attn[i, :len(ids) + 1, :int(src_len[b])].copy()  # (T, S)
            hyps.append(Hypothesis(list(ids), totals[i], length_normalised(totals[i], len(ids) + 1, alpha), weights))
            i += 1
        result.append(hyps)
    return result


class _OutputTrie:
    """The prefix trie of each word's outputs, by depth, built with a sort instead of a Python walk: with the
    outputs sorted (by word, then id by id), those sharing a prefix of length t are neighbours, so depth t's
    rows are where the common prefix of an output and the one before it (its `lcp`) falls below t.

    `depths[t]`: (word of each row, its parent row at depth t - 1, the id it ends with), int64 arrays; `path`
    (C, T): output i's row at each depth 0..len(ids), -1 past it (outputs in order, word by word)."""

    def __init__(self, outputs: list[list[list[int]]]):
        self.ids = [ids for outs in outputs for ids in outs]
        self.depths: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        if not self.ids:
            self.path = np.zeros((0, 0), dtype=np.int64)
            return
        word = np.array([b for b, outs in enumerate(outputs) for _ in outs], dtype=np.int64)  # (C,)
        length = np.array([len(ids) for ids in self.ids], dtype=np.int64)  # (C,)
        width = int(length.max())
        tokens = np.full((len(self.ids), width), -1, dtype=np.int64)  # (C, T - 1), -1 past the end: sorts first
        for i, ids in enumerate(self.ids):
            tokens[i, :len(ids)] = ids
        self._tokens, self._length = tokens, length  # in the outputs' own order, for `targets`
        order = np.lexsort([tokens[:, t] for t in reversed(range(width))] + [word])  # by word, then ids
        tokens, word, length = tokens[order], word[order], length[order]
        same = (tokens[1:] == tokens[:-1]) & (tokens[1:] >= 0)  # (C - 1, T - 1)
        lcp = np.cumprod(same, axis=1).sum(axis=1)  # common prefix with the output before
        lcp = np.concatenate([[-1], np.where(word[1:] == word[:-1], lcp, -1)])  # (C,), -1: a new word
        path = np.full((len(self.ids), width + 1), -1, dtype=np.int64)  # (C, T) in sorted order
        for t in range(width + 1):
            present = np.flatnonzero(length >= t)  # the outputs that reach depth t
            group = np.cumsum(lcp < t)[present]  # equal for outputs sharing their first t ids
            first = np.diff(group, prepend=-1) != 0
            path[present, t] = np.cumsum(first) - 1
            starts = present[first]
            self.depths.append((word[starts], path[starts, t - 1] if t else starts,
                                tokens[starts, t - 1] if t else starts))
        self.path = np.empty_like(path)
        self.path[order] = path  # back to the outputs' own order

    def targets(self, eos_id: int) -> np.ndarray:
        """(C, T): the id output i writes at step t (its ids, then EOS), 0 past its end."""
        targets = np.zeros(self.path.shape, dtype=np.int64)
        targets[:, :-1] = np.maximum(self._tokens, 0)
        targets[np.arange(len(self.ids)), self._length] = eos_id
        return targets


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
