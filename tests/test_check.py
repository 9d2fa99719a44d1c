"""`typofix check` through the real command line (a subprocess, the bundled model): what it reads in a
repository, what it reports, what -w may change, and the user's words."""

from __future__ import annotations

import ast
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

DEMO_PY = '''"""Parse the command line argumnets of the demo tool."""
import argparse

import numpy as np


def parseArgs(args):
    # Count the elemnts before we start.
    n = len(args)
    if n > 2:
        s = str(n)
    elif n == 1:
        print("Could not recieve the data")
    parser = argparse.ArgumentParser()
    return np.zeros(n), parser, s
'''
README = """# Demo

This is a smal demo of the parser, with documantation.

It reads `argumnets` and ``recieve`` in code spans.

```python
x = recieve(argumnets)
```
"""
# What `check .` must report in the repository below: the docstring's, the comment's and the string's typo in
# demo.py and the README's two, nothing in .venv, in code, in code spans or in the fenced block.
EXPECTED = ["README.md:3:11: smal ==> small", "README.md:3:41: documantation ==> documentation",
            "demo.py:1:27: argumnets ==> arguments", "demo.py:8:17: elemnts ==> elements",
            "demo.py:13:26: recieve ==> receive"]


def typofix(*args: str, config: Path, cwd: Path | None = None, stdin: str = "") -> subprocess.CompletedProcess:
    """The real CLI with the personal list under `config` (XDG_CONFIG_HOME), so the tests never read yours."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "XDG_CONFIG_HOME": str(config)}
    return subprocess.run([sys.executable, "-m", "typofix", *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=300, cwd=cwd)


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=cwd, check=True,
                   capture_output=True)


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "config"
    path.mkdir()
    return path


@pytest.fixture
def repo(tmp_path) -> Path:
    """A git work tree with a gitignored .venv holding typos, a Python file and a README."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / ".gitignore").write_text(".venv/\n")
    (root / ".venv" / "lib").mkdir(parents=True)
    (root / ".venv" / "lib" / "site.py").write_text("# we recieve teh data here\nX = 'recieved teh'\n")
    (root / "demo.py").write_text(DEMO_PY)
    (root / "README.md").write_text(README)
    return root


def test_check_in_a_repository_reports_the_typos_of_text_never_code_nor_ignored_files(repo, config):
    done = typofix("check", ".", config=config, cwd=repo)
    assert done.returncode == 1, done.stderr
    assert [line.removeprefix("./") for line in done.stdout.splitlines()] == EXPECTED
    done = typofix("check", "--json", "--jobs", "2", ".", config=config, cwd=repo)
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [f"{Path(r['path']).name}:{r['line']}:{r['column']}: {r['word']} ==> {r['suggestions'][0]}"
            for r in records] == EXPECTED
    for record in records:
        assert set(record) == {"path", "line", "column", "word", "suggestions", "confidence", "where", "fixable"}
        assert record["where"] == "text" and record["confidence"] >= 2.0
    # -w would write all but the string literal's (data: reported, never written)
    assert [r["fixable"] for r in records] == [True, True, True, True, False]
    # --jobs 2 reads and checks in two processes; the output is the same, line for line
    assert done.stdout == typofix("check", "--json", ".", config=config, cwd=repo).stdout


def _masked_ast(source: str) -> str:
    """The syntax tree with every string constant emptied: what -w may not change."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = ""
    return ast.dump(tree)


def test_write_changes_fixes_text_keeps_the_program_and_writes_through_symlinks(repo, config):
    (repo / "notes").mkdir()
    target = repo / "notes" / "letter.md"
    target.write_text("We recieved the letter.\n")
    target.chmod(0o640)
    (repo / "link.md").symlink_to("notes/letter.md")
    done = typofix("check", "-w", "demo.py", "link.md", config=config, cwd=repo)
    assert done.returncode == 1, done.stderr
    fixed = (repo / "demo.py").read_text()
    assert _masked_ast(fixed) == _masked_ast(DEMO_PY)  # the same program: only string contents changed
    assert "the command line arguments" in fixed and "the elements" in fixed  # a docstring, a comment
    assert fixed.replace("arguments", "argumnets").replace("elements", "elemnts") == DEMO_PY  # and nothing else:
    # the string literal's typo ("Could not recieve") is reported, never written: a string is data
    assert (repo / "link.md").is_symlink() and os.readlink(repo / "link.md") == "notes/letter.md"
    assert target.read_text() == "We received the letter.\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in (repo / "notes").iterdir()) == ["letter.md"]  # no temporary file left
    done = typofix("check", "demo.py", "link.md", config=config, cwd=repo)
    assert done.stdout == "demo.py:13:26: recieve ==> receive\n"


def test_write_changes_refuses_what_it_cannot_write_in_one_line(tmp_path, config):
    locked = tmp_path / "locked.md"
    locked.write_text("We recieved it.\n")
    locked.chmod(0o444)  # read-only: root could replace it, and must not
    done = typofix("check", "-w", str(locked), config=config)
    assert done.returncode == 2
    assert done.stderr == f"typofix: error: cannot write {locked}: the file is read-only\n"
    assert done.stdout == f"{locked}:1:4: recieved ==> received\n"
    assert locked.read_text() == "We recieved it.\n"
    immutable = tmp_path / "immutable.md"
    immutable.write_text("We recieved it.\n")
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(immutable)],
                                                        capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available here (needs root and a file system that has it)")
    try:
        done = typofix("check", "-w", str(immutable), config=config)
    finally:
        subprocess.run(["chattr", "-i", str(immutable)], check=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"typofix: error: cannot write {immutable}: "), done.stderr
    assert immutable.read_text() == "We recieved it.\n"


@pytest.mark.slow  # more CLI runs over a repository; the scenario test stays
def test_skip_include_config_and_inline_ignores(repo, config):
    (repo / "notes.txt").write_text("teh first line\nteh second line  # typofix: ignore\n")
    done = typofix("check", "--include", "*.txt", ".", config=config, cwd=repo)
    assert done.stdout.splitlines() == ["./notes.txt:1:1: teh ==> the"]
    done = typofix("check", "--skip", "*.md", "--skip", "demo.py", ".", config=config, cwd=repo)
    assert done.stdout.splitlines() == ["./notes.txt:1:1: teh ==> the"]
    (repo / "pyproject.toml").write_text('[tool.typofix]\nskip = ["*.txt", "README.md"]\nwords = ["elemnts"]\n')
    done = typofix("check", ".", config=config, cwd=repo)
    assert [line.removeprefix("./") for line in done.stdout.splitlines()] == [
        "demo.py:1:27: argumnets ==> arguments", "demo.py:13:26: recieve ==> receive"]
    (repo / "generated.md").write_text("<!-- typofix: ignore-file -->\nWe recieved teh letter.\n")
    assert "generated.md" not in typofix("check", ".", config=config, cwd=repo).stdout
    (repo / ".typofix.toml").write_text("skip = 1\n")
    done = typofix("check", ".", config=config, cwd=repo)
    assert done.returncode == 2 and done.stderr == (f"typofix: error: {repo / '.typofix.toml'}: skip: expected a "
                                                    "list of strings\n")


def test_identifiers_are_split_and_reported_on_request_never_fixed(tmp_path, config):
    code = tmp_path / "fetch.py"
    source = 'def recieveData(parse_argumnets):\n    """Fetch the data."""\n    return parse_argumnets\n'
    code.write_text(source)
    assert typofix("check", str(code), config=config).returncode == 0  # names are code
    done = typofix("check", "--identifiers", "-w", str(code), config=config)
    assert done.stdout.splitlines() == [
        f"{code}:1:5: recieve ==> receive (in an identifier: left as it is)",
        f"{code}:1:23: argumnets ==> arguments (in an identifier: left as it is)",
        f"{code}:3:18: argumnets ==> arguments (in an identifier: left as it is)"]
    assert code.read_text() == source


def test_known_only_reports_the_listed_misspellings_alone(tmp_path, config):
    text = tmp_path / "letter.txt"
    text.write_text("We recieved the documantation.\n")  # recieved is in the dev sets' lists; the other not
    done = typofix("check", str(text), config=config)
    assert [line.split(": ")[1] for line in done.stdout.splitlines()] == ["recieved ==> received",
                                                                           "documantation ==> documentation"]
    done = typofix("check", "--known-only", str(text), config=config)
    assert done.stdout == f"{text}:1:4: recieved ==> received\n"


def test_check_reports_path_line_column_and_exits_1(tmp_path, config):
    text = tmp_path / "letter.txt"
    text.write_text("Dear Sir,\nWe recieved teh letter.\n\tIt was definately good.\n")
    done = typofix("check", str(text), config=config)
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [f"{text}:2:4: recieved ==> received", f"{text}:2:13: teh ==> the",
                                        f"{text}:3:9: definately ==> definitely"]  # a tab counts one column


def test_a_byte_order_mark_is_no_column_and_is_kept_by_write_changes(tmp_path, config):
    """A file that starts with a byte order mark (some Windows editors write one): its first line's columns are
    those the editor shows, in every reader and from standard input, and -w keeps the mark."""
    text = "We recieved teh letter.\nIt was definately good.\n"
    files = {"letter.txt": text, "letter.md": text, "letter.py": "# " + text.replace("\n", "\n# ", 1)}
    for name, content in files.items():
        (tmp_path / name).write_bytes(b"\xef\xbb\xbf" + content.encode())
    done = typofix("check", *(str(tmp_path / name) for name in files), config=config)
    places = ["1:4: recieved ==> received", "1:13: teh ==> the", "2:8: definately ==> definitely"]
    python = ["1:6: recieved ==> received", "1:15: teh ==> the", "2:10: definately ==> definitely"]
    assert done.stdout.splitlines() == [f"{tmp_path / name}:{place}" for name in files
                                        for place in (python if name.endswith(".py") else places)], done.stderr
    done = typofix("check", "-", config=config, stdin="\ufeff" + text)
    assert done.stdout.splitlines() == [f"-:{place}" for place in places], done.stderr
    typofix("check", "-w", str(tmp_path / "letter.txt"), config=config)
    assert (tmp_path / "letter.txt").read_bytes() == b"\xef\xbb\xbfWe received the letter.\nIt was definitely good.\n"


def test_a_file_name_with_a_line_break_is_quoted_in_its_findings_line(tmp_path, config):
    """Each finding is one line whatever the file is called: a name holding a control character is quoted as
    C writes a string (as git and ls show it); --json gives it as it is."""
    (tmp_path / "two\nlines.txt").write_text("We recieved it.\n")
    (tmp_path / "plain.txt").write_text("We recieved it.\n")
    done = typofix("check", ".", config=config, cwd=tmp_path)
    assert sorted(done.stdout.splitlines()) == ['"./two\\nlines.txt":1:4: recieved ==> received',
                                                "./plain.txt:1:4: recieved ==> received"], done.stderr
    done = typofix("check", "--json", "two\nlines.txt", config=config, cwd=tmp_path)
    assert json.loads(done.stdout)["path"] == "two\nlines.txt"


def test_a_typo_first_in_a_comment_or_a_list_item_is_found(tmp_path, config):
    """The capital of a comment's first word is a sentence's (after `# ` it was taken for a name's, and
    `Configuraton` was left alone), and a comment's or a list item's mark is no code on its line (it made the
    line read as code to the detector)."""
    (tmp_path / "deploy.py").write_text("# Configuraton for the deploy job\nJOB = 1\n")
    (tmp_path / "notes.md").write_text("Steps:\n\n- Installaton of the tools comes first.\n")
    (tmp_path / "notes.txt").write_text("# the defintion of the deploy job\n")
    done = typofix("check", ".", config=config, cwd=tmp_path)
    assert sorted(done.stdout.splitlines()) == ["./deploy.py:1:3: Configuraton ==> Configuration",
                                                "./notes.md:3:3: Installaton ==> Installation",
                                                "./notes.txt:1:7: defintion ==> definition"], done.stderr


def test_latex_is_checked_as_its_reader_reads_it_and_fixed_in_place(tmp_path, config):
    """A LaTeX document's text is checked, its commands, keys, math and verbatim text are not, and -w writes
    the fixes into the source (it had been read as code: nothing at all was checked)."""
    paper = tmp_path / "paper.tex"
    paper.write_text("\\documentclass{article}\n\\usepackage{graphicx}\n\\begin{document}\n"
                     "\\section{Introducton}\\label{sec:intro}\n"
                     "The residual decreses, see~\\cite{saad2003} and $\\mathrm{argmin}_x$.\n"
                     "\\end{document}\n")
    done = typofix("check", "paper.tex", config=config, cwd=tmp_path)
    assert done.stdout.splitlines() == ["paper.tex:4:10: Introducton ==> Introduction",
                                        "paper.tex:5:14: decreses ==> decreases"], done.stderr
    typofix("check", "-w", "paper.tex", config=config, cwd=tmp_path)
    assert "\\section{Introduction}\\label{sec:intro}\nThe residual decreases, see~" in paper.read_text()


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


@pytest.mark.slow  # more CLI runs over a repository; the scenario test stays
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


def test_a_typo_is_reported_every_time_even_where_a_name_holds_it(tmp_path, config):
    """A typo repeated in a file is reported at each place; a word the code uses only inside one name
    (`recieve_mesage`) does not excuse the same misspelling in a comment."""
    notes = tmp_path / "notes.txt"
    notes.write_text("Anothr day went by.\nAnothr night came.\n")
    code = tmp_path / "send.py"
    code.write_text("recieve_mesage = 1\n# Send the mesage again.\nprint(recieve_mesage)\n")
    done = typofix("check", str(notes), str(code), config=config)
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [f"{notes}:1:1: Anothr ==> Another", f"{notes}:2:1: Anothr ==> Another",
                                        f"{code}:2:12: mesage ==> message"]


NOT_WORDS_PY = r'''"""Helpers for the locale tables.

Written by Ada Lovelace <eprice at example.org>; the tables were updated to
'sr@latn' by jdoe@example.org, who contributed valuably to this module.
"""
# Other normalizations (such as folding case) are not done here.
# The table is a mish-mash of old and new names, and teh order is kept.
EXAMPLE = "Eg. \" foo\\tbar\\n\\nbaz\" becomes M\xe4ssig when we recieve it"
'''


def test_addresses_escapes_plurals_and_hyphenated_words_are_no_typos(tmp_path, config):
    """Letters that are no word as written: an address's (`sr@latn`, a locale's modifier), an escape shown in
    a string (`\\tbar`: the text is \\tbar), a word of another alphabet written with an escape (`M\\xe4ssig`),
    a part of a hyphenated word listed without its hyphen (`mish-mash`); and words the dictionary lacks that
    are derived (`valuably`) or a plural whose only correction is a possessive (`normalizations`). The
    typos beside them are reported. Each of those six was reported before."""
    code = tmp_path / "notes.py"
    code.write_text(NOT_WORDS_PY)
    done = typofix("check", str(code), config=config)
    assert done.stdout.splitlines() == [f"{code}:7:54: teh ==> the", f"{code}:8:66: recieve ==> receive"]


def test_a_line_most_of_whose_words_would_change_is_not_english_but_the_pronoun_i_is(tmp_path, config):
    """The foreign-line rule: a line of rot13 holding a typo gives no finding (more than half its words would
    change), in a file of one line or among others; a lowercase line full of the pronoun i (written I: no
    changed word) is English, and its typo is reported."""
    english, rot13 = "We recieve the letter today.", "Jr erpvrir gur yrggre recieve gbqnl naq gbzbeebj."
    chat = "i think i know i said recieve it"
    notes = tmp_path / "notes.txt"
    notes.write_text(f"{english}\n{rot13}\n{chat}\n")
    alone = tmp_path / "rot13.txt"
    alone.write_text(rot13 + "\n")
    done = typofix("check", str(notes), str(alone), config=config)
    assert done.stdout.splitlines() == [f"{notes}:1:4: recieve ==> receive", f"{notes}:3:23: recieve ==> receive"]


def test_a_sentence_in_another_language_is_left_alone_beside_english_ones(tmp_path, config):
    """The engine's language identifier (the rule `correct` applies) says which sentences are another language:
    a Spanish sentence, alone on its line or after an English one, gives no finding (`tren` is no typo of train
    there), and the English sentences' typos are reported. Fewer than half its words would change, so the
    foreign-line rule alone had let `tren` and `ocho` through."""
    spanish = "El tren sale de la estación a las ocho de la mañana."
    notes = tmp_path / "notes.txt"
    notes.write_text(f"We recieve the letter today.\n{spanish}\nThe train is late, we recieve it at noon. {spanish}\n")
    done = typofix("check", str(notes), config=config)
    assert done.stdout.splitlines() == [f"{notes}:1:4: recieve ==> receive", f"{notes}:3:23: recieve ==> receive"]


def test_prose_files_are_judged_by_the_misspelling_detector_as_correct_judges_them(tmp_path, config):
    """A plain-text or Markdown file's proposals pass the engine's misspelling detector at `typofix correct`'s
    threshold: chat words (`bday`, `convo`, the stretched `sooo`) are someone's words there, the typo is one;
    `--detect-threshold 0` turns the detector off and the rules alone report them all."""
    chat = "Happy bday! The convo was sooo good, yesss.\nWe recieve the letter today.\n"
    for name in ("notes.txt", "notes.md"):
        notes = tmp_path / name
        notes.write_text(chat)
        done = typofix("check", str(notes), config=config)
        assert done.stdout.splitlines() == [f"{notes}:2:4: recieve ==> receive"], done.stdout
    done = typofix("check", "--detect-threshold", "0", str(notes), config=config)
    assert [line.split(": ")[1].split()[0] for line in done.stdout.splitlines()] == [
        "bday", "convo", "sooo", "yesss", "recieve"]


MAN_PAGE = r""".\" Title: chage
.TH CHAGE 1 "2024" "shadow-utils" "User Commands"
.SH NAME
chage \- change user password expiry information
.SH SYNOPSIS
.B chage
[\fIoptions\fR] \fILOGIN\fR
.SH DESCRIPTION
The \fBchage\fR command changes the number of days betwen password changes.
It hasn\*(Aqt moved: see \fBstty\fR(1) and \fBpushd\fR, and pass \fB\-\-ftp-pasv\fR in passive mode.
.TP
\fB\-d\fR, \fB\-\-lastday\fR \fILAST_DAY\fR
Set the nmuber of days since January 1st, 1970 when the password was last changed.
.TP
lcase
change upper case to lower case
.SH "SEE ALSO"
.BR passwd (5),
.BR updatedb (1)
"""


def test_a_man_page_is_read_as_roff_its_bold_and_italic_names_are_no_words(tmp_path, config):
    """A man page (by its name, or a .txt file that starts as roff does) is read as roff: its requests,
    escapes and what bold and italic type or a NAME line or a one-word tag mark as names (`chage`, `stty`,
    `--ftp-pasv`, `lcase`, `updatedb`) are not words; the typos of its roman prose are reported. Read as
    Pygments' roff, the page gave `updatedb ==> updated` and neither typo."""
    for name in ("chage.1", "pages.txt"):
        page = tmp_path / name
        page.write_text(MAN_PAGE)
        done = typofix("check", str(page), config=config)
        assert done.stdout.splitlines() == [f"{page}:9:52: betwen ==> between", f"{page}:13:9: nmuber ==> number"]


def test_a_run_takes_the_searches_an_earlier_run_kept_unless_told_not_to(tmp_path, config, monkeypatch):
    """A word's search is kept in the cache folder and taken from there by the next run of the same model, words
    and settings: a search written into the store is what that run reports from; --no-cache searches again."""
    cache = tmp_path / "cache"  # the session's indexes, and a store of this test's own
    cache.mkdir()
    for entry in Path(os.environ["TYPOFIX_CACHE_DIR"]).iterdir():
        if not entry.name.startswith("searches-"):
            (cache / entry.name).symlink_to(entry)
    monkeypatch.setenv("TYPOFIX_CACHE_DIR", str(cache))
    notes = tmp_path / "notes.txt"
    notes.write_text("We recieve the letter today.\n")
    assert typofix("check", str(notes), config=config).stdout == f"{notes}:1:4: recieve ==> receive\n"
    assert typofix("check", str(notes), config=config).stdout == f"{notes}:1:4: recieve ==> receive\n"
    [store] = cache.glob("searches-*.sqlite")
    with sqlite3.connect(store) as db:  # the search of recieve made to offer relieve alone, with receive's score
        [(search,)] = db.execute("SELECT search FROM searched WHERE word = 'recieve'").fetchall()
        (best, score), *_ = json.loads(search)[0]
        assert best == "receive"
        db.execute("UPDATE searched SET search = ? WHERE word = 'recieve'",
                   (json.dumps([[["relieve", score]], json.loads(search)[1]]),))
    db.close()
    # (the misspelling detector off: it does not take relieve for the word meant in this sentence)
    assert typofix("check", "--detect-threshold", "0", str(notes),
                   config=config).stdout == f"{notes}:1:4: recieve ==> relieve\n"
    assert typofix("check", "--detect-threshold", "0", "--no-cache", str(notes),
                   config=config).stdout == f"{notes}:1:4: recieve ==> receive\n"


def test_standard_input_is_checked_as_a_file_named_dash(tmp_path, config):
    done = typofix("check", "-", config=config, stdin="We recieved teh letter.\n")
    assert (done.returncode, done.stdout) == (1, "-:1:4: recieved ==> received\n-:1:13: teh ==> the\n"), done.stderr
    done = typofix("check", "-w", "-", config=config, stdin="We recieved it.\n")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "standard input" in done.stderr


def _as_a_user(args: list[str]) -> list[str]:
    """`args` run as a user without root's right to read any folder: root maps itself to an ordinary user
    in a user namespace (the files root owns are then that user's, and their mode bits hold)."""
    if os.geteuid() != 0:
        return args
    if shutil.which("unshare") is None or subprocess.run(
            ["unshare", "--user", "--map-user=1000", "--map-group=1000", "true"], capture_output=True).returncode:
        pytest.skip("running as root, and no user namespace to run as an ordinary user")
    return ["unshare", "--user", "--map-user=1000", "--map-group=1000", *args]


@pytest.mark.skipif(not os.path.exists("/dev/stdin"), reason="needs /dev/stdin")
def test_a_pipe_named_as_a_file_is_read_once_and_a_link_to_nothing_is_an_error(tmp_path, config):
    """A pipe named on the command line (`typofix check <(git show)`, /dev/stdin, a named pipe) is read once, as
    standard input is, under its name; a folder walk had skipped it in silence. A symbolic link to nothing is a
    one-line error, exit 2 (it had been skipped in silence too, exit 0)."""
    done = typofix("check", "/dev/stdin", config=config, stdin="We recieve the letter.\n")
    assert (done.returncode, done.stdout, done.stderr) == (1, "/dev/stdin:1:4: recieve ==> receive\n", "")
    link = tmp_path / "notes.txt"
    link.symlink_to(tmp_path / "gone.txt")
    done = typofix("check", str(link), config=config)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"typofix: error: cannot read {link}: a symbolic link to nothing\n"


def test_what_cannot_be_read_is_one_line_and_exit_2_a_binary_file_named_a_note(tmp_path, config):
    tree = tmp_path / "tree"
    (tree / "locked").mkdir(parents=True)
    (tree / "locked" / "hidden.txt").write_text("teh\n")
    (tree / "ok.txt").write_text("A speling here.\n")
    (tree / "secret.txt").write_text("recieved\n")
    (tree / "data.bin").write_bytes(b"teh\0recieved")
    for name in ("locked", "secret.txt"):
        (tree / name).chmod(0)
    try:
        env = {**os.environ, "OMP_NUM_THREADS": "1", "XDG_CONFIG_HOME": str(config)}
        done = subprocess.run(_as_a_user([sys.executable, "-m", "typofix", "check", str(tree),
                                          str(tree / "data.bin")]), capture_output=True, text=True, env=env,
                              timeout=300)
    finally:
        for name in ("locked", "secret.txt"):
            (tree / name).chmod(0o700)
    assert done.returncode == 2, done.stderr
    assert done.stdout == f"{tree / 'ok.txt'}:1:3: speling ==> spelling\n"
    assert sorted(done.stderr.splitlines()) == [
        f"typofix: error: cannot read {tree / 'locked'}: Permission denied",
        f"typofix: error: cannot read {tree / 'secret.txt'}: Permission denied",
        f"typofix: note: skipped {tree / 'data.bin'}: a binary file"]
