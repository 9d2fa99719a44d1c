"""What the `typofix` subcommands share: argument types, the model and decoding options (generated from
`DecodingSettings`' field metadata), the user's words, --jobs, and building the corrector they describe."""

from __future__ import annotations

import argparse
import json
from dataclasses import fields

from typofix.files.exits import UsageError


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def bounded(spec):
    """The argparse type of a `DecodingSettings` field: its Python type, checked against the field's range."""
    from typofix.engine.settings import out_of_range

    kind = type(spec.default)

    def parse(text: str):
        value = kind(text)
        problem = None if spec.metadata.get("high") is not None else out_of_range(spec, value)
        if problem:
            # argparse names the option; the value is what was typed
            raise argparse.ArgumentTypeError(problem.replace(f"got {value}", f"got {text}")
                                             if kind is float else problem)
        return value

    parse.__name__ = kind.__name__  # argparse's "invalid int value" message names the type
    return parse


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """--model, --fast and one option per `DecodingSettings` field that has help (and its switch, if any)."""
    from typofix.engine.settings import DecodingSettings

    group = parser.add_argument_group("model and decoding (defaults: the tuned settings, typofix.engine.settings)")
    group.add_argument("--model", metavar="PATH", help="model file: an ONNX export (.onnxz, run by onnxruntime), "
                       "a slim export (.pt) or a training .ckpt (run by torch) (default: the bundled model)")
    group.add_argument("--fast", action="store_true", help="the fast preset: the smaller bundled model, no greedy "
                       "decode, sound-alikes only where uncertain")
    for spec in fields(DecodingSettings):
        meta = spec.metadata
        if meta.get("switch"):
            flag, value, text = meta["switch"]
            group.add_argument(flag, dest=f"switch_{spec.name}", action="store_const", const=value, help=text)
        if meta.get("help") and not isinstance(spec.default, bool):
            kind = str if meta.get("choices") else bounded(spec)
            group.add_argument("--" + spec.name.replace("_", "-"), dest=spec.name, type=kind,
                               metavar=meta["metavar"], help=meta["help"])


def decoding_settings(args: argparse.Namespace):
    """The DecodingSettings the options describe: the preset (--fast or the default) with what was set."""
    from typofix.engine.settings import DecodingSettings

    overrides = {}
    for spec in fields(DecodingSettings):
        overrides[spec.name] = getattr(args, spec.name, None)
        switched = getattr(args, f"switch_{spec.name}", None)
        if switched is not None:
            overrides[spec.name] = switched
    try:
        return DecodingSettings.preset("fast" if args.fast else "default", **overrides)
    except ValueError as err:
        raise UsageError(str(err)) from None


def decoding_options_given(args: argparse.Namespace) -> list[str]:
    """The correction options of `add_model_options` set on this command line (--fast, --beam-width, ...), for a
    command that takes them but, in one of its modes, has no corrector to give them to."""
    from typofix.engine.settings import DecodingSettings

    given = ["--fast"] if args.fast else []
    for spec in fields(DecodingSettings):
        if getattr(args, spec.name, None) is not None:
            given.append("--" + spec.name.replace("_", "-"))
        if getattr(args, f"switch_{spec.name}", None) is not None:
            given.append(spec.metadata["switch"][0])
    return given


def add_words_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--words", dest="word_files", action="append", default=[], metavar="FILE",
                        help="your own words, one a line (repeatable): never corrected, and offered as corrections; "
                             "the personal list $XDG_CONFIG_HOME/typofix/words.txt is always read too")


def user_words(args: argparse.Namespace) -> tuple[str, ...]:
    """The personal list and the --words files (a bad file is a usage error)."""
    from typofix.files.userwords import WordsError, user_words as read

    try:
        return tuple(read(getattr(args, "word_files", ())))
    except WordsError as err:
        raise UsageError(str(err)) from None


def load_corrector(args: argparse.Namespace):
    """The Corrector the model options (and the user's words, where the command has --words) describe."""
    from typofix.engine.corrector import Corrector

    words = user_words(args) if hasattr(args, "word_files") else ()
    return Corrector.load(args.model, settings=decoding_settings(args), user_words=words)


def add_real_words_option(parser: argparse.ArgumentParser, needs: str = "") -> None:
    """--real-words; `needs`: what else the command needs for it, said in its help (e.g. "--json")."""
    parser.add_argument("--real-words", action="store_true", help="also report words that are words but probably "
                        "another in their context (form for from, by word bigrams); reported only, never changed"
                        + (f"; needs {needs}" if needs else ""))


def add_jobs_option(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--jobs", type=positive_int, default=1, metavar="N", help=f"correct {what} in N worker "
                        "processes (one core each); the output is the same as with 1 (default: 1)")


def recipe(args: argparse.Namespace):
    """What each --jobs worker needs to build the same corrector."""
    from typofix.engine.jobs import CorrectorRecipe

    return CorrectorRecipe(args.model, decoding_settings(args),
                           user_words(args) if hasattr(args, "word_files") else ())


def json_line(record: dict) -> str:
    """One JSON line, always valid UTF-8: a byte of the input that was not UTF-8 (carried as a lone surrogate)
    is written as its JSON escape (\\udcXX), which a JSON reader turns back into the same string."""
    line = json.dumps(record, ensure_ascii=False)
    return line.encode("utf-8", "backslashreplace").decode("utf-8")


def check_image_name(path: str) -> None:
    """Fail on a file name we cannot write before any model is loaded."""
    from typofix.insight.plots import image_format

    try:
        image_format(path)
    except ValueError as err:
        raise UsageError(str(err)) from None
