"""How every entry point ends: one set of exit codes and one way to say what went wrong.

`typofix`, `typofix-ispell` and `typofix-train` all exit 0 when all went well, 1 on findings (`check`) or a
model error (missing, corrupt or incompatible model file), 2 on bad usage or bad input, 130 when interrupted
(Ctrl-C), 143 when terminated (SIGTERM), 128 + its number for any other signal they stop on (129: SIGHUP), and
141 when the reader of their output went away. An error is one line on stderr, `PROG: error: MESSAGE`, never a
traceback (TYPOFIX_DEBUG=1 re-raises instead). Kept here, stdlib only, so that front doors of every layer
share it.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import NoReturn

from typofix.files.modelfile import ModelError

OK = 0
FINDINGS = 1  # `check` found something
MODEL_ERROR = 1
USAGE = 2
BROKEN_PIPE = 128 + signal.SIGPIPE
INTERRUPTED = 128 + signal.SIGINT
TERMINATED = 128 + signal.SIGTERM


def signal_name(signum: int) -> str:
    """How a stop's message names its signal: `Ctrl-C (SIGINT)`, `SIGTERM`, `SIGHUP`."""
    name = signal.Signals(signum).name
    return f"Ctrl-C ({name})" if signum == signal.SIGINT else name


def signal_status(signum: int) -> int:
    """The exit status of a command stopped by a signal it handled: 128 + the signal's number, what a shell
    reports for a process the signal killed (130 for Ctrl-C, 143 for SIGTERM)."""
    return 128 + int(signum)


class Stopped(BaseException):
    """A command stopped by a signal it handles (SIGINT, SIGTERM, SIGHUP, ...) at a point where stopping is safe:
    it exits 128 + the signal's number, quietly, as Ctrl-C's KeyboardInterrupt does. A BaseException, like
    KeyboardInterrupt, so that no `except Exception` takes it for an error."""

    def __init__(self, signum: int):
        super().__init__(signal_name(signum))
        self.signum = int(signum)


@contextmanager
def stop_on(*signums: int) -> Iterator[None]:
    """Inside, each of these signals raises Stopped where the main thread is, as Ctrl-C raises KeyboardInterrupt,
    so that a command ends through its own clean-up (files closed, output flushed) and `run_command` exits
    128 + its number. The handlers before are given back after. Outside the main thread, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _raise_stopped) for signum in signums}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _raise_stopped(signum: int, frame) -> None:
    raise Stopped(signum)


# The signals that stop a command (Ctrl-C, `kill`, a closed terminal), where the platform has them
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextmanager
def whole_writes() -> Iterator[None]:
    """Inside, Ctrl-C, SIGTERM and SIGHUP wait until the block is done (blocked, then delivered): a stop never
    lands inside a write, which it would cut wherever the pipe was full (a torn last line). Where signals cannot
    be blocked (not POSIX, not the main thread), nothing changes."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class UsageError(Exception):
    """Bad arguments or bad input data: exit code 2."""


def one_line(error: BaseException | str) -> str:
    """An error's message on one line (its type's name when it has none)."""
    text = " ".join(str(error).split())
    if text or not isinstance(error, BaseException):
        return text
    return type(error).__name__


def message(prog: str, error: BaseException | str, label: str = "error") -> str:
    """`PROG: LABEL: MESSAGE` (no label: `PROG: MESSAGE`), the one line of the exit policy."""
    return f"{prog}: {label}: {one_line(error)}" if label else f"{prog}: {one_line(error)}"


def fail(prog: str, error: BaseException | str, code: int, label: str = "error") -> int:
    """Write `message(prog, error, label)` to stderr and return `code`."""
    line = message(prog, error, label)
    # The message may echo the user's input (a lone surrogate from argv, say): escape what stderr cannot encode
    # rather than fail while reporting the failure.
    encoding = getattr(sys.stderr, "encoding", None) or "utf-8"
    print(line.encode(encoding, "backslashreplace").decode(encoding), file=sys.stderr)
    return code


def code_for(error: BaseException) -> int:
    """The exit code of an error that ended a command."""
    if isinstance(error, UsageError):
        return USAGE
    if isinstance(error, ModelError):
        return MODEL_ERROR
    if isinstance(error, (ValueError, OSError)):
        return USAGE
    return MODEL_ERROR


def run_command(prog: str, body: Callable[[], int]) -> int:
    """Run a command's `body` under the exit policy and return its exit code."""
    try:
        return body()
    except KeyboardInterrupt:
        return INTERRUPTED
    except Stopped as stop:
        return signal_status(stop.signum)
    except BrokenPipeError:  # the reader went away (`typofix correct - < big | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE
    except Exception as error:  # the promise is one line, never a traceback
        if os.environ.get("TYPOFIX_DEBUG"):
            raise
        if isinstance(error, (UsageError, ModelError, ValueError, OSError)):
            return fail(prog, error, code_for(error))
        return fail(prog, f"internal error: {type(error).__name__}: {one_line(error)}", MODEL_ERROR)


def leave(code: int) -> NoReturn:
    """End the process with `code` once a command is done: its output flushed and the exit handlers run, but
    the interpreter's teardown skipped, which takes a command's heap apart object by object (the word lists,
    a run's searches: a few hundredths of a second for one word, most of a second for a large `check`) for a
    process about to end. Only where nothing else runs: with another thread alive (a server's, a pool's), the
    interpreter ends as it always does, joining them."""
    if threading.active_count() > 1:
        sys.exit(code)
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away before the last of the output: as `run_command` says it
        code = BROKEN_PIPE
    try:
        sys.stderr.flush()
    except OSError:
        pass
    atexit._run_exitfuncs()  # (what the interpreter's exit would run first: temporary folders, logging, pools)
    os._exit(code)
