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


def streamed_check(path: Path | str, tmp_path: Path, stream: int, *options: str, stdin: str = "",
                   env: dict | None = None) -> subprocess.CompletedProcess:
    """`typofix check [options] path`, files (and standard input) over `stream` bytes checked as streams of
    small windows."""
    code = ("import sys, typofix.apps.check.reader as r, typofix.apps.check.run as run; "
            f"r.STREAM, r.FIRST_WINDOW, r.LAST_WINDOW = {stream}, 200, 800; run.STREAM = {stream}\n"
            "from typofix.apps.cli import main\nraise SystemExit(main(sys.argv[1:]))")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "XDG_CONFIG_HOME": str(tmp_path / "config"), **(env or {})}
    return subprocess.run([sys.executable, "-c", code, "check", "--no-config", *options, str(path)],
                          capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path, input=stdin)


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


def test_a_line_longer_than_a_window_is_cut_between_words_and_placed_in_its_line(tmp_path):
    """A text of one long line (no line or paragraph break to cut its windows at) is cut after white space,
    never inside a word, and each window knows the column it starts at."""
    text = " ".join(f"word{i} " + PARAGRAPHS[i % len(PARAGRAPHS)] for i in range(60))
    path = tmp_path / "line.txt"
    path.write_text(text)
    found = list(windows(str(path), first=100, most=400))
    assert "".join(w.text for w in found) == text and len(found) > 3
    for window in found[1:]:
        assert window.text[0] not in " " and text[window.offset - 1] == " "  # (a word starts each)
        assert (window.line, window.column) == (0, window.offset)


def test_a_streamed_line_longer_than_a_window_reports_and_fixes_as_the_whole_file(tmp_path):
    """Checked and fixed (-w) as a stream of small windows, a file of one long line reports its typos at the
    same columns as checked whole, and writes the same fixes. Cut inside a word, a correct word had been two
    halves to correct (`second` as `econd`, column 1) and -w had written `ssecond` over it."""
    # (each typo twice at most: used more often, a word becomes the file's own, and a stream learns the file's
    # words as it goes)
    text = " ".join(PARAGRAPHS[i % len(PARAGRAPHS)] + " The second part is fine." * 8 for i in range(12)) + "\n"
    whole, streamed = tmp_path / "whole.txt", tmp_path / "streamed.txt"
    whole.write_text(text)
    streamed.write_text(text)
    by_whole = streamed_check(whole, tmp_path, 10 ** 9, "-w")
    by_windows = streamed_check(streamed, tmp_path, 100, "-w")
    assert by_whole.returncode == by_windows.returncode == 1, by_whole.stderr + by_windows.stderr
    assert by_windows.stdout.replace("streamed.txt", "whole.txt") == by_whole.stdout
    assert len(by_whole.stdout.splitlines()) == 8
    assert streamed.read_text() == whole.read_text() != text


def test_big_standard_input_is_checked_as_a_stream_as_a_big_file_is(tmp_path):
    """Standard input over the size a file is streamed at is read from a temporary file, window by window, as
    that file would be (bounded memory: it had been held and read whole); its findings are named `-`, and the
    temporary file is gone after. A word written three times is the file's own only once the stream has seen
    it so often, so a stream and a whole reading differ there: stdin read whole did not report `wheather`."""
    text = "\n\n".join(f"Paragraph {i}: " + PARAGRAPHS[i % len(PARAGRAPHS)] for i in range(18))  # (each thrice)
    path = tmp_path / "notes.txt"
    path.write_text(text + "\n")
    spill = tmp_path / "tmp"
    spill.mkdir()
    from_file = streamed_check(path, tmp_path, 100)
    from_stdin = streamed_check("-", tmp_path, 100, stdin=text + "\n", env={"TMPDIR": str(spill)})
    assert from_stdin.returncode == from_file.returncode == 1, from_file.stderr + from_stdin.stderr
    assert from_stdin.stdout == from_file.stdout.replace(str(path), "-")
    assert "wheather" in from_stdin.stdout and list(spill.iterdir()) == []


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
