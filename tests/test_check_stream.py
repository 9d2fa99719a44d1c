"""A big plain-text file is checked as a stream of windows (`typofix.apps.check.reader.windows`): through the
real command line, with the size a file must have to be streamed lowered (a subprocess that sets it, then
runs the CLI), so that a small file goes window by window."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from typofix.apps.check.reader import scan_text, windows

PARAGRAPHS = ["We recieved the letter on time.", "The comittee met at noon.", "Nothing wrong in this one.",
              "She was definately right.", "A plain sentence again.", "The wheather was fine."]


def streamed_check(path: Path, tmp_path: Path, stream: int) -> subprocess.CompletedProcess:
    """`typofix check path`, files over `stream` bytes checked as streams of small windows."""
    code = ("import sys, typofix.apps.check.reader as r; r.STREAM, r.FIRST_WINDOW, r.LAST_WINDOW = "
            f"{stream}, 200, 800\nfrom typofix.apps.cli import main\nraise SystemExit(main(sys.argv[1:]))")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "XDG_CONFIG_HOME": str(tmp_path / "config")}
    return subprocess.run([sys.executable, "-c", code, "check", "--no-config", str(path)], capture_output=True,
                          text=True, env=env, timeout=300, cwd=tmp_path)


def test_windows_cover_the_file_and_grow(tmp_path):
    text = "\n\n".join(f"Paragraph {i}: " + PARAGRAPHS[i % len(PARAGRAPHS)] for i in range(200)) + "\n"
    path = tmp_path / "notes.txt"
    path.write_text(text)
    found = list(windows(str(path), first=100, most=1000))
    assert "".join(w.text for w in found) == text
    assert len(found[0].text) <= 100 < max(len(w.text) for w in found) <= 1000
    for window in found:
        assert window.offset == text.index(window.text, window.offset)
        assert window.line == text.count("\n", 0, window.offset)
    assert "".join(scan_text(str(path), w.text).masked for w in found) == scan_text(str(path), text).masked


@pytest.mark.slow
def test_a_streamed_file_reports_what_the_whole_file_does_and_its_ignore_mark_holds(tmp_path):
    text = "\n\n".join(f"Paragraph {i}: " + PARAGRAPHS[i % len(PARAGRAPHS)] for i in range(12)) + "\n"
    path = tmp_path / "notes.txt"
    path.write_text(text)
    whole, streamed = streamed_check(path, tmp_path, 10 ** 9), streamed_check(path, tmp_path, 100)
    assert whole.returncode == streamed.returncode == 1, whole.stderr + streamed.stderr
    assert streamed.stdout == whole.stdout  # (no word here is used often enough to become the file's term)
    assert len(whole.stdout.splitlines()) >= 6
    path.write_text(text + "\ntypofix: ignore-file\n")  # a mark at the end leaves the whole stream unchecked
    ignored = streamed_check(path, tmp_path, 100)
    assert ignored.returncode == 0 and ignored.stdout == "", ignored.stderr
