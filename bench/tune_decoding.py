"""Choose the correction engine's settings (`typofix.engine.settings.DecodingSettings`) on the dev sets only.

Usage (from the repository root)::

    python -m bench.tune_decoding [--preset default|fast] [--model PATH] [--beams 8 12 24] [--limit N] [--top 15]

For each beam width, every dev typo the engine would correct (not an accepted word) is searched once with the
wide pass forced on, recording each candidate's log P_model, length, edits, prior and where it came from (the
cheap pass or the wide pass): `Corrector.trace`. Everything else is scored offline from that record,
vectorised: the channel weights (alpha, lambda, mu, beta), the confidence rule (min_confidence) and the gate
that sends a word to the wide pass (wide_margin, wide_min_edits). A word the gate keeps cheap is ranked among
its cheap candidates only. The cost of a setting is the share of words that go wide, turned into an estimate
of words/s from the measured time of a cheap-only and a wide-for-all run.

The candidates, the model and the cheap pass are the preset's (`--preset`, default: the default). With
`--scorer fitted` the candidates are scored by the preset's fitted weights (`typofix.engine.ranking`, data/rerank.json or
data/rerank-fast.json, from `bench/fit_rerank.py --preset`) and only the confidence rule and the gate are searched, over FITTED_MIN_CONFIDENCES
and FITTED_WIDE_MARGINS (the fitted scores are on their own scale).

Offline scoring is an approximation in two ways, both small: alpha also decides when the beam stops, and the
wide beam's pruning floor comes from the cheap best under the settings it ran with. Check the chosen values
with `typofix evaluate` on each dev set. Holdout sets are refused.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from pathlib import Path

import numpy as np

DEV_SETS = ("data/eval/norvig-testset1.tsv", "data/eval/birkbeck-dev.tsv")
ALPHAS = (1.25, 1.5, 1.75, 2.0)
LAMBDAS = (0.02, 0.03, 0.05, 0.08)
MUS = (0.0, 0.1, 0.2, 0.3)
BETAS = (0.0, 0.1, 0.2, 0.3)
MIN_CONFIDENCES = (-1.0, -0.5, -0.3, 0.0)
WIDE_MARGINS = (0.3, 0.5, 0.7, 1.0)
WIDE_MIN_EDITS = (0, 3)
FITTED_MIN_CONFIDENCES = (-5.0, -4.0, -3.0, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5)
FITTED_WIDE_MARGINS = (1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 10.0, 12.0, 1e9)


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m bench.tune_decoding", description=__doc__.splitlines()[0])
    parser.add_argument("--preset", choices=("default", "fast"), default="default",
                        help="the preset whose model, cheap pass and candidates are traced")
    parser.add_argument("--model", default=None, help="model file (default: the preset's bundled model)")
    parser.add_argument("--sets", nargs="+", default=list(DEV_SETS), help="dev TSVs (never the holdout sets)")
    parser.add_argument("--beams", nargs="+", type=int, default=[24])
    parser.add_argument("--shortlist", type=int, default=None, help="cheap-pass shortlist (default: the preset's)")
    parser.add_argument("--limit", type=int, default=None, help="at most N rows per set (seeded sample)")
    parser.add_argument("--top", type=int, default=15, help="settings shown, best first")
    parser.add_argument("--scorer", choices=("hand", "fitted"), default="hand",
                        help="hand: search the channel weights too; fitted: the preset's fitted weights, search the "
                             "confidence rule and the gate only")
    return parser.parse_args(argv)


def load_sets(paths, limit):
    from typofix.files.misspellings import read_misspellings

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


class Record:
    """Every candidate of every traced typo (`Corrector.trace`: each typo's last pass, which holds the cheap
    pass's candidates too) as flat arrays, grouped by typo (`start[i]:start[i + 1]`)."""

    def __init__(self, traces: dict, typos: list[str]):
        columns = {name: [] for name in ("log_prob", "steps", "prior", "edits", "first", "keep", "cheap", "word")}
        self.typos, self.start = typos, [0]
        for typo in typos:
            trace = traces[typo]
            for word, found in trace.final.items():
                columns["log_prob"].append(found.log_prob)
                columns["steps"].append(found.steps)
                columns["prior"].append(found.prior)
                columns["edits"].append(found.edits)
                columns["first"].append(word[:1] != typo[:1])
                columns["keep"].append(word == typo)
                columns["cheap"].append(word in trace.cheap)
                columns["word"].append(word)
            self.start.append(len(columns["word"]))
        self.words = columns.pop("word")
        for name, values in columns.items():
            setattr(self, name, np.array(values, dtype=np.float64))
        self.keep, self.cheap = self.keep.astype(bool), self.cheap.astype(bool)
        self.owner = np.repeat(np.arange(len(typos)), np.diff(self.start))

    def scores(self, alpha, lam, mu, beta) -> np.ndarray:
        return self.log_prob / self.steps ** alpha + lam * self.prior - mu * self.edits - beta * self.first

    def fitted_scores(self, scorer, sounds=None) -> np.ndarray:
        """Every candidate's score under a `typofix.engine.ranking.FittedScorer` (features per typo, as the engine
        does; `sounds`, the corrector's phone channel, for a scorer that weighs how words sound)."""
        groups = [self.words[a:b] for a, b in zip(self.start[:-1], self.start[1:])]
        phones = sounds.distances(self.typos, groups) if scorer.uses_phones else None
        return scorer.scores_many(self.typos, groups, self.log_prob, self.steps, self.prior, self.edits, phones)

    def best(self, scores: np.ndarray, allowed: np.ndarray, min_confidence: float) -> tuple[np.ndarray, np.ndarray]:
        """Per typo: the index of its chosen candidate among `allowed` ones (the typo itself unless the best
        other beats it by `min_confidence`), and that best other's margin over the typo."""
        n = len(self.typos)
        other = np.where(allowed & ~self.keep, scores, -np.inf)
        keep = np.full(n, -np.inf)
        np.maximum.at(keep, self.owner, np.where(self.keep, scores, -np.inf))
        best_other = np.full(n, -np.inf)
        np.maximum.at(best_other, self.owner, other)
        is_best = (other == best_other[self.owner]) & np.isfinite(other)
        first = np.full(n, -1)
        hits = np.flatnonzero(is_best)
        first[self.owner[hits][::-1]] = hits[::-1]  # the first best per typo
        keep_index = np.full(n, -1)
        keep_hits = np.flatnonzero(self.keep)
        keep_index[self.owner[keep_hits]] = keep_hits
        margin = best_other - keep
        chosen = np.where((first >= 0) & (margin >= min_confidence), first, keep_index)
        return chosen, margin


def trace_sets(preset, model, beam, shortlist, typos):
    """The traces of a wide-for-all search of `typos` (those not accepted) with the `preset`'s candidates, and
    the seconds of a beam-1 and a `beam` run of them (both traced, the wide pass for all)."""
    from typofix.engine.corrector import Corrector
    from typofix.engine.settings import DecodingSettings

    settings = DecodingSettings.preset(preset, beam=beam, wide_margin=1e9, shortlist=shortlist)
    corrector = Corrector.load(model, settings=settings)
    todo = [t for t in typos if not corrector.is_accepted(t) and corrector.vocab.covers(t)]
    corrector.trace(todo[:20])  # warm: the lazily built tables
    traces: dict = {}
    start = time.perf_counter()
    for i in range(0, len(todo), 1024):
        traces.update(corrector.trace(todo[i:i + 1024]))
    wide_seconds = time.perf_counter() - start
    cheap = Corrector.load(model, settings=settings.with_(beam=1))
    cheap.trace(todo[:20])
    start = time.perf_counter()
    for i in range(0, len(todo), 1024):
        cheap.trace(todo[i:i + 1024])
    return corrector, todo, traces, time.perf_counter() - start, wide_seconds


def main(argv=None) -> int:
    args = parse_args(argv)
    sets = load_sets(args.sets, args.limit)
    typos = sorted({t for rows in sets.values() for t, _ in rows})
    for beam in args.beams:
        corrector, todo, traces, cheap_s, wide_s = trace_sets(args.preset, args.model, beam, args.shortlist, typos)
        record = Record(traces, todo)
        index = {t: i for i, t in enumerate(todo)}
        print(f"beam {beam}: {len(todo)} typos searched; cheap pass {len(todo) / cheap_s:.0f} words/s, wide for all "
              f"{len(todo) / wide_s:.0f} words/s (one thread)", file=sys.stderr)

        # Per set and row: the searched typo's number and the candidate index that is the row's target (-1: the
        # target is not among its candidates, or the typo is accepted and stays, which is never the target).
        where = {(record.owner[i], record.words[i]): i for i in range(len(record.words))}
        rows_of = {name: (np.array([index.get(t, -1) for t, _ in rows]),
                          np.array([where.get((index.get(t, -1), target), -2) for t, target in rows]))
                   for name, rows in sets.items()}

        def top1(chosen):
            return {name: float(np.mean((typo >= 0) & (chosen[typo] == target)))
                    for name, (typo, target) in rows_of.items()}

        results = []
        if args.scorer == "fitted":
            from typofix.engine.ranking import FittedScorer, table_path

            fitted = FittedScorer.load(table_path(corrector.settings.rerank_table))
            grid = [(fitted.alpha, None, None, None)]
            min_confidences, wide_margins = FITTED_MIN_CONFIDENCES, FITTED_WIDE_MARGINS
        else:
            grid = list(itertools.product(ALPHAS, LAMBDAS, MUS, BETAS))
            min_confidences, wide_margins = MIN_CONFIDENCES, WIDE_MARGINS
        for alpha, lam, mu, beta in grid:
            scores = (record.fitted_scores(fitted, corrector.sounds) if lam is None
                      else record.scores(alpha, lam, mu, beta))
            cheap_choice, cheap_margin = None, None
            for mc in min_confidences:
                cheap_choice, cheap_margin = record.best(scores, record.cheap, mc)
                wide_choice, _ = record.best(scores, np.ones_like(record.cheap), mc)
                for margin, far in itertools.product(wide_margins, WIDE_MIN_EDITS):
                    gate = cheap_margin - mc < margin
                    if far:
                        gate |= record.edits[cheap_choice] >= far
                    chosen = np.where(gate, wide_choice, cheap_choice)
                    per_set = top1(chosen)
                    wide_share = float(gate.mean())
                    speed = len(todo) / (cheap_s + wide_share * wide_s)  # the wide run re-did the cheap pass
                    results.append((sum(per_set.values()) / len(per_set), alpha, lam, mu, beta, mc, margin, far,
                                    per_set, wide_share, speed))
        names = list(sets)
        print(f"{'mean':>6} {'alpha':>5} {'lambda':>6} {'mu':>4} {'beta':>4} {'min_conf':>8} {'wide<':>5} {'far':>3} "
              + " ".join(f"{n[:15]:>15}" for n in names) + f" {'wide':>5} {'est. w/s':>8}")
        for r in sorted(results, key=lambda r: -r[0])[:args.top]:
            print(_line(r, names))
        print("\nfastest settings within 0.5 points of the best mean:")
        best_mean = max(r[0] for r in results)
        for r in sorted((r for r in results if r[0] >= best_mean - 0.005), key=lambda r: -r[10])[:args.top]:
            print(_line(r, names))
    return 0


def _line(result, names) -> str:
    """One result row of the table (the fitted scorer has no lambda, mu, beta: shown as -)."""
    mean, alpha, lam, mu, beta, mc, margin, far, per_set, wide_share, speed = result
    weights = (f"{lam:6.2f} {mu:4.1f} {beta:4.1f}" if lam is not None else f"{'-':>6} {'-':>4} {'-':>4}")
    return (f"{100 * mean:6.2f} {alpha:5.2f} {weights} {mc:8.2f} {margin:5.2f} {far:3d} "
            + " ".join(f"{100 * per_set[n]:15.2f}" for n in names) + f" {wide_share:5.2f} {speed:8.0f}")


if __name__ == "__main__":
    sys.exit(main())
