"""Fit the correction engine's scorer (`typofix.engine.ranking`) to the dev sets: write data/rerank.json (or data/rerank-fast.json).

    python -m bench.fit_rerank [--preset default|fast] [--out PATH] [--folds 5] [--model PATH]

Reads the two dev sets only (data/eval/birkbeck-dev.tsv, data/eval/norvig-testset1.tsv; holdout sets are
refused). Every dev typo the engine would correct is searched once with the preset's model and candidates and
the wide pass forced on (`Corrector.trace`), and each candidate's features are computed
by `typofix.engine.ranking.features`, the function the engine scores with. The weights are a conditional logit:
softmax over a typo's candidates (the typo itself left out: a dev row's answer is never its typo), trained
to put the right word first, on the rows whose right word is among the candidates, with a small L2 penalty;
full-batch L-BFGS in torch.

Before the weights it reports k-fold cross-validation, folds grouped by the *correct* word (birkbeck-dev has
about six misspellings of each word, which must not sit on both sides of a fold): top-1 among each typo's
candidates with the fitted weights and with the hand-set channel (`DecodingSettings`' alpha, prior, edit
and first-letter weights), on the held-out fold. Those are the honest figures; the weights written are then
fitted on all rows. Deterministic: the same dev sets and model give the same table.

Each preset has its own table (`DecodingSettings.rerank_table`), written by default to data/ under its name:
the fast preset's model scores differently and its candidates are fewer, so its weights are fitted to them.
It also reports how far these features go on each set when nothing is held out: weights fitted to that set
alone, scored on the same rows (not a result: what a linear score over these features can separate there).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

from bench.tune_decoding import Record
from typofix.files.atomic import atomic_path
from typofix.engine.ranking import FEATURES, features

ROOT = Path(__file__).resolve().parent.parent
DEV_SETS = (ROOT / "data/eval/norvig-testset1.tsv", ROOT / "data/eval/birkbeck-dev.tsv")
L2 = 1e-4


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m bench.fit_rerank", description=__doc__.splitlines()[0])
    parser.add_argument("--preset", choices=("default", "fast"), default="default",
                        help="whose candidates and bundled model to fit to (default: the default preset)")
    parser.add_argument("--out", default=None, help="where to write the table (default: the preset's, in data/)")
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (grouped by correct word)")
    parser.add_argument("--model", default=None, help="model file (default: the bundled model)")
    parser.add_argument("--sets", nargs="+", default=[str(p) for p in DEV_SETS], help="dev TSVs (never the holdout)")
    return parser.parse_args(argv)


class Candidates:
    """Every traced typo's candidates: their words, features (N, F) and whether each is the typo itself."""

    def __init__(self, corrector, typos: list[str], alpha: float):
        traces: dict = {}
        for start in range(0, len(typos), 1024):
            traces.update(corrector.trace(typos[start:start + 1024]))
        record = Record(traces, typos)  # the tuner's flat arrays of the same traces
        groups = [record.words[a:b] for a, b in zip(record.start[:-1], record.start[1:])]
        # How far each candidate sounds from its typo (the phone channel), where the corrector has one.
        phones = corrector.sounds.distances(typos, groups) if corrector.sounds is not None else None
        self.words, self.features, self.is_typo = {}, {}, {}
        for i, typo in enumerate(typos):
            a, b = record.start[i], record.start[i + 1]
            self.words[typo] = record.words[a:b]
            self.features[typo] = features(typo, record.words[a:b], record.log_prob[a:b], record.steps[a:b],
                                           record.prior[a:b], record.edits[a:b], alpha,
                                           phones[a:b] if phones is not None else None)
            self.is_typo[typo] = record.keep[a:b]


def fit(examples, candidates: Candidates) -> np.ndarray:
    """Conditional-logit weights (F,) from (typo, correct word) rows whose correct word is a candidate."""
    import torch

    rows = [(candidates.features[t][~candidates.is_typo[t]],
             [w for w, own in zip(candidates.words[t], candidates.is_typo[t]) if not own].index(c))
            for t, c in examples]
    width = max(len(x) for x, _ in rows)
    x = torch.zeros(len(rows), width, len(FEATURES), dtype=torch.float64)  # (R, N, F), padded
    real = torch.zeros(len(rows), width, dtype=torch.bool)  # (R, N)
    for r, (feats, _) in enumerate(rows):
        x[r, :len(feats)] = torch.from_numpy(feats)
        real[r, :len(feats)] = True
    target = torch.tensor([right for _, right in rows])
    weights = torch.zeros(len(FEATURES), dtype=torch.float64, requires_grad=True)
    optimiser = torch.optim.LBFGS([weights], max_iter=500, line_search_fn="strong_wolfe")

    def loss():
        optimiser.zero_grad()
        scores = (x @ weights).masked_fill(~real, -1e9)  # (R, N)
        value = torch.nn.functional.cross_entropy(scores, target) + L2 * (weights ** 2).sum()
        value.backward()
        return value

    optimiser.step(loss)
    return weights.detach().numpy()


def hand_weights(settings) -> np.ndarray:
    """The hand-set channel as weights over FEATURES (with the same alpha, it ranks the same)."""
    w = dict.fromkeys(FEATURES, 0.0)
    w.update(model_score=1.0, log_prior=settings.prior_weight, first_letter_differs=-settings.first_letter_weight,
             one_edit=-settings.edit_weight, two_edits=-2 * settings.edit_weight,
             three_edits=-3 * settings.edit_weight, four_plus_edits=-4 * settings.edit_weight)
    return np.array([w[name] for name in FEATURES])


def top1(rows, candidates: Candidates, weights: np.ndarray) -> float:
    """Share of (typo, correct) rows whose best candidate other than the typo is the correct word."""
    hits = 0
    for typo, correct in rows:
        if typo not in candidates.words:
            continue  # accepted as it is, or unreadable: a miss
        scores = np.where(candidates.is_typo[typo], -np.inf, candidates.features[typo] @ weights)
        hits += candidates.words[typo][int(np.argmax(scores))] == correct
    return hits / len(rows)


def main(argv=None) -> int:
    args = parse_args(argv)
    from typofix.engine.corrector import Corrector
    from typofix.engine.settings import DecodingSettings
    from typofix.files.misspellings import read_misspellings

    sets = {}
    for path in args.sets:
        if "holdout" in Path(path).parts:
            sys.exit(f"refusing {path}: the scorer is fitted on the dev sets only")
        sets[Path(path).stem] = read_misspellings(path)
    preset = DecodingSettings.preset(args.preset)
    out = args.out or str(ROOT / "data" / preset.rerank_table)
    hand = preset.with_(scorer="hand")
    corrector = Corrector.load(args.model, settings=hand.with_(wide_margin=1e9))
    typos = sorted({t for rows in sets.values() for t, _ in rows
                    if not corrector.is_accepted(t) and corrector.vocab.covers(t)})
    candidates = Candidates(corrector, typos, hand.alpha)
    usable = lambda rows: [(t, c) for t, c in rows if t in candidates.words and c in candidates.words[t]]  # noqa: E731

    words = sorted({c for rows in sets.values() for _, c in rows})
    random.Random(0).shuffle(words)
    fold_of = {w: i % args.folds for i, w in enumerate(words)}
    fitted_hits = dict.fromkeys(sets, 0.0)
    for fold in range(args.folds):
        train = [(t, c) for rows in sets.values() for t, c in usable(rows) if fold_of[c] != fold]
        weights = fit(train, candidates)
        for name, rows in sets.items():
            held = [(t, c) for t, c in rows if fold_of[c] == fold]
            fitted_hits[name] += top1(held, candidates, weights) * len(held)
    report = {name: {"fitted, cross-validated": round(100 * fitted_hits[name] / len(rows), 2),
                     "hand-set channel": round(100 * top1(rows, candidates, hand_weights(hand)), 2),
                     "candidate recall": round(100 * len(usable(rows)) / len(rows), 2)}
              for name, rows in sets.items()}
    weights = fit([row for rows in sets.values() for row in usable(rows)], candidates)
    for name, rows in sets.items():
        report[name]["fitted on all rows"] = round(100 * top1(rows, candidates, weights), 2)
        report[name]["fitted to this set alone, scored on it"] = round(
            100 * top1(rows, candidates, fit(usable(rows), candidates)), 2)
    print(f"top-1 among the {args.preset} preset's candidates, the wide pass for every typo ({args.folds}-fold, "
          "grouped by correct word):")
    for name, figures in report.items():
        print(f"  {name}: " + ", ".join(f"{k} {v}%" for k, v in figures.items()))
    table = {"source": f"bench/fit_rerank.py --preset {args.preset} on " + ", ".join(sets), "alpha": hand.alpha,
             "weights": {name: round(float(w), 4) for name, w in zip(FEATURES, weights)}, "top1": report}
    with atomic_path(out) as tmp:
        Path(tmp).write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}: " + ", ".join(f"{k} {v}" for k, v in table["weights"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
