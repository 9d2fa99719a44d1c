"""Choose the corrector's decoding settings on the dev sets only: beam width, length normalisation (alpha),
edit candidates on or off, how many two-edit candidates, prior weight (lambda), edit-distance weight (mu),
first-letter weight (beta) and the known-word threshold.

Usage (from the repository root)::

    python -m bench.tune_decoding --model outputs/bundled/checkpoints/last.ckpt [--beams 1 4 8] [--limit N]

Each (beam, alpha, edit candidates, two-edit candidates) decodes the dev typos once with the prior off (alpha
also decides when the search stops, so it needs its own decode); lambda, mu, beta and the threshold only re-rank
or override that decode's candidates, so they are scored offline: score = log P / (len + 1) ** alpha
+ lambda * log P_prior(word) - mu * edits(typo, word) - beta * [first letters differ], and a typo whose
word-list count reaches the threshold is left as it is. The chosen
values belong in `typofix/corrector.py` (DEFAULT_*); `typofix evaluate` on each dev set with them must print the
same top-1.

A sample of correct words (drawn from the word list, weighted by count) is decoded too: the share of them a
setting would change is the price of a threshold that corrects known words. Holdout sets are refused.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from pathlib import Path

DEV_SETS = ("data/eval/norvig-testset1.tsv", "data/eval/birkbeck-dev.tsv")
ALPHAS = (0.5, 1.0, 1.5)
LAMBDAS = (0.0, 0.02, 0.03, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.6)
MUS = (0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5)
BETAS = (0.0, 0.1, 0.2, 0.3)
THRESHOLDS = (0, 1, 1_000_000, 10_000_000)  # 0: decode every word; 1: leave every listed word alone


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m bench.tune_decoding", description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="checkpoint or slim export to tune for")
    parser.add_argument("--sets", nargs="+", default=list(DEV_SETS), help="dev TSVs (never the holdout sets)")
    parser.add_argument("--beams", nargs="+", type=int, default=[1, 2, 4, 8, 12])
    parser.add_argument("--alphas", nargs="+", type=float, default=None, help=f"default {ALPHAS}")
    parser.add_argument("--edits", nargs="+", type=lambda x: x.lower() in ("1", "true", "on"), default=[False, True],
                        help="edit candidates off and/or on (0 1)")
    parser.add_argument("--two-edits", nargs="+", type=int, default=[0, 5],
                        help="numbers of most frequent two-edit words scored too (0: none)")
    parser.add_argument("--limit", type=int, default=None, help="at most N rows per set (seeded sample)")
    parser.add_argument("--correct-sample", type=int, default=500, help="correct words decoded per beam")
    parser.add_argument("--top", type=int, default=15, help="settings shown, best first")
    return parser.parse_args(argv)


def load_sets(paths, limit):
    from typofix.misspellings import read_misspellings

    sets = {}
    for path in paths:
        if "holdout" in Path(path).parts:
            sys.exit(f"refusing {path}: decoding is tuned on the dev sets only")
        rows = read_misspellings(path)
        if limit and len(rows) > limit:
            keep = sorted(random.Random(0).sample(range(len(rows)), limit))
            rows = [rows[i] for i in keep]
        sets[Path(path).stem] = rows
    return sets


def correct_word_sample(lexicon, n: int) -> list[str]:
    """Words the corrector should leave alone, drawn by frequency (the words a text is made of)."""
    words = [w for w in lexicon.counts if len(w) >= 2]
    return list(dict.fromkeys(random.Random(1).choices(words, weights=[lexicon.count(w) for w in words], k=n)))


def decode_raw(model_path, beam, alpha, one_edits, two_edits, words):
    """{word: [(candidate, length-normalised log P, log prior, edits from the word), ...]} from one
    lexicon-constrained decode with the prior and edit weight off (every candidate kept), and its words/s."""
    from typofix.corrector import Corrector
    from typofix.typos import osa_distance

    corrector = Corrector.load(model_path, beam=beam, prior_weight=0.0, alpha=alpha, known_min_count=0,
                               edit_candidates=one_edits, edit_weight=0.0, two_edit_candidates=two_edits)
    start = time.perf_counter()
    ranked = corrector.suggest_many(words, 1_000_000)
    speed = len(words) / (time.perf_counter() - start)
    lexicon = corrector.lexicon
    raw = {word: [(c, s, lexicon.log_prior(c), osa_distance(word, c)) for c, s in candidates]
           for word, candidates in zip(words, ranked)}
    return raw, speed, lexicon


def best_candidate(typo, candidates, lexicon, lam, mu, beta, threshold):
    if (threshold and lexicon.count(typo) >= threshold) or not candidates:
        return typo
    return max(candidates, key=lambda c: c[1] + lam * c[2] - mu * c[3] - beta * (c[0][:1] != typo[:1]))[0]


def main(argv=None) -> int:
    import torch

    torch.set_num_threads(1)
    args = parse_args(argv)
    sets = load_sets(args.sets, args.limit)
    results = []  # (mean top-1, beam, alpha, edits, lambda, mu, beta, threshold, per-set top-1, changed share)
    speeds = {}
    typos = list(dict.fromkeys(t for rows in sets.values() for t, _ in rows))
    grid = itertools.product(args.beams, ALPHAS if args.alphas is None else args.alphas, args.edits, args.two_edits)
    for beam, alpha, one, two in grid:
        if beam == 1 and alpha != ALPHAS[0] and args.alphas is None and not one and not two:
            continue  # one hypothesis: nothing to re-rank, alpha only changes when it stops
        edits = f"{'on' if one else 'off'}+{two}"  # the extra candidates: one-edit words on/off, + two-edit words
        raw, speed, lexicon = decode_raw(args.model, beam, alpha, one, two, typos)
        speeds[beam, alpha, edits] = speed
        sample = correct_word_sample(lexicon, args.correct_sample)
        raw_correct, _, _ = decode_raw(args.model, beam, alpha, one, two, sample)
        for lam, mu, beta, threshold in itertools.product(LAMBDAS, MUS, BETAS, THRESHOLDS):
            per_set = {name: sum(best_candidate(t, raw[t], lexicon, lam, mu, beta, threshold) == target
                                 for t, target in rows) / len(rows) for name, rows in sets.items()}
            changed = sum(best_candidate(w, raw_correct[w], lexicon, lam, mu, beta, threshold) != w
                          for w in sample) / len(sample)
            mean = sum(per_set.values()) / len(per_set)
            results.append((mean, beam, alpha, edits, lam, mu, beta, threshold, per_set, changed))
        print(f"beam {beam}, alpha {alpha}, edit candidates {edits}: {len(typos)} typos at {speed:.0f} words/s",
              file=sys.stderr)

    names = list(sets)
    print(f"{'mean':>6} {'beam':>4} {'alpha':>5} {'edits':>6} {'lambda':>6} {'mu':>5} {'beta':>5} {'known>=':>8} "
          + " ".join(f"{n[:14]:>14}" for n in names) + f" {'changes correct':>15}")
    for mean, beam, alpha, edits, lam, mu, beta, threshold, per_set, changed in sorted(results,
                                                                                key=lambda r: -r[0])[:args.top]:
        print(f"{100 * mean:6.2f} {beam:4d} {alpha:5.2f} {edits:>6} {lam:6.2f} {mu:5.2f} {beta:5.2f} {threshold:8d} "
              + " ".join(f"{100 * per_set[n]:14.2f}" for n in names) + f" {100 * changed:14.1f}%")
    print("\nbest per beam and edit candidates, with and without the edit-distance term (words/s: its decode on "
          "this machine, one thread):")
    for (beam, edits), with_mu in itertools.product(dict.fromkeys((b, e) for b, _, e in speeds), (False, True)):
        mean, _, alpha, _, lam, mu, beta, threshold, per_set, _ = max(
            (r for r in results if r[1] == beam and r[3] == edits and (r[5] > 0) == with_mu), key=lambda r: r[0])
        print(f"  beam {beam:2d} edits {edits:6} mu {mu:4.2f}: {100 * mean:.2f} mean top-1 (" + ", ".join(
            f"{n} {100 * per_set[n]:.1f}" for n in names) + f"; alpha {alpha}, lambda {lam}, beta {beta}, "
            f"known>={threshold}), {speeds[beam, alpha, edits]:.0f} words/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
