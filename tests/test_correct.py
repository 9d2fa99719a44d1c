"""`typofix correct` in process (`typofix.apps.cli.correct`): how text streams through a corrector in bounded
batches, what each output form says, and the usage errors it gives before any model is loaded. The command run
as a subprocess, end to end: tests/test_cli.py."""

from __future__ import annotations

import io
import json

import pytest

from typofix.apps.cli import main
from typofix.apps.cli.correct import correct_stream
from typofix.engine.corrector import Corrector
from typofix.engine.results import Correction
from typofix.engine.settings import DecodingSettings


def shouting(seen: list[list[str]]):
    """A stand-in for `Corrector.correct_many` over batches that upper-cases each text and notes each batch."""
    def correct_batches(batches):
        for batch in batches:
            seen.append(batch)
            yield [text.upper() for text in batch]
    return correct_batches


def test_text_streams_through_in_batches_and_a_run_too_long_to_be_a_word_is_copied():
    long_run = "q" * 140_000  # no space in a whole chunk of 65,536: no word, never given to the corrector
    text = f"teh cat\nsat {long_run} on\r\nthe mat"
    seen, out = [], io.StringIO()
    correct_stream(shouting(seen), io.StringIO(text, newline=""), out, as_json=False, interactive=False)
    assert out.getvalue() == text.upper().replace(long_run.upper(), long_run)
    assert all(long_run not in chunk for batch in seen for chunk in batch)
    typed = []  # a person typing: each line is corrected as soon as it is read
    correct_stream(shouting(typed), io.StringIO("one\ntwo\nthree\n", newline=""), io.StringIO(), as_json=False,
                   interactive=True)
    assert [batch for batch in typed if batch] == [["one\n"], ["two\n"], ["three\n"]]


def test_json_records_say_input_output_and_the_real_word_errors():
    text = "came form the office\nand went\n"

    def real_words(lines: list[str]) -> list[list[Correction]]:
        return [[Correction(5, 9, "form", "from", "real-word")] if "form" in line else [] for line in lines]

    out = io.StringIO()
    correct_stream(shouting([]), io.StringIO(text, newline=""), out, as_json=True, interactive=False,
                   real_words=real_words)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert records == [{"input": "came form the office\n", "output": "CAME FORM THE OFFICE\n",
                        "real_words": [{"offset": 5, "word": "form", "likelier": "from"}]},
                       {"input": "and went\n", "output": "AND WENT\n", "real_words": []}]


@pytest.mark.parametrize("argv, message", [
    ([], "nothing to correct"),
    (["--file", "letter.txt", "teh"], "words or --file, not both"),
    (["teh", "-"], "cannot be mixed with words"),
    (["-", "--top-k", "3"], "--top-k applies to words"),
    (["--explain", "-"], "--explain explains the best correction of words"),
    (["--jobs", "2", "teh"], "--jobs applies to text"),
    (["--real-words", "-"], "--real-words reports in JSON lines"),
])
def test_usage_errors_come_before_any_model_is_loaded(argv, message, capsys):
    assert main(["correct", "--model", "no-such-model.pt", *argv]) == 2  # the model would be exit code 1
    err = capsys.readouterr().err
    assert err.startswith("typofix: error: ") and message in err and err.count("\n") == 1


def test_words_with_their_candidates_or_the_changes_explained(tiny_ckpt, capsys):
    model = ["--model", str(tiny_ckpt), "--beam", "2"]
    corrector = Corrector.load(tiny_ckpt, settings=DecodingSettings(beam=2))
    assert main(["correct", "--top-k", "2", *model, "speling", "Teh"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for line, word, ranked in zip(lines, ["speling", "Teh"], corrector.suggest_many(["speling", "Teh"], 2)):
        assert line == "\t".join([word, *(f"{s.word} ({s.score:.3f})" for s in ranked)])
    assert main(["correct", "--explain", "--json", *model, "recieve"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["input"] == "recieve" and record["output"] == corrector.correct("recieve")
    assert all(set(change) == {"kind", "start", "end", "typed", "fix"} for change in record["changes"])
