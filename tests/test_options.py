"""What the `typofix` subcommands share (`typofix.apps.cli.options`): the decoding options generated from
`DecodingSettings`' field metadata, range checks with the option and the typed value named, the settings the
options describe, the user's words, and JSON lines that stay valid UTF-8 whatever bytes came in."""

from __future__ import annotations

import argparse
import json
from dataclasses import fields

import pytest

from typofix.apps.cli import Parser
from typofix.apps.cli.options import (add_model_options, add_words_option, check_image_name, decoding_settings,
                                      json_line, positive_int, user_words)
from typofix.engine.settings import DecodingSettings
from typofix.files.exits import UsageError


def parse(*argv: str) -> argparse.Namespace:
    parser = Parser(prog="typofix test")
    add_model_options(parser)
    add_words_option(parser)
    return parser.parse_args(list(argv))


def test_every_knob_with_help_is_an_option_and_its_switch_a_flag():
    parser = Parser(prog="typofix test")
    add_model_options(parser)
    flags = {flag for action in parser._actions for flag in action.option_strings}
    for spec in fields(DecodingSettings):
        option = "--" + spec.name.replace("_", "-")
        has_value = bool(spec.metadata["help"]) and not isinstance(spec.default, bool)
        assert (option in flags) == has_value, option
        if spec.metadata["switch"]:
            assert spec.metadata["switch"][0] in flags
    assert {"--model", "--fast"} <= flags


def test_the_options_describe_a_preset_with_what_was_set():
    assert decoding_settings(parse()) == DecodingSettings.preset("default")
    assert decoding_settings(parse("--fast")) == DecodingSettings.preset("fast")
    assert decoding_settings(parse("--fast", "--beam", "4", "--no-context", "--correct-accepted")) == \
        DecodingSettings.preset("fast", beam=4, context_weight=0.0, leave_accepted=False)
    assert decoding_settings(parse("--scorer", "hand", "--min-confidence", "-2.5")) == \
        DecodingSettings(scorer="hand", min_confidence=-2.5)


@pytest.mark.parametrize("argv, message", [
    (["--beam", "0"], "argument --beam: must be at least 1, got 0"),
    (["--alpha", "-0.50"], "argument --alpha: must be a number >= 0, got -0.50"),  # as typed
    (["--beam", "two"], "argument --beam: invalid int value: 'two'"),
])
def test_a_value_out_of_range_names_the_option_and_the_value_typed(argv, message):
    with pytest.raises(UsageError, match=f"^{message} "):
        parse(*argv)


@pytest.mark.parametrize("argv, message", [(["--context-mix", "0"], r"context_mix must be in \(0, 1\]"),
                                           (["--scorer", "learned"], "scorer must be one of fitted, hand")])
def test_what_only_the_settings_can_check_is_a_usage_error_too(argv, message):
    with pytest.raises(UsageError, match=message):
        decoding_settings(parse(*argv))


def test_positive_int():
    assert positive_int("3") == 3
    with pytest.raises(argparse.ArgumentTypeError, match="must be at least 1, got 0"):
        positive_int("0")


def test_the_users_words_and_a_bad_word_file(tmp_path):
    (tmp_path / "mine.txt").write_text("Kubernetes\nfrobnitz\n")
    assert user_words(parse("--words", str(tmp_path / "mine.txt"))) == ("Kubernetes", "frobnitz")
    (tmp_path / "bad.txt").write_text("two words\n")
    with pytest.raises(UsageError, match="bad.txt:1"):
        user_words(parse("--words", str(tmp_path / "bad.txt")))


def test_a_json_line_is_valid_utf8_and_reads_back_as_the_same_text():
    record = {"input": "Caf\udce9 na\u00efve", "output": "Caf\udce9 naive"}  # a byte that was not UTF-8
    line = json_line(record)
    assert "\n" not in line and json.loads(line.encode("utf-8").decode("utf-8")) == record


def test_an_image_name_is_checked_before_any_model_loads():
    check_image_name("attention.png")
    check_image_name("attention.svg")
    with pytest.raises(UsageError, match=r"\.png or \.svg"):
        check_image_name("attention.jpg")
