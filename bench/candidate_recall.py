"""Candidate recall: is the right word proposed at all, and is it in the top 5, by edit distance?

Usage (from the repository root)::

    python -m bench.candidate_recall [--sound-candidates N ...] [--limit ROWS]

For each dev set (norvig-testset1, birkbeck-dev; never the holdout) and each `--sound-candidates` value (the
sound-alike candidates of the wide pass, `typofix.words.phonetic`; 0 is the engine without them), a markdown table by
the OSA edit distance between typo and target (1, 2, 3+): rows, the target among the candidates the engine
scored (cheap and wide pass together), in the top 5 of `suggest`, first (top-1). Rows whose target is not in
the word list are counted apart: no candidate source can propose them. "wide pass": rows whose typo the
gate sent to the wide search (the only pass with sound-alike candidates).
"""

from __future__ import annotations

import argparse
import random
from collections import Counter

SETS = ("data/eval/norvig-testset1.tsv", "data/eval/birkbeck-dev.tsv")
BUCKETS = ("1", "2", "3+")


def bucket(typo: str, target: str) -> str:
    from typofix.words.distance import osa_distance

    return BUCKETS[min(osa_distance(typo, target), 3) - 1]


def recall(corrector, rows: list[tuple[str, str]]) -> dict[str, Counter]:
    """Per edit-distance bucket: rows, unlisted targets, target among the candidates, in the top 5, first."""
    typos = sorted({t for t, _ in rows})
    traces = corrector.trace(typos)  # every candidate either pass scored, per typo
    suggested = dict(zip(typos, corrector.suggest_many(typos, 5)))
    counts = {b: Counter() for b in BUCKETS}
    for typo, target in rows:
        if typo == target:
            continue
        tally = counts[bucket(typo, target)]
        tally["rows"] += 1
        if target not in corrector.lexicon:
            tally["unlisted"] += 1
            continue
        trace = traces.get(typo)
        tally["wide"] += trace is not None and trace.wide is not None
        tally["proposed"] += trace is not None and (target in trace.cheap or target in (trace.wide or {}))
        top = [s.word for s in suggested[typo]]
        tally["top-5"] += target in top
        tally["top-1"] += top[:1] == [target]
    return counts


def table(name: str, results: dict[int, dict[str, Counter]]) -> str:
    lines = [f"{name}", "", "| edits | rows | not listed | sound cands | wide pass | proposed | top-5 | top-1 |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for b in (*BUCKETS, "all"):
        for n, counts in results.items():
            tally = sum(counts.values(), Counter()) if b == "all" else counts[b]
            rows = tally["rows"] or 1
            cells = [f"{100 * tally[key] / rows:.1f}%" for key in ("wide", "proposed", "top-5", "top-1")]
            lines.append(f"| {b} | {tally['rows']} | {tally['unlisted']} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sound-candidates", type=int, nargs="+", default=[0, 10])
    parser.add_argument("--limit", type=int, default=0, help="a seeded sample of this many rows per set (0: all)")
    args = parser.parse_args()

    from typofix.engine.corrector import Corrector
    from typofix.engine.settings import DecodingSettings
    from typofix.files.misspellings import read_misspellings

    correctors = {n: Corrector.load(settings=DecodingSettings(sound_candidates=n)) for n in args.sound_candidates}
    for path in SETS:
        rows = read_misspellings(path)
        if args.limit and len(rows) > args.limit:
            rows = random.Random(1234).sample(rows, args.limit)
        results = {n: recall(corrector, rows) for n, corrector in correctors.items()}
        print(table(f"**{path}** ({len(rows)} rows; % of the rows in each band)", results), end="\n\n", flush=True)


if __name__ == "__main__":
    main()
