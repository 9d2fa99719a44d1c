"""Several cores for big inputs: `--jobs N` runs N worker processes, each with its own Corrector, and hands
back their results in input order, so the output is exactly that of one process.

Processes, not threads: the search is Python and numpy between model calls, and the GIL would serialise it.
Workers are spawned (not forked): a parent that already opened onnxruntime sessions must not be copied.

Workers live and die with their parent, whatever ends it. They ignore Ctrl-C (the terminal sends it to the whole
process group; the parent alone answers it, once) and, on Linux, the kernel kills them when the parent dies
(prctl PR_SET_PDEATHSIG), even by SIGKILL; elsewhere a thread in each worker watches for it. In the parent,
SIGINT, SIGTERM and SIGHUP stop the pool: the workers are killed, and `typofix.files.exits.Stopped` goes up to
the command, which exits 128 + the signal's number.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from typofix.engine.results import Suggestion
from typofix.engine.settings import DecodingSettings
from typofix.files.exits import Stopped

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
PR_SET_PDEATHSIG = 1  # linux/prctl.h


@dataclass(frozen=True)
class CorrectorRecipe:
    """What a worker needs to build the same Corrector as the parent (picklable: paths and settings)."""

    model: str | Path | None = None
    settings: DecodingSettings = DecodingSettings()
    user_words: tuple[str, ...] = field(default_factory=tuple)

    def load(self):
        from typofix.engine.corrector import Corrector

        return Corrector.load(self.model, settings=self.settings, user_words=self.user_words)


def die_with_parent(parent: int) -> None:
    """Make this process end when process `parent` does: the kernel's parent-death signal on Linux, else a
    thread that polls. (A worker left behind would wait on its queue forever, holding the parent's stdout.)"""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):  # no prctl (another libc): watch instead
            _watch(parent)
    else:
        _watch(parent)
    if os.getppid() != parent:  # the parent died before the signal was asked for
        os._exit(1)


def _watch(parent: int) -> None:
    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def _start_worker(parent: int, initializer: Callable, initargs: tuple) -> None:
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent answers Ctrl-C, for the whole pool
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # N workers share N cores: one thread each
    initializer(*initargs)


class WorkerPool:
    """`jobs` spawned worker processes, each set up by `initializer(*initargs)`, that run calls and hand back
    their results in the order they were asked for, with a bounded number in flight. A context manager: its
    workers exist inside the `with` and never outlive it, nor the process.

    In the main thread, SIGINT, SIGTERM and SIGHUP raise `Stopped` while the pool waits (for a result, or for
    the next input: reading a terminal, say) and otherwise as soon as it waits again, never inside a submit or
    while the caller writes its output; leaving the `with` by an exception kills the workers rather than wait
    for them."""

    def __init__(self, jobs: int, initializer: Callable, initargs: tuple = (), in_flight: int = 2):
        if jobs < 2:
            raise ValueError(f"a pool needs at least 2 jobs, got {jobs}")
        self.jobs, self.in_flight = jobs, in_flight
        self._initializer, self._initargs = initializer, initargs
        self._executor: ProcessPoolExecutor | None = None
        self._workers: list[multiprocessing.Process] = []
        self._handlers: dict[int, object] = {}
        self._signum: int | None = None  # a stop signal received
        self._waiting = False  # whether a stop signal may raise at once

    def __enter__(self):
        self._install_handlers()
        try:
            self._start()
            self._check()
        except BaseException:
            self._close(kill=True)
            raise
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._close(kill=exc_type is not None)

    def _start(self) -> None:
        """Spawn every worker now, with Ctrl-C blocked in this thread while they start: a worker inherits the
        mask, so no Ctrl-C reaches it even before it sets SIGINT aside, and none prints a KeyboardInterrupt of its
        own. (Here a signal blocked is only delayed: it is handled when the block ends.)"""
        before = {p.pid for p in multiprocessing.active_children()}
        block = hasattr(signal, "pthread_sigmask")
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if block else None
        try:
            self._executor = ProcessPoolExecutor(
                max_workers=self.jobs, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker,
                initargs=(os.getpid(), self._initializer, self._initargs))
            for _ in range(self.jobs):  # each submit spawns a worker while none is idle
                self._executor.submit(os.getpid)
        finally:
            if block:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        self._workers = [p for p in multiprocessing.active_children() if p.pid not in before]

    def _close(self, kill: bool) -> None:
        try:
            if self._executor is not None:
                if kill:
                    for worker in self._workers:
                        worker.kill()
                    for worker in self._workers:
                        worker.join(timeout=5)
                self._executor.shutdown(wait=not kill, cancel_futures=True)
        finally:
            self._restore_handlers()

    # --- signals ------------------------------------------------------------------------------------------------

    def _install_handlers(self) -> None:
        if threading.current_thread() is threading.main_thread():
            for signum in STOP_SIGNALS:
                self._handlers[signum] = signal.signal(signum, self._on_signal)

    def _restore_handlers(self) -> None:
        for signum, handler in self._handlers.items():
            signal.signal(signum, handler)
        self._handlers = {}

    def _on_signal(self, signum: int, frame) -> None:
        if self._signum is None:
            self._signum = signum
        if self._waiting:
            self._waiting = False
            raise Stopped(self._signum)

    def _check(self) -> None:
        if self._signum is not None:
            raise Stopped(self._signum)

    @contextmanager
    def _stoppable(self):
        """A stretch where a stop signal raises at once (a wait, which it would otherwise sit out)."""
        self._check()
        self._waiting = True
        try:
            yield
        finally:
            self._waiting = False

    # --- calls --------------------------------------------------------------------------------------------------

    def ordered(self, function: Callable, arguments: Iterable) -> Iterator:
        """`function(argument)` for each argument, run by the workers, yielded in order; at most `in_flight` x
        jobs calls in flight (bounded memory on an endless stream)."""
        pending: deque[Future] = deque()
        arguments = iter(arguments)
        while True:
            with self._stoppable():  # reading the input may wait on a terminal or a pipe
                argument = next(arguments, _END)
            if argument is _END:
                break
            pending.append(self._executor.submit(function, argument))
            self._check()
            if len(pending) >= self.in_flight * self.jobs:
                yield self._result(pending.popleft())
        while pending:
            yield self._result(pending.popleft())

    def _result(self, future: Future):
        try:
            with self._stoppable():
                return future.result()
        except BrokenProcessPool:
            # A worker was killed. When a signal to the whole group killed it, ours comes at the same moment:
            # give it time to arrive, and stop by it rather than report a broken pool.
            with self._stoppable():
                time.sleep(0.5)
            raise BrokenProcessPool("a --jobs worker process died (killed, or out of memory)") from None


_END = object()


_worker_corrector = None  # one per worker process, built by `_load_corrector`


def _load_corrector(recipe: CorrectorRecipe) -> None:
    global _worker_corrector
    _worker_corrector = recipe.load()


def _correct_many(texts: list[str]) -> list[str]:
    return _worker_corrector.correct_many(texts)


def _suggest_many(args: tuple[list[str], int, bool]) -> list[list[Suggestion]]:
    words, k, with_typo = args
    return _worker_corrector.suggest_many(words, k, with_typo)


class CorrectorPool(WorkerPool):
    """N worker processes that each hold a Corrector built from `recipe`; results come back in order."""

    def __init__(self, recipe: CorrectorRecipe, jobs: int):
        super().__init__(jobs, _load_corrector, (recipe,))

    def correct_many(self, batches: Iterable[list[str]]) -> Iterator[list[str]]:
        """`Corrector.correct_many` of each batch, in order, with at most 2 x jobs batches in flight."""
        return self.ordered(_correct_many, batches)

    def suggest_many(self, batches: Iterable[list[str]], k: int, with_typo: bool = False
                     ) -> Iterator[list[list[Suggestion]]]:
        """`Corrector.suggest_many(batch, k, with_typo)` of each batch, in order."""
        return self.ordered(_suggest_many, ((batch, k, with_typo) for batch in batches))
