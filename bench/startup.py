"""Start-up as users feel it: `typofix correct` on the dev prose and on one word, timed whole (process start,
imports, loading, correcting, output), with the index cache (`typofix.words.indexcache`) cold, warm and off.

Usage (from the repository root; ``make startup`` calls this)::

    python -m bench.startup [--prose DIR] [--repeat N] [--options ...]

* cold: an empty cache folder, as on the first run after installing or editing the word list (that run
  builds and saves the indexes);
* warm: the folder the cold run filled, as on every later run;
* off: ``TYPOFIX_CACHE_DIR=`` (empty), every index built in memory on every run.

One CPU core and one thread (``bench.run.pin_to_one_core``: ``sched_setaffinity`` and ``OMP_NUM_THREADS=1``,
inherited by the child processes; onnxruntime sizes its pool from the latter); each cell is the median of ``--repeat``
runs (a cold run gets a fresh empty folder each time). Words/s counts the prose's white-space tokens, as
``bench.prose`` does.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.run import pin_to_one_core

ONE_WORD = "recieve"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.startup", description=__doc__.split("\n")[0])
    parser.add_argument("--prose", type=Path, default=Path("../shared/eval/prose"), help="folder with typos.txt")
    parser.add_argument("--repeat", type=int, default=3, help="runs per cell (the median is shown)")
    parser.add_argument("--options", nargs="*", default=[], help="options of `typofix correct` (e.g. --fast)")
    args = parser.parse_args(argv)
    typos = args.prose / "typos.txt"
    if not typos.is_file():
        print(f"error: {typos} not found (--prose names the folder of the dev prose)", file=sys.stderr)
        return 2
    if args.repeat < 1:
        print("error: --repeat must be at least 1", file=sys.stderr)
        return 2
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
    return 0


def _env(cache) -> dict[str, str]:
    return {**os.environ, "TYPOFIX_CACHE_DIR": str(cache)}


def _timed(command: list[str], cache) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, env=_env(cache), capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"error: {' '.join(command)} exited with {done.returncode}: {done.stderr.strip()[-300:]}")
    return seconds


if __name__ == "__main__":
    sys.exit(main())
