"""Start-up as users feel it: `typofix correct` on the dev prose and on one word, timed whole (process start,
imports, loading, correcting, output), with the index cache (`typofix.words.indexcache`) cold, warm and off;
then, with the cache warm, each run's CPU seconds and peak resident memory, and the same for a megabyte of
text holding 5,000 distinct typos (the memory a long document's many different typos cost).

Usage (from the repository root; ``make startup`` calls this)::

    python -m bench.startup [--prose DIR] [--repeat N] [--options ...]

* cold: an empty cache folder, as on the first run after installing or editing the word list (that run
  builds and saves the indexes);
* warm: the folder the cold run filled, as on every later run;
* off: ``TYPOFIX_CACHE_DIR=`` (empty), every index built in memory on every run.

The megabyte: the dev prose's clean text repeated to 1 MB, and in it `TYPOS` distinct real misspellings of the
dev lists (``--typos``), each put once in place of a word: where it can, an occurrence of the word it misspells,
elsewhere any word of four letters or more (seeded, so every run reads the same text). Peak memory is the
child's own, as GNU time reports it (``bench.footprint.timed_run``).

typofix's modules are compiled to bytecode first (``bench.footprint.compile_typofix``), as an installed typofix
has them.

One CPU core and one thread (``bench.run.pin_to_one_core``: ``sched_setaffinity`` and ``OMP_NUM_THREADS=1``,
inherited by the child processes; onnxruntime sizes its pool from the latter); each cell is the median of ``--repeat``
runs (a cold run gets a fresh empty folder each time). Words/s counts the prose's white-space tokens, as
``bench.prose`` does.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from bench.footprint import TimedRun, compile_typofix, timed_run
from bench.run import pin_to_one_core

ONE_WORD = "recieve"
MEGABYTE = 1 << 20
TYPOS = 5_000
_WORD = re.compile(r"[a-z]{4,}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.startup", description=__doc__.split("\n")[0])
    parser.add_argument("--prose", type=Path, default=Path("../shared/eval/prose"), help="folder with typos.txt")
    parser.add_argument("--repeat", type=int, default=3, help="runs per cell (the median is shown)")
    parser.add_argument("--options", nargs="*", default=[], help="options of `typofix correct` (e.g. --fast)")
    parser.add_argument("--typos", type=Path, nargs="+",
                        default=[Path("data/eval/birkbeck-dev.tsv"), Path("data/eval/norvig-testset1.tsv")],
                        help="dev lists (typo<TAB>correct) the megabyte's misspellings come from")
    args = parser.parse_args(argv)
    typos = args.prose / "typos.txt"
    for needed in [args.prose / "clean.txt", typos, *args.typos]:
        if not needed.is_file():
            print(f"error: {needed} not found (--prose names the folder of the dev prose, --typos the lists)",
                  file=sys.stderr)
            return 2
    if args.repeat < 1:
        print("error: --repeat must be at least 1", file=sys.stderr)
        return 2
    compile_typofix()
    pinned = pin_to_one_core()  # the core alone would not do: onnxruntime's threads leave the affinity mask
    words = len(typos.read_text(encoding="utf-8").split())
    program = [sys.executable, "-m", "typofix", "correct", *args.options]
    print(f"`{' '.join(['typofix correct', *args.options])}` on {typos} ({words:,} words) and on one word "
          f"({ONE_WORD}); median of {args.repeat} runs; {pinned}\n")
    print("| index cache | prose: seconds | prose: words/s | one word: seconds |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="typofix-startup-") as scratch:
        warm = Path(scratch) / "warm"
        _timed([*program, "--file", str(typos)], warm)  # fills the warm cache, untimed
        for case in ("cold (first run)", "warm (later runs)", "off"):
            prose, word = [], []
            for _ in range(args.repeat):
                for command, times in (([*program, "--file", str(typos)], prose), ([*program, ONE_WORD], word)):
                    cold = case.startswith("cold")
                    cache = Path(tempfile.mkdtemp(dir=scratch)) if cold else warm if case.startswith("warm") else ""
                    times.append(_timed(command, cache))
                    if cold:
                        shutil.rmtree(cache)  # ~60 MB each
            seconds = statistics.median(prose)
            print(f"| {case} | {seconds:.2f} | {words / seconds:,.0f} | {statistics.median(word):.2f} |")
        megabyte = Path(scratch) / "megabyte.txt"
        put = write_megabyte(args.prose / "clean.txt", [typo for path in args.typos for typo in _typos(path)],
                             megabyte)
        print(f"\nWith the cache warm, median of {args.repeat} runs: wall and CPU seconds (user + system), "
              f"peak resident memory.\n")
        print("| run | seconds | CPU seconds | peak MB |")
        print("|---|---:|---:|---:|")
        for label, command in ((f"one word ({ONE_WORD})", [*program, ONE_WORD]),
                               (f"dev prose ({words:,} words)", [*program, "--file", str(typos)]),
                               (f"1 MB, {put:,} distinct typos", [*program, "--file", str(megabyte)])):
            runs = [_measured(command, warm, Path(scratch)) for _ in range(args.repeat)]
            print(f"| {label} | {statistics.median(r.seconds for r in runs):.2f} | "
                  f"{statistics.median(r.cpu_seconds for r in runs):.2f} | "
                  f"{statistics.median(r.peak_kb for r in runs) / 1024:.0f} |")
    return 0


def write_megabyte(clean: Path, typos: list[tuple[str, str]], out: Path, count: int = TYPOS, seed: int = 1) -> int:
    """Write `clean`'s text repeated to a megabyte to `out`, with `count` distinct typos of the (typo, correct)
    pairs put once each (see the module docstring); how many were put (fewer only where the text has too few
    words)."""
    text = clean.read_text(encoding="utf-8")
    text = text * -(-MEGABYTE // max(len(text.encode("utf-8")), 1))
    words = list(_WORD.finditer(text))
    at_word: dict[str, list[int]] = {}  # a word -> the indexes in `words` of its occurrences
    for index, match in enumerate(words):
        at_word.setdefault(match.group(), []).append(index)
    chosen: dict[str, str] = {}  # typo -> its correction, each typo once
    for typo, correct in typos:
        if typo.isalpha() and typo.islower() and typo != correct:
            chosen.setdefault(typo, correct)
    draw = random.Random(seed)
    pairs = draw.sample(sorted(chosen.items()), min(count, len(chosen)))
    free = set(range(len(words)))
    replaced: dict[int, str] = {}
    for typo, correct in pairs:
        places = [i for i in at_word.get(correct, ()) if i in free]
        place = draw.choice(places) if places else (draw.choice(sorted(free)) if free else None)
        if place is not None:
            free.discard(place)
            replaced[place] = typo
    pieces, last = [], 0
    for index in sorted(replaced):
        match = words[index]
        pieces += [text[last:match.start()], replaced[index]]
        last = match.end()
    out.write_text("".join(pieces) + text[last:], encoding="utf-8")
    return len(replaced)


def _typos(path: Path) -> list[tuple[str, str]]:
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        typo, _, correct = line.partition("\t")
        pairs.append((typo.strip(), correct.strip()))
    return pairs


def _env(cache) -> dict[str, str]:
    return {**os.environ, "TYPOFIX_CACHE_DIR": str(cache)}


def _timed(command: list[str], cache) -> float:
    return _measured(command, cache, Path(tempfile.gettempdir())).seconds


def _measured(command: list[str], cache, scratch: Path) -> TimedRun:
    try:
        with tempfile.TemporaryDirectory(dir=scratch) as folder:
            return timed_run(command, "", Path(folder), _env(cache))
    except RuntimeError as err:
        raise SystemExit(f"error: {err}") from None


if __name__ == "__main__":
    sys.exit(main())
