"""Spell checkers on text as found in the wild: man pages, team chat, and sentences in other languages.

Usage (from the repository root; ``make bench-wild`` calls this)::

    python -m bench.wild --wild ../shared/eval/wild [--out BENCHMARKS.md] [--checkers NAME ...] [--json]

The dev set (``../shared/eval/wild/README.md``) is one pair of files per genre,
``<genre>-clean.txt`` and ``<genre>-typos.txt``, with the same white-space token
layout; ``foreign`` has no misspellings put in, so it measures only what a
checker breaks. Every checker corrects each ``<genre>-typos.txt`` as its users
run it on a file:

* typofix: ``typofix correct --file F``, default and ``--fast`` (``bench.prose_checkers.TypofixCLI``);
* Aspell and Hunspell: every word they reject replaced by their first suggestion
  (``bench.prose_checkers.IspellText``);
* codespell and typos-cli: ``codespell -w`` / ``typos -w`` on a temporary copy
  of the file, which is then read back.

Scoring, per white-space token, is ``bench.prose.score_text``'s (a misspelling
is *fixed* when the output token equals the clean one; a correct token is
*broken* when it differs), with one rule added for wild text: a correct token
whose output differs from it in case only (``costco -> Costco``) is counted
apart, as *recased*, not as broken. Broken tokens are reported per 10,000
correct tokens.

A checker that is not installed is listed as skipped with a note; one whose
output of a genre cannot be scored (a crash, a changed token layout) is listed
as failed for that genre. Neither stops the run. ``--out`` writes the Markdown
as the kept section ``bench.wild`` of that file (``bench.report.write_section``);
``--json`` prints the raw scores instead of the Markdown.
"""

from __future__ import annotations

import argparse
import difflib
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench import peers
from bench.prose import ProseError, score_text
from bench.prose_checkers import IspellText, TextChecker, TypofixCLI
from bench.report import write_section
from bench.run import machine_info, selected

SECTION = "bench.wild"
GENRES = ("tech", "chat", "foreign")
TOP_BREAKS = 10  # typofix (default)'s most common broken pairs shown per genre
PER = 10_000  # broken tokens are counted per this many correct tokens
FAILURES = (ProseError, RuntimeError, OSError, subprocess.CalledProcessError)


# --- scoring -------------------------------------------------------------------------------------------------


@dataclass
class WildScore:
    """One checker's output of one genre, scored; ``broken`` and ``recased`` are (clean, output) pairs."""

    checker: str
    genre: str
    misspellings: int
    fixed: int
    correct_tokens: int
    broken: list[tuple[str, str]]  # correct tokens changed beyond their case, in text order
    recased: list[tuple[str, str]]  # correct tokens whose case alone changed, in text order
    seconds: float  # wall time of the whole run, start-up included

    @property
    def fixed_share(self) -> float:
        """Share of the misspellings fixed (0 when the genre has none)."""
        return self.fixed / self.misspellings if self.misspellings else 0.0

    @property
    def broken_per_10k(self) -> float:
        """Broken correct tokens per 10,000 correct tokens."""
        return PER * len(self.broken) / self.correct_tokens if self.correct_tokens else 0.0

    def common_breaks(self, n: int) -> list[tuple[tuple[str, str], int]]:
        """The ``n`` most frequent broken pairs with their counts, ties in text order."""
        return Counter(self.broken).most_common(n)

    def as_json(self) -> dict:
        """The raw counts and the derived shares, for ``--json``."""
        raw = asdict(self)
        raw["broken"], raw["recased"] = len(self.broken), len(self.recased)
        return {**raw, "fixed_share": self.fixed_share, "broken_per_10k": self.broken_per_10k,
                "broken_pairs": self.common_breaks(TOP_BREAKS)}


def is_recased(pair: tuple[str, str]) -> bool:
    """True if the output token differs from the clean one in case only."""
    clean, output = pair
    return clean != output and clean.lower() == output.lower()


def score_wild(checker: str, genre: str, clean: str, typos: str, output: str, seconds: float) -> WildScore:
    """``bench.prose.score_text``'s counts, with the correct tokens it calls broken split into recased and
    broken. Raises ``ProseError`` when the three texts do not split into the same number of tokens."""
    prose = score_text(checker, clean, typos, output, seconds)
    return WildScore(checker, genre, prose.misspellings, prose.fixed, prose.correct_words,
                     [pair for pair in prose.broken if not is_recased(pair)],
                     [pair for pair in prose.broken if is_recased(pair)], seconds)


# --- the in-place fixers: codespell and typos-cli -------------------------------------------------------------


class InPlaceFixer(TextChecker):
    """A tool that fixes a file in place (``codespell -w``, ``typos -w``), run on a temporary copy of the file."""

    def __init__(self, name: str, program: str, options: list[str], ok_codes: tuple[int, ...]) -> None:
        super().__init__()
        self.name = name
        self.program = program
        self.options = options
        self.ok_codes = ok_codes  # exit statuses of a run that wrote its fixes (codespell: 65, some left unfixed)

    def _argv0(self) -> str:
        """The tool's path (``tool_path``), or its bare name when there is none (``available`` said so first)."""
        return tool_path(self.program) or self.program

    def available(self) -> bool:
        """True if the tool is in the venv's bin or on PATH; otherwise ``notice`` says how to install it."""
        if tool_path(self.program) is None:
            self.notice = f"`{self.program}` not installed (pip install {self.program})"
            return False
        return True

    def version(self) -> str:
        done = subprocess.run([self._argv0(), "--version"], capture_output=True, text=True)
        return f"{self.program} {(done.stdout.split() or ['?'])[-1]}; `{' '.join([self.program, *self.options, 'F'])}`"

    def correct_file(self, path: Path) -> str:
        with tempfile.TemporaryDirectory(prefix="typofix-wild-") as folder:
            copy = Path(folder) / path.name
            shutil.copyfile(path, copy)
            # Run in the empty folder: both tools read a config (setup.cfg, pyproject.toml) from where they run.
            done = subprocess.run([self._argv0(), *self.options, copy.name], capture_output=True, text=True,
                                  cwd=folder)
            if done.returncode not in self.ok_codes:
                raise RuntimeError(f"{self.program} exited with {done.returncode}: {done.stderr.strip()[-200:]}")
            before, after = path.read_text(encoding="utf-8"), copy.read_text(encoding="utf-8")
        return rejoin_split_tokens(before, after)


def tool_path(program: str) -> str | None:
    """The program beside this Python (pip puts it in the venv's bin, which need not be on PATH), else on PATH;
    None when neither has it. (``bench.check_peers`` looks its tools up so too, in a private helper.)"""
    return shutil.which(program, path=str(Path(sys.executable).parent)) or shutil.which(program)


def rejoin_split_tokens(before: str, after: str) -> str:
    """``after`` with every token a fix split into several (codespell's ``incase -> in case``) written with
    ``_`` for its spaces, as ``bench.prose_checkers.first_suggestions`` writes Hunspell's ``alot -> a lot``:
    the token count holds, and a clean token is one word, so such a fix is never a fix either way.

    Only lines whose token count changed are aligned (``difflib`` over their tokens); a line whose tokens
    were merged, or lines added or removed, are left as they are for the scorer to reject."""
    old_lines, new_lines = before.split("\n"), after.split("\n")
    if len(old_lines) != len(new_lines):
        return after
    return "\n".join(new if len(old.split()) == len(new.split()) else _rejoin_line(old, new)
                     for old, new in zip(old_lines, new_lines))


def _rejoin_line(old: str, new: str) -> str:
    """One line's tokens after a fix, each run of tokens that replaced one old token joined with ``_``."""
    old_tokens, new_tokens = old.split(), new.split()
    out: list[str] = []
    matcher = difflib.SequenceMatcher(a=old_tokens, b=new_tokens, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "replace" and i2 - i1 == 1:
            out.append("_".join(new_tokens[j1:j2]))
        else:
            out.extend(new_tokens[j1:j2])
    return " ".join(out)


# --- the run ----------------------------------------------------------------------------------------------------


def all_checkers() -> list[TextChecker]:
    """Every checker of the wild benchmark, in table order."""
    return [
        TypofixCLI("typofix (default)", []),
        TypofixCLI("typofix (fast)", ["--fast"]),
        IspellText(peers.aspell()),
        IspellText(peers.hunspell()),
        InPlaceFixer("codespell", "codespell", ["-w"], ok_codes=(0, 65)),
        InPlaceFixer("typos-cli", "typos", ["-w"], ok_codes=(0, 2)),
    ]


@dataclass
class WildRun:
    """Everything the section says about one run."""

    command: str
    machine: dict[str, str]
    sizes: dict[str, tuple[int, int]] = field(default_factory=dict)  # genre -> (tokens, misspellings)
    scores: list[WildScore] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # checker -> why it did not run at all
    failed: dict[tuple[str, str], str] = field(default_factory=dict)  # (checker, genre) -> the error
    versions: dict[str, str] = field(default_factory=dict)
    checkers: list[str] = field(default_factory=list)  # the selected checkers, in table order
    seconds: float = 0.0  # the whole run


def read_genres(wild: Path) -> dict[str, tuple[Path, str, str]]:
    """Per genre: the typos file, the clean text and the typos text. Raises ``FileNotFoundError`` naming the
    first missing file."""
    genres = {}
    for genre in GENRES:
        clean_path, typos_path = wild / f"{genre}-clean.txt", wild / f"{genre}-typos.txt"
        for path in (clean_path, typos_path):
            if not path.is_file():
                raise FileNotFoundError(f"not found: {path}")
        genres[genre] = (typos_path, clean_path.read_text(encoding="utf-8"), typos_path.read_text(encoding="utf-8"))
    return genres


def run_checker(checker: TextChecker, genres: dict[str, tuple[Path, str, str]], run: WildRun) -> None:
    """Correct every genre with one checker and score it; why it could not run, or failed on a genre, goes
    into ``run`` instead of a score."""
    run.checkers.append(checker.name)
    if not checker.available():
        run.skipped[checker.name] = checker.notice
        log(f"skipping {checker.name}: {checker.notice}")
        return
    checker.warm_up()  # not timed: the page cache and typofix's index cache, as on any run after the first
    for genre, (typos_path, clean, typos) in genres.items():
        start = time.perf_counter()
        try:
            output = checker.correct_file(typos_path)
            score = score_wild(checker.name, genre, clean, typos, output, time.perf_counter() - start)
        except FAILURES as err:  # reported as a failure, never scored on a misaligned or partial output
            run.failed[checker.name, genre] = f"{type(err).__name__}: {err}"
            log(f"{checker.name}, {genre}: failed: {err}")
            continue
        run.scores.append(score)
        log(f"{checker.name}, {genre}: fixed {score.fixed_share:.1%}, broken {score.broken_per_10k:,.0f}/10k, "
            f"recased {len(score.recased)}, {score.seconds:.1f} s")
    run.versions[checker.name] = checker.version()


def typofix_source() -> str:
    """Where the typofix the CLI runs comes from: its folder and git commit, with a note when that checkout has
    uncommitted changes (typofix's numbers move with its code, so a figure must say which code made it)."""
    # Run from the bin folder: the console script the checkers start has that folder, not ours, on its path.
    done = subprocess.run([sys.executable, "-c", "import typofix; print(typofix.__file__)"], capture_output=True,
                          text=True, cwd=Path(sys.executable).parent)
    if done.returncode != 0:
        return "not importable"
    folder = str(Path(done.stdout.strip()).parent)
    commit = subprocess.run(["git", "-C", folder, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    if commit.returncode != 0:
        return f"`{folder}` (not a git checkout)"
    changed = subprocess.run(["git", "-C", folder, "status", "--porcelain", "--", "."], capture_output=True,
                             text=True).stdout.strip()
    # The package's name, not its path: a report is committed, and a machine's paths do not belong in it.
    return f"`{Path(folder).name}/` at commit {commit.stdout.strip()}" + (
        ", with uncommitted changes in it" if changed else "")


def benchmark(wild: Path, checkers: list[TextChecker], command: str) -> WildRun:
    """Run every checker over every genre of the set at ``wild``."""
    genres = read_genres(wild)
    run = WildRun(command, machine_info("none: each checker runs as its users run it; wall seconds are "
                                        "for orientation"))
    run.machine["typofix source"] = typofix_source()
    for genre, (_, clean, typos) in genres.items():
        run.sizes[genre] = (len(clean.split()), sum(a != b for a, b in zip(clean.split(), typos.split())))
    start = time.perf_counter()
    for checker in checkers:
        run_checker(checker, genres, run)
    run.seconds = time.perf_counter() - start
    return run


# --- the report -------------------------------------------------------------------------------------------------


def render(run: WildRun) -> str:
    """The Markdown section: method, the table, typofix's common breaks, the notes, machine and versions."""
    found = {(s.checker, s.genre): s for s in run.scores}
    parts = [_method(run), _table(run, found), _breaks(run, found), _notes(run), _machine(run)]
    return "\n".join(part for part in parts if part)


def _method(run: WildRun) -> str:
    """The heading, the command and how the numbers are made."""
    sizes = "; ".join(f"{genre} {tokens:,} tokens, {typos:,} misspelled" for genre, (tokens, typos)
                      in run.sizes.items())
    return "\n".join([
        "## Text as found in the wild", "",
        f"`{run.command}` ({run.machine.get('date (UTC)', '?')} UTC; whole run {run.seconds:,.0f} s). The dev set "
        f"`../shared/eval/wild` ({sizes}): real text not filtered to dictionary words, real misspellings put in "
        "(none in `foreign`). Each checker corrects each `<genre>-typos.txt` as its users run it on a file: "
        "typofix's `correct --file`; Aspell and Hunspell replace every word they reject by their first "
        "suggestion; codespell and typos-cli fix a temporary copy in place (`-w`; a fix of one word into several, "
        "codespell's `incase → in case`, is written with `_`, so the token count holds). Per white-space token: "
        "**fixed** = misspellings whose output is the clean token; **broken** = correct tokens changed beyond "
        "their case, per 10,000 correct tokens; **recased** = correct tokens whose case alone changed "
        "(`costco → Costco`), counted apart, not as broken. One run each.", ""])


def _table(run: WildRun, found: dict[tuple[str, str], WildScore]) -> str:
    """Rows = checkers; per genre "fixed % / broken per 10k", then recased counts and wall seconds."""
    genres = list(run.sizes)
    lines = ["| checker | " + " | ".join(f"{g}: fixed / broken per 10k" for g in genres)
             + " | recased (" + " / ".join(genres) + ") | wall s (" + " / ".join(genres) + ") |",
             "|---|" + "---:|" * (len(genres) + 2)]
    for name in run.checkers:
        scores = [found.get((name, genre)) for genre in genres]
        cells = [_cell(name, genre, score, run) for genre, score in zip(genres, scores)]
        recased = " / ".join(f"{len(s.recased):,}" if s else "-" for s in scores)
        seconds = " / ".join(f"{s.seconds:.1f}" if s else "-" for s in scores)
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {recased} | {seconds} |")
    return "\n".join(lines) + "\n"


def _cell(name: str, genre: str, score: WildScore | None, run: WildRun) -> str:
    """One table cell: "68.5% / 378", "- / 4,549" for a genre without misspellings, or why there is none."""
    if score is None:
        return "skipped" if name in run.skipped else "failed" if (name, genre) in run.failed else "-"
    fixed = f"{100 * score.fixed_share:.1f}%" if score.misspellings else "-"
    return f"{fixed} / {score.broken_per_10k:,.0f}"


def _breaks(run: WildRun, found: dict[tuple[str, str], WildScore]) -> str:
    """typofix (default)'s most common broken pairs per genre: what it still breaks."""
    name = "typofix (default)"
    scores = [found[name, genre] for genre in run.sizes if (name, genre) in found]
    if not scores:
        return ""
    lines = [f"Tokens {name} breaks most often, per genre (`clean → output` ×count):", ""]
    for score in scores:
        shown = ", ".join(f"`{clean} → {output}` ×{count}" for (clean, output), count
                          in score.common_breaks(TOP_BREAKS))
        lines.append(f"- {score.genre} ({len(score.broken):,} broken): {shown or 'none'}")
    return "\n".join(lines) + "\n"


def _notes(run: WildRun) -> str:
    """The checkers that did not run, and the genres a checker failed on."""
    notes = [f"- {name}: skipped, {why}" for name, why in run.skipped.items()]
    notes += [f"- {name}, {genre}: failed, {why}" for (name, genre), why in run.failed.items()]
    return "\n".join(["Not scored:", "", *notes]) + "\n" if notes else ""


def _machine(run: WildRun) -> str:
    """The machine and the version of every checker that ran."""
    keys = ("CPU", "cores", "OS", "Python", "date (UTC)", "typofix source")
    lines = ["| machine and versions | |", "|---|---|"]
    lines += [f"| {key} | {run.machine[key]} |" for key in keys if key in run.machine]
    lines += [f"| {name} | {version} |" for name, version in run.versions.items()]
    return "\n".join(lines) + "\n"


def as_json(run: WildRun) -> str:
    """The raw scores, failures, versions and machine, as one JSON document."""
    return json.dumps({
        "command": run.command, "machine": run.machine, "seconds": run.seconds,
        "sizes": {genre: {"tokens": t, "misspellings": m} for genre, (t, m) in run.sizes.items()},
        "scores": [score.as_json() for score in run.scores], "skipped": run.skipped,
        "failed": [{"checker": c, "genre": g, "error": e} for (c, g), e in run.failed.items()],
        "versions": run.versions,
    }, indent=2, ensure_ascii=False)


def log(message: str) -> None:
    """Progress on stderr, so stdout stays free for the section or the JSON."""
    print(message, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Benchmark the selected checkers on the wild set; print the section (or JSON), write it with --out."""
    parser = argparse.ArgumentParser(prog="python -m bench.wild", description=__doc__.split("\n")[0])
    parser.add_argument("--wild", type=Path, default=Path("../shared/eval/wild"),
                        help="the folder of <genre>-clean.txt / <genre>-typos.txt pairs (default %(default)s)")
    parser.add_argument("--out", type=Path, help=f"also write the section `{SECTION}` into this file (atomically)")
    parser.add_argument("--checkers", nargs="+", metavar="NAME", help="only the checkers whose name contains one "
                        "of these (any case), e.g. typofix, aspell, codespell")
    parser.add_argument("--json", action="store_true", help="print the raw scores as JSON instead of Markdown")
    args = parser.parse_args(argv)
    command = "python -m bench.wild " + shlex.join(sys.argv[1:] if argv is None else list(argv))
    checkers = [checker for checker in all_checkers() if selected(checker.name, args.checkers)]
    if not checkers:
        parser.error(f"no checker matches {args.checkers}; the names: {', '.join(c.name for c in all_checkers())}")
    try:
        run = benchmark(args.wild, checkers, command)
    except FileNotFoundError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    text = render(run)
    print(as_json(run) if args.json else text)
    if args.out is not None:
        write_section(args.out, SECTION, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
