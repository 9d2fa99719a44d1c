"""The one exit policy (`typofix.files.exits`) every entry point ends through: 0 ok, 1 model error, 2 bad usage or
input, 130 interrupted; an error is one line `PROG: error: MESSAGE` on stderr, never a traceback, unless
TYPOFIX_DEBUG asks for it."""

from __future__ import annotations

import signal

import pytest

from typofix.files.exits import (INTERRUPTED, MODEL_ERROR, OK, USAGE, UsageError, code_for, fail, one_line,
                                 run_command)
from typofix.files.modelfile import ModelError


def raising(error: BaseException):
    def body() -> int:
        raise error
    return body


def test_the_codes_are_what_a_shell_expects():
    assert (OK, MODEL_ERROR, USAGE) == (0, 1, 2)
    assert INTERRUPTED == 128 + signal.SIGINT == 130


@pytest.mark.parametrize("error, code", [(UsageError("x"), USAGE), (ModelError("x"), MODEL_ERROR),
                                         (ValueError("x"), USAGE), (FileNotFoundError("x"), USAGE),
                                         (RuntimeError("x"), MODEL_ERROR)])
def test_each_kind_of_error_has_its_code(error, code):
    assert code_for(error) == code


def test_a_message_is_one_line_and_never_empty():
    assert one_line(ValueError("bad value\n  in line 3\tand more")) == "bad value in line 3 and more"
    assert one_line(KeyError()) == "KeyError"
    assert one_line("") == ""


def test_fail_writes_one_line_and_escapes_what_stderr_cannot_write(capsys):
    assert fail("typofix", "bad word caf\udce9", USAGE) == USAGE
    assert capsys.readouterr().err == "typofix: error: bad word caf\\udce9\n"
    assert fail("typofix-ispell", "note this", OK, label="") == OK
    assert capsys.readouterr().err == "typofix-ispell: note this\n"


def test_run_command_turns_every_ending_into_a_code_and_at_most_one_line(capsys, monkeypatch):
    monkeypatch.delenv("TYPOFIX_DEBUG", raising=False)
    assert run_command("typofix", lambda: 0) == 0 and capsys.readouterr().err == ""
    cases = [(UsageError("--beam must be at least 1"), USAGE, "typofix: error: --beam must be at least 1\n"),
             (ModelError("model file not found: x.pt"), MODEL_ERROR, "typofix: error: model file not found: x.pt\n"),
             (KeyError("missing"), MODEL_ERROR, "typofix: error: internal error: KeyError: 'missing'\n"),
             (KeyboardInterrupt(), INTERRUPTED, "")]
    for error, code, err in cases:
        assert run_command("typofix", raising(error)) == code
        assert capsys.readouterr().err == err


def test_typofix_debug_shows_the_traceback(monkeypatch):
    monkeypatch.setenv("TYPOFIX_DEBUG", "1")
    with pytest.raises(ModelError, match="corrupt"):
        run_command("typofix", raising(ModelError("corrupt")))
