"""`typofix check` and the user's words, through the real command line (a subprocess, the bundled model)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest


def typofix(*args: str, config, stdin: str = "") -> subprocess.CompletedProcess:
    """The real CLI with the personal list under `config` (XDG_CONFIG_HOME), so the tests never read yours."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "XDG_CONFIG_HOME": str(config)}
    return subprocess.run([sys.executable, "-m", "typofix", *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=300)


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "config"
    path.mkdir()
    return path


def test_check_reports_path_line_column_and_exits_1(tmp_path, config):
    text = tmp_path / "letter.txt"
    text.write_text("Dear Sir,\nWe recieved teh letter.\n\tIt was definately good.\n")
    done = typofix("check", str(text), config=config)
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [f"{text}:2:4: recieved ==> received", f"{text}:2:13: teh ==> the",
                                        f"{text}:3:9: definately ==> definitely"]  # a tab counts one column


def test_check_walks_folders_skips_git_and_binary_and_exits_0_when_clean(tmp_path, config):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "notes").write_text("teh\n")
    (tmp_path / "data.bin").write_bytes(b"teh\0recieved")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ok.md").write_text("All words here are spelled right.\n")
    done = typofix("check", str(tmp_path), config=config)
    assert (done.returncode, done.stdout) == (0, ""), done.stderr
    (tmp_path / "docs" / "bad.md").write_text("A speling mistake.\n")
    done = typofix("check", str(tmp_path), config=config)
    assert (done.returncode, done.stdout) == (1, f"{tmp_path / 'docs' / 'bad.md'}:1:3: speling ==> spelling\n")


def test_write_changes_keeps_every_other_byte(tmp_path, config):
    path = tmp_path / "notes.txt"
    original = b"Caf\xe9 menu\r\nWe recieved teh letter.\r\n\tTeh end, no newline"
    path.write_bytes(original)
    path.chmod(0o640)
    done = typofix("check", "--write-changes", str(path), config=config)
    assert done.returncode == 1, done.stderr
    assert path.read_bytes() == original.replace(b"recieved", b"received").replace(b"teh", b"the").replace(
        b"Teh", b"The")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config", "notes.txt"]  # no temporary file left
    assert typofix("check", str(path), config=config).returncode == 0


def test_bad_usage_is_one_line_and_exit_2(tmp_path, config):
    for args in (["check", str(tmp_path / "missing.txt")], ["check"],
                 ["correct", "--words", str(tmp_path / "missing.txt"), "teh"]):
        done = typofix(*args, config=config)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, (args, done.stderr)
        assert done.stderr.startswith("typofix: error: ")
    bad = tmp_path / "words.txt"
    bad.write_text("fine\ntwo words\n")
    done = typofix("correct", "--words", str(bad), "teh", config=config)
    assert done.returncode == 2 and f"{bad}:2:" in done.stderr


def test_your_words_are_kept_and_offered(tmp_path, config):
    words = tmp_path / "words.txt"
    words.write_text("# project words\nkubernetes\nTypofix\n")
    done = typofix("correct", "kubernets", "typofix", config=config)
    assert done.stdout.split() != ["kubernetes", "typofix"]  # without the list: neither is known
    done = typofix("correct", "--words", str(words), "kubernets", "Kubernets", "typofix", config=config)
    assert done.stdout.split() == ["kubernetes", "Kubernetes", "typofix"], done.stderr
    (config / "typofix").mkdir()
    (config / "typofix" / "words.txt").write_text("kubernetes\n")  # the personal list: read by default
    text = tmp_path / "deploy.md"
    text.write_text("We deploy kubernets.\n")
    done = typofix("check", str(text), config=config)
    assert done.stdout == f"{text}:1:11: kubernets ==> kubernetes\n"
    done = typofix("correct", "-", stdin="kubernetes and kubernets\n", config=config)
    assert done.stdout == "kubernetes and kubernetes\n"


def test_real_words_are_reported_never_rewritten(tmp_path, config):
    path = tmp_path / "trip.txt"
    path.write_text("I came form the city.\nWe recieved teh letter.\n")
    done = typofix("check", str(path), config=config)
    assert "form" not in done.stdout  # off by default
    done = typofix("check", "--real-words", "--write-changes", str(path), config=config)
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines()[0] == f"{path}:1:8: form ==> from (real word? left as it is)"
    assert path.read_text() == "I came form the city.\nWe received the letter.\n"
    done = typofix("correct", "--json", "--real-words", "-", stdin="I came form the city.\n", config=config)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ('{"input": "I came form the city.\\n", "output": "I came form the city.\\n", '
                                   '"real_words": [{"offset": 7, "word": "form", "likelier": "from"}]}')
