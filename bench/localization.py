"""Typo localization: how often `typofix correct --explain` points at exactly the characters a typo changed.

Usage (from the repository root)::

    python -m bench.localization [--model PATH] [--n 1000] [--seed 0] [--sampling uniform|frequency|both]

Typos: one generated edit each (`typofix.training.noise.TypoGenerator` with one edit and no identity pairs, so every
typo differs from its word) of held-out words (the test split of `TypoDataModule`: never trained on), drawn
uniformly (like the val/test sets: mostly rare words) and by frequency (like running text). The
generator says where its edit is (`Typo.edits`, a span in the typo). Three localizers are scored against it:

* **explain**: what `typofix correct --explain` prints, the diff of the typo and the corrector's output
  (`Corrector.correct`, the same decoding `typofix correct` uses). Located exactly: the diff is one change
  with the edit's span. Both sides are compared in canonical form (`explain.normalized_change`: the shared
  edge characters trimmed, insertions and deletions slid right across repeated letters), since "buter" misses
  its second "t" as much as its first.
* **copy probability**: the input character the model least believes when asked to write the typo back
  unchanged (`search.forced_log_probs`): a hit when it lies in the edit's span (a missing-character edit: the
  character right after the gap, or the end of the word).
* **attention**: the input positions the output does not copy one-to-one (`explain.uncopied_positions` on the
  attention of the model's top output): a hit when they are exactly the span's positions (missing characters:
  the character right after the gap).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter, defaultdict

import numpy as np
import torch

from typofix.engine.corrector import Corrector
from typofix.training.data import TypoDataModule
from typofix.engine.explain import changes, normalized_change, uncopied_positions
from typofix.engine.scoring import forced_log_probs
from typofix.training.noise import TypoGenerator

SAMPLINGS = {
    "uniform": "held-out words drawn uniformly (as val/test: mostly rare words)",
    "frequency": "held-out words drawn by corpus frequency (as in running text)",
}


def held_out_typos(corrector: Corrector, n: int, seed: int, sampling: str):
    """Up to `n` (word, typo, truth change, kind) of distinct test-split words, one generated edit each."""
    datamodule = TypoDataModule(alphabet=corrector.vocab.alphabet, dev_sets={})
    datamodule.setup()
    words = sorted(datamodule.splits["test"])
    weights = np.ones(len(words))
    if sampling == "frequency":
        weights = np.array([corrector.lexicon.count(w) for w in words], dtype=float)
    picked = np.random.default_rng(seed).choice(len(words), size=min(n, len(words)), replace=False,
                                                p=weights / weights.sum())
    generator = TypoGenerator(edit_count_probs=(1.0,), identity_rate=0.0)
    for index, word in enumerate(words[i] for i in picked):
        typo = generator.sample(word, seed, 0, index)
        if typo.text == word:  # the edit found no place to go (rare: very short words)
            continue
        edit = typo.edits[0]
        yield word, typo.text, normalized_change(typo.text, edit.start, edit.end, edit.before), edit.kind


def positions(change) -> set[int]:
    """The typo positions a change covers; for missing characters, the one right after the gap."""
    return set(range(change.start, change.end)) if change.end > change.start else {change.start}


def copy_probabilities(corrector: Corrector, typo: str) -> np.ndarray:
    """P(the model writes typo[t] | typo[:t], typo) for every t, then P(end of word): (len(typo) + 1,)."""
    ids = corrector.vocab.encode(typo)
    src = np.array([ids], dtype=np.int64)  # (1, S)
    return np.exp(forced_log_probs(corrector.stepper, src, np.array([len(ids)]), [ids])[0][0])


def score(corrector: Corrector, rows) -> tuple[Counter, dict[str, Counter]]:
    """Hits of every localizer, overall and by kind of edit."""
    outputs = corrector.correct_many([typo for _, typo, _, _ in rows])
    total, by_kind = Counter(), defaultdict(Counter)
    for (word, typo, truth, kind), output in zip(rows, outputs):
        found = changes(typo, output)
        located = len(found) == 1 and found[0].span == truth.span
        suspect = int(copy_probabilities(corrector, typo).argmin())  # len(typo) stands for the end of the word
        best = corrector.explain(typo, k=1)[0]
        attention = (best.attn is not None
                     and set(uncopied_positions(typo, best.word, best.attn)) == positions(truth))
        hits = {"n": True, "explain": located, "copy": suspect in positions(truth), "attention": attention,
                "corrected": output == word, "corrected and located": output == word and located}
        total.update(k for k, v in hits.items() if v)
        by_kind[kind].update(k for k, v in hits.items() if v)
    return total, by_kind


def report(sampling: str, total: Counter, by_kind: dict[str, Counter]) -> None:
    n = total["n"]
    share = lambda count, of=n: f"{100 * count / max(1, of):5.1f}%"  # noqa: E731
    print(f"\n{n} single-edit typos, {SAMPLINGS[sampling]}")
    print(f"  located exactly by --explain (diff of typo and correction)  {share(total['explain'])}")
    print(f"  corrected to the intended word                               {share(total['corrected'])}")
    print(f"    of those, located exactly                                  "
          f"{share(total['corrected and located'], total['corrected'])}")
    print(f"  least-believed character (copy probability) in the edit      {share(total['copy'])}")
    print(f"  attention: uncopied positions == the edit's positions        {share(total['attention'])}")
    print("  by kind of edit:        n  explain     copy  attention")
    for kind, counts in sorted(by_kind.items(), key=lambda item: -item[1]["n"]):
        k = counts["n"]
        print(f"    {kind:15s} {k:6d}  {share(counts['explain'], k)}   {share(counts['copy'], k)}   "
              f"{share(counts['attention'], k)}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.localization", description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="model file (default: the bundled model)")
    parser.add_argument("--n", type=int, default=1000, help="held-out words to misspell per sampling (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="word sample and typo seed (default 0)")
    parser.add_argument("--sampling", choices=[*SAMPLINGS, "both"], default="both")
    args = parser.parse_args(argv)

    torch.set_num_threads(1)
    start = time.perf_counter()
    corrector = Corrector.load(args.model)
    print(f"typo localization, model {args.model or 'bundled'}, seed {args.seed}")
    for sampling in SAMPLINGS if args.sampling == "both" else [args.sampling]:
        report(sampling, *score(corrector, list(held_out_typos(corrector, args.n, args.seed, sampling))))
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
