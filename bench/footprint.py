"""Each checker as a command-line user meets it: a fresh process that starts, loads its dictionary or model,
suggests for one set's distinct typos and exits. Its wall time, start-up included, and its peak resident memory
(the kernel's ru_maxrss of that process, as GNU time reports it) go beside the start-up-excluded speeds of
``bench.run``.

Aspell and Hunspell run as themselves (``aspell -a`` reading the list on stdin); a Python checker runs as
``python -m bench.footprint NAME FILE`` (this module's child mode), which builds the checker, loads it and
makes the one call. The child inherits the benchmark's one core and one thread. GNU time (/usr/bin/time)
starts it: a process forked straight from this one would carry the benchmark's own high-water mark into its
ru_maxrss (Linux copies it across fork and exec), and time is a small process to fork from.
"""

from __future__ import annotations

import compileall
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench import peers

TOP_K = 5
GNU_TIME = "/usr/bin/time"


@dataclass
class Footprint:
    """One checker's whole run on one set: `words` distinct typos in `seconds` of wall time, start-up
    included, at `peak_mb` MB of peak resident memory."""

    checker: str
    set_name: str
    words: int
    seconds: float
    peak_mb: float

    @property
    def words_per_second(self) -> float:
        return self.words / self.seconds if self.seconds > 0 else float("inf")


def compile_typofix() -> None:
    """typofix's modules compiled to bytecode (into the ignored `__pycache__` folders), as an installed typofix
    has them, before its processes are timed: a development checkout run with `PYTHONDONTWRITEBYTECODE=1` would
    compile every module changed since its bytecode was written in every run (on `typofix check` of the standard
    library, 1-2 s and about 90 MB of peak memory more on the development machine, 2026-11-27)."""
    import typofix

    compileall.compile_dir(Path(typofix.__file__).parent, quiet=1)


def measure(checker: peers.Checker, set_name: str, words: list[str], words_path: Path) -> Footprint:
    """Run `checker` once on `words` in a fresh process (see the module docstring); RuntimeError if it fails."""
    with tempfile.TemporaryDirectory() as folder:
        if isinstance(checker, peers.IspellPipe):
            argv, stdin = checker.argv, "".join(f"^{w}\n" for w in words)
        else:
            listed = Path(folder) / "words.txt"
            listed.write_text("".join(f"{w}\n" for w in words), encoding="utf-8")
            argv, stdin = [sys.executable, "-m", "bench.footprint", checker.name, str(listed), str(words_path)], ""
        run = timed_run(argv, stdin, Path(folder))
    return Footprint(checker.name, set_name, len(words), run.seconds, run.peak_kb / 1024)


@dataclass
class TimedRun:
    """One process's wall seconds, CPU seconds (user + system) and peak resident memory in KB."""

    seconds: float
    cpu_seconds: float
    peak_kb: int


def timed_run(argv: list[str], stdin: str, folder: Path, env: dict[str, str] | None = None) -> TimedRun:
    """One process fed `stdin` (with `env`, or this one's), its output discarded, under GNU time (the module
    docstring says why); RuntimeError if it fails."""
    if not Path(GNU_TIME).is_file():
        raise RuntimeError(f"{GNU_TIME} not found (Debian package `time`)")
    report = folder / "time.txt"
    start = time.perf_counter()
    done = subprocess.run([GNU_TIME, "-f", "%M %U %S", "-o", str(report), *argv], input=stdin.encode("utf-8"),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{argv[0]} exited with {done.returncode}: {done.stderr.decode()[-300:]}")
    peak, user, system = report.read_text().split()[-3:]
    return TimedRun(seconds, float(user) + float(system), int(peak))


def _child(name: str, words_file: str, words_path: str) -> None:
    """The child mode: build the checker `name`, load it and make the one call."""
    checker = next(c for c in peers.all_checkers(Path(words_path)) if c.name == name)
    checker.load()
    words = Path(words_file).read_text(encoding="utf-8").split("\n")[:-1]
    checker.suggest_many(words, TOP_K)


if __name__ == "__main__":
    _child(*sys.argv[1:4])
