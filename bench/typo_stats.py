"""Edit-distance profile of generated typos next to the real dev sets.

    python bench/typo_stats.py [--samples 20000] [--seed 1234]

Distance is optimal string alignment (Damerau) distance, as in ../shared/eval/README.md. Identity pairs
(distance 0) are reported apart, since the dev sets have none by construction.
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

from typofix.data import TypoDataModule, resolve_dev_set
from typofix.misspellings import read_misspellings
from typofix.typos import osa_distance


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
    rows.update({name: read_misspellings(resolve_dev_set(name)) for name in ("norvig-testset1.tsv", "birkbeck-dev.tsv")})
    print("| set | rows | dist 0 (identity) | 1 | 2 | >2 | mean word length |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, pairs in rows.items():
        p = profile(pairs)
        mean_len = np.mean([len(w) for _, w in pairs])
        print(f"| {name} | {len(pairs)} | {p['0']:.1f} | {p['1']:.1f} | {p['2']:.1f} | {p['>2']:.1f} | {mean_len:.1f} |")
    n_kinds = min(5000, len(generated))  # the same samples again, now with their edits: a subset is enough
    counted = Counter(e.kind for i in range(n_kinds) for e in dm.generator.sample(generated[i][1], args.seed, 0, i).edits)
    total = sum(counted.values())
    print(f"\nedit kinds (share of edits, first {n_kinds} samples): " +
          ", ".join(f"{k} {100 * v / total:.1f}%" for k, v in counted.most_common()))


if __name__ == "__main__":
    main()
