"""Edit-distance profile of generated typos next to the real dev sets.

    python bench/typo_stats.py [--samples 20000] [--seed 1234]

Distance is optimal string alignment (Damerau) distance, as in ../shared/eval/README.md. Identity pairs
(distance 0) are reported apart, since the dev sets have none by construction.
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

from typofix.data import TypoDataModule, read_pairs, resolve_dev_set


def osa_distance(a: str, b: str) -> int:
    """Optimal string alignment distance: insertions, deletions, substitutions, adjacent transpositions."""
    prev2, prev = None, list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[len(b)]


def profile(pairs) -> dict[str, float]:
    """Share (%) of pairs at distance 0, 1, 2 and more than 2."""
    buckets = Counter(min(osa_distance(t, w), 3) for t, w in pairs)
    return {label: 100 * buckets[d] / len(pairs) for d, label in enumerate(("0", "1", "2", ">2"))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()
    dm = TypoDataModule(seed=args.seed, epoch_size=args.samples, dev_sets={})
    dm.setup()
    generated = [dm.train_set.pair(0, i) for i in range(args.samples)]
    rows = {f"generated (training, n={args.samples})": generated}
    rows.update({name: read_pairs(resolve_dev_set(name)) for name in ("norvig-testset1.tsv", "birkbeck-dev.tsv")})
    print("| set | rows | dist 0 (identity) | 1 | 2 | >2 | mean word length |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, pairs in rows.items():
        p = profile(pairs)
        mean_len = np.mean([len(w) for _, w in pairs])
        print(f"| {name} | {len(pairs)} | {p['0']:.1f} | {p['1']:.1f} | {p['2']:.1f} | {p['>2']:.1f} | {mean_len:.1f} |")
    counted = Counter(e.kind for i in range(5000) for e in dm.generator.sample(generated[i][1], args.seed, 0, i).edits)
    total = sum(counted.values())
    print("\nedit kinds (share of edits, first 5000 samples): " +
          ", ".join(f"{k} {100 * v / total:.1f}%" for k, v in counted.most_common()))


if __name__ == "__main__":
    main()
