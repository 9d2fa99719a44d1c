"""What each step of the correction engine buys: top-1 and words/s on the dev sets, one core, one run, as the
engine's parts are switched on one at a time (the table of the fast-and-safe issue's note).

Usage (from the repository root)::

    python -m bench.engine_steps [--limit 1000]

Rows: the same typos for every configuration (norvig-testset1 whole, a seeded sample of birkbeck-dev), decoded
with `suggest_many(k=5)` as `typofix evaluate` does; loading is not timed. Every configuration but the last
ranks by the hand-set channel (the `hand` preset: the default when this table was made, before the fitted
scorer, `typofix.engine.ranking`). Configurations, cumulative:

1. wide search for every word (beam 24, every word one edit away, the 5 most frequent two away, 5
   sound-alikes), no pruning, the float (fp16-weight) ONNX model: one encoding per typo, every candidate scored
   in a shared prefix trie (the old engine encoded the typo again per candidate and scored each from its first
   character: see `trie_vs_separate` below);
2. + the stop bound: wide-beam hypotheses that cannot beat the cheap answer are dropped;
3. + the gate: the wide search only for words whose cheap answer is uncertain;
4. + the int8 model;
5. + beam 12 instead of 24;
6. + no beam search in the wide pass, its neighbours alone (beam 1);
7. + fewer wide-pass neighbours: no more one-edit words than the cheap pass's shortlist, 3 two-edit words, 3
   sound-alikes (the `hand` preset);
8. fast, as the fast preset was before its model: the cheap pass alone (greedy answer and 3 one-edit words),
   the default model;
9. + no greedy decode (the shortlist and the typo only), and a wide pass of sound-alikes for the uncertain words:
   the fast preset's settings, still with the default model;
10. + the fast model, a quarter of the default model's width;
11. + the fast model's own fitted scorer (data/rerank-fast.json) and the gate and confidence rule tuned for it:
    the fast preset.

`trie_vs_separate` times scoring the same candidate lists both ways (`scoring.forced_hypotheses` row by row with
its own encoding, against `scoring.trie_hypotheses`).
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np

SETS = ("data/eval/norvig-testset1.tsv", "data/eval/birkbeck-dev.tsv")


def configurations():
    from typofix.engine.settings import DecodingSettings
    from typofix.files.modelfile import bundled_int8_path, bundled_onnx_path

    hand = DecodingSettings.preset("hand")
    base = hand.with_(beam=24, wide_margin=1e9, prune=False, one_edit_candidates=10**9, two_edit_candidates=5,
                      sound_candidates=5)
    yield "wide for every word, encode once, trie scoring", bundled_onnx_path(), base
    yield "+ stop bound (prune)", bundled_onnx_path(), base.with_(prune=True)
    gated = base.with_(prune=True, wide_margin=hand.wide_margin)
    yield "+ gate: wide only where the cheap answer is uncertain", bundled_onnx_path(), gated
    yield "+ int8 model", bundled_int8_path(), gated
    yield "+ beam 12", bundled_int8_path(), gated.with_(beam=12)
    yield "+ wide pass without beam search (beam 1)", bundled_int8_path(), gated.with_(beam=1)
    yield "+ fewer wide-pass neighbours (the hand preset)", bundled_int8_path(), hand
    fast = DecodingSettings.preset("fast")
    # The fast preset as it was before its fitted table: the hand-set channel and that channel's gate and rule.
    hand_fast = fast.with_(scorer="hand", min_confidence=hand.min_confidence, wide_margin=hand.wide_margin,
                           context_weight=hand.context_weight)
    previous_fast = hand_fast.with_(greedy=True, wide_margin=0.0, sound_candidates=0, bundled_model="default")
    yield "fast: the cheap pass alone (greedy + shortlist), default model", bundled_int8_path(), previous_fast
    yield "+ no greedy decode, sound-alikes where uncertain", bundled_int8_path(), hand_fast.with_(bundled_model="default")
    yield "+ the fast model", bundled_int8_path("fast"), hand_fast
    yield "+ its own fitted scorer (the fast preset)", bundled_int8_path("fast"), fast


def run(rows_by_set, model, settings):
    from typofix.engine.corrector import Corrector

    corrector = Corrector.load(model, settings=settings)
    corrector.suggest_many(["speling", "korrect", "the"], 5)  # warm-up, untimed
    result = {}
    for name, rows in rows_by_set.items():
        typos = list(dict.fromkeys(t for t, _ in rows))
        start = time.perf_counter()
        best = {}
        for i in range(0, len(typos), 1024):
            part = typos[i:i + 1024]
            best.update(zip(part, (ranked[0].word for ranked in corrector.suggest_many(part, 5))))
        seconds = time.perf_counter() - start
        result[name] = (sum(best[t] == w for t, w in rows) / len(rows), len(typos) / seconds)
    return result


def trie_vs_separate(rows, model) -> tuple[float, float, int]:
    """Seconds to score each typo's cheap-pass candidates separately (a fresh encoding per candidate row,
    every candidate from its first character) and as one trie per typo; and the candidate count."""
    from typofix.engine.corrector import Corrector
    from typofix.engine.scoring import forced_hypotheses, trie_hypotheses

    corrector = Corrector.load(model)
    typos = [t for t in dict.fromkeys(t for t, _ in rows) if corrector.vocab.covers(t)][:500]
    near = corrector.neighbours.one_edit(typos)
    lists = [[w for w, _ in corrector.neighbours.shortlist(t, n)] + [t] for t, n in zip(typos, near)]
    vocab = corrector.vocab
    src = np.full((len(typos), max(map(len, typos))), vocab.pad_id, dtype=np.int64)
    for row, typo in enumerate(typos):
        src[row, :len(typo)] = vocab.encode(typo)
    src_len = np.array([len(t) for t in typos])
    rows_of = [row for row, words in enumerate(lists) for _ in words]
    start = time.perf_counter()
    forced_hypotheses(corrector.stepper, src[rows_of], src_len[rows_of], [vocab.encode(w) for ws in lists for w in ws])
    separate = time.perf_counter() - start
    start = time.perf_counter()
    trie_hypotheses(corrector.stepper, corrector.stepper.encode(src, src_len), src_len,
                    [[vocab.encode(w) for w in ws] for ws in lists])
    return separate, time.perf_counter() - start, len(rows_of)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.engine_steps", description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=1000, help="birkbeck-dev rows (seeded sample)")
    args = parser.parse_args(argv)
    from typofix.files.misspellings import read_misspellings

    from bench.run import pin_to_one_core

    print(f"pinned: {pin_to_one_core()}", file=sys.stderr)
    rows_by_set = {}
    for path in SETS:
        rows = read_misspellings(path)
        if len(rows) > args.limit:
            rows = [rows[i] for i in sorted(random.Random(0).sample(range(len(rows)), args.limit))]
        rows_by_set[path.split("/")[-1].removesuffix(".tsv")] = rows
    names = list(rows_by_set)
    print("| configuration | " + " | ".join(f"{n} top-1 | {n} words/s" for n in names) + " |")
    print("|---|" + "---:|" * (2 * len(names)))
    for label, model, settings in configurations():
        result = run(rows_by_set, model, settings)
        print(f"| {label} | " + " | ".join(f"{100 * result[n][0]:.1f}% | {result[n][1]:.0f}" for n in names) + " |",
              flush=True)
    from typofix.files.modelfile import bundled_onnx_path

    separate, shared, count = trie_vs_separate(rows_by_set[names[-1]], bundled_onnx_path())
    print(f"\nscoring {count} cheap-pass candidates of 500 typos: {separate:.2f} s one by one (encoding per row), "
          f"{shared:.2f} s as one trie per typo ({separate / shared:.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
