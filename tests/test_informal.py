"""Text as people type it, through the real command line: names and places in their case, contractions
without their apostrophe, derived words, software terms and the user's own words (issue "Text as people type
it"). Each rule has its test; the bundled model runs them."""

from __future__ import annotations

import pytest

import json

from tests.test_cli import typofix


def correct_text(text: str, *options: str) -> str:
    done = typofix("correct", *options, "-", stdin=text)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


def test_the_sentence_of_the_issue():
    text = ("I met him on monday in paris. I dont know, im sure youre right. Kubernetes and nginx with pytorch, "
            "said Siobhan.\n")
    got = correct_text(text)
    assert got in {"I met him on Monday in Paris. I don't know, I'm sure you're right. Kubernetes and nginx with "
                   f"{torch}, said Siobhan.\n" for torch in ("pytorch", "PyTorch")}, got


REPAIRS = [("monday", "Monday"), ("english", "English"), ("debian", "Debian"), ("dont", "don't"), ("im", "I'm"),
           ("youre", "you're"), ("isnt", "isn't"), ("doesnt", "doesn't"), ("theyre", "they're")]


def test_case_and_apostrophe_are_the_cheapest_edits():
    # One line per word, in the middle of a sentence and at its start (whose capital the repair keeps).
    lines = [f"We said {typed} there. {typed.capitalize()} is it.\n" for typed, _ in REPAIRS]
    got = correct_text("".join(lines)).splitlines()
    for (typed, written), line in zip(REPAIRS, got):
        assert line == f"We said {written} there. {written[0].upper() + written[1:]} is it.", typed


def test_names_are_left_alone_unless_a_correction_is_overwhelming():
    text = "We met Brodsky, Krzysztof and Zhang at the office with Siobhan yesterday.\n"
    assert correct_text(text) == text
    assert correct_text("Then siobhan left.\n") == "Then Siobhan left.\n"  # a known name typed in lower case
    assert correct_text("We recieved teh letter.\n") == "We received the letter.\n"  # typos still get fixed


DERIVED = ["unshareable", "reupload", "nonblocking", "overcommitted", "reconfigurable", "unfollowed", "rewatchable",
           "codebase"]
TERMS = ["json", "nginx", "kubectl", "contrib", "init", "ln"]


def test_derived_words_and_software_terms_come_back_unchanged():
    text = " ".join(DERIVED + TERMS) + "\n"
    assert correct_text(text) == text
    done = typofix("correct", *DERIVED, *TERMS)
    assert done.stdout.decode().split() == DERIVED + TERMS


@pytest.mark.slow  # more CLI runs; test_corrector covers suggest without the typo in process
def test_suggestions_never_list_the_typo_itself():
    done = typofix("correct", "--top-k", "3", "--json", "recieve", "dont", "monday")
    lines = [json.loads(line) for line in done.stdout.decode().splitlines()]
    words = {line["input"]: [c["word"] for c in line["candidates"]] for line in lines}
    assert "recieve" not in words["recieve"] and words["recieve"][0] == "receive"
    assert words["dont"][0] == "don't" and words["monday"][0] == "Monday"
    assert all(c["score"] is not None for line in lines for c in line["candidates"])


@pytest.mark.slow  # more CLI runs; test_corrector covers suggest without the typo in process
def test_own_words_with_apostrophes_digits_and_accents(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("O'Reilly\nk8s\nna\u00efve\nfrobnicate\n", encoding="utf-8")
    text = "We frobnicat the k8s cluster at O'Reilly, a na\u00efve plan.\n"
    assert correct_text(text, "--words", str(words)) == "We frobnicate the k8s cluster at O'Reilly, a na\u00efve plan.\n"
    done = typofix("correct", "--words", str(words), "frobnicat", "O'Reilly", "k8s")
    assert done.stdout.decode().split() == ["frobnicate", "O'Reilly", "k8s"]
    assert typofix("correct", "frobnicat").stdout.decode().split() != ["frobnicate"]  # the list made the difference
