"""`typofix check --jobs N` through the real command line: this process and N - 1 workers share the reading,
the weighing and the checking (some tasks done here, some in a worker, each word searched in one process and
its search handed to the others), and the output is that of one process, byte for byte."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

TYPOS = ["recieve", "documantation", "argumnets", "elemnts", "seperate", "occured"]


def _check(*args: str, cwd: Path, config: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "XDG_CONFIG_HOME": str(config)}
    return subprocess.run([sys.executable, "-m", "typofix", "check", *args], capture_output=True, text=True,
                          env=env, timeout=300, cwd=cwd)


@pytest.fixture
def tree(tmp_path) -> Path:
    """Sixteen files, enough that some are read and checked here and some in a worker; each has a typo of its
    own and shares another with the files before and after it (a word searched in one process, needed in
    another)."""
    root = tmp_path / "tree"
    root.mkdir()
    for n in range(16):
        own, shared = TYPOS[n % len(TYPOS)], TYPOS[(n + 1) % len(TYPOS)]
        if n % 2:
            (root / f"part{n:02}.md").write_text(
                f"# Part {n}\n\nThe tool will {own} the input and write the output.\n\n"
                f"We {shared} a report about the parser and its {shared} errors.\n")
        else:
            (root / f"part{n:02}.py").write_text(
                f'"""Module {n}: read the {own} from the caller."""\n\n\n'
                f"def run(value):\n    # the {shared} of the value comes first\n    return value\n")
    return root


@pytest.mark.slow
def test_jobs_report_what_one_process_reports_byte_for_byte(tree, tmp_path):
    config = tmp_path / "config"
    config.mkdir()
    one = _check("--jobs", "1", ".", cwd=tree, config=config)
    assert one.returncode == 1, one.stderr
    reported = {line.split(":")[0].removeprefix("./") for line in one.stdout.splitlines()}
    assert reported == {path.name for path in tree.iterdir()}  # a typo in every file
    for jobs in ("2", "3"):
        many = _check("--jobs", jobs, ".", cwd=tree, config=config)
        assert (many.returncode, many.stdout) == (1, one.stdout), many.stderr


def _alive_in_group(group: int) -> list[int]:
    """The processes of process group `group` that have not ended (zombies aside), from /proc."""
    alive = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):  # (not a process, or it ended meanwhile)
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            alive.append(int(entry.name))
    return alive


def _as_a_terminal_starts_it() -> None:
    """A job's signals as a terminal starts it: Ctrl-C answered, not ignored nor blocked. (A process inherits an
    ignored or blocked signal from whoever starts it, here a test runner's worker that an earlier test of it may
    have left so: a run started that way rightly ignores Ctrl-C, as one started by `nohup` does.)"""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})


def _stopped_run(tmp_path: Path, signum: int, group: bool) -> tuple[subprocess.Popen, str]:
    """`check --jobs 2` of standard input, left open so that the run waits in it with its worker up, sent
    `signum` (to its process group, as a terminal sends Ctrl-C, or to it alone); its exit and stderr."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "XDG_CONFIG_HOME": str(tmp_path / "config")}
    run = subprocess.Popen([sys.executable, "-m", "typofix", "check", "--jobs", "2", "-"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True,
                           preexec_fn=_as_a_terminal_starts_it)
    deadline = time.monotonic() + 60
    while len(_alive_in_group(run.pid)) < 2 and time.monotonic() < deadline:  # (this process and its worker)
        time.sleep(0.1)
    time.sleep(2)  # the worker loading its corrector, this process waiting for standard input
    (os.killpg if group else os.kill)(run.pid, signum)
    try:
        _, err = run.communicate(timeout=60)  # (ends only when no process holds its stdout and stderr)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        pytest.fail("a process of the run still held its output a minute after the signal")
    return run, err.decode()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signum, group, status", [(signal.SIGINT, True, 130), (signal.SIGTERM, True, 143),
                                                   (signal.SIGTERM, False, 143), (signal.SIGKILL, False, None)])
def test_a_stopped_run_ends_without_a_traceback_and_leaves_no_worker(tmp_path, signum, group, status):
    """Ctrl-C (sent to the whole process group, the worker too) and SIGTERM end `check --jobs 2` as they end
    one process: exit 128 + the signal, nothing on stderr (the worker ignores Ctrl-C: its KeyboardInterrupt
    traceback was printed before), no process of the run left. Killed outright, the run takes its worker with
    it: none goes on working with the run's output open (whoever reads it waited for ever)."""
    run, err = _stopped_run(tmp_path, signum, group)
    if status is not None:
        assert run.returncode == status and err == "", err
    time.sleep(0.5)
    assert _alive_in_group(run.pid) == []
