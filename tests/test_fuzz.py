"""Bad input, fuzzed (hypothesis): the Corrector and the `typofix` CLI on arbitrary text and bytes, and on damaged
or foreign model files. Never a traceback; every character outside the corrected words comes back unchanged;
a bad model file is a one-line error. The CLI runs in-process here (a subprocess per example would take
minutes); tests/test_cli.py runs the real command."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from typofix.apps import cli
from typofix.apps.cli import correct as correct_command
from typofix.engine.corrector import Corrector
from typofix.engine.settings import DecodingSettings
from typofix.words.casing import pronouns_at
from typofix.words.text import split_text

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Any code point, lone surrogates (what undecodable bytes become) and control characters included.
ANY_CHAR = st.characters(exclude_categories=())
# Text dense in correctable words, so the fuzz reaches the decoder and not only the splitter.
WORDY = st.lists(st.one_of(st.sampled_from(["teh", "Recieve", "SPELING", "well-knwon", "doesn't", "a", "I", "x" * 40,
                                            " ", "\n", "\r\n", "\t", "-", "'", "\u2019", "\x00", "\ufeff", "e\u0301"]),
                           st.text(ANY_CHAR, max_size=5)), max_size=12).map("".join)
# Bytes as they may come on stdin: invalid UTF-8, NUL, CR, BOMs, next to words.
RAW = st.lists(st.one_of(st.binary(max_size=6),
                         st.sampled_from([b"teh ", b"Speling", b"\xff\xfe", b"\xc3", b"caf\xc3\xa9", b"\r\n", b"\x00",
                                          b"recieve\n", b"\xef\xbb\xbf", b"\xed\xa0\x80"])), max_size=12).map(b"".join)


@pytest.fixture(scope="module")
def corrector(tiny_ckpt) -> Corrector:
    # No context: in text a word's neighbours may rerank its candidates ("AS mn" -> "AS men" where `mn` alone is
    # `man`), and these properties compare each word with its correction alone (context: tests/test_pipeline.py);
    # nor the detector, which weighs a word's line and document too (tests/test_detector.py).
    return Corrector.load(tiny_ckpt, settings=DecodingSettings(beam=2, context_weight=0.0, detect_threshold=0.0))


def assert_only_words_changed(text: str, fixed: str, corrector: Corrector) -> None:
    """`fixed` is `text` with words replaced by corrections in their case, the rest verbatim: each change a whole
    word, as `corrections_many` reports it (or the lower-case pronoun made I); a word that is not capitalised is corrected as it is alone (a
    capitalised one may be a name inside a sentence, and a name is kept there)."""
    changes = {c.start: c for c in corrector.corrections_many([text])[0]}
    at = written = 0  # where the piece starts in `text`, and in `fixed`
    for piece in split_text(text):
        change = changes.pop(at, None)
        if change is not None and not piece.word:
            # the one change outside words: the pronoun typed in lower case (i, i'm) written I, I'm on a prose line
            # (all of them, or those among words: `npm i && ...` keeps its argument)
            assert change.before == piece.text and len(change.after) == len(piece.text), change
            pronouns = {start for start, _ in pronouns_at(piece.text)}
            assert {k for k, (a, b) in enumerate(zip(piece.text, change.after)) if a != b} <= pronouns, change
            assert all(change.after[k] in "iI" for k in pronouns), change
        elif change is not None:
            assert (change.before, change.end) == (piece.text, at + len(piece.text)), change
        out = piece.text if change is None else change.after
        if piece.word:
            assert out and all(c.lower() in corrector.vocab.alphabet for c in out), out
            if not piece.text[:1].isupper():
                assert out == corrector.correct(piece.text), piece.text
        assert fixed.startswith(out, written), (out, fixed[written:written + 40])
        at, written = at + len(piece.text), written + len(out)
    assert written == len(fixed) and not changes


@FUZZ
@given(text=st.one_of(st.text(ANY_CHAR, max_size=60), WORDY))
@example(text="i")
@example(text="i'm here, i think")
def test_correct_changes_nothing_but_words(corrector, text):
    assert_only_words_changed(text, corrector.correct(text), corrector)


def test_huge_tokens_and_empty_text_come_back(corrector):
    for text in ["", "a" * 1_000_000, "teh " + "\x00" * 100_000 + " recieve", "é" * 100_000]:
        assert_only_words_changed(text, corrector.correct(text), corrector)


def run_cli(argv: list[str], stdin: bytes = b"", corrector: Corrector | None = None) -> tuple[int, bytes, str]:
    """`typofix ARGV` in this process, stdin and stdout as files (the CLI reads stdin's file descriptor), with
    `corrector` standing in for the model load when given. Returns (exit code, stdout bytes, stderr text)."""
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        paths = {name: Path(folder, name) for name in ("in", "out", "err")}
        paths["in"].write_bytes(stdin)
        with (open(paths["in"], "rb") as fin,
              open(paths["out"], "w", encoding="utf-8", errors="surrogateescape", newline="") as fout,
              open(paths["err"], "w", encoding="utf-8", errors="backslashreplace") as ferr):
            patch.setattr(sys, "stdin", fin)
            patch.setattr(sys, "stdout", fout)
            patch.setattr(sys, "stderr", ferr)
            if corrector is not None:
                patch.setattr(correct_command, "load_corrector", lambda args: corrector)
            saved_stdin = os.dup(0)  # the command reads the standard input's file descriptor itself
            os.dup2(fin.fileno(), 0)
            try:
                code = cli.main(argv)
            finally:
                os.dup2(saved_stdin, 0)
                os.close(saved_stdin)
        return code, paths["out"].read_bytes(), paths["err"].read_text()


@functools.lru_cache(maxsize=1)
def correct_options() -> frozenset[str]:
    """The options `typofix correct --help` lists."""
    shown = subprocess.run([sys.executable, "-m", "typofix", "correct", "--help"], capture_output=True, text=True,
                           check=True).stdout
    return frozenset(re.findall(r"(?<![\w-])--?[a-z][\w-]*", shown))


def one_line_error(code: int, err: str, expected_code: int) -> None:
    assert code == expected_code, err
    assert err.count("\n") == 1 and err.startswith("typofix: error: "), err


@FUZZ
@given(data=RAW)
def test_cli_text_on_any_bytes(corrector, data):
    code, out, err = run_cli(["correct", "-"], data, corrector)
    if b"\0" in data:  # binary, not text: it comes back byte for byte, with a note
        assert (code, out) == (0, data) and err.startswith("typofix: note: stdin is binary") and err.count("\n") == 1
        return
    assert (code, err) == (0, "")
    text = data.decode("utf-8", errors="surrogateescape")
    assert out == corrector.correct(text).encode("utf-8", errors="surrogateescape")


def test_cli_text_with_a_huge_token(corrector):
    data = b"teh " + b"q" * 3_000_000 + b" speling\n" + b"\xff" * 100_000
    code, out, err = run_cli(["correct", "-"], data, corrector)
    assert (code, err) == (0, "")
    assert out == corrector.correct(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


@FUZZ
@given(words=st.lists(st.one_of(st.text(ANY_CHAR, max_size=12), st.sampled_from(["teh", "", "-", "--x", "Speling"])),
                      min_size=1, max_size=5))
@example(words=["", "-:", "\ud800"])  # found by CI: the usage error echoed a lone surrogate stderr cannot encode
@example(words=["", "--wo", ""])  # found by a run: argparse took --wo for an abbreviation of --words
def test_cli_words_as_arguments(corrector, words):
    assume(words != ["-"] and "--" not in words)  # "-" alone reads stdin; argparse drops "--"
    assume(not set(words) & correct_options())  # an option of its own (--words FILE) is one, not a word
    code, out, err = run_cli(["correct", *words], corrector=corrector)
    if code == 2:  # an argument that reads as an option ("-", "--x"): a usage error, said in one line
        one_line_error(code, err, 2)
        return
    assert (code, err) == (0, "")
    expected = "".join(line + "\n" for line in corrector.correct_many(words))
    assert out == expected.encode("utf-8", errors="surrogateescape")


@pytest.mark.parametrize("suffix", [".ckpt", ".onnxz"])
@settings(max_examples=25, deadline=None)
@given(cut=st.floats(0, 1), flips=st.lists(st.tuples(st.floats(0, 1), st.integers(1, 255)), max_size=4))
def test_damaged_model_files_fail_in_one_line(tiny_ckpt, tiny_exports, suffix, cut, flips):
    model = tiny_ckpt if suffix == ".ckpt" else tiny_exports["onnx"]
    data = bytearray(model.read_bytes()[:max(1, int(cut * model.stat().st_size))])
    for where, xor in flips:
        data[int(where * (len(data) - 1))] ^= xor
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "damaged" + suffix)
        path.write_bytes(bytes(data))
        code, out, err = run_cli(["correct", "--model", str(path), "--no-lexicon", "teh", "speling"])
    if code == 0:  # damage that the runtime cannot see (a flipped bit in a weight) still gives an answer
        assert err == "" and len(out.splitlines()) == 2
    else:
        one_line_error(code, err, 1)


def test_a_checkpoint_of_another_version_fails_in_one_line(tiny_ckpt, tmp_path):
    blob = torch.load(tiny_ckpt, map_location="cpu", weights_only=True)
    foreign = {
        # Weights under another module layout (as a refactored model would save them).
        "renamed.ckpt": {**blob, "state_dict": {"net." + k.removeprefix("model."): v
                                                for k, v in blob["state_dict"].items()}},
        # A model kind this version does not have.
        "future_kind.ckpt": {**blob, "hyper_parameters": {**blob["hyper_parameters"], "attention": "transformer"}},
        # Sizes that disagree with the weights.
        "resized.ckpt": {**blob, "hyper_parameters": {**blob["hyper_parameters"], "enc_hidden_size": 999}},
        # Not a training checkpoint at all, nor an export.
        "other.ckpt": {"weights": blob["state_dict"]},
    }
    for name, content in foreign.items():
        torch.save(content, tmp_path / name)
        code, _, err = run_cli(["correct", "--model", str(tmp_path / name), "--no-lexicon", "teh"])
        one_line_error(code, err, 1)
        assert name in err
