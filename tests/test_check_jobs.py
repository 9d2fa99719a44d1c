"""`typofix check --jobs N` through the real command line: this process and N - 1 workers share the reading,
the weighing and the checking (some tasks done here, some in a worker, each word searched in one process and
its search handed to the others), and the output is that of one process, byte for byte."""

from __future__ import annotations

import os
import subprocess
import sys
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
