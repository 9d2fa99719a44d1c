"""The fitted channel: a noise model whose edits, and where and how often they happen, were counted on real
misspellings (the dev sets) rather than set by hand.

Two halves that must agree, so they live together:

* `edit_blocks(word, typo)`: what a misspelling did to a word. A weighted optimal-string-alignment of the two
  (cheaper to swap a vowel for a vowel or a letter for a sound-alike, to double or undouble a letter), then
  every maximal run of changed letters is one *edit*: a single insertion, deletion, substitution or
  transposition, or a multi-letter confusion (ph->f, ough->uf), at most `MAX_SPAN` letters a side.
  `bench/fit_channel.py` counts these on the dev sets and writes `data/channel.json`; `bench/typo_stats.py`
  uses them to compare generated typos with real ones.
* `FittedChannel`: reads that table and proposes edits for `typos.TypoGenerator`: a kind (by its share of the
  dev sets' edits), then one of the table's confusions that fits the word, with probability proportional to
  its rate (times it happened / times its letters occur in the dev words) and to how much likelier that kind
  is in that part of the word; and the number of edits a word gets, as in the dev sets.

A confusion is a pair (before, after) of letter strings, `before` never empty: an insertion carries the letter
before it (`l` -> `ll` doubles an l; at the start of a word the letter after it), and a confusion whose rate
depends on its neighbours carries them (`ll` -> `l`, `ant` -> `ent`, `ti` -> `si`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from typofix.files.packagedata import packaged, read_json_table

KINDS = ("insertion", "deletion", "substitution", "transposition", "multi-letter")
MAX_SPAN = 3  # letters a side of one edit; a longer run of changes is cut into several edits
N_BUCKETS = 5  # where an edit is: the first letter, then the rest of the word in quarters

# Alignment costs: anything changed costs about 1, but among alignments of equal size the cheaper ones say
# what a speller more likely did (definately: i->a, not a deletion and an insertion).
VOWELS = set("aeiouy")
SOUND_ALIKE = [set("ckqsxz"), set("gj"), set("fv"), set("dt"), set("bp"), set("mn"), set("sz")]
COST_SUB, COST_SUB_VOWEL, COST_SUB_SOUND = 1.0, 0.8, 0.9
COST_INDEL, COST_INDEL_DOUBLE, COST_TRANSPOSE = 1.0, 0.7, 0.9


@dataclass(frozen=True)
class Block:
    """One edit of a misspelling, in word coordinates: `word[start:end]` (= `before`) became `after`."""

    kind: str
    start: int
    end: int
    before: str
    after: str


def _sub_cost(a: str, b: str) -> float:
    if a in VOWELS and b in VOWELS:
        return COST_SUB_VOWEL
    if any(a in group and b in group for group in SOUND_ALIKE):
        return COST_SUB_SOUND
    return COST_SUB


def _indel_cost(text: str, i: int) -> float:
    """Inserting or deleting text[i]: cheaper when a neighbour is the same letter (a doubled or undoubled one)."""
    doubled = (i > 0 and text[i - 1] == text[i]) or (i + 1 < len(text) and text[i + 1] == text[i])
    return COST_INDEL_DOUBLE if doubled else COST_INDEL


def align(word: str, typo: str) -> list[tuple[str, str, str]]:
    """The cheapest alignment of `word` to `typo`, as (op, before, after) pieces in order: op is '=' (a letter
    kept), 's' (substituted), 'd' (deleted), 'i' (inserted) or 't' (two letters swapped). Deterministic: ties
    go to the first of match, transposition, substitution, deletion, insertion."""
    n, m = len(word), len(typo)
    inf = float("inf")
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = 0.0
    for i in range(n + 1):
        for j in range(m + 1):
            best = cost[i][j]
            if i and j:
                a, b = word[i - 1], typo[j - 1]
                best = min(best, cost[i - 1][j - 1] + (0.0 if a == b else _sub_cost(a, b)))
                if i > 1 and j > 1 and a == typo[j - 2] and word[i - 2] == b and a != b:
                    best = min(best, cost[i - 2][j - 2] + COST_TRANSPOSE)
            if i:
                best = min(best, cost[i - 1][j] + _indel_cost(word, i - 1))
            if j:
                best = min(best, cost[i][j - 1] + _indel_cost(typo, j - 1))
            cost[i][j] = best
    pieces, i, j = [], n, m
    while i or j:
        here = cost[i][j]
        close = lambda c: abs(c - here) < 1e-9  # noqa: E731
        if i and j and word[i - 1] == typo[j - 1] and close(cost[i - 1][j - 1]):
            pieces.append(("=", word[i - 1], typo[j - 1]))
            i, j = i - 1, j - 1
        elif (i > 1 and j > 1 and word[i - 1] == typo[j - 2] and word[i - 2] == typo[j - 1]
              and word[i - 1] != word[i - 2] and close(cost[i - 2][j - 2] + COST_TRANSPOSE)):
            pieces.append(("t", word[i - 2:i], typo[j - 2:j]))
            i, j = i - 2, j - 2
        elif i and j and close(cost[i - 1][j - 1] + _sub_cost(word[i - 1], typo[j - 1])):
            pieces.append(("s", word[i - 1], typo[j - 1]))
            i, j = i - 1, j - 1
        elif i and close(cost[i - 1][j] + _indel_cost(word, i - 1)):
            pieces.append(("d", word[i - 1], ""))
            i -= 1
        else:
            pieces.append(("i", "", typo[j - 1]))
            j -= 1
    return pieces[::-1]


_SINGLE_KIND = {"s": "substitution", "d": "deletion", "i": "insertion", "t": "transposition"}


def edit_blocks(word: str, typo: str) -> list[Block]:
    """The edits that turn `word` into `typo`: each maximal run of changed pieces of `align`, cut so that
    neither side exceeds MAX_SPAN letters. One piece is its own kind; several make a multi-letter edit."""
    blocks: list[Block] = []
    run: list[tuple[str, str, str]] = []
    start = pos = 0

    def close_run():
        if run:
            before, after = "".join(p[1] for p in run), "".join(p[2] for p in run)
            kind = _SINGLE_KIND[run[0][0]] if len(run) == 1 else "multi-letter"
            blocks.append(Block(kind, start, start + len(before), before, after))
            run.clear()

    for piece in align(word, typo):
        op, before, after = piece
        if op == "=":
            close_run()
        else:
            too_long = run and (len("".join(p[1] for p in run)) + len(before) > MAX_SPAN
                                or len("".join(p[2] for p in run)) + len(after) > MAX_SPAN)
            if too_long:
                close_run()
            if not run:
                start = pos
            run.append(piece)
        pos += len(before)
    close_run()
    return blocks


def anchored(block: Block, word: str) -> Block:
    """`block` with a non-empty `before`, so that the generator can find where to apply it: an insertion takes
    the letter before it, or the letter after it at the word's start or when it doubles that letter (so a
    doubled l is always `l` -> `ll`, whichever l the alignment called the new one)."""
    if block.before:
        return block
    s = block.start
    if s == 0 or (s < len(word) and block.after == word[s]):
        return Block(block.kind, s, s + 1, word[s], block.after + word[s])
    return Block(block.kind, s - 1, s, word[s - 1], word[s - 1] + block.after)


def bucket(start: int, end: int, length: int) -> int:
    """Where a span sits in a word: 0 if it starts at the first letter, else 1-4 by the quarter of the word its
    centre falls in."""
    if start == 0:
        return 0
    return 1 + min(N_BUCKETS - 2, int((N_BUCKETS - 1) * (start + end) / 2 / length))


def default_table_path() -> Path:
    """The packaged data/channel.json (shipped as package data `typofix.wordlist`)."""
    return packaged("channel.json")


class FittedChannel:
    """Edits as the dev sets make them, from a table `bench/fit_channel.py` wrote: which kind, which
    confusion where in the word, and how many a word gets. Same interface as `typos.HandSetChannel`."""

    def __init__(self, table: dict):
        if set(table.get("kinds", {})) - set(KINDS) or not table.get("confusions"):
            raise ValueError("not a fitted channel table: expected kinds among "
                             f"{', '.join(KINDS)} and a list of confusions")
        kind_counts = table["kinds"]
        rows: dict[str, dict[str, list[tuple[str, float]]]] = {k: {} for k in KINDS}
        occurrences = table["occurrences"]
        for kind, before, after, count in table["confusions"]:
            rows[kind].setdefault(before, []).append((after, count / occurrences[before]))
        # A kind with no confusion in the table (none that fits any word) is never chosen.
        self.kinds = tuple(k for k in KINDS if kind_counts.get(k, 0) > 0 and rows[k])
        self.kind_weights = tuple(kind_counts[k] for k in self.kinds)
        self.edit_count_probs = tuple(table["edit_counts"])
        self._rows = rows
        # How much likelier an edit of each kind is in each bucket than a letter is to be there (add-one
        # smoothed): a letter in the first bucket is edited far less often than one in the middle.
        opportunities = table["opportunities"]
        total_opportunities = sum(opportunities)
        self._position_factor = {}
        for kind in self.kinds:
            counts = [c + 1 for c in table["positions"][kind]]
            self._position_factor[kind] = [(c / sum(counts)) / (o / total_opportunities)
                                           for c, o in zip(counts, opportunities)]

    @classmethod
    def load(cls, path: str | Path | None = None) -> FittedChannel:
        """The table at `path`, or the packaged one (read once per process)."""
        return _load(str(path or default_table_path()))

    def propose(self, kind: str, text: str, free: list[int], rng: random.Random):
        """(kind, start, end, replacement) on `text`, touching only `free` positions, or None if no confusion of
        `kind` fits."""
        free_set, rows = set(free), self._rows[kind]
        factor = self._position_factor[kind]
        options, weights = [], []
        for start in range(len(text)):
            for end in range(start + 1, min(start + MAX_SPAN, len(text)) + 1):
                if end - 1 not in free_set:  # every letter of the span must be free: longer spans too
                    break
                for after, rate in rows.get(text[start:end], ()):
                    options.append((kind, start, end, after))
                    weights.append(rate * factor[bucket(start, end, len(text))])
        if not options:
            return None
        return rng.choices(options, weights=weights)[0]


@lru_cache(maxsize=4)
def _load(path: str) -> FittedChannel:
    return FittedChannel(read_json_table(path, "fitted channel table"))
