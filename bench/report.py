"""Turn a benchmark run into ``BENCHMARKS.md`` and two PNG charts, each written atomically."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from typofix.files.atomic import atomic_path

from bench.prose import ProseScore
from bench.scoring import BUCKETS, FalseCorrections, SetScore

TOP1_PNG = "bench_top1.png"
DISTANCE_PNG = "bench_by_distance.png"
SPEED_BASE = "Aspell"
TYPOFIX_PREFIX = "typofix"
EXAMPLES = 4  # false corrections quoted per checker
PROSE_EXAMPLES = 5  # broken words (typofix's missed ones too) quoted per checker and running-text set


@dataclass
class EvalSet:
    """The rows of one eval file used in the run, and how many the file has."""

    name: str
    rows: list[tuple[str, str]]
    file_rows: int
    path: str = ""


@dataclass
class ProseSet:
    """One running-text set (a folder with clean.txt and typos.txt) and every checker's score on it."""

    name: str  # the folder's name (its parent's in front when two sets share it)
    path: str
    source: str = ""  # what the text is and how its misspellings were made, for the report
    scores: list[ProseScore] = field(default_factory=list)
    notice: str = ""  # why the set was skipped, when it was


# What the running-text sets `make bench` reads are, by folder name; a set not named here is described by the
# first paragraph of its folder's README.md (bench.informal writes one).
PROSE_SOURCES = {
    "prose": "A dev set (its README says how it was made): prose of the Debian FAQ and the GNU coding standards "
             "whose every word Aspell or Hunspell accepts, in which real misspellings from the dev lists "
             "(norvig-testset1, birkbeck-dev) replace words, one token for one token.",
    "informal": "A dev set, text as people type it (`../shared/eval/README.md`): the same clean text as `prose`, "
                "in which half the eligible tokens, drawn by token position, carry one of two slips: a "
                "capitalised word that Aspell (en_US) accepts only capitalised typed in lower case (`Debian → "
                "debian`, `English → english`), or a contraction typed without its apostrophe where the result "
                "is no word (`don't → dont`, `you're → youre`).",
}


@dataclass
class Run:
    """Everything the report says about one benchmark run."""

    command: str
    machine: dict[str, str]
    sets: list[EvalSet]
    limit: int | None
    seed: int
    sample_size: int
    versions: dict[str, str] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    scores: list[SetScore] = field(default_factory=list)
    false_corrections: list[FalseCorrections] = field(default_factory=list)
    prose: list[ProseSet] = field(default_factory=list)  # the running-text sets, in --prose order
    prose_versions: dict[str, str] = field(default_factory=dict)
    footprints: list = field(default_factory=list)  # bench.footprint.Footprint: whole runs, start-up included


def write_report(run: Run, out: Path, plots: Path) -> None:
    """Write the markdown report and both charts (each replaced atomically, folders created)."""
    plots.mkdir(parents=True, exist_ok=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    _replace_atomically(plots / TOP1_PNG, lambda path: _save(plot_top1(run.scores), path))
    _replace_atomically(plots / DISTANCE_PNG, lambda path: _save(plot_by_distance(run.scores), path))
    link = Path(os.path.relpath(plots, out.parent))
    text = render_markdown(run, link)
    if out.is_file():  # sections other commands own (bench.network_value) outlive the rewrite
        text = "".join([text.rstrip("\n") + "\n", *("\n" + m.group(0) for m in _KEPT.finditer(out.read_text()))])
    _replace_atomically(out, lambda path: Path(path).write_text(text, encoding="utf-8"))


# A section another command writes into the report and `make bench` keeps: `put_section` writes it.
_KEPT = re.compile(r"<!-- kept: (\S+) -->\n.*?<!-- /kept: \1 -->\n", re.S)


def put_section(text: str, name: str, body: str) -> str:
    """`text` (a report) with the section `name` set to `body`: replaced where the report has it, else added
    at the end. A rewrite of the report by `write_report` carries the section over."""
    block = f"<!-- kept: {name} -->\n{body.rstrip()}\n<!-- /kept: {name} -->\n"
    for match in _KEPT.finditer(text):
        if match.group(1) == name:
            return text[:match.start()] + block + text[match.end():]
    return (text.rstrip("\n") + "\n\n" if text.strip() else "") + block


def write_section(path: Path, name: str, body: str) -> None:
    """Set the section `name` of the report at `path` (made if missing) to `body`, atomically (`put_section`)."""
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    _replace_atomically(path, lambda tmp: Path(tmp).write_text(put_section(old, name, body), encoding="utf-8"))


def _replace_atomically(target: Path, write: Callable[[str], None]) -> None:
    """Let ``write`` fill a temporary file beside ``target``, then move it into place in one step."""
    with atomic_path(target) as temporary:
        write(str(temporary))


# --- markdown ---------------------------------------------------------------------------------------------


def render_markdown(run: Run, plots_link: Path) -> str:
    """The whole of ``BENCHMARKS.md``."""
    parts = [
        "# Benchmarks\n",
        "Generated by `make bench`; do not edit by hand (a section marked `kept` is written by the command it shows "
        "and carried over). Command:\n",
        f"```\n{run.command}\n```\n",
        _method(run),
        _prose_section(run),
    ]
    for eval_set in run.sets:
        parts.append(_set_table(eval_set, [s for s in run.scores if s.set_name == eval_set.name]))
    parts.append(_footprint_table(run))
    parts.append(f"![Top-1 per set and checker]({plots_link / TOP1_PNG})\n")
    parts.append(_distance_tables(run))
    parts.append(f"![Top-1 by edit distance, typofix vs the best peer]({plots_link / DISTANCE_PNG})\n")
    parts.append(_false_table(run))
    parts.append(_timing_table(run))
    parts.append(_skipped(run))
    parts.append(_machine(run))
    return "\n".join(part for part in parts if part)


def _method(run: Run) -> str:
    """How the numbers are made, in a few bullets."""
    limit = (
        f"Sets larger than {run.limit:,} rows are cut to {run.limit:,} rows by a seeded sample "
        f"(`random.Random({run.seed}).sample` of row indices, file order kept)."
        if run.limit
        else "Every row of every set is used."
    )
    return "\n".join([
        "## How it is measured\n",
        "- **top-1**: the checker's first candidate is the intended word; **top-5**: the intended word is among "
        "its first five. Every row counts once: a typo written for several words (Birkbeck's `a` for `and`, "
        "`at`, ...) is scored against each of them, so at most one of those rows can be right at top-1.",
        "- **unchanged**: share of rows whose top-1 is the typo itself (accepted as a word, or no suggestion); "
        "lower is better on misspellings.",
        "- Candidates of every checker are lowercased (the sets are lowercase; Aspell and Hunspell suggest "
        "`John` with its capital). A checker's own order is its ranking; pyspellchecker and the Norvig-style "
        "corrector rank by word count, equal counts alphabetically. SymSpell (`Verbosity.CLOSEST`), "
        "pyspellchecker and the Norvig-style corrector only offer the words at the nearest edit distance, so "
        "their top-5 lists are often shorter than five.",
        f"- **words/s**: one process on one CPU core ({run.machine.get('timing rule', '?')}). Per set, every "
        f"checker gets the set's distinct typos in one call (k=5) and the wall time of that call is measured; "
        f"loading dictionaries and models and one untimed three-word warm-up call are excluded (Aspell and "
        f"Hunspell start one `-a` process for the whole list, inside the timing). A call under a second is "
        f"made up to three times, each after a fresh load and warm-up, with the same answers, and the fastest "
        f"counts; slower calls once. The repeats run in rounds, each quick checker once a round on the same "
        f"set, so that the calls a ratio compares are minutes apart no more. On a machine that may be busy, absolute "
        f"words/s vary between machines and runs, so speed is also given as a ratio to {SPEED_BASE} measured "
        f"in the same run.",
        f"- {limit}",
        "- **Bold**: best value of the column (highest, lowest for *unchanged*).",
        "",
    ])


def _prose_section(run: Run) -> str:
    """How the running text is scored and timed, then one section per set (`_prose_set`)."""
    if not run.prose:
        return ""
    lines = [
        "## Running text\n",
        "Each set is a folder with `clean.txt` and `typos.txt`, the same text token for token, `typos.txt` with "
        "misspellings or slips put in; each checker corrects `typos.txt` as a user would. One section per set "
        "follows, named by its folder.\n",
        "- The text, `clean.txt` and the checker's output are split on white space and compared token by token, "
        "exactly (case and attached punctuation count). A token that differs between `clean.txt` and `typos.txt` "
        "is a misspelling, **fixed** when the output token equals the clean one; every other token is a correct "
        "word, **broken** when the output token differs from it. An output that does not split into as many "
        "tokens is reported as a failure, never scored.",
        "- Each checker as a user runs it on the file. typofix: `typofix correct --file typos.txt` with the "
        "row's options, in a child process. Aspell and Hunspell: an *accept the first suggestion* user; one "
        "`-a` pipe process reads every line (`^`-prefixed), and every word it rejects is replaced, at the "
        "offset it reports, by its first suggestion (kept when it has none; a suggestion of several words, "
        "Hunspell's `alot → a lot`, is written with `_` so the token count holds, which changes no count). "
        "SymSpell (`Verbosity.CLOSEST`, first suggestion) and the Norvig-style corrector: every alphabetic run "
        "(`[A-Za-z]+`) is looked up in lower case, each distinct run once, and replaced by the first suggestion "
        "in the run's case; a run the checker knows, or has no suggestion for, stays, and so do the letters "
        "after an apostrophe inside a word (`don't`, `program's`: their dictionaries have no `t` or `s`). "
        "Everything else in the text stays as it is.",
        f"- **words/s**: words of the text per second of wall time of the whole run, **start-up included**, on "
        f"the one pinned core ({run.machine.get('timing rule', '?')}): for typofix, Aspell and Hunspell the "
        "child process from start to exit (for typofix: Python, imports, the model, the word lists and their "
        "indexes, loaded from typofix's index cache as on any run after the first, then the text; `make startup` "
        "times the first run too, which builds the indexes); "
        "for SymSpell and the Norvig-style corrector, building their dictionary and correcting the text inside "
        "the benchmark process (the Python import of the package not counted). Before it is timed, each "
        "checker runs once on a single word (typofix: a short sentence of typos), untimed, so that all start with "
        "their files in the page cache. "
        "One measurement each. CPU s counts this process and the child process it waited for.",
        "- **Bold**: best value of the column (most fixed, fewest broken, fastest).",
        "",
    ]
    return "\n".join(lines) + "\n" + "\n".join(_prose_set(prose_set) for prose_set in run.prose)


def _prose_set(prose_set: ProseSet) -> str:
    """One running-text set: where its text comes from, the table, and the words each checker broke."""
    head = f"## Running text: {prose_set.name}\n"
    if prose_set.notice:
        return f"{head}\nSkipped: {prose_set.notice}.\n"
    scores = prose_set.scores
    first = scores[0] if scores else None
    size = (f"{first.words:,} words (white-space tokens), {first.misspellings:,} of them misspelled"
            if first else "no checker ran")
    source = f" {prose_set.source}" if prose_set.source else ""
    lines = [head, f"`{prose_set.path}/typos.txt`: {size}.{source}\n"]
    if not scores:
        return "\n".join(lines) + "\nNo checker ran (see Skipped).\n"
    best_fixed = max(s.fixed for s in scores)
    best_broken = min(len(s.broken) for s in scores)
    best_speed = max(s.words_per_second for s in scores)
    lines += ["| checker | fixed | broken | words/s | wall s | CPU s |", "|---|---:|---:|---:|---:|---:|"]
    for s in scores:
        cells = [
            _bold(f"{100 * s.fixed_share:.1f}% ({s.fixed:,}/{s.misspellings:,})", s.fixed == best_fixed),
            _bold(f"{100 * s.broken_share:.2f}% ({len(s.broken):,}/{s.correct_words:,})",
                  len(s.broken) == best_broken),
            _bold(f"{s.words_per_second:,.0f}", s.words_per_second == best_speed),
            f"{s.seconds:.2f}",
            f"{s.cpu_seconds:.2f}",
        ]
        lines.append(f"| {s.checker} | " + " | ".join(cells) + " |")
    lines += ["", "Broken words, the most frequent first (`clean → output`):", ""]
    for s in scores:
        shown = ", ".join(f"`{clean} → {output}`" for clean, output in s.common_breaks(PROSE_EXAMPLES))
        lines.append(f"- {s.checker}: {shown or 'none'}")
    typofix = [s for s in scores if s.checker.startswith(TYPOFIX_PREFIX)]
    if typofix:
        lines += ["", "Misspellings typofix left wrong, the most frequent first (`clean → output`):", ""]
        for s in typofix:
            shown = ", ".join(f"`{clean} → {output}`" for clean, output in s.common_misses(PROSE_EXAMPLES))
            lines.append(f"- {s.checker}: {shown or 'none'}")
    return "\n".join(lines) + "\n"


def _set_table(eval_set: EvalSet, scores: list[SetScore]) -> str:
    """The per-set table: accuracy, unchanged share and speed, best values in bold."""
    sampled = f", sampled from {eval_set.file_rows:,}" if len(eval_set.rows) < eval_set.file_rows else ""
    distinct = len({typo for typo, _ in eval_set.rows})
    source = f"`{eval_set.path}`: " if eval_set.path else ""
    head = f"## {eval_set.name}\n\n{source}{len(eval_set.rows):,} rows{sampled}; {distinct:,} distinct typos.\n"
    if not scores:
        return head + "\nNo checker ran.\n"
    base = next((s.words_per_second for s in scores if s.checker == SPEED_BASE), None)
    best = {
        "top1": max(s.top1 for s in scores),
        "top5": max(s.top5 for s in scores),
        "unchanged": min(s.unchanged for s in scores),
        "wps": max(s.words_per_second for s in scores),
    }
    lines = [
        head,
        f"| checker | top-1 | top-5 | unchanged | words/s | speed vs {SPEED_BASE} |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for s in scores:
        cells = [
            _bold(_percent(s.top1), s.top1 == best["top1"]),
            _bold(_percent(s.top5), s.top5 == best["top5"]),
            _bold(_percent(s.unchanged), s.unchanged == best["unchanged"]),
            _bold(f"{s.words_per_second:,.0f}", s.words_per_second == best["wps"]),
            _bold(_ratio(s.words_per_second, base), s.words_per_second == best["wps"] and base is not None),
        ]
        lines.append(f"| {s.checker} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _footprint_table(run: Run) -> str:
    """Whole runs as a command-line user meets them (`bench.footprint`): start-up included, peak memory."""
    if not run.footprints:
        return ""
    lines = [
        "## Start-up included, and memory\n",
        f"Each checker as a fresh process that starts, loads, suggests (k=5) for the set's distinct typos and "
        f"exits (`bench.footprint`; Aspell and Hunspell as `-a` processes, typofix as a Python process; the same "
        f"pinned core). *words/s* is over that process's whole wall time; *speed vs {SPEED_BASE}* beside the "
        f"start-up-excluded ratio of the tables above; *peak RSS* is the process's own (ru_maxrss).\n",
        f"| checker | set | words | wall s | words/s | vs {SPEED_BASE}, start-up included | "
        f"vs {SPEED_BASE}, excluded | peak RSS MB |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for f in run.footprints:
        base = next((b.words_per_second for b in run.footprints
                     if b.checker == SPEED_BASE and b.set_name == f.set_name), None)
        scores = {s.checker: s.words_per_second for s in run.scores if s.set_name == f.set_name}
        excluded = _ratio(scores[f.checker], scores.get(SPEED_BASE)) if f.checker in scores else "—"
        lines.append(f"| {f.checker} | {f.set_name} | {f.words:,} | {f.seconds:.2f} | {f.words_per_second:,.0f} | "
                     f"{_ratio(f.words_per_second, base)} | {excluded} | {f.peak_mb:,.0f} |")
    return "\n".join(lines) + "\n"


def _distance_tables(run: Run) -> str:
    """Top-1 per edit-distance bucket (optimal string alignment distance of typo and target), per set."""
    lines = ["## Top-1 by the typo's edit distance\n",
             "Optimal string alignment (Damerau) distance between typo and intended word.\n"]
    for eval_set in run.sets:
        scores = [s for s in run.scores if s.set_name == eval_set.name]
        if not scores:
            continue
        sizes = {b: scores[0].by_bucket[b][1] for b in BUCKETS}
        lines.append(f"**{eval_set.name}**\n")
        lines.append("| checker | " + " | ".join(f"{b} (n={sizes[b]:,})" for b in BUCKETS) + " |")
        lines.append("|---|" + "---:|" * len(BUCKETS))
        best = {b: max(_bucket_accuracy(s, b) for s in scores) for b in BUCKETS}
        for s in scores:
            cells = [_bold(_percent(_bucket_accuracy(s, b)), _bucket_accuracy(s, b) == best[b]) for b in BUCKETS]
            lines.append(f"| {s.checker} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def _false_table(run: Run) -> str:
    """False corrections on the correct-word samples, with a few examples per checker."""
    names = list(dict.fromkeys(f.checker for f in run.false_corrections))
    samples = list(dict.fromkeys(f.sample_name for f in run.false_corrections))
    if not names:
        return ""
    found = {(f.checker, f.sample_name): f for f in run.false_corrections}
    best = {n: min(len(found[c, n].changed) for c in names) for n in samples}
    lines = [
        "## False corrections on correct words\n",
        f"Each checker gets two samples of {run.sample_size:,} words from `data/words.tsv` (seed {run.seed}): "
        "**by frequency** draws with replacement in proportion to the word's count (the words of running text), "
        "**uniform** draws distinct entries of the list with equal chance (rare words included). Counted: words "
        "whose top-1 is not the word itself (lower is better). The Norvig-style corrector's lexicon is "
        "`data/words.tsv` and SymSpell's dictionary is that list's source, so both accept every sampled word by "
        "construction. typofix reads the same list but does not take every listed word as final: it may "
        "replace a rare listed word by a likelier one, which is what this test catches. "
        "Aspell, Hunspell and pyspellchecker have their own word lists, and the uniform sample includes "
        "lowercased names and abbreviations that they may rightly question.\n",
        "| checker | " + " | ".join(f"changed, {n}" for n in samples) + " | examples |",
        "|---|" + "---:|" * len(samples) + "---|",
    ]
    for name in names:
        cells = [_bold(str(len(found[name, n].changed)), len(found[name, n].changed) == best[n]) for n in samples]
        examples = dict.fromkeys(f"{w}→{c}" for n in samples for w, c in found[name, n].changed)
        shown = ", ".join(f"`{e}`" for e in list(examples)[:EXAMPLES])
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {shown} |")
    return "\n".join(lines) + "\n"


def _timing_table(run: Run) -> str:
    """Wall and CPU seconds of every timed call, so a busy machine's waiting can be told from work."""
    if not run.scores:
        return ""
    lines = [
        "## Timing detail\n",
        "Wall time is what *words/s* uses. CPU time counts this process and the Aspell or Hunspell process it "
        "waited for; when CPU time is well below wall time, the machine was busy and the wall-time speeds "
        "are pessimistic.\n",
        "| checker | set | words | wall s | CPU s | words per CPU s |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for s in run.scores:
        per_cpu = f"{s.words / s.cpu_seconds:,.0f}" if s.cpu_seconds > 0 else "—"
        lines.append(
            f"| {s.checker} | {s.set_name} | {s.words:,} | {s.seconds:.2f} | {s.cpu_seconds:.2f} | {per_cpu} |"
        )
    return "\n".join(lines) + "\n"


def _skipped(run: Run) -> str:
    """Checkers that did not run, and why."""
    if not run.skipped:
        return ""
    lines = ["## Skipped\n"] + [f"- **{name}**: {notice}" for name, notice in run.skipped]
    return "\n".join(lines) + "\n"


def _machine(run: Run) -> str:
    """Machine and the version of every checker that ran."""
    lines = ["## Machine and versions\n", "| | |", "|---|---|"]
    lines += [f"| {key} | {value} |" for key, value in run.machine.items()]
    lines += [f"| {name} | {version} |" for name, version in run.versions.items()]
    lines += [f"| {name}, running text | {version} |" for name, version in run.prose_versions.items()
              if run.versions.get(name) != version]
    return "\n".join(lines) + "\n"


def _bucket_accuracy(score: SetScore, bucket: str) -> float:
    """Top-1 accuracy in one bucket (0 for an empty bucket)."""
    hits, rows = score.by_bucket[bucket]
    return hits / rows if rows else 0.0


def _percent(value: float) -> str:
    """A share as a percentage with one decimal."""
    return f"{100 * value:.1f}%"


def _ratio(value: float, base: float | None) -> str:
    """A speed as a multiple of the base speed, two significant digits below 1."""
    if not base:
        return "—"
    ratio = value / base
    return f"{ratio:.2g}×" if ratio < 1 else f"{ratio:,.1f}×"


def _bold(text: str, condition: bool) -> str:
    """Markdown bold when ``condition`` holds."""
    return f"**{text}**" if condition else text


# --- charts -----------------------------------------------------------------------------------------------


def _pyplot():
    """matplotlib's pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(figure, path: str) -> None:
    """Write a figure as PNG and release it."""
    figure.savefig(path, format="png", dpi=120, bbox_inches="tight")
    _pyplot().close(figure)


def plot_top1(scores: list[SetScore]):
    """Grouped bars: top-1 per eval set (groups) and checker (bars)."""
    plt = _pyplot()
    sets = list(dict.fromkeys(s.set_name for s in scores))
    checkers = list(dict.fromkeys(s.checker for s in scores))
    found = {(s.checker, s.set_name): s.top1 for s in scores}
    figure, axes = plt.subplots(figsize=(max(6, 2.2 * len(sets) + 0.5 * len(checkers)), 4.5))
    width = 0.8 / max(len(checkers), 1)
    for i, checker in enumerate(checkers):
        xs = [j + (i - (len(checkers) - 1) / 2) * width for j in range(len(sets))]
        values = [100 * found.get((checker, name), 0.0) for name in sets]
        bars = axes.bar(xs, values, width, label=checker)
        axes.bar_label(bars, fmt="%.0f", fontsize=7)
    axes.set_xticks(range(len(sets)), sets)
    axes.set_ylabel("top-1 accuracy (%)")
    _percent_axis(axes)
    axes.set_title("Top-1 accuracy per eval set")
    # Below the axes: eight checkers' labels would cover the tallest bars.
    axes.legend(fontsize=8, ncols=4, loc="upper center", bbox_to_anchor=(0.5, -0.08), frameon=False)
    return figure


def plot_by_distance(scores: list[SetScore]):
    """Per set, top-1 by edit-distance bucket for the best typofix row and the best peer (by overall top-1)."""
    plt = _pyplot()
    sets = list(dict.fromkeys(s.set_name for s in scores))
    figure, axes_row = plt.subplots(1, max(len(sets), 1), figsize=(4.5 * max(len(sets), 1), 4), squeeze=False)
    for axes, name in zip(axes_row[0], sets):
        in_set = [s for s in scores if s.set_name == name]
        shown = [best for best in (_best(in_set, typofix=True), _best(in_set, typofix=False)) if best]
        width = 0.8 / len(shown)
        for i, score in enumerate(shown):
            xs = [j + (i - (len(shown) - 1) / 2) * width for j in range(len(BUCKETS))]
            label = score.checker if score.checker.startswith(TYPOFIX_PREFIX) else f"{score.checker} (best peer)"
            bars = axes.bar(xs, [100 * _bucket_accuracy(score, b) for b in BUCKETS], width, label=label)
            axes.bar_label(bars, fmt="%.0f", fontsize=8)
        sizes = [score.by_bucket[b][1] for b in BUCKETS] if shown else [0] * len(BUCKETS)
        axes.set_xticks(range(len(BUCKETS)), [f"{b}\n(n={n:,})" for b, n in zip(BUCKETS, sizes)])
        axes.set_xlabel("edit distance typo → intended word (OSA)")
        _percent_axis(axes)
        axes.set_title(name if any(s.checker.startswith(TYPOFIX_PREFIX) for s in in_set) else f"{name} (no typofix)")
        axes.legend(fontsize=8, ncols=2, loc="upper center", bbox_to_anchor=(0.5, -0.22), frameon=False)
    axes_row[0][0].set_ylabel("top-1 accuracy (%)")
    return figure


def _percent_axis(axes) -> None:
    """A 0-100 % axis with headroom, so the value labels of full bars stay clear of the title."""
    axes.set_ylim(0, 109)
    axes.set_yticks(range(0, 101, 20))


def _best(scores: list[SetScore], typofix: bool) -> SetScore | None:
    """The highest top-1 among the typofix rows (or among the peers), or None if there are none."""
    pool = [s for s in scores if s.checker.startswith(TYPOFIX_PREFIX) == typofix]
    return max(pool, key=lambda s: s.top1, default=None)
