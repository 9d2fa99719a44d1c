"""The commands' launcher (bin/typofix, installed as typofix, typofix-ispell and typofix-train), run as installed:
each name runs its own command, found through a link as pipx and uv put one on PATH, and a folder as standard
input is the exit policy's one line and exit 2 where CPython alone dies with "Fatal Python error"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent  # the venv's bin, where `make install` put the commands
NAMES = ("typofix", "typofix-ispell", "typofix-train")


def run(command: list, stdin=subprocess.DEVNULL, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(part) for part in command], stdin=stdin, capture_output=True, text=True, timeout=120,
                          env=env)


def test_the_installed_commands_are_the_launcher():
    for name in NAMES:
        assert (BIN / name).read_bytes() == (ROOT / "bin" / "typofix").read_bytes(), \
            f"{BIN / name} is not bin/typofix: reinstall (make install)"


@pytest.mark.parametrize("command", [["typofix", "correct", "-"], ["typofix", "check", "-"], ["typofix", "lsp"],
                                     ["typofix-ispell", "-a"], ["typofix-train"]], ids=" ".join)
def test_a_folder_as_stdin_is_one_line_and_exit_2(command, tmp_path):
    folder = os.open(tmp_path, os.O_RDONLY)  # what the shell gives `typofix correct - < somedir`
    try:
        done = run([BIN / command[0], *command[1:]], stdin=folder)
    finally:
        os.close(folder)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"{command[0]}: error: cannot read stdin: it is a directory\n"


def test_python_alone_cannot_start_with_a_folder_as_stdin(tmp_path):
    """Why the launcher is a shell script: CPython checks stdin before any Python code of ours can run (if this
    ever passes, a Python console script could do the launcher's job)."""
    folder = os.open(tmp_path, os.O_RDONLY)
    try:
        done = run([sys.executable, "-I", "-c", "pass"], stdin=folder)
    finally:
        os.close(folder)
    assert done.returncode == 1 and "<stdin> is a directory" in done.stderr


def test_each_name_runs_its_command():
    assert run([BIN / "typofix", "--version"]).stdout.startswith("typofix ")
    assert "International Ispell" in run([BIN / "typofix-ispell", "-v"]).stdout
    assert run([BIN / "typofix-train", "--help"]).stdout.startswith("typofix-train: ")


def test_worker_processes_do_not_run_the_command_again(tmp_path):
    """--jobs' workers are spawned processes that import the launcher again: they must not start the command."""
    (tmp_path / "letter.txt").write_text("I recieved teh letter.\nIt was writen in haste.\n")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    pooled, alone = (run([BIN / "typofix", "correct", "--jobs", jobs, "--file", tmp_path / "letter.txt"], env=env)
                     for jobs in ("2", "1"))
    assert (pooled.returncode, pooled.stderr) == (0, "")
    assert pooled.stdout == alone.stdout != (tmp_path / "letter.txt").read_text()


def test_a_link_on_path_runs_the_environments_python(tmp_path):
    """pipx and uv tool put links to the environment's commands in ~/.local/bin: the launcher follows them to
    the Python beside the real file, not to whatever python3 comes first on PATH; a link of another name runs
    the command its target is."""
    (tmp_path / "typofix").symlink_to(BIN / "typofix")
    (tmp_path / "tf").symlink_to(BIN / "typofix-ispell")
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    done = run(["typofix", "--version"], env=env)  # the system's python3 has no typofix to import
    assert done.returncode == 0 and done.stdout.startswith("typofix "), done.stderr
    assert "International Ispell" in run(["tf", "-v"], env=env).stdout


def test_a_command_ends_with_its_output_whole_and_its_exit_handlers_run(tmp_path):
    # The launcher ends `typofix` without the interpreter's teardown (typofix.files.exits.leave): what the
    # teardown would have done that matters, flushing the output and running the exit handlers, is done first.
    mark = tmp_path / "ran"
    (tmp_path / "sitecustomize.py").write_text(f"import atexit\natexit.register(open, {str(mark)!r}, 'w')\n")
    lines = [f"line {n} of a long text, all of it spelled right" for n in range(3000)]  # more than a pipe holds
    done = subprocess.run([BIN / "typofix", "correct", "-"], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == lines
    assert mark.exists()
