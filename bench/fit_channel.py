"""Fit the noise model to real misspellings: write data/channel.json from the dev sets' alignments.

    PYTHONPATH=. python bench/fit_channel.py [--out data/channel.json] [--summary]

Reads the two dev sets only (data/eval/birkbeck-dev.tsv, data/eval/norvig-testset1.tsv; never the holdout, the
raw Birkbeck corpus or third-party misspelling lists). Each (correct, typo) pair is cut into edits by
`typofix.training.channel.edit_blocks`; the table counts

* `kinds`: edits of each kind (insertion, deletion, substitution, transposition, multi-letter);
* `confusions`: [kind, before, after, count] rows. A single edit is counted under the longest version of it
  with up to MAX_SPAN letters of its neighbours around it whose rate (count / occurrences of its `before` in
  the dev words) is at least LIFT times the bare edit's, seen at least MIN_CONTEXT times in at least
  MIN_WORDS different correct words: `ant` -> `ent` and `ll` -> `l` become their own rows, a rate that is the
  same in any context stays one row, and the many misspellings of one dev word (birkbeck-dev has about six a
  word) do not make a row of their own. Multi-letter rows seen in fewer than MIN_WORDS words are left out
  (their edits still count in `kinds`, `positions`, `edit_counts`);
* `occurrences`: how often each row's `before` occurs in the dev sets' correct words (one per row of the sets);
* `positions`: per kind, edits in each position bucket (`typofix.training.channel.bucket`); `opportunities`: letters
  of the correct words in each bucket, to tell where edits are likelier than letters are;
* `edit_counts`: pairs with 1, 2, ... edits.

Deterministic: the same dev sets give the same bytes (sorted rows, one a line).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from typofix.files.atomic import atomic_path
from typofix.training.channel import KINDS, MAX_SPAN, N_BUCKETS, Block, anchored, bucket, edit_blocks
from typofix.files.misspellings import read_misspellings

ROOT = Path(__file__).resolve().parent.parent
DEV_SETS = (ROOT / "data/eval/birkbeck-dev.tsv", ROOT / "data/eval/norvig-testset1.tsv")
MIN_CONTEXT, MIN_WORDS, LIFT = 5, 3, 2.0


def contexts(block: Block, word: str):
    """`block` widened by 0-2 letters each side (at most MAX_SPAN letters before), the bare block first."""
    for total in range(len(block.before), MAX_SPAN + 1):
        for left in range(total - len(block.before) + 1):
            right = total - len(block.before) - left
            s, e = block.start - left, block.end + right
            if s >= 0 and e <= len(word):
                yield Block(block.kind, s, e, word[s:e], word[s:block.start] + block.after + word[block.end:e])


def fit(pairs: list[tuple[str, str]]) -> dict:
    """The channel table (a JSON-ready dict) from (typo, correct) pairs."""
    occurrences: Counter = Counter()
    opportunities = [0] * N_BUCKETS
    for _, word in pairs:
        for n in range(1, MAX_SPAN + 1):
            occurrences.update(word[i:i + n] for i in range(len(word) - n + 1))
        for i in range(len(word)):
            opportunities[bucket(i, i + 1, len(word))] += 1

    edited = [(word, [anchored(b, word) for b in edit_blocks(word, typo)]) for typo, word in pairs]
    rate = lambda b, counts: counts[b.kind, b.before, b.after] / occurrences[b.before]  # noqa: E731
    widened: Counter = Counter()
    words_of: dict[tuple[str, str, str], set[str]] = {}
    for word, blocks in edited:
        for c in (c for b in blocks for c in contexts(b, word)):
            widened[c.kind, c.before, c.after] += 1
            words_of.setdefault((c.kind, c.before, c.after), set()).add(word)
    general = lambda c: (widened[c.kind, c.before, c.after] >= MIN_CONTEXT  # noqa: E731
                         and len(words_of[c.kind, c.before, c.after]) >= MIN_WORDS)

    kinds, confusions, edit_counts = Counter(), Counter(), Counter()
    positions = {k: [0] * N_BUCKETS for k in KINDS}
    for word, blocks in edited:
        edit_counts[len(blocks)] += 1
        for block in blocks:
            chosen = block
            if block.kind != "multi-letter":
                bare = rate(block, widened)
                specific = [c for c in contexts(block, word)
                            if c != block and general(c) and rate(c, widened) >= LIFT * bare]
                if specific:  # the longest, then the likeliest, then the first in alphabetical order
                    chosen = min(specific, key=lambda c: (-len(c.before), -rate(c, widened), c.before, c.after))
            kinds[block.kind] += 1
            confusions[chosen.kind, chosen.before, chosen.after] += 1
            positions[block.kind][bucket(chosen.start, chosen.end, len(word))] += 1

    rows = sorted(([k, b, a, n] for (k, b, a), n in confusions.items()
                   if k != "multi-letter" or len(words_of[k, b, a]) >= MIN_WORDS),
                  key=lambda r: (KINDS.index(r[0]), -r[3], r[1], r[2]))
    most = max(edit_counts)
    return {
        "source": "bench/fit_channel.py on data/eval/birkbeck-dev.tsv and data/eval/norvig-testset1.tsv",
        "pairs": len(pairs),
        "edits": sum(kinds.values()),
        "kinds": {k: kinds[k] for k in KINDS},
        "edit_counts": [edit_counts[n] for n in range(1, most + 1)],
        "opportunities": opportunities,
        "positions": positions,
        "occurrences": {b: occurrences[b] for b in sorted({r[1] for r in rows})},
        "confusions": rows,
    }


def dumps(table: dict) -> str:
    """JSON with one top-level key and one confusion row a line: compact, and readable in a diff."""
    lines = []
    for key, value in table.items():
        if key == "confusions":
            body = ",\n".join("  " + json.dumps(row) for row in value)
            lines.append(f'"{key}": [\n{body}\n]')
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value, separators=(',', ':'))}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def summary(table: dict, top: int = 12) -> str:
    """Markdown: edit-kind shares, the edit-count distribution and the commonest confusions of each kind."""
    total = table["edits"]
    out = [f"{table['pairs']} pairs, {total} edits, {len(table['confusions'])} confusion rows", "",
           "| kind | edits | share |", "|---|---:|---:|"]
    out += [f"| {k} | {n} | {100 * n / total:.1f}% |" for k, n in table["kinds"].items()]
    counts = table["edit_counts"]
    out += ["", "edits per word: " + ", ".join(f"{i + 1}: {100 * c / sum(counts):.1f}%" for i, c in
                                               enumerate(counts) if 100 * c / sum(counts) >= 0.05)]
    occ = table["occurrences"]
    for kind in KINDS:
        rows = [r for r in table["confusions"] if r[0] == kind][:top]
        out.append(f"\n{kind}: " + ", ".join(f"{b}->{a or '∅'} {n} ({100 * n / occ[b]:.2f}%)" for _, b, a, n in rows))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "data/channel.json")
    parser.add_argument("--summary", action="store_true", help="print the table's summary as markdown")
    args = parser.parse_args(argv)
    pairs = [pair for path in DEV_SETS for pair in read_misspellings(path)]
    table = fit(pairs)
    with atomic_path(args.out) as tmp:
        tmp.write_text(dumps(table), encoding="utf-8")
    print(f"wrote {args.out}: {table['pairs']} pairs, {table['edits']} edits, {len(table['confusions'])} rows",
          file=sys.stderr)
    if args.summary:
        print(summary(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
