"""`check --jobs N`: the files read, and their words weighed and checked, in N processes, this one and N - 1
workers, each with its own Corrector, results handed back in file order, so the output is that of one process.
Without --jobs (or with 1) the same calls run here, in order. Workers are spawned, not forked (`correct
--jobs` forks its workers; a forked pool here was tried, see docs/check.md), with Ctrl-C ignored: this process
answers it for the pool, and a run that stops (Ctrl-C, SIGTERM) or fails kills its workers mid-task.

This process is one of the N: it hands a task to a worker while the workers have fewer than two each under way,
and otherwise does the task itself rather than wait (its result held until its turn). So it reads files while
the workers start up (spawning a process and loading its Corrector takes about a second), and a run of N
processes needs N - 1 start-ups, not N.

Reading is a task a file. Weighing the run's words is a share a process: each searches its share of the
distinct words, this process's search kept by its Corrector and the workers' handed back to it
(`Corrector.search_memory`, `Corrector.remember`), so each word is searched once. Checking is a task a group
of files: a worker takes the search of the group's words with it; this process has it already. A streamed
file (`Streamed`: big plain text) is not read with the others: its windows are read (a task each, a few
ahead) when its turn comes to be checked, and each is checked as one group."""

from __future__ import annotations

import atexit
import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor

from typofix.apps.check.checkable import Checkable, Row, Start
from typofix.apps.check.checker import FileChecker
from typofix.apps.check.findings import Finding
from typofix.apps.check.reader import Window, mark_length, scan_blocks, scan_text, scan_window, windows
from typofix.engine.corrector import SearchMemory
from typofix.engine.jobs import children_ignore_interrupts, die_with_parent
from typofix.engine.searchstore import SearchStore

_checker: FileChecker | None = None  # one per process: each worker's, and this process's
GROUPS_PER_JOB = 3  # check tasks a process gets: enough to even out the work, few enough for large batches
MAX_GROUP = 2000  # files in one check task at most
# Files a worker has queued to read: files differ in size a hundredfold, and while this process reads a big one
# itself a worker with two small ones queued sat idle (on the stdlib, this process read three quarters of it)
READ_QUEUE = 8


class Streamed(str):
    """The path of a file checked as a stream of windows (`typofix.apps.check.reader.is_streamed`): read
    in its turn to be checked, not with the others. `name`: what its findings call it (big standard input is
    read from a temporary file, and reported as `-`)."""

    name: str

    def __new__(cls, path: str, name: str | None = None):
        streamed = super().__new__(cls, path)
        streamed.name = name if name is not None else str(path)
        return streamed

    def __reduce__(self):  # (sent to a worker and back: its name with it)
        return Streamed, (str(self), self.name)


Source = str | tuple[str, str]  # a file's path, or a name and the text read for it (standard input)
Found = list[tuple[Finding, Row | None]]


def _start(recipe, identifiers: bool, real_words: bool, prose_threshold: float) -> None:
    global _checker
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # N workers share N cores: one thread each
    parent = multiprocessing.parent_process()
    if parent is not None:
        # A worker dies with this process, whatever ends it (SIGKILL too): left behind, it would go on working
        # and hold the run's stdout and stderr open, and whoever reads them would wait for ever.
        die_with_parent(parent.pid)
        # A worker's end: its results are sent (concurrent.futures' worker flushes its queues before the
        # interpreter finalizes), and taking apart its heap object by object (the search of a run's words, the
        # word lists) took a few tenths of a second that the run waited for at its end.
        atexit.register(os._exit, 0)
    _checker = FileChecker(recipe.load(), identifiers, real_words, prose_threshold)


def _read(source: Source) -> Iterator[Checkable]:
    """What of the file the model must see: one Checkable, or one a block of a big plain-text file."""
    if isinstance(source, tuple):
        name, text = source
        skip = mark_length(text)
        yield _checker.checkable(scan_text(name, text[skip:]), Start(skip))
        return
    if isinstance(source, Streamed):
        yield source  # (read later, window by window)
        return
    for block in scan_blocks(source):
        yield _checker.checkable(block.scan, Start(block.offset, block.line, block.column), block.ignores_file)


def _read_all(source: Source) -> list[Checkable] | OSError:
    """`_read`'s Checkables, or the error that kept the file from being read (reported, the run goes on)."""
    try:
        return list(_read(source))
    except OSError as err:
        return err


def _read_window(window: Window) -> Checkable:
    return _checker.checkable(scan_window(window), Start(window.offset, window.line, window.column))


def _search(words: list[str]):
    """The worker's search of `words`, handed back to be handed on (`Corrector.search_memory`)."""
    return _checker.corrector.search_memory(words)


def _findings(task: tuple[list[Checkable], object]) -> list[Found]:
    """The findings of a group of items, from `search`: a worker's, handed with the task; `HELD`: this
    process holds the search of their words already; None: the words are weighed now, in one batch."""
    items, search = task
    if search is None:
        _checker.prepare(items)
    elif search is not HELD:
        _checker.corrector.remember(search)
    return [_checker.findings(item) for item in items]


HELD = "held"  # a check task's words were weighed by this process's `CheckPool.prepare`


class CheckPool:
    """Checkables and findings of many files, in their order, in `jobs` processes: this one and `jobs` - 1
    workers. This process does a task itself whenever the workers have enough to do, rather than wait for them:
    it reads while they start up, and it weighs a share of the words and checks groups of files too."""

    def __init__(self, recipe, jobs: int = 1, identifiers: bool = False, real_words: bool = False,
                 prose_threshold: float = 0.0, stored_searches: bool = True):
        self.jobs = jobs
        self._executor = None
        self._prepared = False  # whether this process holds the search of every word `findings` will check
        setup = (recipe, identifiers, real_words, prose_threshold)
        self._store = None
        try:
            if jobs > 1:
                self._executor = ProcessPoolExecutor(jobs - 1, multiprocessing.get_context("spawn"),
                                                     initializer=_start, initargs=setup)
                with children_ignore_interrupts():  # (the pool spawns a worker for each task while none is idle)
                    for _ in range(jobs - 1):
                        self._executor.submit(int)  # spawned now, they start up while this process loads and reads
            _start(*setup)
            identity = _checker.corrector.identity if stored_searches else None
            self._store = SearchStore.open(identity) if identity is not None else None  # (this process's alone)
        except BaseException:  # (Ctrl-C while the pool starts: its workers go with it)
            self.__exit__(*sys.exc_info())
            raise

    def __enter__(self) -> "CheckPool":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._executor is not None:
            if exc_type is not None:  # stopped (Ctrl-C, SIGTERM) or failed: the workers' tasks are not wanted
                _kill_workers(self._executor)
            self._executor.shutdown(wait=True, cancel_futures=True)
        if self._store is not None:
            self._store.close()

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
        for source, items in self._ordered(_read_all, sources, keyed=True, queued=READ_QUEUE):
            for item in [items] if isinstance(items, OSError) else items:
                yield source, item

    def windows(self, path: str) -> Iterator[Checkable]:
        """What of each window of the streamed file at `path` the model must see, in order, read as they are
        asked for (with --jobs, a few ahead)."""
        yield from self._ordered(_read_window, windows(path, name=getattr(path, "name", None)))

    def prepare(self, words: Iterable[str]) -> None:
        """Weigh the run's `words` now, in large batches: in one process, or a share in each, this one's
        kept by its corrector and the workers' searches handed back to it, so that each word is searched once
        and every group of files, checked here or in a worker, is checked from the same search. Held by this
        process's corrector, within the engine's bound on remembered words, however big the file. A word an
        earlier run searched is taken from the store of searches (`typofix.engine.searchstore`), and what is
        searched now is kept there."""
        distinct = sorted({w.lower() for w in words})
        at_hand = self.remembered(distinct)
        distinct = [w for w in distinct if w not in at_hand]
        self._search(distinct)
        if self._store is not None:
            self._store.put(_checker.corrector.search_memory(distinct).searched)

    def _search(self, distinct: list[str]) -> None:
        """Search the lowercase `distinct` words: here, or a share in each process."""
        if self._executor is None:
            _checker.prepare_words(distinct)
            return
        # one share a process: the search is cheaper a word in larger batches (six shards took 17% more CPU)
        shares = [distinct[k::self.jobs] for k in range(self.jobs)]
        searches = [self._executor.submit(_search, share) for share in shares[1:] if share]
        _checker.prepare_words(shares[0])
        for search in searches:
            _checker.corrector.remember(search.result())
        self._prepared = True

    def remembered(self, words: list[str]) -> set[str]:
        """Those of the lowercase `words` whose search this process holds, or the store kept from an earlier run
        (taken now)."""
        corrector = _checker.corrector
        if self._store is not None:
            corrector.remember(SearchMemory(corrector.settings, self._store.get(words)))
        return corrector.remembered(words)

    def listed_near(self, words: list[str], n: int | None = None) -> list[list[str]] | None:
        """`Corrector.listed_near` of the lowercase `words`, asked here."""
        return _checker.corrector.listed_near(words, n)

    def weigh(self, words: Iterable[str]) -> dict:
        """`prepare` the lowercase `words`, and {word: its search} (`Corrector.weigh`) of each."""
        self.prepare(words)
        return _checker.corrector.weigh(words)

    def findings(self, items: Iterable[Checkable], weight: int) -> Iterator[tuple[Checkable, Found]]:
        """Each of the items (whose `work` adds up to `weight`) with its findings (unfiltered), in order."""
        if self._executor is None:
            for item in items:
                yield item, _checker.findings(item)
            return
        groups = _groups(items, weight, self.jobs * GROUPS_PER_JOB)
        search = HELD if self._prepared else None
        for group, found in self._ordered(_findings, ((group, search) for group in groups), keyed=True,
                                          shipped=self._with_search):
            yield from zip(group[0], found)

    @staticmethod
    def _with_search(task: tuple[list[Checkable], object]) -> tuple[list[Checkable], object]:
        """A check task as a worker gets it: with the search of its words, where this process holds it."""
        group, search = task
        if search is not HELD:
            return task
        return group, _checker.corrector.search_memory({w.lower() for item in group for w in item.words()})

    def _ordered(self, function: Callable, arguments: Iterable, keyed: bool = False,
                 shipped: Callable = lambda argument: argument, queued: int = 2) -> Iterator:
        """`function` of each argument, in order: sent to a worker (as `shipped` makes it) while the workers
        have fewer than `queued` tasks each under way, else done here (done here: its result is held until its
        turn). In flight at most 2 x `queued` x jobs: a big tree is not all in flight at once."""
        pending: deque[tuple[object, Future]] = deque()
        workers = self.jobs - 1
        for argument in arguments:
            busy = sum(not future.done() for _, future in pending)
            if self._executor is not None and busy < queued * workers:
                pending.append((argument, self._executor.submit(function, shipped(argument))))
            else:
                done = Future()
                done.set_result(function(argument))
                pending.append((argument, done))
            while pending and (len(pending) >= 2 * queued * self.jobs or pending[0][1].done()):
                yield self._result(*pending.popleft(), keyed)
        while pending:
            yield self._result(*pending.popleft(), keyed)

    @staticmethod
    def _result(argument, future: Future, keyed: bool):
        return (argument, future.result()) if keyed else future.result()


def _kill_workers(executor: ProcessPoolExecutor) -> None:
    """End the executor's worker processes now, mid-task (Python 3.14's `kill_workers`; its process table before)."""
    if hasattr(executor, "kill_workers"):
        executor.kill_workers()
        return
    for process in list((getattr(executor, "_processes", None) or {}).values()):
        if process.is_alive():
            process.kill()


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
