"""One `typofix check` run: walk, read, learn the project's vocabulary, weigh, check, report, fix.

Two passes. The first reads every file (tokenizers only, and the dictionary: no model) and adds its words to
the vocabulary, keeping of each file only the lines and names holding a word the corrector would change
(`typofix.apps.check.checkable`; held in a `Spool`: in memory up to a budget, then on disk). Then the lines
and names holding no word a finding could be reported for, whatever the model says (the project's names, its
languages' words: `Verdict.may_keep`), are left out. The words that may be reported are weighed, once a run,
in large batches, and the lines and names none of whose words the search gave a correction that could be
reported are left out too (`typofix.apps.check.triage`): only the lines left need their other words weighed,
which the model does next, and each file's findings are streamed in file order, fixing the file (-w:
the findings `typofix.apps.check.writable` calls fixable; it is read again, and written only if it is still
the text that was checked) before going on. The vocabulary must have seen every file before any finding is
judged, so the first finding comes after the first pass.

A plain-text file too big to wait for (`typofix.apps.check.reader.is_streamed`: a log, a corpus) is the
exception: the first pass passes it by, and in its turn it is read, weighed, checked and reported window by
window, its first window small, so that its first findings come within a second of its turn. Each window's
words join the vocabulary as it is read: a word the file uses often is its term from then on (not in the
windows before), and the files after it hear of it too.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace

from typofix.apps.check.checkable import Checkable, text_digest
from typofix.apps.check.findings import Finding, finding_line
from typofix.apps.check.fixes import FixError, write_fixes
from typofix.apps.check.known import known_misspellings
from typofix.apps.check.pool import CheckPool, Source, Streamed, work
from typofix.apps.check.reader import STREAM, ignored_file, is_streamed, read_text
from typofix.apps.check.spool import Spool
from typofix.apps.check.triage import Judged, narrowed, pruned, sieved
from typofix.apps.check.verdict import Verdict
from typofix.apps.check.vocabulary import Vocabulary
from typofix.apps.check.walk import STDIN, Pipe, Selection, files_to_check
from typofix.apps.check.writable import fixable
from typofix.files.exits import fail, message, whole_writes
from typofix.files.sniff import is_binary_data


# A run's distinct words are weighed at once up to this many (more: each file's as it comes, since the engine
# remembers about 100,000 words' candidates and would forget the first before their files were checked)
WEIGH_ALL = 50_000


@dataclass(frozen=True)
class CheckRun:
    """What to check and how: the paths and their selection; the thresholds (`min_confidence` to report,
    `write_confidence` for -w to apply); --identifiers, --real-words, --known-only, --jobs, --json, -w."""

    paths: tuple[str, ...]
    selection: Selection
    min_confidence: float
    write_confidence: float
    write: bool = False
    identifiers: bool = False
    real_words: bool = False
    known_only: bool = False
    jobs: int = 1
    as_json: bool = False
    user_words: tuple[str, ...] = ()  # the user's and the config's words: corrections to them are trusted
    prose_threshold: float = 0.0  # the misspelling detector's threshold for prose files (0: off)
    stored_searches: bool = True  # words' searches taken from and kept in the store (`typofix.engine.searchstore`)


@dataclass
class Outcome:
    findings: int = 0
    errors: int = 0  # files and folders that could not be read, files that could not be fixed


def run_check(run: CheckRun, recipe, prog: str = "typofix") -> Outcome:
    """Check as `run` says with the corrector `recipe` builds (`typofix.engine.jobs.CorrectorRecipe`);
    findings go to stdout as they are found, errors and notes to stderr, one line each."""
    outcome = Outcome()
    known = known_misspellings()
    vocabulary = Vocabulary(known)
    verdict = Verdict(vocabulary, run.min_confidence, run.known_only, known, run.identifiers,
                      frozenset(run.user_words))

    def problem(text: str, error: bool) -> None:
        if error:
            fail(prog, text, 2)
            outcome.errors += 1
        else:
            print(message(prog, text, "note"), file=sys.stderr, flush=True)

    ignored: set[str] = set()  # files a block of which says `typofix: ignore-file`
    with CheckPool(recipe, run.jobs, run.identifiers, run.real_words, run.prose_threshold,
                   run.stored_searches) as pool, Spool() as read, Spool() as kept, \
            Spool() as live, tempfile.TemporaryDirectory(prefix="typofix-check-") as spill:
        for source, item in pool.checkables(_sources(files_to_check(run.paths, run.selection, problem), spill,
                                                     problem)):
            if isinstance(item, OSError):
                problem(f"cannot read {source}: {item.strerror or item}", True)
                continue
            if isinstance(item, Streamed):
                read.add(item)
                continue
            vocabulary.add(item.use)
            item.use = None  # counted: a file's words are not kept
            if item.ignores_file:  # (a big file's block: the blocks before it are held already)
                ignored.add(item.path)
            read.add(item)
        judged = Judged(verdict.may_keep)
        for item in pruned((item for item in read.drain() if isinstance(item, Streamed) or item.path not in ignored),
                           judged, run.real_words):
            kept.add(item)
        words: set[str] = set()
        weight = 0  # the work of checking the kept items (`typofix.apps.check.pool.work`), to share it out
        narrow = not run.real_words and len(judged.yes) <= WEIGH_ALL
        for item in narrowed(kept.drain(), verdict, judged, pool) if narrow else kept.drain():
            if not isinstance(item, Streamed):
                words.update(w.lower() for w in item.words())
                weight += work(item)
            live.add(item)
        if len(words) <= WEIGH_ALL:
            pool.prepare(words)  # (narrowed: the other words of the rows that may hold a finding)
        fixing: list[tuple[Checkable, list[Finding]]] = []  # a file's parts and their fixes, until it is done
        def streamed(path: Streamed) -> Iterator[tuple[Checkable, list]]:
            """A streamed file's findings, window by window, each window's words weighed as it comes."""
            try:
                if ignored_file(path):
                    return
                for window in pool.windows(path):
                    vocabulary.add(window.use)
                    window.use = None
                    window = sieved(window, verdict, pool, run.real_words)
                    pool.prepare({w.lower() for w in window.words()})
                    yield from pool.findings([window], 1)
            except OSError as err:
                problem(f"cannot read {path.name}: {err.strerror or err}", True)

        for item, found in _in_turn(pool, live, weight, streamed):
            reported = [replace(f, fixable=fixable(f, row, run.write_confidence, item.markup_blanked))
                        for f, row in found if verdict.keep_in(f, row)]
            if reported:
                with whole_writes():  # (a stop waits for the lines: a full pipe would have it cut one short)
                    print("\n".join(finding_line(f, run.as_json) for f in reported), flush=True)
            outcome.findings += len(reported)
            if run.write:
                if fixing and fixing[0][0].path != item.path:
                    outcome.errors += not _fix(fixing, prog)
                    fixing = []
                fixing.append((item, [f for f in reported if f.fixable]))
        if fixing:
            outcome.errors += not _fix(fixing, prog)
    return outcome


def _sources(paths: Iterable[str], spill: str, problem: Callable[[str, bool], None]) -> Iterator[Source]:
    """The files to read; standard input (`-`) and a pipe named as a file (`<(cmd)`) read here, once, as a
    text, or, over `STREAM` bytes, written to a file in the folder `spill` and read from there as a stream
    (`Streamed`, under its own name: bounded memory, as for a big file); a big plain-text file as `Streamed`."""
    for number, path in enumerate(paths):
        if path != STDIN and not isinstance(path, Pipe):
            yield Streamed(path) if is_streamed(path) else path
            continue
        try:
            with contextlib.nullcontext(sys.stdin.buffer) if path == STDIN else open(path, "rb") as source:
                head = source.read(STREAM + 1)
                if is_binary_data(head):
                    problem(f"skipped {path}: binary data", False)
                    continue
                if len(head) <= STREAM:
                    yield path, head.decode("utf-8", "surrogateescape")
                    continue
                spilled = os.path.join(spill, str(number))
                with open(spilled, "wb") as out:
                    out.write(head)
                    shutil.copyfileobj(source, out, 1 << 20)
        except OSError as err:
            problem(f"cannot read {path}: {err.strerror or err}", True)
            continue
        yield Streamed(spilled, name=path)


def _in_turn(pool: CheckPool, kept: Spool, weight: int,
             streamed: Callable[[Streamed], Iterator]) -> Iterator[tuple[Checkable, list]]:
    """The findings of the `kept` items (their work adding up to `weight`) in order, a streamed file's
    (`streamed`) in its turn."""
    items = kept.drain()  # (each file's parts let go once checked)
    stopped: list[Streamed] = []

    def until_streamed() -> Iterator[Checkable]:
        for item in items:
            if isinstance(item, Streamed):
                stopped.append(item)
                return
            yield item

    while True:
        yield from pool.findings(until_streamed(), weight)
        if not stopped:
            return
        yield from streamed(stopped.pop())


def _fix(parts: list[tuple[Checkable, list[Finding]]], prog: str) -> bool:
    """Apply the fixes of a file's parts (its fixable findings) to the file, read again; False (after one line
    on stderr) when it cannot be done."""
    fixes = [f for _, found in parts for f in found]
    if not fixes:
        return True
    item = parts[0][0]
    try:
        text = read_text(item.path)
        if any(text_digest(text[p.offset:p.offset + p.length]) != p.digest for p, _ in parts):
            raise FixError(f"not fixed {item.path}: it changed while it was checked")
        write_fixes(item.path, text, fixes, python=item.python)
    except FixError as err:
        fail(prog, err, 2)
        return False
    except OSError as err:
        fail(prog, f"cannot read {item.path}: {err.strerror or err}", 2)
        return False
    return True
