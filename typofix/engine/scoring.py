"""Scoring given outputs of a model, in numpy: a word's candidates from anywhere (lexicon neighbours, the
typo itself) scored exactly as beam search would have scored them, so they compete on equal terms; and the
`Hypothesis`, one scored output, that search and scoring both hand back.

`trie_hypotheses` is the engine's: each word encoded once, its outputs decoded as one prefix trie (one-edit
neighbours of a typo share most of their prefixes). `forced_hypotheses` scores row by row, each from its own
encoding: the plain reference the trie is tested against.
Shapes: B words, S source length, T output steps (characters + EOS), V vocabulary, C outputs of all words.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from typofix.engine.stepper import Arrays, Stepper

# Decoder rows per model call when scoring a trie: enough to keep the per-call overhead small, few enough that
# the rows' copies of the encoder output stay a few MB.
STEP_ROWS = 1024


@dataclass
class Hypothesis:
    """One scored output, found by beam search or scored as given: ids without EOS, log P_model(output |
    input) with EOS included, its length-normalised score (`length_normalised`), and the attention weights
    (T, S) of its T = len(ids) + 1 steps over the word's S real source characters (None for a model without
    attention)."""

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


def take_steps(trail: list, rows: np.ndarray, batch: int) -> list:
    """A greedy decode's trail (`search.Step`s) for some words only, numbered as in `take_rows(encoded, rows)`."""
    number = np.full(batch, -1, dtype=np.int64)
    number[rows] = np.arange(len(rows))
    taken = []
    for step in trail:
        keep = np.flatnonzero(number[step.words] >= 0)
        taken.append(type(step)(number[step.words[keep]], step.y[keep], step.log_probs[keep],
                                tuple(a[keep] for a in step.state)))
    return taken


def trie_hypotheses(stepper: Stepper, encoded: tuple[Arrays, Arrays], src_len: np.ndarray,
                    outputs: list[list[list[int]]], alpha: float = 1.0, attention: bool = True,
                    known: list | None = None) -> list[list[Hypothesis]]:
    """Given outputs for each word (`outputs[b]`: id lists without EOS), scored as `forced_hypotheses` scores
    them, but sharing work: each word is encoded once (`encoded`, its rows in `src_len` order) and outputs that
    share a prefix share its decoder steps, as if the outputs of a word were a little prefix trie decoded one
    depth at a time. One-edit neighbours of a typo share most of their prefixes, so this takes a fraction of
    the steps of scoring each from its first character. Without `attention` the hypotheses carry none (the
    same scores; gathering every output's weights is work only `explain` and the explorer read).

    `known`: the trail of a greedy decode of the same encoding (`search.beam_search`, without attention): the
    rows of the prefixes the greedy answer ran through are taken from it, not run again (a row's output depends
    on its own inputs only, so they are the same numbers)."""
    memory_w, state_w = encoded
    trie = _OutputTrie(outputs)
    step_log_probs, step_attn = [], []  # per depth: (R_t, V), (R_t, S) or None
    state = None
    widest = max((len(words) for words, _, _ in trie.depths), default=0)
    buffers = [np.empty((min(widest, STEP_ROWS), *a.shape[1:]), dtype=a.dtype) for a in memory_w]
    on_path = np.zeros(0, dtype=bool)  # per row of the depth before: its prefix is the greedy answer's
    for t, (words, parents, tokens) in enumerate(trie.depths):
        if t == 0:
            y = np.full(len(words), stepper.sos_id, dtype=np.int64)
            state = tuple(a[words] for a in state_w)
        else:
            y = tokens
            state = tuple(a[parents] for a in state)
        if known is None or attention or t >= len(known):
            # (R_t, V), each prefix's state
            log_probs, state, weights = _step_in_chunks(stepper, y, state, memory_w, words, buffers)
        else:
            log_probs, state, on_path = _step_known(stepper, y, state, memory_w, words, buffers, known[t],
                                                    len(src_len), on_path[parents] if t else None)
            weights = None
        step_log_probs.append(log_probs)
        step_attn.append(weights if attention else None)
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


def _step_in_chunks(stepper: Stepper, y: np.ndarray, state: Arrays, memory_w: Arrays, words: np.ndarray,
                    buffers: list[np.ndarray]):
    """`stepper.step` of R rows, `STEP_ROWS` at a time: each row needs its word's encoder output (S, 2H) and
    attention keys (S, K) copied, gathered into `buffers` (one per memory array, `STEP_ROWS` rows, reused by
    every chunk and depth: a fresh copy each time cost more in allocating than in copying). The rows are
    independent, so the outputs are the same as of one call."""
    parts = []
    for lo in range(0, len(y), STEP_ROWS):
        rows = words[lo:lo + STEP_ROWS]
        # mode="clip" (the rows are valid): np.take's default checks into a temporary before writing to `out`
        memory = tuple(np.take(a, rows, axis=0, out=buffer[:len(rows)], mode="clip")
                       for a, buffer in zip(memory_w, buffers))
        parts.append(stepper.step(y[lo:lo + STEP_ROWS], tuple(a[lo:lo + STEP_ROWS] for a in state), memory))
    if len(parts) == 1:
        return parts[0]
    log_probs = np.concatenate([p[0] for p in parts])  # (R, V)
    state = tuple(np.concatenate([p[1][i] for p in parts]) for i in range(len(parts[0][1])))
    weights = None if parts[0][2] is None else np.concatenate([p[2] for p in parts])  # (R, S)
    return log_probs, state, weights


def _step_known(stepper: Stepper, y: np.ndarray, state: Arrays, memory_w: Arrays, words: np.ndarray,
                buffers: list[np.ndarray], greedy, batch: int, parent_on_path: np.ndarray | None):
    """`_step_in_chunks` of one depth's rows, those on the greedy answer's path (their parent is, the word was
    still decoding at this step and the row reads the id the greedy decode read) copied from its trail's `greedy`
    step: (log_probs, state, which rows were on the path)."""
    if not len(greedy.words):  # every word had finished
        log_probs, state, _ = _step_in_chunks(stepper, y, state, memory_w, words, buffers)
        return log_probs, state, np.zeros(len(words), dtype=bool)
    position = np.full(batch, -1, dtype=np.int64)
    position[greedy.words] = np.arange(len(greedy.words))
    at = position[words]  # (R_t,) each row's word's row in the greedy step, -1: it had finished
    on_path = at >= 0
    if parent_on_path is not None:  # at depth 0 every row reads the start id and its word's encoder state
        on_path &= parent_on_path & (greedy.y[np.maximum(at, 0)] == y)
    run = np.flatnonzero(~on_path)
    if not len(run):
        return greedy.log_probs[at], tuple(a[at] for a in greedy.state), on_path
    ran = _step_in_chunks(stepper, y[run], tuple(a[run] for a in state), memory_w, words[run], buffers)
    log_probs = np.empty((len(words), ran[0].shape[1]), dtype=ran[0].dtype)  # (R_t, V)
    log_probs[run] = ran[0]
    copied = np.flatnonzero(on_path)
    log_probs[copied] = greedy.log_probs[at[copied]]
    new_state = []
    for computed, greedy_state in zip(ran[1], greedy.state):
        merged = np.empty((len(words), *computed.shape[1:]), dtype=computed.dtype)
        merged[run], merged[copied] = computed, greedy_state[at[copied]]
        new_state.append(merged)
    return log_probs, tuple(new_state), on_path


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

