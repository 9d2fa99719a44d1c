"""What each "less model work" setting buys: top-1 on the dev lists and words/s as a ratio to the untouched
preset, measured in one run, interleaved, on one core.

Usage (from the repository root)::

    OMP_NUM_THREADS=1 taskset -c 0 python -m bench.model_work [--preset default|fast] [--rounds 2] \\
        [--limit N] VARIANT...

A VARIANT is `name:setting=value,setting=value` over the preset's `DecodingSettings` (e.g.
`wide8:wide_model_candidates=8`, `nohear:cheap_phones=false`; `model=PATH` runs that model file, e.g. the float export
`typofix/models/default.onnxz` beside the int8 one the default runs). Every variant and the untouched preset (the
`base` row) is loaded once (loading is not timed) and evaluated on each dev list (`typofix evaluate`'s
figures, `typofix.engine.evaluate`) in `--rounds` rounds, the variants in turn within a round, so the
machine's load falls on all of them alike; the speed is distinct typos per CPU second of this process (the
best round's), and the decoder rows a typo are counted at the model. Figures: docs/tuning.md, "Less
model work". Holdout sets are refused.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import fields

from typofix.engine.settings import DecodingSettings

DEV_SETS = ("data/eval/norvig-testset1.tsv", "data/eval/birkbeck-dev.tsv")


def parse_variant(text: str, preset: str) -> tuple[str, DecodingSettings, str | None]:
    """`name:key=value,...` -> (name, the preset with those settings, the model file or None), each value read
    as its field's type; `model=PATH` runs that model file instead of the bundled one."""
    name, _, assignments = text.partition(":")
    types = {f.name: type(f.default) for f in fields(DecodingSettings)}
    overrides, model = {}, None
    for assignment in filter(None, assignments.split(",")):
        key, _, value = assignment.partition("=")
        if key == "model":
            model = value
            continue
        if key not in types:
            raise SystemExit(f"model_work: no setting {key!r} in {text!r}")
        kind = types[key]
        overrides[key] = value.lower() in ("1", "true", "yes", "on") if kind is bool else kind(value)
    return name, DecodingSettings.preset(preset, **overrides), model


def read_rows(path: str, limit: int | None) -> list[tuple[str, str]]:
    if "holdout" in path:
        raise SystemExit("model_work: holdout sets are reserved")
    rows = [tuple(line.rstrip("\n").split("\t")[:2]) for line in open(path, encoding="utf-8") if line.strip()]
    return rows[:limit] if limit else rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variants", nargs="*", help="name:setting=value,... (see the module docstring)")
    parser.add_argument("--preset", default="default", choices=("default", "fast"))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None, help="the first N rows of each list (a quick look)")
    args = parser.parse_args(argv)
    if os.environ.get("OMP_NUM_THREADS") != "1":
        print("model_work: set OMP_NUM_THREADS=1 (and taskset -c 0) for one-core figures", file=sys.stderr)

    from typofix import Corrector
    from typofix.engine.evaluate import evaluate

    variants = [("base", DecodingSettings.preset(args.preset), None)] + [parse_variant(v, args.preset)
                                                                         for v in args.variants]
    correctors = {name: Corrector.load(model, settings=settings) for name, settings, model in variants}
    rows_run = {name: count_rows(c.stepper) for name, c in correctors.items()}
    lists = {path: read_rows(path, args.limit) for path in DEV_SETS}
    best: dict[tuple[str, str], float] = {}
    top1: dict[tuple[str, str], float] = {}
    per_typo: dict[tuple[str, str], float] = {}
    for _ in range(args.rounds):
        for path, rows in lists.items():
            for name, *_ in variants:
                before, cpu = rows_run[name][0], time.process_time()
                report = evaluate(correctors[name], rows)
                # CPU time, not wall: on a shared machine the wall clock counts the other users' work too.
                cpu = time.process_time() - cpu
                key = (path, name)
                best[key] = max(best.get(key, 0.0), report.words / cpu)
                top1[key] = 100 * report.top1
                per_typo[key] = (rows_run[name][0] - before) / report.words
    print(f"preset {args.preset}, {args.rounds} round(s): top-1 %, decoder rows a typo, distinct typos per CPU "
          "second (the best round's) and its ratio to base in the same run")
    print(f"{'variant':<16}" + "".join(f"{os.path.basename(p):>44}" for p in DEV_SETS))
    for name, *_ in variants:
        cells = []
        for path in DEV_SETS:
            ratio = best[path, name] / best[path, "base"]
            cells.append(f"{top1[path, name]:5.1f}  {per_typo[path, name]:5.1f} rows  {best[path, name]:5.0f} w/s  "
                         f"{ratio:4.2f}x")
        print(f"{name:<16}" + "".join(f"{c:>44}" for c in cells))
    return 0


def count_rows(stepper) -> list[int]:
    """A one-item list that counts the decoder rows `stepper` runs from now on (its `step` wrapped in place;
    every search and scoring reaches the model through it)."""
    count = [0]
    step = stepper.step

    def counted(y, state, memory):
        count[0] += len(y)
        return step(y, state, memory)

    stepper.step = counted
    return count


if __name__ == "__main__":
    sys.exit(main())
