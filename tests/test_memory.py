"""typofix.apps.memory: the programs fix glibc's mmap threshold for themselves and their worker processes, and
keep one the user set."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SHOW = ("import os; from typofix.apps.memory import return_freed_memory; return_freed_memory(); "
        "print(os.environ.get('MALLOC_MMAP_THRESHOLD_'))")


def threshold_after(env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", SHOW], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_the_threshold_is_set_for_the_process_and_its_workers():
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_MMAP_THRESHOLD_"}
    assert threshold_after(env) == str(1 << 20)


def test_a_threshold_the_user_set_is_kept():
    assert threshold_after({**os.environ, "MALLOC_MMAP_THRESHOLD_": "65536"}) == "65536"
