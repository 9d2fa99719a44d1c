"""Run the benchmark: typofix and the peer spell checkers on the same rows, in one run.

Usage (from the repository root; ``make bench`` calls this)::

    python -m bench.run [--eval DIR [DIR ...]] [--limit N] [--prose DIR [DIR ...]] [--out BENCHMARKS.md]
                        [--plots docs] [--only NAME ...]

The rules every checker gets, also written into the report:

* one process, pinned to one CPU core (``sched_setaffinity``, inherited by the
  Aspell and Hunspell child processes; torch and BLAS limited to one thread);
* per eval set, one call with the set's distinct typos (in file order) and
  k=5; its wall time, dictionary and model loading and one untimed warm-up
  call on three words excluded, gives words/s. A call under a second (a few
  hundred words: Aspell's start-up, a busy neighbour, a page fault weigh on
  it) is repeated, up to three calls, each after a fresh load and warm-up,
  and the fastest counts; the answers must be the same every time. The
  repeats run in rounds across the checkers, set by set, so that typofix's
  and Aspell's calls on a set are close in time;
  For Aspell and Hunspell that call starts one ``-a`` process for the list;
* the same lowercasing of every checker's candidates (the sets are lowercase).

The running-text sections, one per ``--prose`` folder (each a ``clean.txt``
and ``typos.txt``: the dev prose, the informal slips of ``../shared/eval/informal``,
a set ``bench.informal`` built; a folder without them gets a section that says
so), run each checker of ``bench.prose_checkers`` once over ``typos.txt``, as a
user would, and time the whole run, start-up included; ``bench.prose`` scores
it. A set is named by its folder, with the parent's name in front when two
folders share a name.

Eval sets are the ``*.tsv`` files directly in each ``--eval`` folder (not in
subfolders, so a ``holdout/`` folder is only read when named); a set is named
by its file stem, with its folder's name in front when two folders hold the
same stem. With
``--limit N`` a set of more than N rows is cut to N rows drawn by
``random.Random(seed).sample`` over row indices, kept in file order.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import resource
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from typofix.files.misspellings import read_misspellings

from bench import footprint, peers, prose, prose_checkers, report, scoring

TOP_K = 5
# Sent once, untimed, after loading: first-call costs (lazy initialisation, allocator warm-up) are not throughput.
WARM_UP = ["speling", "korrect", "the"]
# A set's call shorter than SHORT_CALL_S is timed up to CALLS times, each after a fresh load (no checker's
# cache carries over) and the warm-up, and the fastest counts: a 0.1-0.3 s call varied by 1.5x between runs
# on a shared machine, Aspell's and typofix's alike, which a ratio of the two doubles. The repeats run in
# rounds across the checkers (`benchmark_checkers`). Slow checkers run once.
CALLS = 3
SHORT_CALL_S = 1.0


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--eval", type=Path, nargs="+", default=[Path("data/eval")], help="folders of typo<TAB>correct TSVs"
    )
    parser.add_argument("--limit", type=int, default=None, help="at most this many rows per set (seeded sample)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the --limit and correct-word samples")
    parser.add_argument("--words", type=Path, default=Path("data/words.tsv"), help="word<TAB>count list")
    parser.add_argument("--correct-sample", type=int, default=1000, help="size of each correct-word sample")
    parser.add_argument("--out", type=Path, default=Path("BENCHMARKS.md"), help="report to (re)write")
    parser.add_argument("--plots", type=Path, default=Path("docs"), help="folder for the two PNG charts")
    parser.add_argument(
        "--prose", type=Path, nargs="*", default=[Path("../shared/eval/prose"), Path("../shared/eval/informal")],
        help="folders with clean.txt and typos.txt, a running-text section each (one that lacks them says so); "
             "none: no running text",
    )
    parser.add_argument(
        "--only", nargs="*", default=None, help="run only checkers whose name contains one of these (any case)"
    )
    return parser.parse_args(argv)


def pin_to_one_core() -> str:
    """Restrict this process (and the processes it starts) to one core and one thread; say how, for the report."""
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        # Inherited by typofix's child processes too; typofix's ONNX stepper sizes onnxruntime's pool from it.
        os.environ[variable] = "1"
    if not hasattr(os, "sched_setaffinity"):
        return "one thread per library; this platform cannot pin a process to a core"
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    return (f"CPU core {core} via sched_setaffinity, inherited by child processes; onnxruntime (from "
            f"OMP_NUM_THREADS), OpenMP and BLAS at 1 thread")


def sample_rows(rows: list[tuple[str, str]], limit: int | None, seed: int) -> list[tuple[str, str]]:
    """At most ``limit`` rows, drawn with a seeded sample of indices and kept in file order."""
    if limit is None or len(rows) <= limit:
        return rows
    keep = sorted(random.Random(seed).sample(range(len(rows)), limit))
    return [rows[i] for i in keep]


def load_sets(folders: Sequence[Path], limit: int | None, seed: int) -> list[report.EvalSet]:
    """Every ``*.tsv`` directly in each folder, sampled down to ``limit`` rows where larger."""
    paths = [path for folder in folders for path in sorted(folder.glob("*.tsv"))]
    if not paths:
        raise SystemExit(f"no *.tsv files in {' '.join(map(str, folders))}")
    stems = [path.stem for path in paths]
    sets = []
    for path in paths:
        rows = read_misspellings(path)
        name = path.stem if stems.count(path.stem) == 1 else f"{path.parent.name}/{path.stem}"
        sets.append(report.EvalSet(name, sample_rows(rows, limit, seed), len(rows), str(path)))
    return sets


def correct_word_samples(words_path: Path, size: int, seed: int) -> dict[str, list[str]]:
    """Two seeded samples of correct words from the word list, named as the report names them.

    ``by frequency``: ``size`` draws with replacement, each word weighted by its
    count, i.e. the words of running text (``the`` comes up dozens of times).
    ``uniform``: ``size`` distinct words, every entry of the list equally likely,
    which reaches the rare words where checkers disagree.
    """
    counts = peers.read_word_counts(words_path)
    words = list(counts)
    return {
        "by frequency": random.Random(seed).choices(words, weights=list(counts.values()), k=size),
        "uniform": random.Random(seed).sample(words, min(size, len(words))),
    }


def timed_suggestions(checker: peers.Checker, words: list[str]) -> tuple[dict[str, list[str]], float, float]:
    """One batched call for the whole list; candidates lowercased like every checker's.

    Returns the predictions, the call's wall time and its CPU time (this
    process plus the child processes it waited for, i.e. Aspell or Hunspell).
    CPU time is reported beside wall time because on a busy machine the wall
    time of a niced process mostly measures waiting.
    """
    cpu_start = _cpu_seconds()
    start = time.perf_counter()
    ranked = checker.suggest_many(words, TOP_K)
    seconds = time.perf_counter() - start
    cpu = _cpu_seconds() - cpu_start
    return {w: scoring.lowercase_candidates(c) for w, c in zip(words, ranked)}, seconds, cpu


def _cpu_seconds() -> float:
    """CPU time used so far by this process and by its finished child processes."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def benchmark_checkers(
    checkers: list[peers.Checker], sets: list[report.EvalSet], samples: dict[str, list[str]]
) -> tuple[list[scoring.SetScore], list[scoring.FalseCorrections]]:
    """Score loaded checkers on every eval set and every correct-word sample.

    Each set's first call is each checker's in turn; a set's calls shorter than SHORT_CALL_S are then timed
    again in rounds, every quick checker once a round (after a fresh load and the warm-up), so that typofix's
    and Aspell's repeats of a set run minutes apart no more: a ratio of two speeds is only as good as the
    machine's staying the same between them. The fastest call of each counts; its answers must not change."""
    typos = {s.name: list(dict.fromkeys(typo for typo, _ in s.rows)) for s in sets}  # each set's distinct typos
    timings = {}  # (checker, set) -> [predictions, seconds, cpu] of its fastest call
    for checker in checkers:
        log(f"{checker.name}: first calls")
        for eval_set in sets:
            timings[checker.name, eval_set.name] = list(timed_suggestions(checker, typos[eval_set.name]))
    for eval_set in sets:
        for _ in range(CALLS - 1):
            for checker in checkers:
                fastest = timings[checker.name, eval_set.name]
                if fastest[1] >= SHORT_CALL_S:
                    continue
                checker.load()  # afresh: nothing the last call cached may speed this one
                checker.suggest_many(WARM_UP, TOP_K)
                again, seconds, cpu = timed_suggestions(checker, typos[eval_set.name])
                if again != fastest[0]:
                    raise RuntimeError(f"{checker.name} answered {eval_set.name} differently when asked again")
                if seconds < fastest[1]:
                    fastest[1:] = [seconds, cpu]
    scores, false = [], []
    for checker in checkers:
        for eval_set in sets:
            predictions, seconds, cpu = timings[checker.name, eval_set.name]
            scores.append(scoring.score_set(checker.name, eval_set.name, eval_set.rows, predictions, seconds, cpu))
            log(f"  {checker.name}, {eval_set.name}: top-1 {scores[-1].top1:.1%}, "
                f"{scores[-1].words_per_second:,.0f} words/s")
        for sample_name, words in samples.items():
            predictions, _, _ = timed_suggestions(checker, list(dict.fromkeys(words)))
            false.append(scoring.score_correct_words(checker.name, sample_name, words, predictions))
    return scores, false


def benchmark_footprints(checkers: list[peers.Checker], sets: list[report.EvalSet],
                         words_path: Path) -> list[footprint.Footprint]:
    """typofix, Aspell and Hunspell each as a fresh process per set (`bench.footprint`): speed with start-up
    included and peak memory. (The other peers take minutes on a set; what they cost is in the tables above.)"""
    found = []
    for eval_set in sets:
        typos = list(dict.fromkeys(typo for typo, _ in eval_set.rows))
        for checker in checkers:
            if not isinstance(checker, (peers.TypofixChecker, peers.IspellPipe)):
                continue
            try:
                found.append(footprint.measure(checker, eval_set.name, typos, words_path))
            except (RuntimeError, OSError) as err:
                log(f"no footprint of {checker.name} on {eval_set.name}: {err}")
                continue
            log(f"  {checker.name}, {eval_set.name}: {found[-1].words_per_second:,.0f} words/s start-up included, "
                f"peak {found[-1].peak_mb:,.0f} MB")
    return found


def prose_sets(folders: Sequence[Path]) -> list[report.ProseSet]:
    """One running-text set per folder, named by the folder (with its parent's name when two share it) and
    described for the report (``report.PROSE_SOURCES`` by name, else the first paragraph of its README.md)."""
    names = [folder.name for folder in folders]
    sets = []
    for folder in folders:
        name = folder.name if names.count(folder.name) == 1 else f"{folder.parent.name}/{folder.name}"
        sets.append(report.ProseSet(name, str(folder), report.PROSE_SOURCES.get(folder.name) or _readme(folder)))
    return sets


def _readme(folder: Path) -> str:
    """The first paragraph of the folder's README.md that is not a heading, on one line; empty without one."""
    try:
        text = (folder / "README.md").read_text(encoding="utf-8")
    except OSError:
        return ""
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n") if p.strip() and not p.lstrip().startswith("#")]
    return paragraphs[0] if paragraphs else ""


def benchmark_prose(prose_set: report.ProseSet, checkers: list[prose_checkers.TextChecker],
                    run: report.Run) -> None:
    """Correct one set's text with every checker, timing each whole run; the set, with its scores or why it was
    skipped, goes into ``run.prose``, a checker's failure into ``run.skipped``."""
    run.prose.append(prose_set)
    folder = Path(prose_set.path)
    clean_path, typos_path = folder / "clean.txt", folder / "typos.txt"
    if not (clean_path.is_file() and typos_path.is_file()):
        prose_set.notice = f"`{folder}` has no clean.txt and typos.txt"
        log(f"skipping running text {prose_set.name}: {prose_set.notice}")
        return
    clean, typos = clean_path.read_text(encoding="utf-8"), typos_path.read_text(encoding="utf-8")
    for checker in checkers:
        name = f"{checker.name} ({prose_set.name})"
        if not checker.available():
            log(f"skipping {name}: {checker.notice}")
            run.skipped.append((name, checker.notice))
            continue
        checker.warm_up()
        cpu_start = _cpu_seconds()
        start = time.perf_counter()
        try:
            output = checker.correct_file(typos_path)
            seconds, cpu = time.perf_counter() - start, _cpu_seconds() - cpu_start
            score = prose.score_text(checker.name, clean, typos, output, seconds, cpu)
        except (prose.ProseError, RuntimeError, OSError, subprocess.CalledProcessError) as err:
            # Reported as a failure in the report, never scored on a misaligned or partial output.
            log(f"skipping {name}: {type(err).__name__}: {err}")
            run.skipped.append((name, f"{type(err).__name__}: {err}"))
            continue
        run.prose_versions[checker.name] = checker.version()
        prose_set.scores.append(score)
        log(f"{name}: fixed {score.fixed_share:.1%}, broken {score.broken_share:.2%}, "
            f"{score.words_per_second:,.0f} words/s")


def selected(name: str, only: list[str] | None) -> bool:
    """True if ``--only`` is not given or one of its parts is in the checker's name (any case)."""
    return only is None or any(part.lower() in name.lower() for part in only)


def machine_info(pin_rule: str) -> dict[str, str]:
    """CPU, cores, OS, Python and load, for the report's machine section."""
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), cpu)
    except OSError:
        pass
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return {
        "CPU": cpu,
        "cores": str(os.cpu_count()),
        "timing rule": pin_rule,
        "load average at start (1, 5, 15 min)": load,
        "OS": platform.platform(),
        "Python": platform.python_version(),
        "date (UTC)": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M"),
    }


def log(message: str) -> None:
    """Progress on stderr, so stdout stays free."""
    print(message, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    """Benchmark every available checker, then write the report and the charts."""
    args = parse_args(argv)
    footprint.compile_typofix()  # (its child processes start as an installed typofix does)
    pin_rule = pin_to_one_core()
    sets = load_sets(args.eval, args.limit, args.seed)
    samples = correct_word_samples(args.words, args.correct_sample, args.seed)
    run = report.Run(
        command="python -m bench.run " + shlex.join(sys.argv[1:] if argv is None else list(argv)),
        machine=machine_info(pin_rule),
        sets=sets,
        limit=args.limit,
        seed=args.seed,
        sample_size=args.correct_sample,
    )
    text_checkers = [c for c in prose_checkers.all_text_checkers(args.words) if selected(c.name, args.only)]
    for prose_set in prose_sets(args.prose):
        benchmark_prose(prose_set, text_checkers, run)
    loaded = []
    for checker in peers.all_checkers(args.words):
        if not selected(checker.name, args.only):
            continue
        if not checker.available():
            log(f"skipping {checker.name}: {checker.notice}")
            run.skipped.append((checker.name, checker.notice))
            continue
        log(f"{checker.name}: loading")
        try:
            checker.load()
        except Exception as err:  # a peer that cannot load is reported as skipped, never replaced
            log(f"skipping {checker.name}: load failed: {err}")
            run.skipped.append((checker.name, f"load failed: {type(err).__name__}: {err}"))
            continue
        run.versions[checker.name] = checker.version()
        checker.suggest_many(WARM_UP, TOP_K)
        loaded.append(checker)
    run.scores, run.false_corrections = benchmark_checkers(loaded, sets, samples)
    run.footprints = benchmark_footprints(loaded, sets, args.words)
    report.write_report(run, args.out, args.plots)
    log(f"wrote {args.out}, {args.plots / report.TOP1_PNG} and {args.plots / report.DISTANCE_PNG}")


if __name__ == "__main__":
    main()
