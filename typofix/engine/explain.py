"""Typo localization: where in a misspelled word the error is, and what the correction changed there.

Pure Python (numpy for the arrays): it takes the typo, the model's correction and, when there are any, the
model's attention weights, so it is testable without a model. Two signals:

* the **diff** of typo and correction (difflib opcodes, a swap of two neighbours recognised as one change):
  what `typofix correct --explain` prints and the attention plot outlines, e.g.
  ``recieve -> receive  (swap at 4-5: "ie" -> "ei")``;
* the **attention alignment**: input positions the output does not copy one-to-one (attention argmax). It
  is the weaker localizer (attention often looks one character ahead); bench/localization.py measures both.

A `Change`'s `start` and `end` are offsets in the typo, from 0, end excluded: typo[start:end] is what was typed
(the JSON of `typofix correct --explain --json` and the explorer carry them so). Printed, positions count
characters from 1, as `typofix check`'s columns do: "swap at 4-5" is the typo's 4th and 5th characters, "at 4"
one character; where characters are missing (start == end), the position is that of the character they are
missing before.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

import numpy as np


@dataclass(frozen=True)
class Change:
    """One change the correction makes: typo[start:end] (`typed`) becomes `fix`; `kind` is one of swap,
    substitution, missing (typed == ""), extra (fix == "") or replace."""

    kind: str
    start: int
    end: int
    typed: str
    fix: str

    def __str__(self) -> str:
        # Positions from 1 (see the module's docstring): characters start+1 to end.
        where = str(self.start + 1) if self.end - self.start <= 1 else f"{self.start + 1}-{self.end}"
        return f'{self.kind} at {where}: "{self.typed}" -> "{self.fix}"'

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end


def normalized_change(typo: str, start: int, end: int, fix: str) -> Change | None:
    """The change that rewrites typo[start:end] to `fix`, in one canonical form so that equivalent edits
    compare equal: characters both sides share at the edges are trimmed, and a pure insertion or deletion
    is slid right across repeated letters ("buter" -> "butter" is "t" missing at offset 3, never 2).
    None when nothing changes."""
    typed = typo[start:end]
    while typed and fix and typed[0] == fix[0]:
        typed, fix, start = typed[1:], fix[1:], start + 1
    while typed and fix and typed[-1] == fix[-1]:
        typed, fix = typed[:-1], fix[:-1]
    end = start + len(typed)
    if not typed and not fix:
        return None
    if not fix:  # extra characters: slide right while the next character repeats the span's first
        while end < len(typo) and typo[start] == typo[end]:
            start, end, typed = start + 1, end + 1, typed[1:] + typo[end]
    elif not typed:  # missing characters: slide right while the typo repeats the first missing one
        while start < len(typo) and typo[start] == fix[0]:
            fix, start = fix[1:] + fix[0], start + 1
        end = start
    return Change(_kind(typed, fix), start, end, typed, fix)


def _kind(typed: str, fix: str) -> str:
    if not typed:
        return "missing"
    if not fix:
        return "extra"
    if len(typed) == len(fix) == 1:
        return "substitution"
    if len(typed) == len(fix) == 2 and typed == fix[::-1]:
        return "swap"
    return "replace"


def changes(typo: str, correction: str) -> list[Change]:
    """The changes that turn `typo` into `correction`, left to right (empty when they are equal)."""
    # Regions (i1, i2, j1, j2) of typo / correction that differ, from difflib's opcodes.
    regions = [list(op[1:]) for op in SequenceMatcher(None, typo, correction, autojunk=False).get_opcodes()
               if op[0] != "equal"]
    merged: list[list[int]] = []
    for region in regions:
        if merged and _joins(merged[-1], region):
            merged[-1][1], merged[-1][3] = region[1], region[3]
        else:
            merged.append(region)
    found = (normalized_change(typo, i1, i2, correction[j1:j2]) for i1, i2, j1, j2 in merged)
    return [change for change in found if change is not None]


def _joins(left: list[int], right: list[int]) -> bool:
    """Two neighbouring diff regions are one change when they touch, or when at most two kept characters
    separate them, one is a pure insertion or deletion, and together they replace as many characters as they
    write: difflib's longest-match rule reports a swap or a substitution next to a repeated letter as an
    insert and a delete around the kept letters ("recieve" -> "receive": insert "e", keep "i", delete "e")."""
    gap = right[0] - left[1]
    if gap == 0:
        return True
    is_indel = lambda region: region[0] == region[1] or region[2] == region[3]  # noqa: E731
    same_length = right[1] - left[0] == right[3] - left[2]
    return gap <= 2 and same_length and (is_indel(left) or is_indel(right))


def describe(typo: str, correction: str) -> str:
    """One line: ``recieve -> receive  (swap at 4-5: "ie" -> "ei")``, positions from 1; several changes are
    joined by "; "."""
    found = changes(typo, correction)
    detail = "; ".join(map(str, found)) if found else "no change"
    return f"{typo} -> {correction}  ({detail})"


def uncopied_positions(typo: str, out_chars, weights) -> list[int]:
    """Input positions the output does not copy one-to-one: a position is copied when exactly one output
    step attends to it most (attention argmax) and that step writes the same character. `out_chars` are the
    written characters (an end-of-word step may follow; it is ignored), `weights` (len(out_chars)+, len(typo))."""
    weights = np.asarray(weights, dtype=float)
    if weights.ndim != 2 or weights.shape[1] != len(typo) or weights.shape[0] < len(out_chars):
        raise ValueError(f"weights of shape {weights.shape} do not fit {len(out_chars)} outputs x {len(typo)} inputs")
    focus = weights[: len(out_chars)].argmax(axis=1)  # (T,) the input position each output step looks at most
    hits = np.bincount(focus, minlength=len(typo))
    copied = {int(j) for t, j in enumerate(focus) if hits[j] == 1 and out_chars[t] == typo[j]}
    return [j for j in range(len(typo)) if j not in copied]

