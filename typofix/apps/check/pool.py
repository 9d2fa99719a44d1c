"""`check --jobs N`: the files read and checked in N worker processes, each with its own Corrector, results
handed back in file order, so the output is that of one process. Without --jobs (or with 1) the same
calls run here, in order. Workers are spawned, not forked (as `typofix.engine.jobs` explains)."""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor

from typofix.apps.check.checker import FileChecker
from typofix.apps.check.findings import Finding
from typofix.apps.check.reader import scan_file
from typofix.apps.check.regions import Scan

_checker: FileChecker | None = None  # one per process: the worker's, or this process's without --jobs


def _start(recipe, identifiers: bool, real_words: bool) -> None:
    global _checker
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # N workers share N cores: one thread each
    _checker = FileChecker(recipe.load(), identifiers, real_words)


def _scan(path: str) -> Scan | OSError:
    """The file's Scan, or the error that kept it from being read (reported, the run goes on)."""
    try:
        return scan_file(path)
    except OSError as err:
        return err


def _findings(scan: Scan) -> list[Finding]:
    return _checker.findings(scan)


class CheckPool:
    """Scans and findings of many files, in their order, in `jobs` processes (1: this one)."""

    def __init__(self, recipe, jobs: int = 1, identifiers: bool = False, real_words: bool = False):
        self.jobs = jobs
        self._executor = None
        if jobs > 1:
            self._executor = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_start, initargs=(recipe, identifiers, real_words))
        else:
            _start(recipe, identifiers, real_words)

    def __enter__(self) -> "CheckPool":
        return self

    def __exit__(self, *exc) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)

    def scans(self, paths: Iterable[str]) -> Iterator[Scan | OSError]:
        return self._ordered(_scan, paths)

    def findings(self, scans: Iterable[Scan]) -> Iterator[list[Finding]]:
        return self._ordered(_findings, scans)

    def _ordered(self, function: Callable, arguments: Iterable) -> Iterator:
        if self._executor is None:
            yield from map(function, arguments)
            return
        pending: deque[Future] = deque()
        for argument in arguments:
            pending.append(self._executor.submit(function, argument))
            if len(pending) >= 4 * self.jobs:  # bounded: a big tree is not all in flight at once
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
