"""The pre-commit hooks (.pre-commit-hooks.yaml) run by pre-commit itself, offline, on a throwaway repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HOOKS = Path(__file__).resolve().parents[1] / ".pre-commit-hooks.yaml"
PRE_COMMIT = shutil.which("pre-commit", path=os.pathsep.join([str(Path(sys.executable).parent),
                                                              os.environ.get("PATH", "")]))
pytestmark = pytest.mark.skipif(PRE_COMMIT is None, reason="pre-commit is not installed (pip install pre-commit)")


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false",
                           *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_pre_commit_runs_typofix_check(tmp_path):
    hooks = tmp_path / "hooks"  # a repository holding this checkout's hook definitions, as pre-commit clones them
    hooks.mkdir()
    shutil.copy(HOOKS, hooks / ".pre-commit-hooks.yaml")
    git(hooks, "init", "-q")
    git(hooks, "add", ".")
    git(hooks, "commit", "-q", "-m", "hooks")
    rev = git(hooks, "rev-parse", "HEAD")

    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {hooks.as_uri()}\n  rev: {rev}\n  hooks:\n  - id: typofix-system\n    files: \\.(md|py)$\n")
    (project / "notes.md").write_text("Title\nWe recieved teh letter.\n")
    (project / "clean.md").write_text("Nothing wrong here.\n")
    # code is never reported, only its comments and strings
    (project / "tool.py").write_text("import numpy as np\n\n\ndef parseArgs(args):\n    # the argumnets\n"
                                     "    return np.zeros(len(args))\n")
    git(project, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "OMP_NUM_THREADS": "1",
           "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    done = subprocess.run([PRE_COMMIT, "run", "--all-files"], cwd=project, capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "notes.md:2:4: recieved ==> received" in done.stdout
    assert "notes.md:2:13: teh ==> the" in done.stdout
    assert "tool.py:5:11: argumnets ==> arguments" in done.stdout
    assert "clean.md" not in done.stdout and "np ==>" not in done.stdout and "args ==>" not in done.stdout

    (project / "notes.md").write_text("Title\nWe received the letter.\n")
    (project / "tool.py").write_text("import numpy as np\n\n\ndef parseArgs(args):\n    # the arguments\n"
                                     "    return np.zeros(len(args))\n")
    git(project, "add", ".")
    done = subprocess.run([PRE_COMMIT, "run", "--all-files"], cwd=project, capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
