"""`typofix check` beside the code-aware spell checkers people use, on the same files: findings per 1,000 lines,
and a fixed sample of each tool's findings with its line, for judging by hand.

The file sets: this repository's own tree (typofix/, tests/, bench/, docs/, README.md), the running Python's
standard library (its top-level `*.py` modules and the `json`, `http`, `urllib` and `logging` packages, about
150,000 lines) and, with --big MB (default 50), one file of that size made of the man pages' roff sources
(`man_text`). Each set is the list of files
`typofix check` walks there (git's view of the tree, binary and generated files left out), handed to every
tool as the same explicit list; the tree is copied first, so that every tool (and the samples) reads the
same bytes while people go on editing it. The tools: typofix (default, and --known-only), codespell (a list of known
misspellings), typos-cli (identifier-aware, its own list) and cspell (every word its dictionaries lack). A tool
that is not installed is left out with a note, never imitated: `pip install codespell typos`,
`npm install cspell@9` (then --cspell node_modules/.bin/cspell).

Each tool runs as a child process, alone: its wall-clock time, its CPU time (user + system, its own children's
included) and its peak resident memory come from the operating system (`os.wait4`), and the time its first
finding was printed from its output as it comes. typofix runs on the standard library with --jobs 1 and
--jobs 2 too (its --jobs 2 on two idle cores: compare the wall times of one run only), each searching every
word (--no-cache), and once more with the searches of words the runs before kept (`typofix.engine.searchstore`),
as the next run on a tree goes; its first run on each set finds none kept.

    python -m bench.check_peers --out docs/check.md --sample 15

writes the table between the `<!-- check-peers:begin -->` and `<!-- check-peers:end -->` marks of the --out
file (the rest of it kept), and the samples to --samples (default: stdout).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.footprint import compile_typofix
from typofix.apps.check.walk import files_to_check
from typofix.files.atomic import atomic_path
from typofix.words.indexcache import cache_dir

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("typofix", "tests", "bench", "docs", "README.md")
BEGIN, END = "<!-- check-peers:begin -->", "<!-- check-peers:end -->"
_CODESPELL = re.compile(r"^(.*?):(\d+): (\S+) ==> ")
_CSPELL = re.compile(r"^(.*?):(\d+):\d+ - Unknown word \((.*?)\)")


@dataclass(frozen=True)
class Found:
    """One finding of one tool: where, and the word it flagged."""

    path: str
    line: int
    word: str


@dataclass
class Result:
    tool: str
    found: list[Found] = field(default_factory=list)
    seconds: float = 0.0  # wall clock
    cpu: float = 0.0  # user + system
    rss_mb: float = 0.0  # peak resident memory
    first: float | None = None  # seconds to the first line of findings (None: it printed none)
    note: str = ""


@dataclass
class Output:
    """What one run of a tool wrote to stdout, with what the operating system says it took."""

    stdout: str
    returncode: int
    seconds: float
    cpu: float
    rss_mb: float
    first: float | None


STDLIB_PACKAGES = ("json", "http", "urllib", "logging")


def stdlib_files() -> list[str]:
    """The standard library of the running Python: its top-level modules and `STDLIB_PACKAGES`."""
    root = Path(sysconfig.get_paths()["stdlib"])
    return sorted(str(p) for pattern in ("*.py", *(f"{name}/*.py" for name in STDLIB_PACKAGES))
                  for p in root.glob(pattern))


def man_text(into: Path, megabytes: int, folder: Path = Path("/usr/share/man")) -> list[str]:
    """One file of `megabytes` MB made of the English man pages' roff sources (sections 1-8, in name order,
    decompressed), as a big text to check in one piece (typofix reads it as roff, by its first line; the
    peers as text); no file when there are no man pages."""
    pages = sorted(p for section in range(1, 9) for p in (folder / f"man{section}").glob("*.gz"))
    target, size = into / "man-pages.txt", megabytes * 1_000_000
    written = 0
    with open(target, "wb") as out:
        for page in pages:
            try:
                data = gzip.decompress(page.read_bytes())
            except (OSError, EOFError, gzip.BadGzipFile):
                continue
            data = data[:size - written]
            out.write(data)
            written += len(data)
            if written >= size:
                break
    return [str(target)] if written else []


def run_tool(command: list[str], cwd: str | None = None) -> Output:
    """Run `command` as a child process alone, reading its output as it comes: its stdout, exit status, wall
    and CPU seconds, peak resident memory (the child's and its own children's, as `wait4` reports them) and
    the seconds to its first line of output."""
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd)
    first, lines = None, []
    for line in child.stdout:
        if first is None:
            first = time.perf_counter() - started
        lines.append(line)
    child.stdout.close()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    # ru_maxrss is in kilobytes on Linux (bytes on macOS)
    rss = usage.ru_maxrss / (1 << 20 if sys.platform == "darwin" else 1 << 10)
    return Output(b"".join(lines).decode("utf-8", "replace"), child.returncode, seconds,
                  usage.ru_utime + usage.ru_stime, rss, first)


def project_files(into: Path) -> list[str]:
    """This tree's files as `typofix check` walks them, copied under `into` (their paths kept)."""
    copies = []
    for path in files_to_check([str(ROOT / p) for p in PROJECT]):
        copy = into / Path(path).relative_to(ROOT)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)
        copies.append(str(copy))
    return copies


def lines_of(files: list[str]) -> int:
    return sum(Path(f).read_bytes().count(b"\n") for f in files)


def run_typofix(files: list[str], *extra: str) -> tuple[list[Found], Output]:
    done = run_tool([sys.executable, "-m", "typofix", "check", "--json", "--no-config", *extra, *files])
    if done.returncode not in (0, 1):
        raise RuntimeError(f"typofix check failed with exit status {done.returncode}")
    return [Found(r["path"], r["line"], r["word"]) for r in map(json.loads, done.stdout.splitlines())], done


def forget_searches() -> None:
    """The searches of words that earlier runs of typofix check kept in the cache folder, removed."""
    folder = cache_dir()
    for store in folder.glob("searches-*") if folder is not None else ():
        store.unlink(missing_ok=True)


def run_codespell(files: list[str]) -> tuple[list[Found], Output]:
    done = run_tool([_tool("codespell"), *files])
    return [Found(m[1], int(m[2]), m[3]) for m in map(_CODESPELL.match, done.stdout.splitlines()) if m], done


def run_typos(files: list[str]) -> tuple[list[Found], Output]:
    done = run_tool([_tool("typos"), "--format", "json", *files])
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return [Found(r["path"], r["line_num"], r["typo"]) for r in rows if r.get("type") == "typo"], done


def run_cspell(files: list[str], program: str) -> tuple[list[Found], Output]:
    # cspell checks only the files under its root (the current folder) and skips what .gitignore names: run it
    # from the files' common folder, with no ignore file, so that it reads the same files as the others
    root = os.path.commonpath([os.path.dirname(os.path.abspath(f)) for f in files])
    done = run_tool([os.path.abspath(program) if os.sep in program else program, "--no-progress",
                     "--no-summary", "--no-color", "--no-gitignore", *[os.path.relpath(f, root) for f in files]],
                    cwd=root)
    return [Found(os.path.join(root, m[1]), int(m[2]), m[3])
            for m in map(_CSPELL.match, done.stdout.splitlines()) if m], done


def _tool(name: str) -> str:
    """A tool beside this Python (the venv's bin) or on PATH."""
    return shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name) or name


def timed(tool: str, call: Callable[[], tuple[list[Found], Output]]) -> Result:
    try:
        found, done = call()
    except (OSError, RuntimeError) as err:
        return Result(tool, note=f"not run: {err}")
    return Result(tool, found, done.seconds, done.cpu, done.rss_mb, done.first)


def compare(files: list[str], cspell: str | None, jobs: bool = False, known_only: bool = True) -> list[Result]:
    """Every tool on `files`; typofix with --jobs 1 and 2 too where `jobs`, and --known-only where asked.
    typofix's first run finds no searches kept by an earlier run (`forget_searches`); the --jobs rows search
    every word (--no-cache), and a last row takes the searches the runs before kept, as a tree's next run does."""
    forget_searches()
    results = [timed("typofix check", lambda: run_typofix(files))]
    if jobs:
        results += [timed(f"typofix check --jobs {n} --no-cache",
                          lambda n=n: run_typofix(files, "--jobs", str(n), "--no-cache")) for n in (1, 2)]
        results.append(timed("typofix check --jobs 1, searches kept", lambda: run_typofix(files, "--jobs", "1")))
    if known_only:
        results.append(timed("typofix check --known-only", lambda: run_typofix(files, "--known-only")))
    for tool, program, call in (("codespell", "codespell", run_codespell), ("typos-cli", "typos", run_typos)):
        results.append(timed(tool, lambda call=call: call(files)) if shutil.which(_tool(program))
                       else Result(tool, note=f"not installed (pip install {program})"))
    program = cspell or shutil.which("cspell")
    results.append(timed("cspell", lambda: run_cspell(files, program)) if program
                   else Result("cspell", note="not installed (npm install cspell@9; --cspell PATH)"))
    return results


def table(sets: dict[str, tuple[list[str], list[Result]]]) -> str:
    rows = ["| file set | files | lines | tool | findings | per 1,000 lines | wall s | CPU s | peak RSS MB | "
            "first finding s |",
            "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    for name, (files, results) in sets.items():
        lines = lines_of(files)
        for r in results:
            if r.note:
                rows.append(f"| {name} | {len(files)} | {lines:,} | {r.tool} | {r.note} | | | | | |")
            else:
                first = "" if r.first is None else f"{r.first:.2f}"
                rows.append(f"| {name} | {len(files)} | {lines:,} | {r.tool} | {len(r.found):,} | "
                            f"{1000 * len(r.found) / max(lines, 1):.2f} | {r.seconds:.2f} | {r.cpu:.2f} | "
                            f"{r.rss_mb:.0f} | {first} |")
    return "\n".join(rows)


def samples(sets: dict[str, tuple[list[str], list[Result]]], k: int, seed: int = 0) -> str:
    """`k` findings of each tool on each set (a fixed random sample), with the line they are on."""
    out = []
    for name, (_, results) in sets.items():
        for r in results:
            if not r.found:
                continue
            picked = sorted(random.Random(seed).sample(r.found, min(k, len(r.found))),
                            key=lambda f: (f.path, f.line))
            out.append(f"## {name}: {r.tool} ({len(picked)} of {len(r.found)})")
            for f in picked:
                text = Path(f.path).read_text(encoding="utf-8", errors="replace").splitlines()
                line = text[f.line - 1].strip() if 0 < f.line <= len(text) else ""
                out.append(f"- {Path(f.path).name}:{f.line} `{f.word}`: {line[:140]}")
    return "\n".join(out) + "\n"


def write_table(out: Path, text: str) -> None:
    """Put `text` between the marks of `out` (appended with the marks if it has none), atomically."""
    old = out.read_text(encoding="utf-8") if out.exists() else ""
    block = f"{BEGIN}\n{text}\n{END}"
    new = (re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, old, flags=re.DOTALL)
           if BEGIN in old else old + ("\n" if old else "") + block + "\n")
    with atomic_path(out) as tmp:
        tmp.write_text(new, encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write the table between the marks of this file")
    parser.add_argument("--sample", type=int, default=0, metavar="K", help="K findings of each tool to judge")
    parser.add_argument("--samples", type=Path, help="write the samples here (default: stdout)")
    parser.add_argument("--cspell", help="the cspell program (default: cspell on PATH)")
    parser.add_argument("--big", type=int, default=50, metavar="MB",
                        help="also check one plain-text file of this many MB made of man pages (0: not)")
    parser.add_argument("--sets", default="tree,stdlib,big", help="which file sets, by name (tree, stdlib, big)")
    args = parser.parse_args(argv)
    compile_typofix()  # (typofix's runs start as an installed typofix does)
    wanted = set(args.sets.split(","))
    sets = {}
    with tempfile.TemporaryDirectory() as snapshot:
        chosen = [("typofix tree", "tree", lambda: project_files(Path(snapshot)), {}),
                  ("stdlib *.py + json, http, urllib, logging", "stdlib", stdlib_files, {"jobs": True}),
                  (f"man pages, one {args.big} MB file", "big", lambda: man_text(Path(snapshot), args.big),
                   {"known_only": False})]
        for name, key, files_of, options in chosen:
            if key not in wanted or (key == "big" and not args.big):
                continue
            files = files_of()
            if not files:
                print(f"{name}: no files here, left out", file=sys.stderr)
                continue
            sets[name] = (files, compare(files, args.cspell, **options))
            print(f"{name}: {len(files)} files done", file=sys.stderr)
        report(sets, args)


def report(sets: dict[str, tuple[list[str], list[Result]]], args: argparse.Namespace) -> None:
    text = table(sets)
    print(text)
    if args.out:
        write_table(args.out, text)
    if args.sample:
        judged = samples(sets, args.sample)
        if args.samples:
            args.samples.write_text(judged, encoding="utf-8")
        else:
            print(judged)


if __name__ == "__main__":
    main()
