"""Edit profile of generated typos next to the real dev sets: the hand-set channel, the fitted one, the dev sets.

    PYTHONPATH=. python bench/typo_stats.py [--samples 20000] [--seed 1234]

Generated typos are those of training (words drawn from the frequency prior, `data.identity_rate` identity
pairs). Distance is optimal string alignment (Damerau) distance, as in ../shared/eval/README.md; identity pairs
(distance 0) are reported apart, since the dev sets have none by construction, and the other shares are of the
changed pairs. Edit kinds come from one alignment for every set (`typofix.training.channel.edit_blocks`: insertion,
deletion, substitution, transposition, or a multi-letter run of changes), not from what the generator meant to
do. `TV` is the total variation distance to the pooled dev sets' shares (0: the same profile, 100: disjoint).
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

from typofix.training.channel import KINDS, edit_blocks
from typofix.training.data import TypoDataModule, resolve_dev_set
from typofix.files.misspellings import read_misspellings
from typofix.words.distance import osa_distance

DEV_SETS = ("norvig-testset1.tsv", "birkbeck-dev.tsv")
DISTANCES = ("1", "2", ">2")


def generated(channel: str, samples: int, seed: int) -> list[tuple[str, str]]:
    """(typo, word) of the first `samples` training samples of epoch 0 with `channel`."""
    dm = TypoDataModule(seed=seed, epoch_size=samples, dev_sets={}, channel=channel)
    dm.setup()
    return [dm.train_set.pair(0, i) for i in range(samples)]


def dev_pairs() -> dict[str, list[tuple[str, str]]]:
    return {name: read_misspellings(resolve_dev_set(name)) for name in DEV_SETS}


def profile(pairs) -> dict:
    """Identity share, then shares (%) of the changed pairs at distance 1, 2, >2, and of their edits by kind;
    edits per changed word and mean word length."""
    changed = [(t, w) for t, w in pairs if t != w]
    buckets = Counter(min(osa_distance(t, w), 3) for t, w in changed)
    blocks = [edit_blocks(w, t) for t, w in changed]
    kinds = Counter(b.kind for bs in blocks for b in bs)
    n_edits = sum(kinds.values())
    return {
        "rows": len(pairs),
        "identity": 100 * (len(pairs) - len(changed)) / len(pairs),
        "distance": {label: 100 * buckets[d] / len(changed) for d, label in zip((1, 2, 3), DISTANCES)},
        "kinds": {k: 100 * kinds[k] / n_edits for k in KINDS},
        "edits_per_word": n_edits / len(changed),
        "length": float(np.mean([len(w) for _, w in pairs])),
    }


def total_variation(p: dict[str, float], q: dict[str, float]) -> float:
    """Half the L1 distance between two share tables (in %)."""
    return sum(abs(p[k] - q[k]) for k in p) / 2


def table(profiles: dict[str, dict], reference: str) -> str:
    """Markdown table of `profiles`, with the TV distance of each to `profiles[reference]`."""
    ref = profiles[reference]
    head = (["set", "rows", "identity"] + [f"dist {d}" for d in DISTANCES] + ["TV dist"] + list(KINDS)
            + ["TV kinds", "edits/word", "word length"])
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for name, p in profiles.items():
        cells = [name, str(p["rows"]), f"{p['identity']:.1f}"]
        cells += [f"{p['distance'][d]:.1f}" for d in DISTANCES]
        cells.append(f"{total_variation(p['distance'], ref['distance']):.1f}")
        cells += [f"{p['kinds'][k]:.1f}" for k in KINDS]
        cells.append(f"{total_variation(p['kinds'], ref['kinds']):.1f}")
        cells += [f"{p['edits_per_word']:.2f}", f"{p['length']:.1f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()
    dev = dev_pairs()
    sets = {f"generated, hand-set channel (n={args.samples})": generated("handset", args.samples, args.seed),
            f"generated, fitted channel (n={args.samples})": generated("fitted", args.samples, args.seed),
            **dev, "dev sets pooled": [pair for pairs in dev.values() for pair in pairs]}
    print(table({name: profile(pairs) for name, pairs in sets.items()}, "dev sets pooled"))


if __name__ == "__main__":
    main()
