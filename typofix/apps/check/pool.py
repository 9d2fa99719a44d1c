"""`check --jobs N`: the files read, and their words weighed and checked, in N worker processes, each with its
own Corrector, results handed back in file order, so the output is that of one process. Without --jobs (or
with 1) the same calls run here, in order. Workers are spawned, not forked (as `typofix.engine.jobs`
explains).

Reading is a task a file. Weighing the run's words is a task a worker: each searches its share of the distinct
words, and the searches come back here (`Corrector.search_memory`). Checking is a task a group of files: the
worker takes the search of the group's words with it (`Corrector.remember`), weighs any the run did not
(`FileChecker.prepare`), then finds each file's typos from that search; one process weighs all the run's words
at once. A streamed file (`Streamed`: big plain text) is not read with the others: its windows are
read (a task each, a few ahead) when its turn comes to be checked, and each is checked as one group."""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor

from typofix.apps.check.checkable import Checkable, Row
from typofix.apps.check.checker import FileChecker
from typofix.apps.check.findings import Finding
from typofix.apps.check.reader import Window, scan_blocks, scan_text, scan_window, windows

_checker: FileChecker | None = None  # one per process: the worker's, or this process's without --jobs
GROUPS_PER_JOB = 3  # check tasks a worker gets: enough to even out the work, few enough for large batches
MAX_GROUP = 2000  # files in one check task at most


class Streamed(str):
    """The path of a file checked as a stream of windows (`typofix.apps.check.reader.is_streamed`): read
    in its turn to be checked, not with the others."""


Source = str | tuple[str, str]  # a file's path, or a name and the text read for it (standard input)
Found = list[tuple[Finding, Row | None]]


def _start(recipe, identifiers: bool, real_words: bool) -> None:
    global _checker
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # N workers share N cores: one thread each
    _checker = FileChecker(recipe.load(), identifiers, real_words)


def _read(source: Source) -> Iterator[Checkable]:
    """What of the file the model must see: one Checkable, or one a block of a big plain-text file."""
    if isinstance(source, tuple):
        yield _checker.checkable(scan_text(*source))
        return
    if isinstance(source, Streamed):
        yield source  # (read later, window by window)
        return
    for block in scan_blocks(source):
        yield _checker.checkable(block.scan, block.offset, block.line, block.ignores_file)


def _read_all(source: Source) -> list[Checkable] | OSError:
    """`_read`'s Checkables, or the error that kept the file from being read (reported, the run goes on)."""
    try:
        return list(_read(source))
    except OSError as err:
        return err


def _read_window(window: Window) -> Checkable:
    return _checker.checkable(scan_window(window), window.offset, window.line)


def _search(words: list[str]):
    """The worker's search of `words`, handed back to be handed on (`Corrector.search_memory`)."""
    return _checker.corrector.search_memory(words)


def _findings(task: tuple[list[Checkable], object]) -> list[Found]:
    items, memory = task
    if memory is not None:
        _checker.corrector.remember(memory)
    _checker.prepare(items)
    return [_checker.findings(item) for item in items]


class CheckPool:
    """Checkables and findings of many files, in their order, in `jobs` processes (1: this one)."""

    def __init__(self, recipe, jobs: int = 1, identifiers: bool = False, real_words: bool = False):
        self.jobs = jobs
        self._executor = None
        self._memory = None  # with workers: the search of the words the last `prepare` had them weigh
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

    def checkables(self, sources: Iterable[Source]) -> Iterator[tuple[Source, Checkable | OSError]]:
        """Each source with what of it the model must see (one or more Checkables, in order), or the error
        reading it. In one process a big file's blocks come one at a time, as they are read."""
        if self._executor is None:
            for source in sources:
                try:
                    for item in _read(source):
                        yield source, item
                except OSError as err:
                    yield source, err
            return
        for source, items in self._ordered(_read_all, sources, keyed=True):
            for item in [items] if isinstance(items, OSError) else items:
                yield source, item

    def windows(self, path: str) -> Iterator[Checkable]:
        """What of each window of the streamed file at `path` the model must see, in order, read as they are
        asked for (with --jobs, a few ahead, in the workers)."""
        yield from self._ordered(_read_window, windows(path))

    def prepare(self, words: Iterable[str]) -> None:
        """Weigh the run's `words` now, in large batches: in one process, or each word in one of the workers,
        whose searches are then handed to the worker that checks a file with the word (two workers checking
        files with the same words would otherwise both search them). Held until the next `prepare` (a streamed
        file's window): what is held stays one call's words, however big the file."""
        if self._executor is None:
            _checker.prepare_words(words)
            return
        distinct = sorted({w.lower() for w in words})
        # one shard a worker: the search is cheaper a word in larger batches (six shards took 17% more CPU)
        shards = [distinct[k::self.jobs] for k in range(self.jobs)]
        self._memory = None
        for memory in self._executor.map(_search, [shard for shard in shards if shard]):
            self._memory = memory if self._memory is None else self._memory.merged(memory)

    def findings(self, items: Iterable[Checkable], weight: int) -> Iterator[tuple[Checkable, Found]]:
        """Each of the items (whose `work` adds up to `weight`) with its findings (unfiltered), in order."""
        if self._executor is None:
            for item in items:
                yield item, _checker.findings(item)
            return
        tasks = ((group, self._memory.only({w.lower() for item in group for w in item.words()})
                  if self._memory is not None else None)
                 for group in _groups(items, weight, self.jobs * GROUPS_PER_JOB))
        for (group, _), found in self._ordered(_findings, tasks, keyed=True):
            yield from zip(group, found)

    def _ordered(self, function: Callable, arguments: Iterable, keyed: bool = False) -> Iterator:
        if self._executor is None:
            for argument in arguments:
                yield (argument, function(argument)) if keyed else function(argument)
            return
        pending: deque[tuple[object, Future]] = deque()
        for argument in arguments:
            pending.append((argument, self._executor.submit(function, argument)))
            if len(pending) >= 4 * self.jobs:  # bounded: a big tree is not all in flight at once
                argument, future = pending.popleft()
                yield (argument, future.result()) if keyed else future.result()
        while pending:
            argument, future = pending.popleft()
            yield (argument, future.result()) if keyed else future.result()


def work(item: Checkable) -> int:
    """How much checking `item` costs, about: the words the model weighs for it, and the file itself."""
    return 1 + len(item.words())


def _groups(items: Iterable[Checkable], weight: int, groups: int) -> Iterator[list[Checkable]]:
    """The `items` (their `work` adding up to `weight`) in about `groups` runs of consecutive items of about
    as much work each (at most `MAX_GROUP` items: a group is held in memory). Work, not files: the same number
    of files in each left one worker weighing a few files' many words while the other had finished."""
    share = max(1, -(-weight // max(groups, 1)))
    group, load = [], 0
    for item in items:
        group.append(item)
        load += work(item)
        if load >= share or len(group) >= MAX_GROUP:
            yield group
            group, load = [], 0
    if group:
        yield group
