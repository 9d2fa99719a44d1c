"""The `typofix` command line (also `python -m typofix`): correct, evaluate, export.

Each subcommand is registered by its own `_add_<name>(subcommands)` function, which declares its options and
sets `handler`; a handler imports what it needs when it runs, so `typofix --help` never loads torch. Exit codes:
0 ok, 1 model error (missing, corrupt or incompatible model file), 2 usage or bad input. Every error is one
line on stderr; set TYPOFIX_DEBUG=1 to get the traceback instead.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import deque

from typofix import __version__

EXIT_OK, EXIT_MODEL, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad arguments or bad input data: exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (usage stays available through --help)."""

    def error(self, message: str):
        raise UsageError(f"{message} (see {self.prog} --help)")


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


def _non_negative_float(text: str) -> float:
    value = float(text)
    if not value >= 0:  # also rejects nan
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text}")
    return value


# --- options shared by the subcommands that load a model ---------------------------------------------------


def _add_model_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("model and decoding (defaults: the tuned settings, typofix.engine.settings)")
    group.add_argument("--model", metavar="PATH", help="model file: an ONNX export (.onnxz, run by onnxruntime), "
                       "a slim export (.pt) or a training .ckpt (run by torch) (default: the bundled model)")
    group.add_argument("--fast", action="store_true", help="the fast preset: the smaller bundled model, no greedy "
                       "decode, sound-alikes only where uncertain")
    group.add_argument("--beam", type=_positive_int, metavar="N", help="beam width of the wide search for "
                       "uncertain words; 1 (the default): its candidates alone, no beam search")
    group.add_argument("--no-lexicon", action="store_true", help="the model alone: no word-list constraint, no "
                       "candidates, no frequency prior, no word left alone")
    group.add_argument("--min-confidence", type=float, metavar="C", help="rewrite an unknown word only when its "
                       "best correction's score beats the word's own by C (higher: fewer, surer corrections)")
    group.add_argument("--no-context", action="store_true", help="in text, rank a misspelled word's candidates "
                       "without its neighbouring words (the word-bigram model; on by default)")
    group.add_argument("--correct-accepted", action="store_true", help="correct words the dictionary accepts too "
                       "(by default a word that is a word is never rewritten)")
    group.add_argument("--correct-special", action="store_true", help="correct acronyms, roman numerals, initials "
                       "and code-like tokens too (left alone by default)")
    for flag, field, kind, metavar, text in _TUNING_OPTIONS:
        group.add_argument(flag, dest=field, type=kind, metavar=metavar, help=text)


_TUNING_OPTIONS = (  # (flag, DecodingSettings field, type, metavar, help): the knobs the tuner sets
    ("--scorer", "scorer", str, "{fitted,hand}", "how candidates are ranked: fitted (weights fitted to the dev "
     "sets' misspellings, the default) or hand (the noisy channel of the four weights below)"),
    ("--prior-weight", "prior_weight", _non_negative_float, "W", "weight of log P(word) in the hand-set noisy "
     "channel"),
    ("--alpha", "alpha", _non_negative_float, "A", "length normalisation: log P / length^A"),
    ("--edit-weight", "edit_weight", _non_negative_float, "M", "penalty per edit between typo and candidate"),
    ("--first-letter-weight", "first_letter_weight", _non_negative_float, "B",
     "penalty for a candidate that starts with another letter than the typo"),
    ("--shortlist", "shortlist", _non_negative_int, "N", "one-edit neighbours the cheap pass scores with the model"),
    ("--wide-margin", "wide_margin", _non_negative_float, "D", "a cheap answer that beats leaving the word by "
     "less than D gets the wide search"),
    ("--one-edit-candidates", "one_edit_candidates", _non_negative_int, "N",
     "the N most frequent words one edit away join the wide search (besides the cheap pass's shortlist)"),
    ("--two-edit-candidates", "two_edit_candidates", _non_negative_int, "N",
     "the N most frequent words two edits away join the wide search"),
    ("--sound-candidates", "sound_candidates", _non_negative_int, "N",
     "the N words that sound most like the typo (Metaphone, Soundex) join the wide search"),
    ("--context-weight", "context_weight", _non_negative_float, "W", "weight of the neighbouring words' "
     "evidence (word bigrams) in text; 0 is --no-context"),
    ("--context-mix", "context_mix", float, "L", "interpolation of the bigram evidence with none, in (0, 1]"),
    ("--context-max-edits", "context_max_edits", _non_negative_int, "N", "in context, a candidate other than the "
     "best may win only when it is at most N edits from the typo"),
)


def decoding_settings(args: argparse.Namespace):
    """The DecodingSettings the options describe: the preset (--fast or the default) with what was set."""
    from typofix.engine.settings import DecodingSettings

    overrides = {field: getattr(args, field) for _, field, *_ in _TUNING_OPTIONS}
    overrides.update(beam=args.beam, min_confidence=args.min_confidence,
                     leave_accepted=False if args.correct_accepted else None,
                     leave_special=False if args.correct_special else None,
                     use_lexicon=False if args.no_lexicon else None)
    if args.no_context:
        overrides["context_weight"] = 0.0
    try:
        return DecodingSettings.preset("fast" if args.fast else "default", **overrides)
    except ValueError as err:
        raise UsageError(str(err)) from None


def _add_words_option(parser: argparse.ArgumentParser) -> None:
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


# --- correct -----------------------------------------------------------------------------------------------


def _add_correct(subcommands) -> None:
    parser = subcommands.add_parser(
        "correct", help="correct words, or text from stdin or a file",
        description="Correct the given words (one per line out, in order), or text: `-` reads stdin, --file F "
                    "reads F, and the text comes back with only its misspelled words changed.")
    parser.add_argument("words", nargs="*", metavar="WORD", help="words to correct, or - for text on stdin")
    parser.add_argument("--file", metavar="F", help="correct the text of file F (streamed)")
    parser.add_argument("--top-k", type=_positive_int, default=1, metavar="K", help="K candidates per word")
    parser.add_argument("--json", action="store_true", help="JSON lines: input and candidates with scores "
                        "(for text: input line and corrected line)")
    parser.add_argument("--explain", action="store_true", help="say where each word's typo is and what the "
                        'correction changes, e.g. recieve -> receive  (swap at 3-4: "ie" -> "ei")')
    _add_jobs_option(parser, "text from - or --file")
    _add_real_words_option(parser)
    _add_words_option(parser)
    _add_model_options(parser)
    parser.set_defaults(handler=_correct)


def _add_real_words_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--real-words", action="store_true", help="also report words that are words but probably "
                        "another in their context (form for from, by word bigrams); reported only, never changed")


def _add_jobs_option(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--jobs", type=_positive_int, default=1, metavar="N", help=f"correct {what} in N worker "
                        "processes (one core each); the output is the same as with 1 (default: 1)")


def _recipe(args: argparse.Namespace):
    """What each --jobs worker needs to build the same corrector."""
    from typofix.engine.jobs import CorrectorRecipe

    return CorrectorRecipe(args.model, decoding_settings(args),
                           user_words(args) if hasattr(args, "word_files") else ())


def _json_line(record: dict) -> str:
    """One JSON line, always valid UTF-8: a byte of the input that was not UTF-8 (carried as a lone surrogate)
    is written as its JSON escape (\\udcXX), which a JSON reader turns back into the same string."""
    line = json.dumps(record, ensure_ascii=False)
    return line.encode("utf-8", "backslashreplace").decode("utf-8")


def _correct(args: argparse.Namespace) -> int:
    text_mode = args.file is not None or args.words == ["-"]
    if args.file is not None and args.words:
        raise UsageError("give words or --file, not both")
    if not text_mode and not args.words:
        raise UsageError("nothing to correct: give words, - for stdin, or --file F")
    if not text_mode and "-" in args.words:
        raise UsageError("- (read stdin) cannot be mixed with words")
    if text_mode and args.top_k != 1:
        raise UsageError("--top-k applies to words, not to text (- or --file)")
    if args.explain and (text_mode or args.top_k != 1):
        raise UsageError("--explain explains the best correction of words: not with -, --file or --top-k")
    if args.jobs > 1 and not text_mode:
        raise UsageError("--jobs applies to text (- or --file), not to words on the command line")
    if args.real_words and not (text_mode and args.json and args.jobs == 1):
        raise UsageError("--real-words reports in JSON lines: give it with --json and text (- or --file), one job")
    if text_mode:
        source = _open_text(args.file)  # before the model: a missing file is reported at once
        with source:
            if args.jobs > 1:
                from typofix.engine.jobs import CorrectorPool

                with CorrectorPool(_recipe(args), args.jobs) as pool:
                    _correct_stream(pool.correct_many, source, sys.stdout, args.json, interactive=False)
            else:
                corrector = load_corrector(args)
                _correct_stream(lambda batches: map(corrector.correct_many, batches), source, sys.stdout,
                                args.json, interactive=source.isatty(),
                                real_words=corrector.real_word_errors if args.real_words else None)
        return EXIT_OK
    corrector = load_corrector(args)
    if args.explain:
        return _explain(corrector, args.words, args.json)
    if args.top_k == 1 and not args.json:
        for line in corrector.correct_many(args.words):
            print(line)
        return EXIT_OK
    for word, ranked in zip(args.words, corrector.suggest_many(args.words, args.top_k)):
        if args.json:
            print(_json_line({"input": word, "candidates": [{"word": w, "score": round(s, 4)} for w, s in ranked]}))
        else:
            print(f"{word}\t" + "\t".join(f"{w} ({s:.3f})" for w, s in ranked))
    return EXIT_OK


def _open_text(path: str | None):
    """The text source: stdin or a file, read as UTF-8 with undecodable bytes carried through unchanged
    (surrogateescape) and line endings as they are (newline="")."""
    if path is None:
        return open(sys.stdin.fileno(), encoding="utf-8", errors="surrogateescape", newline="", closefd=False)
    try:
        return open(path, encoding="utf-8", errors="surrogateescape", newline="")
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror or err}") from None


def _correct_stream(correct_batches, source, out, as_json: bool, interactive: bool, real_words=None) -> None:
    """Correct a text stream in bounded batches of chunks (one chunk at a time when a person is typing).
    `correct_batches` maps an iterable of batches (lists of texts) to their corrections, in order: one
    corrector's `correct_many`, or a `CorrectorPool`'s. `real_words` (a corrector's `real_word_errors`) adds
    each JSON record's "real_words"."""
    from typofix.words.text import read_chunks

    held: deque[list[tuple[str, bool]]] = deque()  # batches read, waiting for their corrections

    def batches():
        batch, size = [], 0
        for chunk in read_chunks(source.readline):
            batch.append(chunk)
            size += len(chunk[0])
            if interactive or size >= (1 << 16) or len(batch) >= 512:
                held.append(batch)
                yield [text for text, literal in batch if not literal]
                batch, size = [], 0
        held.append(batch)
        yield [text for text, literal in batch if not literal]

    for corrected in correct_batches(batches()):
        _write_batch(held.popleft(), corrected, out, as_json, real_words)


def _write_batch(batch: list[tuple[str, bool]], corrected: list[str], out, as_json: bool, real_words=None) -> None:
    corrected = iter(corrected)
    suspects = iter(real_words([text for text, literal in batch if not literal]) if real_words else ())
    for text, literal in batch:
        fixed = text if literal else next(corrected)
        if as_json:
            record = {"input": text, "output": fixed}
            if real_words is not None:
                record["real_words"] = [] if literal else [{"offset": offset, "word": word, "likelier": likelier}
                                                           for offset, word, likelier in next(suspects)]
            out.write(_json_line(record) + "\n")
        else:
            out.write(fixed)
    out.flush()


# --- check ------------------------------------------------------------------------------------------------


def _add_check(subcommands) -> None:
    parser = subcommands.add_parser(
        "check", help="report misspelled words in files (PATH:LINE:COL: typo ==> correction)",
        description="Check text files and folders (recursively; .git and binary files are skipped) and print "
                    "PATH:LINE:COL: typo ==> correction for each misspelled word (columns 1-based, a tab counts "
                    "one). Exit 1 when anything was found, 0 when clean, 2 on bad usage.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to check")
    parser.add_argument("-w", "--write-changes", action="store_true", help="fix the files in place (atomically; "
                        "every other byte kept)")
    _add_real_words_option(parser)
    _add_words_option(parser)
    _add_model_options(parser)
    parser.set_defaults(handler=_check)


def _check(args: argparse.Namespace) -> int:
    from typofix.apps.check import check_paths, iter_files

    try:
        list(iter_files(args.paths))  # a missing path is reported before any model is loaded
    except FileNotFoundError as err:
        raise UsageError(str(err)) from None
    corrector = load_corrector(args)
    found = 0
    real_words = corrector.real_word_errors if args.real_words else None
    for finding in check_paths(corrector.corrections_many, args.paths, args.write_changes, real_words):
        print(finding, flush=True)
        found += 1
    return 1 if found else EXIT_OK


# --- correct --explain, plot-attention, plot-embeddings ----------------------------------------------------


def _explain(corrector, words: list[str], as_json: bool) -> int:
    """Per word, the correction `correct` gives and where it changes the word (typofix.engine.explain)."""
    from dataclasses import asdict

    from typofix.engine.explain import changes, describe

    for word, fixed in zip(words, corrector.correct_many(words)):
        if as_json:
            print(_json_line({"input": word, "output": fixed, "changes": [asdict(c) for c in changes(word, fixed)]}))
        else:
            print(describe(word, fixed))
    return EXIT_OK


def _check_image_name(path: str) -> None:
    """Fail on a file name we cannot write before any model is loaded."""
    from typofix.insight.plots import image_format

    try:
        image_format(path)
    except ValueError as err:
        raise UsageError(str(err)) from None


def _add_plot_attention(subcommands) -> None:
    parser = subcommands.add_parser(
        "plot-attention", help="draw the attention alignment of words (PNG or SVG)",
        description="Draw, for each word, where the model looks while it writes its correction (Bahdanau et al. "
                    "2015, Fig. 3): input characters across, output characters down, white = all attention. "
                    "The characters the correction changes are outlined in red, a red line marks missing ones.")
    parser.add_argument("words", nargs="+", metavar="WORD", help="words to correct and draw")
    parser.add_argument("--out", required=True, metavar="FILE", help="image to write: .png or .svg")
    _add_model_options(parser)
    parser.set_defaults(handler=_plot_attention)


def _plot_attention(args: argparse.Namespace) -> int:
    from typofix.insight import plots
    from typofix.engine.corrector import ModelError
    from typofix.engine.explain import changes, describe

    _check_image_name(args.out)
    corrector = load_corrector(args)
    vocab = corrector.vocab
    words = [w.lower() for w in args.words]
    for word in words:
        if not word or not vocab.covers(word):
            raise UsageError(f"cannot draw {word!r}: the model reads only the characters {vocab.alphabet!r}")
    alignments = []
    for word in words:
        best = corrector.explain(word, k=1)[0]  # what the model writes, even for a known word
        if best.attn is None:
            raise ModelError("this model has no attention (attention=none): there is no alignment to draw")
        out_chars = [*best.word, vocab.symbols[vocab.eos_id]]  # the end-of-word step gets a row too
        alignments.append(plots.Alignment(word, out_chars, best.attn,
                                          marks=[c.span for c in changes(word, best.word)],
                                          title=describe(word, best.word)))
    plots.save_figure(plots.plot_attention_grid(alignments), args.out)
    print(f"wrote {args.out}")
    return EXIT_OK


def _add_plot_embeddings(subcommands) -> None:
    parser = subcommands.add_parser(
        "plot-embeddings", help="draw the model's character embeddings (PNG or SVG)",
        description="Project the model's character embeddings on their first two principal components and draw "
                    "every character where it lands: vowels, consonants and other symbols in three colours.")
    parser.add_argument("--out", required=True, metavar="FILE", help="image to write: .png or .svg")
    parser.add_argument("--model", metavar="PATH", help="model file: a slim export or a training .ckpt "
                        "(default: the bundled torch model)")
    parser.add_argument("--embedding", choices=("encoder", "decoder"), default="encoder",
                        help="the encoder's input embedding (reads the typo; default) or the decoder's (reads "
                             "the correction written so far)")
    parser.set_defaults(handler=_plot_embeddings)


def _plot_embeddings(args: argparse.Namespace) -> int:
    from pathlib import Path

    from typofix.insight import plots
    from typofix.files.modelfile import ModelError, bundled_model_path

    _check_image_name(args.out)
    path = Path(args.model) if args.model else bundled_model_path()
    if path.suffix == ".onnxz":
        raise ModelError(f"{path}: plot-embeddings reads the weights of a torch model (.pt or .ckpt), not an ONNX export")
    from typofix.nn.checkpoint import build_model, read_checkpoint

    model, vocab = build_model(read_checkpoint(path), path)
    module = model.encoder if args.embedding == "encoder" else model.decoder
    # The alphabet only: the specials' rows are padding (zeros) or never trained, noise on the map.
    weights = module.embedding.weight.detach()[vocab.encode(vocab.alphabet)].float().numpy()  # (A, E)
    title = f"{args.embedding} character embeddings, {path.name}"
    fig = plots.plot_embeddings(weights, list(vocab.alphabet), title=title)
    plots.save_figure(fig, args.out)
    print(f"wrote {args.out}")
    return EXIT_OK


# --- evaluate ----------------------------------------------------------------------------------------------


def _add_evaluate(subcommands) -> None:
    parser = subcommands.add_parser(
        "evaluate", help="accuracy, CER and speed on a TSV of real misspellings",
        description="Score the corrector on typo<TAB>correct rows: top-1, top-k, character error rate, words/s "
                    "and the share of rows left unchanged.")
    parser.add_argument("file", metavar="FILE.tsv", help="typo<TAB>correct rows")
    parser.add_argument("--top-k", type=_positive_int, default=5, metavar="K", help="k of the top-k accuracy")
    parser.add_argument("--limit", type=_positive_int, metavar="N", help="only the first N rows")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    _add_jobs_option(parser, "the typos")
    _add_model_options(parser)
    parser.set_defaults(handler=_evaluate)


def _evaluate(args: argparse.Namespace) -> int:
    from typofix.engine import evaluate
    from typofix.files.misspellings import MisspellingsError, read_misspellings

    try:
        rows = read_misspellings(args.file)[:args.limit]
    except MisspellingsError as err:
        raise UsageError(str(err)) from None
    if args.jobs > 1:
        from typofix.engine.jobs import CorrectorPool

        recipe = _recipe(args)
        with CorrectorPool(recipe, args.jobs) as pool:
            report = evaluate.evaluate(pool, rows, args.top_k, progress=sys.stderr, settings=recipe.settings)
    else:
        report = evaluate.evaluate(load_corrector(args), rows, args.top_k, progress=sys.stderr)
    print(json.dumps(report.as_dict()) if args.json else report.table())
    return EXIT_OK


# --- export ------------------------------------------------------------------------------------------------


def _add_export(subcommands) -> None:
    parser = subcommands.add_parser(
        "export", help="write the slim model file (fp16) or the ONNX export (.onnxz) of a checkpoint",
        description="Write a training checkpoint's hyperparameters, alphabet and weights (float16) to a small "
                    "self-describing file that `correct --model` and the bundled model use. OUT ending in .onnxz "
                    "gets the ONNX export instead (encoder and decoder step for onnxruntime: correcting without "
                    "torch); the bundled one is made by `typofix export typofix/models/default.pt "
                    "typofix/models/default.onnxz` (`make onnx`).")
    parser.add_argument("checkpoint", help="training checkpoint (.ckpt) or an earlier slim export (.pt)")
    parser.add_argument("out", help="file to write, e.g. typofix/models/default.pt or typofix/models/default.onnxz")
    parser.add_argument("--fp32", action="store_true", help="keep float32 weights (twice the size)")
    parser.add_argument("--int8", action="store_true", help="ONNX only: the decoder step in int8 over fixed "
                        "activation ranges, the encoder float (about half the time per step on an AVX2 CPU, and a "
                        "word's scores never depend on its batch; see typofix/training/quantize.py)")
    parser.set_defaults(handler=_export)


def _export(args: argparse.Namespace) -> int:
    from typofix.training.export import export

    size = export(args.checkpoint, args.out, half=not args.fp32, int8=args.int8)
    print(f"wrote {args.out} ({size / 1e6:.2f} MB)")
    return EXIT_OK


# --- serve -------------------------------------------------------------------------------------------------


def _add_serve(subcommands) -> None:
    parser = subcommands.add_parser(
        "serve", help="the attention explorer: a local web page that shows the model correcting a word",
        description="Serve the attention explorer on http://HOST:PORT/: type a word or a sentence and see the "
                    "candidates with their scores, what the correction changes, the attention heatmap of each "
                    "candidate and the model's character-embedding map. /?q=recieve opens with that word; the "
                    "page's JSON API is /api/correct?q=WORD. Ctrl-C stops.")
    parser.add_argument("--model", action="append", metavar="PATH", help="model file (.onnxz, .pt or .ckpt); "
                        "repeat it to compare models side by side (default: the bundled model)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this "
                        "machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on, 0 for any free one "
                        "(default: 8000)")
    parser.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:
    from typofix.apps import serve

    code = serve.main(args.model or [None], args.host, args.port)
    # The request threads used torch and onnxruntime; tearing their thread pools down in the interpreter's exit
    # sometimes aborts ("terminate called without an active exception", exit -6: one stop in 25 under load).
    # Every request is answered and the output flushed by now, so the command leaves without that teardown.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


# --- entry point -------------------------------------------------------------------------------------------


SUBCOMMANDS = (_add_correct, _add_check, _add_plot_attention, _add_plot_embeddings, _add_evaluate, _add_export,
               _add_serve)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="typofix", description="Correct misspelled English words with a character-level "
                     "LSTM encoder-decoder with attention.")
    parser.add_argument("--version", action="version", version=f"typofix {__version__}")
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in SUBCOMMANDS:
        add(subcommands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit code (errors are one line on stderr, never a traceback)."""
    # Undecodable bytes (in arguments or text) travel through as they came instead of failing to print.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="surrogateescape")
    try:
        args = build_parser().parse_args(argv)
        return args.handler(args)
    except UsageError as err:
        return _fail(err, EXIT_USAGE)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (`typofix correct - < big | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as err:  # the promise is one line, never a traceback
        if os.environ.get("TYPOFIX_DEBUG"):
            raise
        modelfile = sys.modules.get("typofix.files.modelfile")  # loaded whenever a model was involved
        if modelfile is not None and isinstance(err, modelfile.ModelError):
            return _fail(err, EXIT_MODEL)
        if isinstance(err, (ValueError, OSError)):
            return _fail(err, EXIT_USAGE)
        return _fail(f"internal error: {type(err).__name__}: {err}", EXIT_MODEL)


def _fail(error, code: int) -> int:
    lines = str(error).strip().splitlines()
    message = f"typofix: error: {lines[0] if lines else type(error).__name__}"
    # The message may echo the user's input (a lone surrogate from argv, say): escape what stderr cannot encode
    # rather than fail while reporting the failure.
    encoding = getattr(sys.stderr, "encoding", None) or "utf-8"
    print(message.encode(encoding, "backslashreplace").decode(encoding), file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
