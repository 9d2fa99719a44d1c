"""Rows per second of `typofix.spark.correct_column` on Spark local[1] and local[2], beside `typofix correct
--jobs 1` and `--jobs 2` on the same lines, and the memory a Python worker holding its Corrector takes.

Usage (from the repository root, with the spark extra: `pip install -e '.[spark]'` and Java 17+)::

    python -m bench.spark_speed [--text FILE ...] [--copies N] [--partitions N] [--out BENCHMARKS.md]

Prints a markdown section; with ``--out`` it also writes it, atomically, as a kept section of that file (``make
bench`` carries it over). Every run corrects the same lines (the lines of the ``--text`` files, by default the
prose and informal dev texts, ``--copies`` times over) with the default settings, and every run's output is
checked to be the command line's, line for line. The command line is timed from start to exit (Python, the
model and the word lists included), its output to a file. Spark: the lines as a cached DataFrame of
``--partitions`` partitions, the corrected column written to Spark's ``noop`` sink (computed, not collected),
each run in a session of its own: cold (each new Python worker loads its Corrector inside the timing) and warm
(every worker has corrected one unrelated sentence first).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

SECTION = "bench.spark_speed"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.spark_speed", description=__doc__.split("\n")[0])
    parser.add_argument("--text", type=Path, nargs="+", help="the lines to correct (default: the prose and "
                        "informal dev texts)", default=[Path("../shared/eval/prose/typos.txt"),
                                                        Path("../shared/eval/informal/typos.txt")])
    parser.add_argument("--copies", type=int, default=1, help="the text this many times over")
    parser.add_argument("--partitions", type=int, default=4, help="partitions of the DataFrame")
    parser.add_argument("--out", type=Path, help="also write the section into this file (atomically)")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers run this interpreter, typofix and all
    lines = [line for path in args.text for line in path.read_text(encoding="utf-8").splitlines()] * args.copies
    load = os.getloadavg()[0]  # other work on the machine: the figures are only as good as it is idle
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "lines.txt"
        source.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        rows, expected = [], None
        for jobs in (1, 2):
            seconds, output = command_line(source, jobs)
            expected = expected or output
            assert output == expected, f"--jobs {jobs} wrote other lines than --jobs 1"
            rows.append((f"`typofix correct --jobs {jobs} --file F`", "start-up included", seconds))
        spark_rows, rss = spark_runs(lines, expected, args.partitions)
        rows += spark_rows
    text = render(rows, rss, len(lines), load, args)
    print(text)
    if args.out is not None:
        from bench.report import write_section

        write_section(args.out, SECTION, text)
    return 0


def command_line(source: Path, jobs: int) -> tuple[float, list[str]]:
    """Wall seconds of `typofix correct --jobs JOBS --file SOURCE`, and its lines."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "typofix", "correct", "--jobs", str(jobs), "--file", str(source)],
                          capture_output=True, text=True, check=True)
    return time.perf_counter() - started, done.stdout.split("\n")[:-1]


# Corrected by every worker before a warm run's clock starts: words the texts do not repeat, so that the timed
# run gains nothing from the Corrector's memory of words already judged, only from its being loaded.
WARM_UP = "Hte zebar qickly jumpd ovr the lazzy dgo."


def spark_runs(lines: list[str], expected: list[str], partitions: int):
    """A cold and a warm run on local[1] and on local[2], and the RSS of local[2]'s Python workers."""
    from pyspark.sql import SparkSession

    from typofix.spark import correct_column

    rows, rss = [], {}
    for cores in (1, 2):
        for warm in (False, True):
            # A session of its own per run: new Python workers, none holding a Corrector yet.
            spark = (SparkSession.builder.master(f"local[{cores}]").appName("typofix-bench")
                     .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
                     .getOrCreate())
            spark.sparkContext.setLogLevel("ERROR")
            df = spark.createDataFrame(list(enumerate(lines)), "id long, text string").repartition(partitions)
            df = df.cache()
            df.count()  # the rows are in Spark's memory before the clock starts
            if warm:
                warm_up = spark.createDataFrame([(WARM_UP,)] * partitions, "text string").repartition(partitions)
                correct_column(warm_up, "text").write.format("noop").mode("overwrite").save()
            fixed = correct_column(df, "text", "fixed")
            started = time.perf_counter()
            fixed.write.format("noop").mode("overwrite").save()
            rows.append((f"Spark `local[{cores}]`, {partitions} partitions",
                         "warm workers (their Corrector loaded)" if warm else "cold: each worker loads its Corrector",
                         time.perf_counter() - started))
            got = dict(fixed.select("id", "fixed").collect())
            assert [got[i] for i in range(len(lines))] == expected, f"local[{cores}] differs from typofix correct"
            if cores == 2 and warm:
                rss = worker_rss(df)
            spark.stop()
    return rows, rss


def worker_rss(df) -> dict[int, tuple[float, float]]:
    """Per Python worker that holds the default Corrector: (resident MiB now, peak resident MiB)."""
    import pandas as pd
    from pyspark.sql.functions import pandas_udf

    from typofix.apps.spark import spark_recipe, worker_corrector

    recipe = spark_recipe()

    def measure(batches):
        worker_corrector(recipe)  # the one this worker already holds
        status = Path("/proc/self/status").read_text()
        now = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
        for texts in batches:
            yield pd.Series([f"{os.getpid()} {now} {peak}"] * len(texts))

    # The iterator kind of pandas UDF is told by its type hints, which must be objects (this module's are strings).
    measure.__annotations__ = {"batches": Iterator[pd.Series], "return": Iterator[pd.Series]}
    measure = pandas_udf(measure, "string")
    found = {}
    for row in df.select(measure(df.text).alias("m")).distinct().collect():
        pid, now, peak = (int(x) for x in row.m.split())
        found[pid] = (now / 1024, peak / 1024)
    return found


def render(rows, rss, count: int, load: float, args) -> str:
    table = ["| run | what is timed | wall s | rows/s |", "|---|---|---:|---:|"]
    for name, what, seconds in rows:
        table.append(f"| {name} | {what} | {seconds:.2f} | {count / seconds:,.0f} |")
    peaks = sorted(peak for _, peak in rss.values())
    nows = sorted(now for now, _ in rss.values())
    memory = (f"Each Python worker holding its Corrector (the default bundled model, int8 ONNX, and the word lists): "
              f"{', '.join(f'{n:.0f}' for n in nows)} MiB resident, peak {', '.join(f'{p:.0f}' for p in peaks)} MiB "
              f"({len(rss)} workers of `local[2]`, /proc/self/status and getrusage).") if rss else ""
    busy = ("The machine's cores were busy with other work (the load average at least its cores): a second "
            "process got less than a core, so the one- and two-process figures say nothing of scaling here; "
            "measure on an idle machine for that." if load >= (os.cpu_count() or 1) else "")
    return "\n".join([
        "## typofix on Spark",
        "",
        f"`python -m bench.spark_speed --text {' '.join(map(str, args.text))} --copies {args.copies} --partitions {args.partitions}` "
        f"({count:,} lines, {platform.machine()}, {os.cpu_count()} CPU cores, load average {load:.1f} at the start, "
        "OMP_NUM_THREADS=1): "
        "`typofix.spark.correct_column` with the default settings against `typofix correct` on the same lines; "
        "every run's output equals `typofix correct --jobs 1`'s, line for line.",
        "",
        *table,
        "",
        memory,
        "",
        busy,
    ]).rstrip() + "\n"


if __name__ == "__main__":
    sys.exit(main())
