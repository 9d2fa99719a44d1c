"""`typofix-ispell`: the Ispell -a pipe protocol through the real console script, checked case by case against
what `aspell -a` answers (where Aspell is installed: `make test-editors`), and a real client (Emacs)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from typofix import __version__

BANNER = f"@(#) International Ispell Version 3.1.20 (but really Aspell 0.60.8) typofix {__version__}"
CLIENT = Path(__file__).with_name("clients") / "flyspell.el"
EMPTY_WORD = 'Error: The word "" is invalid. Empty string.'
LONG = "abcdefghijklmnopqrstuvwxyzabcdefgh"  # 34 letters, no word

# The protocol cases: an input line and the answer `aspell -a` (0.60.8, en) gives it, each answer line as its
# kind, and for `&` and `#` the word and offset (the suggestions are each checker's own). None: no answer at all
# (not even the empty line). Where Aspell is installed, each is checked against it too.
PROTOCOL = [
    ("We recieved teh letter.", ["*", "& recieved 3", "& teh 12", "*"]),
    ("^teh", ["& teh 1"]),  # offsets count the ^
    ("\tteh", ["& teh 1"]),  # a tab counts one
    ("", None),  # an empty line: nothing at all
    ("   ", []),  # blank: the empty answer
    ("123 4.5", []),  # numbers are no words
    ("foo2bar", ["*", "*"]),  # digits split a word
    (LONG, [f"# {LONG} 0"]),  # over 30 letters and no word: nothing to offer
    ("don't well-known k8s", ["*", "*", "*", "*", "*"]),
    ("mail me@example.com or http://example.com/teh/x now", ["*", "*", "*"]),  # URLs and addresses skipped
    ("NASA Tuesday x", ["*", "*", "*"]),
    ("Sunday sunday", ["*", "& sunday 7"]),
    ("*", None), ("@", None), ("&", None),  # no word: an error on stderr, nothing on stdout
    ("#", None),  # save: no answer
    ("!", None), ("teh fine", ["& teh 0"]), ("%", None),  # terse: correct words get no line
]


def shape(answer: str) -> str:
    """An answer line as PROTOCOL writes it."""
    if answer.startswith("&"):
        head = answer.split(":")[0].split()
        return f"& {head[1]} {head[3]}"
    return answer


def answers(stdout: str, lines: list[str]) -> list[list[str] | None]:
    """Per input line, its answer lines up to the empty line (shaped), or None when it got no answer."""
    out = stdout.split("\n")[1:]
    found = []
    for line in lines:
        if line == "" or line[0] in "*@&#!%" or (line[0] in "~+-$"):
            found.append(None)
            continue
        block = []
        while out and out[0] != "":
            block.append(shape(out.pop(0)))
        if out:
            out.pop(0)
        found.append(block)
    assert out == [""], f"answers left over: {out}"
    return found


def ispell(*args: str, stdin: str = "", config: Path, program: list[str] | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "XDG_CONFIG_HOME": str(config)}
    command = program or [sys.executable, "-m", "typofix.apps.ispell"]
    return subprocess.run([*command, *args], input=stdin, capture_output=True, text=True, env=env, timeout=300)


@pytest.fixture
def config(tmp_path):
    return tmp_path / "config"


def pipe_table(program: list[str] | None, config: Path) -> subprocess.CompletedProcess:
    text = "".join(line + "\n" for line, _ in PROTOCOL)
    return ispell("-a", "-m", "-B", "--encoding=utf-8", stdin=text, config=config, program=program)


def test_protocol_cases(config):
    done = pipe_table(None, config)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == BANNER
    got = answers(done.stdout, [line for line, _ in PROTOCOL])
    assert list(zip([line for line, _ in PROTOCOL], got)) == [(line, want) for line, want in PROTOCOL]
    assert done.stderr.splitlines() == [EMPTY_WORD] * 3  # the empty *, @ and &, as aspell writes them


@pytest.mark.skipif(shutil.which("aspell") is None, reason="Aspell is not installed (make test-editors installs it)")
def test_protocol_cases_are_aspells(config):
    done = pipe_table(["aspell", "--lang=en"], config)
    if done.returncode != 0:
        pytest.skip(f"aspell has no English dictionary: {done.stderr.strip()}")
    got = answers(done.stdout, [line for line, _ in PROTOCOL])
    assert list(zip([line for line, _ in PROTOCOL], got)) == [(line, want) for line, want in PROTOCOL]
    assert done.stderr.splitlines() == [EMPTY_WORD] * 3


def test_our_judgements(config):
    """Where typofix answers better than Aspell, by design: accented words are words, a token that is no
    misspelling of a word is left alone (the misspelling detector's call, as in `typofix correct`), and a name
    is offered as a name."""
    lines = ["The café was naïve, the résumé was recieved on Monday.", "xqzkvwp", "sunday"]
    done = ispell("-a", stdin="".join(line + "\n" for line in lines), config=config)
    assert done.returncode == 0, done.stderr
    blocks = done.stdout.split("\n\n")
    accented, nonsense, name = (block.strip("\n").split("\n") for block in blocks[:3])
    assert accented[1:] == ["*"] * 7 + [accented[8]] + ["*", "*"] and accented[8].startswith("& recieved 2 35: ")
    assert nonsense == ["*"]
    offered = name[0].split(": ")[1].split(", ")
    assert offered[0] == "Sunday" and "Monday" in offered and "monday" not in offered
    assert all(word != word.lower() or word not in ("monday", "sunday") for word in offered)


@pytest.mark.parametrize("args", [["-a", "-d", "fr"], ["-a", "-d", "de_DE"], ["-a", "--lang=fr"], ["-a", "-dfr"],
                                  ["-a", "--master=es"], ["-a", "--encoding=klingon"], ["frobnicate"]])
def test_another_language_is_one_line_and_an_error(args, config):
    done = ispell(*args, stdin="teh\n", config=config)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("typofix-ispell: error: ")


@pytest.mark.parametrize("args", [["-d", "en_US"], ["-d", "en"], ["--lang=en"], ["-d", "english"], ["-den_GB"]])
def test_english_is_accepted(args, config):
    done = ispell(*args, "-v", config=config)
    assert (done.returncode, done.stdout, done.stderr) == (0, BANNER + "\n", "")


def test_version_help_dicts_and_config_answer_at_once(config):
    for flag in ("-v", "-vv", "version"):
        done = ispell(flag, config=config)
        assert (done.returncode, done.stdout) == (0, BANNER + "\n"), done.stderr
    done = ispell("--help", stdin="teh\n", config=config)  # never reads stdin
    assert done.returncode == 0 and done.stdout.startswith("typofix ") and "-d|--master DICT" in done.stdout
    assert ispell("dicts", config=config).stdout.split() == ["en", "en_AU", "en_CA", "en_GB", "en_US"]
    folder = ispell("config", "dict-dir", config=config).stdout.strip()
    assert ispell("config", "data-dir", config=config).stdout.strip() == folder
    # ispell.el reads the `special` line of <dict-dir>/en.dat for the characters that may stand inside a word
    special = [line.split()[1:] for line in (Path(folder) / "en.dat").read_text().splitlines()
               if line.startswith("special")]
    assert special == [["'", "-*-", "\u2019", "-*-"]]
    done = ispell("config", "nope", config=config)
    assert done.returncode == 2 and done.stderr.count("\n") == 1


def test_note_on_an_unknown_option(config):
    done = ispell("-a", "--strange", stdin="teh\n", config=config)
    assert done.returncode == 0 and done.stderr == "typofix-ispell: note: ignoring option '--strange'\n"
    answer = done.stdout.split("\n")[1]
    assert answer.startswith("& teh ") and answer.split()[3] == "0:" and answer.split(": ")[1].startswith("the, ")


def test_suggestions_come_best_first(config):
    done = ispell("-a", stdin="We recieved teh letter.\n", config=config)
    first = done.stdout.split("\n")[2]
    offered = first.split(": ")[1].split(", ")
    assert offered[0] == "received" and int(first.split()[2]) == len(offered)


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


def test_accept_add_and_save(tmp_path, config):
    personal = tmp_path / "mine.txt"
    personal.write_text("typofix\n")
    text = "typofix definately zorbl\n@zorbl\n*definately\n&Frobnitz\nzorbl definately frobnitz\n#\n"
    done = ispell("-a", "-p", str(personal), stdin=text, config=config)
    assert done.returncode == 0, done.stderr
    got = blocks(done.stdout)
    assert got[0][0] == "*" and got[0][1].split()[:2] == ["&", "definately"] and got[0][2][0] in "&#*"
    assert got[1] == ["*", "*", "*"]
    assert personal.read_text() == "typofix\ndefinately\nfrobnitz\n"  # @ is for the session only
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


@pytest.mark.skipif(shutil.which("emacs") is None, reason="Emacs is not installed (make test-editors installs it)")
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
    flagged = [line for line in lines if line.startswith("FLAGGED: ")]
    # "We recieved teh letter on Tuesday and it was definately good." and, accented words whole (ispell.el
    # took the pipe for a UTF-8 Aspell: word characters [[:alpha:]], not [A-Za-z]),
    # "The café was naïve, the résumé was recieved on Monday."
    assert flagged == ["FLAGGED: recieved teh definately", "FLAGGED: recieved"], done.stdout + done.stderr
    assert "CASECHARS: [[:alpha:]]" in lines
    suggestions = next(line for line in lines if line.startswith("SUGGESTIONS recieved: ")).split(": ")[1].split()
    assert suggestions[0] == "received"
