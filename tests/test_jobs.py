"""`--jobs N` worker processes (typofix.engine.jobs) under signals: whatever ends the parent (Ctrl-C to the process
group or to the parent alone, SIGTERM, SIGHUP, SIGKILL), it exits 130 / 143 / 129 within seconds with no traceback,
its output so far ends with a whole line, and no worker is left. Each signal is sent once the first corrected line
has come out (the workers are up and busy), read from the pipe: no sleeping and hoping."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from typofix.engine.jobs import WorkerPool
from typofix.files.exits import Stopped

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


@pytest.fixture(scope="module")
def big_text(tmp_path_factory) -> Path:
    """About 3 MB of prose with typos (this repository's docs, a misspelling every few words): minutes of work
    for two workers, so every signal lands while they are busy. Each copy of the docs misspells other words, or
    the same ones otherwise (the engine remembers a word's search: a copy with the same typos took no time)."""
    prose = "\n".join(p.read_text() for p in sorted((ROOT / "docs").glob("*.md")))
    copies = []
    for copy in range(max(1, 3_000_000 // len(prose))):
        words = prose.split(" ")
        for i in range(3 + copy % 7, len(words), 7):
            if len(words[i]) > 3:  # "the model" -> "the mledo", then "the omled", ...
                turn = 1 + copy // 7 % (len(words[i]) - 1)
                words[i] = (words[i][turn:] + words[i][:turn])[::-1]
        copies.append(" ".join(words))
    path = tmp_path_factory.mktemp("jobs") / "big.txt"
    path.write_text("".join(copies))
    return path


def session_processes(sid: int) -> list[str]:
    """The live processes of session `sid` (zombies excluded: they have ended, and wait for their reaper)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            if os.getsid(int(entry.name)) == sid and "\nState:\tZ" not in status:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")[:80]
                found.append(f"{entry.name}: {command!r}")
        except (OSError, ProcessLookupError):
            pass
    return found


def _as_a_terminal_starts_it() -> None:
    """Ctrl-C answered, not ignored nor blocked, as a terminal starts a job (the test runner's worker may pass
    on an ignored or blocked one, which the run would rightly keep, as one started by `nohup` does)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})


def interrupt(big_text: Path, how: str, jobs: int = 2) -> tuple[int, float, bytes, str, list[str]]:
    """Run `typofix correct --jobs 2 --file BIG` in a session of its own, signal it `how` once its first line is
    out, and return (exit status, seconds from the signal to the exit, output, stderr, processes left)."""
    process = subprocess.Popen([sys.executable, "-m", "typofix", "correct", "--jobs", str(jobs), "--file",
                                str(big_text)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, start_new_session=True,
                               preexec_fn=_as_a_terminal_starts_it)
    try:
        first = b""  # (read a byte at a time: a buffered readline would keep what follows from communicate)
        while not first.endswith(b"\n") and (byte := os.read(process.stdout.fileno(), 1)):
            first += byte
        assert first, process.stderr.read().decode()[-2000:]
        start = time.monotonic()
        if how == "group-int":  # Ctrl-C in a terminal: the whole foreground process group
            os.killpg(process.pid, signal.SIGINT)
        elif how == "group-term":  # `timeout`: the command, then its process group (workers die at once)
            process.send_signal(signal.SIGTERM)
            os.killpg(process.pid, signal.SIGTERM)
        else:
            process.send_signal({"int": signal.SIGINT, "term": signal.SIGTERM, "hup": signal.SIGHUP,
                                 "kill": signal.SIGKILL}[how])
        rest, err = process.communicate(timeout=60)
        seconds = time.monotonic() - start
        left = session_processes(process.pid)
        deadline = time.monotonic() + 5
        while left and time.monotonic() < deadline:  # a worker killed with its parent takes a moment to go
            time.sleep(0.05)
            left = session_processes(process.pid)
        return process.returncode, seconds, first + rest, err.decode(), left
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # whatever a failure left
        except ProcessLookupError:
            pass


@pytest.mark.parametrize("how, status, jobs", [pytest.param("group-int", 130, 2, marks=pytest.mark.slow), ("term", 143, 2),
                                               pytest.param("int", 130, 2, marks=pytest.mark.slow),
                                               pytest.param("hup", 129, 2, marks=pytest.mark.slow),
                                               pytest.param("kill", -signal.SIGKILL, 2, marks=pytest.mark.slow),
                                               pytest.param("group-term", 143, 2, marks=pytest.mark.slow),
                                               pytest.param("term", 143, 1, marks=pytest.mark.slow),
                                               pytest.param("hup", 129, 1, marks=pytest.mark.slow)])
def test_a_signal_ends_the_parent_and_its_workers_within_seconds(big_text, how, status, jobs):
    code, seconds, out, err, left = interrupt(big_text, how, jobs)
    assert code == status, err[-2000:]
    assert seconds < 10
    assert left == []
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    if how != "kill":
        assert err == ""  # a stop is quiet, as Ctrl-C is
    assert out.endswith(b"\n")  # whole lines only, never a torn one
    assert len(out) < big_text.stat().st_size  # it stopped before the end: something was tested


def _slow_square(x: int) -> int:
    time.sleep(0.2)
    return x * x


def test_a_signal_while_the_pool_waits_stops_it_and_kills_its_workers():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Stopped) as stopped:
        with WorkerPool(2, int) as pool:  # int(): workers with nothing to set up
            workers = [p.pid for p in multiprocessing.active_children()]
            for i, square in enumerate(pool.ordered(_slow_square, range(100))):
                assert square == i * i
                if i == 3:
                    os.kill(os.getpid(), signal.SIGTERM)
    assert stopped.value.signum == signal.SIGTERM and i == 3
    assert len(workers) >= 2 and not any(_alive(pid) for pid in workers)
    assert signal.getsignal(signal.SIGTERM) == before  # the handlers given back


def test_results_come_back_in_order_and_the_workers_end_with_the_pool():
    with WorkerPool(2, int) as pool:
        workers = [p.pid for p in multiprocessing.active_children()]
        assert list(pool.ordered(_slow_square, range(10))) == [i * i for i in range(10)]
        assert list(pool.ordered(_slow_square, [])) == []
    assert not any(_alive(pid) for pid in workers)


def _square_but_3(x: int) -> int:
    if x == 3:
        raise ValueError("no 3")  # at once: before the slower calls ahead of it are handed back
    return _slow_square(x)


def _cannot_start() -> None:
    raise FileNotFoundError("model file not found: nope.pt")


def test_a_calls_error_comes_back_in_its_turn_and_a_workers_set_up_error_at_once():
    got = []
    with pytest.raises(ValueError, match="no 3"):
        with WorkerPool(2, int) as pool:
            workers = [p.pid for p in multiprocessing.active_children()]
            got.extend(pool.ordered(_square_but_3, range(10)))
    assert got == [0, 1, 4] and not any(_alive(pid) for pid in workers)
    with pytest.raises(FileNotFoundError, match="nope.pt"):  # as one job would say it (was: a broken pool)
        with WorkerPool(2, _cannot_start):
            pass
    assert multiprocessing.active_children() == []


CHILD = """
import os, sys, time
from typofix.engine.jobs import die_with_parent
parent = int(sys.argv[1])
die_with_parent(parent)
print("ready", flush=True)
time.sleep(60)
"""


def test_a_worker_dies_with_its_parent_even_a_killed_one():
    """die_with_parent: a grandchild set up that way ends when its parent is SIGKILLed, which runs nothing."""
    middle = subprocess.Popen([sys.executable, "-c", "import os, subprocess, sys; p = subprocess.Popen([sys.executable, "
                               "'-c', sys.argv[1], str(os.getpid())]); print(p.pid, flush=True); p.wait()", CHILD],
                              stdout=subprocess.PIPE, text=True, env=ENV)
    grandchild = int(middle.stdout.readline())
    assert middle.stdout.readline() == "ready\n"  # the grandchild's, on the same pipe
    middle.kill()
    middle.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(grandchild):
        time.sleep(0.05)
    assert not _alive(grandchild)


def _alive(pid: int) -> bool:
    try:
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False


def test_binary_input_comes_back_byte_for_byte_and_what_cannot_be_read_is_one_line(tmp_path):
    """An executable's words are not rewritten (a NUL byte in its first 8 KiB: binary): it comes back as it was,
    with a note; a folder or a missing file is a one-line error. All before any model is loaded."""
    binary = tmp_path / "program"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\0\0\0 teh recieve \n" * 1000)
    note = "is binary (a NUL byte in its first 8 KiB): passed through unchanged"
    for argv, stdin, status, err in (
            (["--file", str(binary)], None, 0, f"typofix: note: {binary} {note}"),
            (["--jobs", "2", "-"], binary, 0, f"typofix: note: stdin {note}"),
            (["--json", "-"], binary, 2, "typofix: error: stdin is binary (a NUL byte in its first 8 KiB): --json "
                                        "describes text"),
            (["--file", str(tmp_path)], None, 2, f"typofix: error: cannot read {tmp_path}: Is a directory"),
            (["--file", str(tmp_path / "none")], None, 2,
             f"typofix: error: cannot read {tmp_path / 'none'}: No such file or directory")):
        with open(stdin or os.devnull, "rb") as source:
            done = subprocess.run([sys.executable, "-m", "typofix", "correct", "--model", "no-such.pt", *argv],
                                  stdin=source, capture_output=True, env=ENV, timeout=60)
        assert (done.returncode, done.stderr.decode().splitlines()) == (status, [err])
        assert done.stdout == (binary.read_bytes() if status == 0 else b"")
    closed = subprocess.run([sys.executable, "-m", "typofix", "correct", "-"], stdin=subprocess.DEVNULL,
                            capture_output=True, env=ENV, timeout=60, preexec_fn=lambda: os.close(0))
    assert (closed.returncode, closed.stderr) == (2, b"typofix: error: cannot read stdin: Bad file descriptor\n")


def test_a_process_may_be_forked_until_it_loads_a_model_runtime():
    """`fork_is_safe`: check --jobs forks its workers from a parent with the Corrector loaded, but never once
    onnxruntime (or torch) is loaded, whose sessions and thread pools a forked copy would share half."""
    script = ("from typofix.engine.jobs import fork_is_safe\n"
              "from typofix.engine.corrector import Corrector\n"
              "corrector = Corrector.load()\n"
              "print(fork_is_safe())\n"
              "corrector.weigh(['recieve'])\n"  # (the bundled model's runtime starts on its first search)
              "print(fork_is_safe())\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=ENV, cwd=ROOT,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]
