"""Several cores for big inputs: `--jobs N` runs N worker processes, each with its own Corrector, and hands
back their results in input order, so the output is exactly that of one process.

Processes, not threads: the search is Python and numpy between model calls, and the GIL would serialise it.
Workers are forked from a parent that has loaded the Corrector and holds no model runtime yet (`fork_is_safe`:
the bundled model's runtime starts on the first search): they start with it in hand, sharing its pages, where a
spawned one took most of a second of a core to import typofix and load it (`correct --jobs 2` of one line:
1.0 -> 0.6 s). A parent that already opened onnxruntime sessions (a model given as a path) must not be copied:
its workers are spawned, each loading its own.

Workers live and die with their parent, whatever ends it. They ignore Ctrl-C (a terminal sends it to the whole
process group; the parent alone answers it, once) and, on Linux, the kernel kills them when the parent dies
(prctl PR_SET_PDEATHSIG), even by SIGKILL; elsewhere a thread in each worker watches for it. In the parent,
SIGINT, SIGTERM and SIGHUP stop the pool: its workers are killed, and `typofix.files.exits.Stopped` goes up to
the command, which exits 128 + the signal's number. The parent talks to each worker over a pipe of its own and
runs no thread: concurrent.futures' pool has a manager thread and queue feeders that a worker killed while
sending its result leaves blocked for ever, and the interpreter waits for them at exit.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path

from typofix.engine.results import Suggestion
from typofix.engine.settings import DecodingSettings
from typofix.files.exits import STOP_SIGNALS, Stopped

PR_SET_PDEATHSIG = 1  # linux/prctl.h


class WorkerDied(RuntimeError):
    """A worker process ended while it had work: killed (out of memory, a signal to it alone) or crashed."""


@dataclass(frozen=True)
class CorrectorRecipe:
    """What a worker needs to build the same Corrector as the parent (picklable: paths and settings)."""

    model: str | Path | None = None
    settings: DecodingSettings = DecodingSettings()
    user_words: tuple[str, ...] = field(default_factory=tuple)

    def load(self):
        from typofix.engine.corrector import Corrector

        return Corrector.load(self.model, settings=self.settings, user_words=self.user_words)


def fork_is_safe() -> bool:
    """Whether a copy of this process made by fork works as the process does: POSIX fork, no thread but this
    one, and neither onnxruntime nor torch loaded (their thread pools and sessions are not copied whole: a
    forked copy's first model call may wait for ever)."""
    return ("fork" in multiprocessing.get_all_start_methods() and sys.platform.startswith("linux")
            and threading.active_count() == 1 and not {"onnxruntime", "torch"} & set(sys.modules))


# --- in a worker ------------------------------------------------------------------------------------------------

def die_with_parent(parent: int) -> None:
    """Make this process end when process `parent` does: the kernel's parent-death signal on Linux, else a
    thread that polls. (A worker left behind would wait for work for ever, holding the parent's stdout.)"""
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


def _serve(connection: Connection, parent: int, initializer: Callable | None, initargs: tuple,
           inherited: tuple[Connection, ...] = ()) -> None:
    """A worker's life: set up (None: forked from a parent that did), then run each (function, argument)
    received and send back ("ok", result) or ("error", exception), until the parent closes the pipe. A forked
    worker first closes its copies of the parent's ends of the pipes (`inherited`: its own and the workers'
    before it, whose end of the file would otherwise never be reached) and ends on SIGTERM and SIGHUP as a
    spawned one does (the parent's handlers, copied, would raise in it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent answers Ctrl-C, for the whole pool
    for end in inherited:
        end.close()
    if initializer is None:
        for signum in STOP_SIGNALS:
            if signum != signal.SIGINT:
                signal.signal(signum, signal.SIG_DFL)
    die_with_parent(parent)
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # N workers share N cores: one thread each
    try:
        if initializer is not None:
            initializer(*initargs)
        ready = ("ok", None)
    except Exception as err:
        ready = ("error", _sendable(err))
    try:
        connection.send(ready)
        while ready[0] == "ok":
            function, argument = connection.recv()
            try:
                answer = ("ok", function(argument))
            except Exception as err:
                answer = ("error", _sendable(err))
            connection.send(answer)
    except (EOFError, OSError):  # the parent closed its end, or is gone: the work is over
        return


def _sendable(err: Exception) -> Exception:
    """The exception itself if it pickles, else a RuntimeError that says what it was."""
    import pickle

    try:
        pickle.dumps(err)
        return err
    except Exception:
        return RuntimeError(f"{type(err).__name__}: {err}")


@contextmanager
def children_ignore_interrupts(forking: bool = False) -> Iterator[None]:
    """Inside, processes started ignore Ctrl-C: no Ctrl-C reaches a worker even before it sets SIGINT aside
    itself, and none prints a KeyboardInterrupt of its own; the parent alone answers it, for the whole pool.
    A Ctrl-C that comes meanwhile is delayed, not lost. A spawned process inherits an ignored signal (its
    signal mask it does not), so SIGINT is ignored here while it starts, and blocked. A forked one (`forking`)
    inherits the mask and sets SIGINT aside itself, so here it is blocked and noted, and raised once the
    workers are started: ignored here, it was lost whenever the kernel handed it to a thread of a library
    that does not block it (the run went on as if no Ctrl-C had come). Outside the main thread (or without
    POSIX signal masks), nothing changes."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    came: list[int] = []
    handler = signal.signal(signal.SIGINT, (lambda signum, frame: came.append(signum)) if forking
                            else signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        if came:
            signal.raise_signal(signal.SIGINT)  # (answered now, as it would have been)


# --- in the parent ----------------------------------------------------------------------------------------------

class WorkerPool:
    """`jobs` worker processes (forked or spawned: `_start`), each set up by `initializer(*initargs)`, that run
    calls and hand back their results in the order they were asked for, with at most `in_flight` x jobs calls
    under way or waiting to be handed back. A context manager: its workers exist inside the `with` and never outlive it, nor the
    process. An exception in a call is raised here, when its turn comes; a worker that dies raises WorkerDied.

    In the main thread, SIGINT, SIGTERM and SIGHUP raise `Stopped` while the pool waits (for results, or for the
    next input: reading a terminal, say), and otherwise as soon as it waits again, never while it sends work
    or while the caller writes its output. Leaving the `with` by an exception kills the workers."""

    def __init__(self, jobs: int, initializer: Callable, initargs: tuple = (), in_flight: int = 2):
        if jobs < 2:
            raise ValueError(f"a pool needs at least 2 jobs, got {jobs}")
        self.jobs, self.in_flight = jobs, in_flight
        self._initializer, self._initargs = initializer, initargs
        self._workers: list[tuple[multiprocessing.Process, Connection]] = []
        self._handlers: dict[int, object] = {}
        self._signum: int | None = None  # a stop signal received
        self._waiting = False  # whether a stop signal may raise at once

    def __enter__(self):
        self._install_handlers()
        try:
            self._start()
            for worker, connection in self._workers:
                status, value = self._receive(worker, connection)  # set up, or the error that kept it from it
                if status == "error":
                    raise value
        except BaseException:
            self._close(kill=True)
            raise
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._close(kill=exc_type is not None)

    def _start(self) -> None:
        """Start every worker with Ctrl-C ignored (`children_ignore_interrupts`): forked, once this process has
        run the set-up itself, where that leaves it safe to fork (`fork_is_safe`: each worker starts set up,
        in a hundredth of a second where a spawned one took most of a second to import and load); else spawned,
        each setting itself up."""
        forked = fork_is_safe()
        if forked:
            self._initializer(*self._initargs)
            forked = fork_is_safe()  # (a set-up that started a model runtime: spawned after all)
            sys.stdout.flush()  # (a fork flushes its copy of what is buffered when it ends)
            sys.stderr.flush()
        context = multiprocessing.get_context("fork" if forked else "spawn")
        setup = (None, ()) if forked else (self._initializer, self._initargs)
        with children_ignore_interrupts(forking=forked):
            for _ in range(self.jobs):
                mine, theirs = context.Pipe()
                inherited = (mine, *(end for _, end in self._workers)) if forked else ()
                worker = context.Process(target=_serve, args=(theirs, os.getpid(), *setup, inherited),
                                         name="typofix-worker", daemon=True)
                worker.start()
                theirs.close()  # the worker's end is the worker's: its death is then an EOF here
                self._workers.append((worker, mine))

    def _close(self, kill: bool) -> None:
        try:
            for worker, connection in self._workers:
                if kill:
                    worker.kill()
                connection.close()  # a worker waiting for work ends on EOF
            for worker, _ in self._workers:
                worker.join(timeout=None if kill else 10)
                if worker.is_alive():  # still busy after its last call: no reason to wait longer
                    worker.kill()
                    worker.join()
            self._workers = []
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
        """`function(argument)` for each argument, run by the workers, yielded in order. A worker gets a call
        only when it is idle, so neither side ever blocks sending to the other."""
        arguments = iter(arguments)
        idle = list(range(len(self._workers)))
        running: dict[int, int] = {}  # worker -> the number of its call
        done: dict[int, object] = {}  # results that came before their turn
        sent = turn = 0
        more = True
        while more or turn < sent:
            while more and idle and sent - turn < self.in_flight * self.jobs:
                with self._stoppable():  # reading the input may wait on a terminal or a pipe
                    argument = next(arguments, _END)
                if argument is _END:
                    more = False
                    break
                worker = idle.pop()
                try:
                    self._workers[worker][1].send((function, argument))
                except OSError:  # its end is closed: it died while idle
                    self._died(self._workers[worker][0])
                running[worker] = sent
                sent += 1
                self._check()
            while turn in done:
                status, value = done.pop(turn)
                if status == "error":  # in its turn: what came before it has been handed back
                    raise value
                yield value
                turn += 1
            if turn < sent and turn not in done:
                for worker in self._ready(list(running)):
                    done[running.pop(worker)] = self._receive(*self._workers[worker])
                    idle.append(worker)

    def _ready(self, busy: list[int]) -> list[int]:
        """The busy workers that have an answer (or have died), waiting for one at least."""
        connections = {self._workers[i][1]: i for i in busy}
        sentinels = {self._workers[i][0].sentinel: i for i in busy}
        with self._stoppable():
            ready = wait([*connections, *sentinels])
        return sorted({connections.get(r, sentinels.get(r)) for r in ready})

    def _receive(self, worker: multiprocessing.Process, connection: Connection) -> tuple[str, object]:
        """A worker's answer: ("ok", result) or ("error", exception)."""
        try:
            with self._stoppable():
                return connection.recv()
        except (EOFError, OSError):
            self._died(worker)

    def _died(self, worker: multiprocessing.Process):
        """Raise WorkerDied; or Stopped, when the worker was killed by a signal to the whole process group, as
        ours comes at the same moment: it is given time to arrive."""
        with self._stoppable():
            time.sleep(0.5)
        worker.join(timeout=1)
        raise WorkerDied(f"a --jobs worker process died (exit status {worker.exitcode}: killed, or out of memory)")


_END = object()


# --- a pool of correctors ---------------------------------------------------------------------------------------

_worker_corrector = None  # one per worker process, built by `_load_corrector`


def _load_corrector(recipe: CorrectorRecipe) -> None:
    global _worker_corrector
    _worker_corrector = recipe.load()


def _correct_many(args: tuple[list[str], dict[str, int]]) -> list[str]:
    from typofix.engine.detector import DocumentVocabulary

    texts, earlier = args  # the batch, and its words' counts in the batches before it
    return _worker_corrector.correct_many(texts, DocumentVocabulary.continuing(earlier))


def _corrections_many(args: tuple[list[str], dict[str, int]]) -> list[list]:
    from typofix.engine.detector import DocumentVocabulary

    texts, earlier = args  # as `_correct_many`'s
    return _worker_corrector.corrections_many(texts, DocumentVocabulary.continuing(earlier))


def _suggest_many(args: tuple[list[str], int, bool]) -> list[list[Suggestion]]:
    words, k, with_typo = args
    return _worker_corrector.suggest_many(words, k, with_typo)


class CorrectorPool(WorkerPool):
    """N worker processes that each hold a Corrector built from `recipe`; results come back in order."""

    def __init__(self, recipe: CorrectorRecipe, jobs: int):
        super().__init__(jobs, _load_corrector, (recipe,))
        self.recipe = recipe

    def correct_many(self, batches: Iterable[list[str]]) -> Iterator[list[str]]:
        """`Corrector.correct_many` of each batch, in order, with at most 2 x jobs batches in flight (bounded
        memory on an endless stream). The batches are one document: each goes out with the counts of its words
        in the batches before it, so a worker judges it as one process reading them all would."""
        return self.ordered(_correct_many, self._with_counts(batches))

    def corrections_many(self, batches: Iterable[list[str]]) -> Iterator[list[list]]:
        """`Corrector.corrections_many` of each batch (the changes `correct_many` makes, with their places), in
        order, the batches one document as in `correct_many`."""
        return self.ordered(_corrections_many, self._with_counts(batches))

    def _with_counts(self, batches: Iterable[list[str]]) -> Iterator[tuple[list[str], dict[str, int]]]:
        from typofix.engine.detector import DocumentVocabulary
        from typofix.words.text import MAX_WORD_LEN, split_text

        document, leave_special = DocumentVocabulary(), self.recipe.settings.leave_special
        for batch in batches:
            words = [p.text for text in batch for p in split_text(text, MAX_WORD_LEN, leave_special) if p.word]
            yield batch, document.earlier(words)
            document.add(words)

    def suggest_many(self, batches: Iterable[list[str]], k: int, with_typo: bool = False
                     ) -> Iterator[list[list[Suggestion]]]:
        """`Corrector.suggest_many(batch, k, with_typo)` of each batch, in order."""
        return self.ordered(_suggest_many, ((batch, k, with_typo) for batch in batches))
