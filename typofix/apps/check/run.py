"""One `typofix check` run: walk, read, learn the project's vocabulary, check, report, fix.

Two passes over the files. The first reads every file (no model: tokenizers only) and adds its words to
the vocabulary; the second runs the model on each file's text and streams its findings as each file is
done, in file order, fixing the file (-w: the findings `typofix.apps.check.writable` calls fixable) before
going on. The vocabulary must have seen every file before any finding is judged, so the first finding comes
after the first pass.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from typofix.apps.check.findings import Finding, finding_line
from typofix.apps.check.fixes import FixError, write_fixes
from typofix.apps.check.known import known_misspellings
from typofix.apps.check.pool import CheckPool
from typofix.apps.check.regions import Scan
from typofix.apps.check.verdict import Verdict
from typofix.apps.check.vocabulary import Vocabulary, WordUse
from typofix.apps.check.walk import Selection, files_to_check
from typofix.apps.check.writable import fixable
from typofix.files.exits import fail


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


@dataclass
class Outcome:
    findings: int = 0
    errors: int = 0  # files that could not be read or fixed


def run_check(run: CheckRun, recipe, prog: str = "typofix") -> Outcome:
    """Check as `run` says with the corrector `recipe` builds (`typofix.engine.jobs.CorrectorRecipe`);
    findings go to stdout as they are found, errors to stderr, one line each."""
    outcome = Outcome()
    known = known_misspellings()
    vocabulary = Vocabulary(known)
    verdict = Verdict(vocabulary, run.min_confidence, run.known_only, known, run.identifiers,
                      frozenset(run.user_words))
    paths = list(files_to_check(run.paths, run.selection))
    with CheckPool(recipe, run.jobs, run.identifiers, run.real_words) as pool:
        scans: list[Scan] = []
        for path, scan in zip(paths, pool.scans(paths)):
            if isinstance(scan, OSError):
                fail(prog, f"cannot read {path}: {scan.strerror or scan}", 2)
                outcome.errors += 1
                continue
            vocabulary.add(WordUse.of(scan))
            scans.append(scan)
        for scan, found in zip(scans, pool.findings(scans)):
            kept = [replace(f, fixable=fixable(f, scan, run.write_confidence))
                    for f in found if verdict.keep(f, scan.masked)]
            for finding in kept:
                print(finding_line(finding, run.as_json), flush=True)
            outcome.findings += len(kept)
            if run.write:
                outcome.errors += not _fix(scan, [f for f in kept if f.fixable], prog)
    return outcome


def _fix(scan: Scan, fixes: list[Finding], prog: str) -> bool:
    """Apply `fixes` (the fixable findings) to the file; False (after one line on stderr) when it cannot be
    done."""
    if not fixes:
        return True
    try:
        write_fixes(scan.path, scan.text, fixes, python=scan.language.kind == "python")
    except FixError as err:
        fail(prog, err, 2)
        return False
    return True

