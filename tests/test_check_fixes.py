"""What `check -w` writes: words of comments, docstrings and prose; never a word of a string literal of code
(data: reported, not written) nor a code-shaped word in a comment (`typofix.apps.check.writable`)."""

from __future__ import annotations

import json

import pytest

from tests.test_check import typofix
from typofix.apps.check.reader import scan_text
from typofix.apps.check.writable import code_shaped


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "config"
    path.mkdir()
    return path


def _shaped(line: str, word: str) -> bool:
    at = line.index(word)
    return code_shaped(line, at, at + len(word))


def test_code_shaped_words_are_told_from_prose():
    for line, word in [("# see $adress{home} there", "adress"), ("# m[adress] and", "adress"),
                       ("# call send(adress) now", "adress"), ("# obj.adress", "adress"), ("# a::adress", "adress"),
                       ("# key=adress", "adress"), ("# my_adress", "adress"), ("# src/adress", "adress"),
                       ("# C:\\adress", "adress"), ("# @adress", "adress"), ("# --adress", "adress"),
                       ("# -adress", "adress"), ("# %adress", "adress"), ("# #adress", "adress"),
                       ("# a `b adress c` d", "adress"), ("# an `adress", "adress")]:
        assert _shaped(line, word), line
    for line, word in [("# the adress.", "adress"), ("# (adress) and", "adress"), ('# "adress", he said', "adress"),
                       ("# the adress's", "adress"), ("# well-adressed", "adressed"), ("# **adress**", "adress"),
                       ("Note: adress:", "adress"), ("see [adress](https://example.com/a_b) here", "adress"),
                       ('    """Adress the letter."""', "Adress")]:
        assert not _shaped(line, word), line


def test_string_literals_of_code_are_data_docstrings_and_comments_are_not():
    source = '"""Read the adress."""\nX = "the adress here"  # the adress\n'
    scan = scan_text("m.py", source)
    spans = [source[start:end] for start, end in scan.strings]
    assert spans == ["the adress here"]
    assert [scan.in_string(source.index(w)) for w in ("Read", "the adress here", "# the")] == [False, True, False]
    source = '/** Read the adress. */\n// the adress\nconst x = "the adress here";\n'
    scan = scan_text("m.js", source)
    assert [source[start:end].strip('"') for start, end in scan.strings] == ["the adress here"]
    assert scan_text("m.md", "the adress\n").strings == []


def test_write_fixes_a_comment_never_the_same_word_in_a_string(tmp_path, config):
    code = tmp_path / "events.js"
    source = ('// Wait until we recieve the first event.\n'
              'const events = "mousedown recieve mouseup";\n')
    code.write_text(source)
    done = typofix("check", "--json", str(code), config=config)
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["line"], r["column"], r["word"], r["fixable"]) for r in records] == [
        (1, 18, "recieve", True), (2, 27, "recieve", False)]
    done = typofix("check", "-w", str(code), config=config)
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [f"{code}:1:18: recieve ==> receive", f"{code}:2:27: recieve ==> receive"]
    assert code.read_text() == source.replace("we recieve", "we receive")


def test_write_fixes_a_python_docstring_not_a_string_literal(tmp_path, config):
    code = tmp_path / "fetch.py"
    source = ('"""Fetch what we recieve."""\n\n'
              'ERROR = "could not recieve the data"\n\n\n'
              'def fetch():\n'
              '    """Recieve one record."""\n'
              '    return ERROR\n')
    code.write_text(source)
    done = typofix("check", "-w", str(code), config=config)
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [f"{code}:1:18: recieve ==> receive", f"{code}:3:20: recieve ==> receive",
                                        f"{code}:7:8: Recieve ==> Receive"]  # reported, all three
    assert code.read_text() == source.replace("we recieve", "we receive").replace("Recieve", "Receive")
    done = typofix("check", str(code), config=config)
    assert done.stdout == f"{code}:3:20: recieve ==> receive\n"  # still reported, never written


def test_write_leaves_code_shaped_words_in_comments(tmp_path, config):
    script = tmp_path / "send.sh"
    source = '#!/bin/sh\n# Read $adress{home} first, then the adress itself.\necho "$HOME"\n'
    script.write_text(source)
    done = typofix("check", "--json", "-w", str(script), config=config)
    assert done.returncode == 1, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    # The code-shaped word is never written; the misspelling detector does not report it either (code is left
    # alone), and if it ever did, it would be reported as not fixable.
    assert (38, "adress", True) in [(r["column"], r["word"], r["fixable"]) for r in records]
    assert all(not r["fixable"] for r in records if r["column"] == 9)
    assert script.read_text() == source.replace("the adress", "the address")
