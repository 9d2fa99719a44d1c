"""Beam search over a model's outputs, in numpy, optionally kept on a lexicon's prefix trie
(`LexiconConstraint`). Greedy decoding is its width-1 case: one loop, one set of stopping rules.

Torch-free: the model is reached only through a `typofix.engine.stepper.Stepper` (onnxruntime running the
ONNX export, or `typofix.nn.torch_stepper` around `Seq2Seq`), so both runtimes share this one search.
Shapes: B words, A words still decoding, S source length, N = A x beam decoder rows, V vocabulary.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from typofix.engine.scoring import Hypothesis, length_normalised
from typofix.engine.stepper import Arrays, Stepper
from typofix.words.indexcache import cached
from typofix.words.lexicon import Lexicon, PrefixTrie
from typofix.words.text import OUTPUT_MARGIN


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
        # node -> 1 + its row of `_masks`, 0: not built yet. Zeros, so that the pages of nodes no search visits are
        # never made (calloc'd): a one-word run visits a few hundred of the 287,434 nodes (2.3 MB as an int64 of -1).
        self._row_after = np.zeros(len(trie), dtype=np.int64)
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
        self._row_after[node] = row + 1
        self._rows_built += 1

    def allowed(self, nodes: list[int]) -> np.ndarray:
        """(N, V) bool: which ids may follow each of the N hypotheses' prefixes."""
        nodes = np.asarray(nodes, dtype=np.int64)
        rows = self._row_after[nodes]
        for node in sorted(set(nodes[rows == 0].tolist())):  # first: a new row may grow (replace) the table
            self._build_row(node)
        return self._masks[self._row_after[nodes] - 1]

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


def _top(totals: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k largest entries of every row, largest first, ties by lower index: values and indices (A, k)."""
    index = np.argpartition(-totals, k - 1, axis=1)[:, :k]  # (A, k), unordered
    values = np.take_along_axis(totals, index, axis=1)
    order = np.lexsort((index, -values), axis=1)  # by value, then by index: the same order on every run
    return np.take_along_axis(values, order, axis=1), np.take_along_axis(index, order, axis=1)


def beam_search(stepper: Stepper, src: np.ndarray | None, src_len: np.ndarray, beam: int = 5,
                n_best: int | None = None, alpha: float = 1.0, constraint: LexiconConstraint | None = None,
                max_len: int | np.ndarray | None = None, encoded: tuple[Arrays, Arrays] | None = None,
                floor: np.ndarray | None = None, attention: bool = True,
                trail: list | None = None) -> list[list[Hypothesis]]:
    """Batched beam search: the `beam` best hypotheses of every word advance together, words x beams in one
    `stepper.step` per output character, each step's choices made for all words at once. Returns up to
    `n_best` (default `beam`) finished hypotheses per word, best first by length-normalised log-probability
    (`alpha`, see `length_normalised`). `beam=1` is greedy decoding (with `alpha=0`, plain greedy: nothing
    after the first EOS can win); the cheap pass runs it for every typo.

    Finishing follows fairseq: an EOS among a word's `beam` best candidates finishes that hypothesis and the
    best `beam` others go on. A word stops when nothing is left to extend, or when it has `beam` finished
    hypotheses and its best live one, ended at the next step, would not rank among them: under a lexicon,
    short words ("begin") finish early, and stopping at the first `beam` of them would lose the longer word
    ("beginning") still on its way. Exact for alpha 0 (raw scores only fall); for alpha > 0 a heuristic, since
    a longer ending could still rise. `max_len`: the most characters a word's output may have, one for all or
    one per word (B,); by default each word's own length plus `OUTPUT_MARGIN`. Each word's own limit, never the
    batch's longest word's, so that a word's answer does not depend on the words batched with it. At its limit a
    word with nothing finished keeps its live hypotheses as they are. The words still decoding shrink the batch
    as the others stop.

    `encoded`: the words' `stepper.encode` output when the caller has it already (then `src` may be None): a
    typo is encoded once for all the searches and scorings of it. `floor` (B,), with a constraint: per word, a
    score its result must beat to matter (the caller's best candidate so far, reranked). A live hypothesis
    whose best possible final score (`LexiconConstraint.bound`) cannot reach its word's floor is dropped, and
    a word stops as soon as none is left: the search ends when no live hypothesis can still win.

    Without `attention` the hypotheses carry none (the same search: the weights' history, copied at every step,
    is read only by `explain`, the explorer and the plots).

    `trail` (greedy only, `beam=1`): a list to which each step appends its `Step` (the words still decoding,
    their input ids, the model's log-probabilities before any masking, the new state), so that scoring
    outputs that share the greedy answer's prefixes (`scoring.trie_hypotheses`) reuses these rows.
    """
    if trail is not None and beam != 1:
        raise ValueError("a trail follows a greedy decode (beam 1): one row a word")
    n_best = n_best or beam
    limits = np.broadcast_to(np.asarray(src_len) + OUTPUT_MARGIN if max_len is None else np.asarray(max_len),
                             (len(src_len),))  # (B,) each word's last step
    memory, state = encoded if encoded is not None else stepper.encode(src, src_len)  # (B, S, ...), 2 x (B, D)
    if floor is not None and constraint is None:
        raise ValueError("a floor needs a lexicon constraint (its bound reads the trie)")
    lengths = [int(n) for n in src_len]
    active = np.arange(len(lengths))  # the words still decoding: word active[a] has rows a * beam ... + beam - 1
    if beam > 1:
        memory, state = _repeat(memory, beam), _repeat(state, beam)  # N = B * beam rows
    # Every beam of a word starts identical, so only the first may be extended at step one.
    scores = np.full((len(lengths), beam), -np.inf, dtype=np.float32)  # (A, beam) raw log P so far
    scores[:, 0] = 0.0
    kth = np.full(len(lengths), -np.inf)  # (B,) each word's beam-th best finished score; -inf: fewer finished
    y = np.full(len(lengths) * beam, stepper.sos_id, dtype=np.int64)  # (N,)
    nodes = np.zeros(len(y), dtype=np.int64)  # (N,) each row's trie node, under a constraint
    history = np.zeros((len(y), 0), dtype=np.int64)  # (N, t) ids written so far
    attn_history: np.ndarray | None = None  # (N, t, S)
    finished: list[list[Hypothesis]] = [[] for _ in lengths]
    banned = [stepper.pad_id, stepper.sos_id]  # never written by a decoder; UNK stays possible only unconstrained

    for t in range(1, int(limits.max()) + 1 if len(limits) else 1):
        unmasked = [] if trail is not None else None
        log_probs, state, attn_history = _decoder_step(stepper, y, state, memory, banned, constraint, nodes,
                                                       attn_history, attention, unmasked)  # (N, V)
        if trail is not None:
            trail.append(Step(active, y, unmasked[0], state))
        vocab = log_probs.shape[-1]
        totals = (scores.reshape(-1, 1) + log_probs).reshape(len(active), beam * vocab)  # (N, V) -> (A, beam * V)
        top, index = _top(totals, min(2 * beam, beam * vocab))  # (A, K) best first
        parents = index // vocab + np.arange(len(active))[:, None] * beam  # (A, K) the row each extends
        tokens = index % vocab
        if floor is not None:  # hopeless continuations (never EOS: a finished one is judged by the caller)
            bound = constraint.bound(nodes[parents], tokens, top, alpha)  # (A, K)
            top = np.where((tokens == stepper.eos_id) | (bound > floor[active][:, None]), top, -np.inf)
        possible = top != -np.inf  # not an impossible step, nor (with a floor) one that cannot win
        eos = tokens == stepper.eos_id
        going = possible & ~eos
        if beam > 1:
            going &= np.cumsum(going, axis=1) <= beam  # the `beam` best others go on
        ends = possible & eos
        ends[:, beam:] = False  # an EOS finishes a hypothesis only among the word's `beam` best
        width = top.shape[1]
        for i in np.flatnonzero(ends).tolist():
            a, rank = divmod(i, width)
            word = int(active[a])
            finished[word].append(_finish(history, attn_history, int(parents[a, rank]), float(top[a, rank]), t,
                                          alpha, lengths[word]))
            if beam == 1:
                kth[word] = max(kth[word], finished[word][-1].score)
            elif len(finished[word]) >= beam:
                kth[word] = sorted((h.score for h in finished[word]), reverse=True)[beam - 1]
        # The stopping rule: a word goes on while its best live hypothesis, ended at the next step, would rank
        # among its `beam` best finished ones (always, while it has fewer).
        rows = np.arange(len(active))
        first = going.argmax(axis=1)  # (A,) the column of each word's best live hypothesis
        best_live = top[rows, first]
        ended_next = best_live.astype(np.float64) / float(t + 1) ** alpha
        still = np.flatnonzero(going[rows, first] & (ended_next > kth[active]))
        if not len(still):
            break
        # Each word's rows: its live hypotheses best first, and where it has fewer than `beam`, dead copies of
        # its best (score -inf). Width 1: its best, the one live hypothesis it has.
        if beam == 1:
            pick = first[still]
            rows, y, next_scores = parents[still, pick], tokens[still, pick], best_live[still][:, None]  # (A', 1)
        else:
            picked = np.argsort(~going[still], axis=1, kind="stable")[:, :beam]  # (A', beam) live columns first
            live = going[still[:, None], picked]
            picked = np.where(live, picked, picked[:, :1])
            rows = parents[still[:, None], picked].ravel()  # (N',)
            y = tokens[still[:, None], picked].ravel()
            next_scores = np.where(live, top[still[:, None], picked], -np.inf)  # (A', beam)
        out = limits[active[still]] == t  # (A',) out of steps: nothing finished keeps its live hypotheses as they are
        if out.any():
            ended = np.repeat(out, beam)  # (N',) their rows
            _finish_unended(finished, active[still[out]].tolist(), beam, history, attn_history, rows[ended].tolist(),
                            y[ended].tolist(), next_scores[out].ravel().tolist(), alpha, lengths)
            if out.all():
                break
            still, rows, y, next_scores = still[~out], rows[~ended], y[~ended], next_scores[~out]

        if len(still) != len(active):
            keep = still if beam == 1 else (still[:, None] * beam + np.arange(beam)).ravel()  # their rows
            memory = tuple(m[keep] for m in memory)
            active = active[still]
        state = tuple(s[rows] for s in state)
        history = np.concatenate([history[rows], y[:, None]], axis=1)  # (N', t)
        attn_history = None if attn_history is None else attn_history[rows]
        scores = next_scores.astype(np.float32)  # (A', beam)
        if constraint is not None:
            nodes = np.asarray(constraint.advance(nodes[rows], y), dtype=np.int64)

    return [sorted(hyps, key=lambda h: -h.score)[:n_best] for hyps in finished]


def _repeat(arrays: Arrays, beam: int) -> Arrays:
    """Every row of every array `beam` times: (B, ...) -> (B * beam, ...)."""
    return tuple(np.repeat(a, beam, axis=0) for a in arrays)


class Step(NamedTuple):
    """One step of a greedy decode, as `beam_search` leaves it in a trail: `words` (A,) the words still decoding
    (their row in the batch), `y` (A,) the ids they read, `log_probs` (A, V) the model's output for them, unmasked,
    and `state` the decoder state after it (arrays (A, D))."""

    words: np.ndarray
    y: np.ndarray
    log_probs: np.ndarray
    state: Arrays


def _decoder_step(stepper: Stepper, y, state, memory, banned: list[int], constraint: LexiconConstraint | None,
                  nodes, attn_history: np.ndarray | None, attention: bool = True, unmasked: list | None = None
                  ) -> tuple[np.ndarray, Arrays, np.ndarray | None]:
    """One decoder step of N rows for a search: log-probabilities (N, V) with the `banned` ids and (under a
    constraint) every id off the rows' trie nodes at -inf, the new state, and the attention history (N, t, S)
    with this step's weights appended (None for a model without attention, or without `attention`); a copy of
    the log-probabilities before masking is appended to `unmasked` where given."""
    log_probs, state, weights = stepper.step(y, state, memory)  # (N, V)
    if unmasked is not None:
        unmasked.append(log_probs.copy())
    log_probs[:, banned] = -np.inf
    if constraint is not None:
        log_probs[~constraint.allowed(nodes)] = -np.inf
    if weights is not None and attention:
        step_attn = weights[:, None, :]  # (N, 1, S)
        attn_history = step_attn if attn_history is None else np.concatenate([attn_history, step_attn], axis=1)
    return log_probs, state, attn_history


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
