"""Sweeps whose jobs run in processes of their own: `typofix-train -m hydra/launcher=submitit_slurm ...` (a SLURM
job each) or `hydra/launcher=submitit_local` (a local process each), Hydra's submitit launcher, the `slurm` extra.

Such a job runs the task function in a process where `typofix-train`'s command line never ran: submitit pickles
Hydra's launcher with the task function and unpickles it there. Two things of the exit policy need a hand:

* A job's error must reach the command that launched the sweep, or the user gets submitit's "has not produced
  any output" and a traceback there. So a job raises `JobFailed` instead of exiting: Hydra keeps it as the job's
  result, submitit hands it back, and the launching command's Hydra prints a `CompactHydraException` as its
  one-line message (after Hydra's own "Error executing job with overrides: [...]") and exits 1. The job's own
  log (`<sweep dir>/.submitit/<job>/*_log.err`) has the line too.
* A signal that stops the launching command (Ctrl-C, SIGTERM) must not leave local jobs training on, orphaned:
  `stop_jobs` passes SIGTERM to their controllers, which pass it on to the jobs. SLURM jobs belong to the
  cluster and go on.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

from hydra.errors import CompactHydraException


class JobFailed(CompactHydraException):
    """A sweep job's one-line error (`typofix.files.exits.message`), raised in the job, printed as it is by the
    command that launched the sweep."""


def stop_jobs() -> str | None:
    """Pass the signal that stopped this process on to the local jobs it launched, wait for them to stop, and
    say what became of its jobs; None when it launched none through submitit."""
    if "submitit" not in sys.modules:
        return None
    controllers = local_job_controllers()
    count = len(controllers)
    for pid in controllers:
        # The controller passes SIGTERM on to the job's processes and waits for them: each stops at its next safe
        # point with a checkpoint, as a run does (its SIGINT, LocalJob.cancel, kills them a second later).
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 120
    while controllers and time.monotonic() < deadline:
        controllers = [pid for pid in controllers if os.waitpid(pid, os.WNOHANG) == (0, 0)]
        time.sleep(0.1)
    if not count:
        return "the jobs it submitted go on (on SLURM: squeue lists them, scancel stops them)"
    return f"its {count} local job(s) stopped with it; each job's log (.submitit/ in the " \
           "sweep dir) says how to resume it"


def local_job_controllers() -> list[int]:
    """This process's children that are submitit's local job controllers (`python -m submitit.local._local`),
    read from /proc: Hydra's launcher keeps its job objects to itself, and they hold the processes."""
    me, found = os.getpid(), []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rpartition(")")[2].split()[1])
            command = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):  # gone meanwhile, or not Linux's /proc
            continue
        if parent == me and b"submitit.local._local" in command:
            found.append(int(stat.parent.name))
    return found
