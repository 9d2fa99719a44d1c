"""`typofix-ispell`: the Ispell -a pipe protocol through the real console script, and a real client (Emacs)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from typofix import __version__

BANNER = f"@(#) International Ispell Version 3.1.20 (but really typofix {__version__})"
CLIENT = Path(__file__).with_name("clients") / "flyspell.el"


def ispell(*args: str, stdin: str = "", config: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "XDG_CONFIG_HOME": str(config)}
    return subprocess.run([sys.executable, "-m", "typofix.apps.ispell", *args], input=stdin, capture_output=True,
                          text=True, env=env, timeout=300)


@pytest.fixture
def config(tmp_path):
    return tmp_path / "config"


def blocks(stdout: str) -> list[list[str]]:
    """The answer blocks after the banner: the lines of each, up to its empty line."""
    lines = stdout.split("\n")
    assert lines[0] == BANNER
    found, block = [], []
    for line in lines[1:-1]:
        if line:
            block.append(line)
        else:
            found.append(block)
            block = []
    return found


def test_version_banner(config):
    for flag in ("-v", "-vv"):
        done = ispell(flag, config=config)
        assert (done.returncode, done.stdout) == (0, BANNER + "\n"), done.stderr


def test_pipe_answers_like_aspell(config):
    text = "We recieved teh letter.\n^teh NASA 42 ok\n!\nteh fine\n%\n\tteh\n\n"
    done = ispell("-a", "-m", "-B", "-d", "en_US", "--encoding=utf-8", "--strange", stdin=text, config=config)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "typofix-ispell: note: ignoring option '--strange'\n"
    got = blocks(done.stdout)
    assert got[0][0] == "*" and got[0][3] == "*" and len(got[0]) == 4
    assert got[0][1].startswith("& recieved ") and got[0][1].split(": ")[0].endswith(" 3")
    assert got[0][1].split(": ")[1].split(", ")[0] == "received"  # the correction comes first
    assert got[0][2].startswith("& teh ") and " 12: the, " in got[0][2]
    assert got[1][0].startswith("& teh ") and " 1: the" in got[1][0]  # offsets count the ^, as aspell's do
    assert len(got[1]) == 2 and got[1][1].startswith("& ok ") and got[1][1].split()[3] == "13:"  # NASA, 42: no words
    assert [a.split()[:1] for a in got[2]] == [["&"]]  # terse: "fine" gets no line
    assert got[3][0].split()[:1] == ["&"] and " 1: " in got[3][0]  # a tab counts one
    assert got[4] == []  # an empty line gets an empty answer
    count = int(got[0][1].split()[2])
    assert count == len(got[0][1].split(": ")[1].split(", "))


def test_accept_add_and_save(tmp_path, config):
    personal = tmp_path / "mine.txt"
    personal.write_text("typofix\n")
    text = "typofix kubernets zorbl\n@zorbl\n*kubernets\n&Frobnitz\nzorbl kubernets frobnitz\n#\n"
    done = ispell("-a", "-p", str(personal), stdin=text, config=config)
    assert done.returncode == 0, done.stderr
    got = blocks(done.stdout)
    assert got[0][0] == "*" and got[0][1].split()[:2] == ["&", "kubernets"] and got[0][2][0] in "&#"
    assert got[1] == ["*", "*", "*"]
    assert personal.read_text() == "typofix\nkubernets\nfrobnitz\n"  # @ is for the session only
    assert not config.exists()  # -p given: the default personal list is left alone


def test_hash_saves_the_default_personal_list(config):
    done = ispell("-a", stdin="*kubernetes\n#\n", config=config)
    assert done.returncode == 0, done.stderr
    assert (config / "typofix" / "words.txt").read_text() == "kubernetes\n"
    done = ispell("-l", stdin="We deploy kubernetes and kubernets.\nteh\n", config=config)
    assert done.stdout == "kubernets\nteh\n"


def test_a_bad_word_list_is_one_line_and_exit_2(tmp_path, config):
    bad = tmp_path / "bad.txt"
    bad.write_text("two words\n")
    done = ispell("-a", "--words", str(bad), config=config)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "bad.txt:1:" in done.stderr


@pytest.mark.skipif(shutil.which("emacs") is None, reason="Emacs is not installed (make test-emacs installs it)")
def test_emacs_flyspell_flags_the_typos(tmp_path, config):
    program = Path(sys.executable).with_name("typofix-ispell")
    if not program.is_file():
        pytest.skip("the typofix-ispell console script is not installed beside this Python")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "XDG_CONFIG_HOME": str(config), "HOME": str(tmp_path),
           "TYPOFIX_ISPELL": str(program)}
    done = subprocess.run(["emacs", "--batch", "-Q", "-l", str(CLIENT)], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "FLAGGED: recieved teh definately" in lines, done.stdout + done.stderr
    suggestions = next(line for line in lines if line.startswith("SUGGESTIONS recieved: ")).split(": ")[1].split()
    assert suggestions[0] == "received"
