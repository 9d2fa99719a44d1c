"""`typofix check`: report (or fix) typos in the comments, strings and docs of files and folders."""

from __future__ import annotations

import argparse

from typofix.apps.cli.options import (add_jobs_option, add_model_options, add_real_words_option, add_words_option,
                                      decoding_settings, user_words)
from typofix.files.exits import FINDINGS, OK, USAGE, UsageError

# The check's thresholds on the model's confidence (a correction's score minus the word's own), far above
# `correct`'s (-5: in prose a word the dictionary lacks is most often a typo; in code it is most often a
# name); tuned on the dev data of docs/check.md.
MIN_CONFIDENCE = 2.0
WRITE_CONFIDENCE = 4.0


def add(subcommands) -> None:
    parser = subcommands.add_parser(
        "check", help="report typos in comments, strings and docs (PATH:LINE:COL: typo ==> correction)",
        description="Check files and folders for typos the way a code-aware spell checker does: in source files "
                    "(Python, JavaScript, Go, Rust, C, shell, YAML, TOML, JSON, Makefile, ... by name and shebang) "
                    "only comments, docstrings and string literals, never identifiers; Markdown, reST and plain "
                    "text whole, code spans and blocks aside. Folders in a git work tree are walked as git sees "
                    "them (.gitignore, .git/info/exclude); binary, generated and vendored files are skipped. "
                    "The project's own vocabulary (its names, words it uses consistently, its languages' "
                    "keywords, software terms) is not reported. Prints PATH:LINE:COL: typo ==> correction "
                    "(columns 1-based, a tab counts one) as files are done. Settings: .typofix.toml or "
                    "[tool.typofix] in pyproject.toml; `typofix: ignore` on a line ignores it. --min-confidence is "
                    f"the check's threshold on a finding's confidence here (default {MIN_CONFIDENCE:g}). Exit 1 "
                    "when anything was found, 0 when clean, 2 on bad usage or a file that could not be read or "
                    "fixed. More: docs/check.md.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to check; - reads standard "
                        "input (as plain text, named -)")
    parser.add_argument("-w", "--write-changes", action="store_true",
                        help="fix the typos of comments, docstrings and prose whose confidence is at least the "
                             "--write-confidence, in place: atomically, through symlinks, mode kept; Python "
                             "files keep their syntax tree. Never written, though reported: a typo in a string "
                             "literal of code (data: an event name, a pattern, a key) or in a code-shaped word "
                             "($x{key}, obj.attr, --flag, a code span); --json marks them \"fixable\": false")
    parser.add_argument("--write-confidence", type=float, metavar="C",
                        help=f"the confidence -w needs to fix a typo (default: {WRITE_CONFIDENCE:g})")
    parser.add_argument("--json", action="store_true", help="one JSON object a line: path, line, column, word, "
                        "suggestions, confidence, where, fixable (whether -w writes it)")
    parser.add_argument("--identifiers", action="store_true", default=None,
                        help="also check the words of identifiers (parseArgs, parse_args, HTTPServer -> parse, "
                             "args, http, server); reported, never fixed")
    parser.add_argument("--known-only", action="store_true", default=None,
                        help="report only misspellings people are known to make (typofix's own lists of real "
                             "misspellings), codespell's way: fewer findings, only listed ones")
    parser.add_argument("--skip", action="append", default=[], metavar="GLOB",
                        help="leave out files and folders matching GLOB (repeatable; *.min.js, tests, docs/old/*)")
    parser.add_argument("--include", action="append", default=[], metavar="GLOB",
                        help="check only files matching GLOB (repeatable); a data table (.csv, .tsv) it names is "
                             "checked too")
    parser.add_argument("--config", metavar="FILE", help="the settings file (default: the nearest .typofix.toml "
                        "or pyproject.toml with [tool.typofix], up to the repository's root)")
    parser.add_argument("--no-config", action="store_true", help="read no settings file")
    parser.add_argument("--no-cache", action="store_true",
                        help="search every word now: neither take nor keep the searches of words that earlier "
                             "runs of the same model, words and settings keep in the cache folder "
                             "(TYPOFIX_CACHE_DIR; empty turns every cache off)")
    add_jobs_option(parser, "files")
    add_real_words_option(parser)
    add_words_option(parser)
    add_model_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from typofix.apps.check.config import CheckConfig, ConfigError, find_config, read_config
    from typofix.apps.check.run import CheckRun, run_check
    from typofix.apps.check.verdict import DETECT_THRESHOLD
    from typofix.apps.check.walk import STDIN, Globs, Selection, missing
    from typofix.engine.jobs import CorrectorRecipe

    gone = missing(args.paths)
    if gone:  # before any model is loaded
        raise UsageError(f"no such file or directory: {gone[0]}")
    if STDIN in args.paths and args.write_changes:
        raise UsageError("--write-changes cannot rewrite standard input (-)")
    try:
        path = None if args.no_config else (args.config or find_config())
        config = read_config(path) if path else CheckConfig()
    except ConfigError as err:
        raise UsageError(str(err)) from None
    known_only = args.known_only if args.known_only is not None else bool(config.known_only)
    # --min-confidence is the check's threshold: the engine keeps its preset's own (see below)
    settings = decoding_settings(argparse.Namespace(**{**vars(args), "min_confidence": None}))
    # prose files: the preset's detector threshold, or --detect-threshold's for every file; --known-only trusts
    # its lists alone
    prose_threshold = settings.detect_threshold
    if args.detect_threshold is None:
        settings = settings.with_(detect_threshold=DETECT_THRESHOLD)
    min_confidence = args.min_confidence if args.min_confidence is not None else config.min_confidence
    if min_confidence is None:
        # --known-only trusts the list: the model only has to prefer the correction as `correct` would
        min_confidence = settings.min_confidence if known_only else MIN_CONFIDENCE
    write_confidence = args.write_confidence if args.write_confidence is not None else config.write_confidence
    selection = Selection(skip=Globs.of(args.skip) + Globs.of(config.skip, config.base),
                          include=Globs.of(args.include) + Globs.of(config.include, config.base))
    check = CheckRun(
        paths=tuple(args.paths), selection=selection, min_confidence=min_confidence,
        write_confidence=max(min_confidence, WRITE_CONFIDENCE if write_confidence is None else write_confidence),
        write=args.write_changes, identifiers=bool(args.identifiers if args.identifiers is not None
                                                   else config.identifiers),
        real_words=args.real_words, known_only=known_only, jobs=args.jobs, as_json=args.json,
        user_words=user_words(args) + config.words, stored_searches=not args.no_cache,
        prose_threshold=0.0 if known_only and args.detect_threshold is None else prose_threshold)
    # The corrector proposes as `correct` does (a lower threshold only lowers its own); the check's threshold
    # is then applied to each finding's confidence, taken without context, so a word is judged the same
    # wherever it stands.
    corrector = CorrectorRecipe(args.model, settings.with_(min_confidence=min(settings.min_confidence, min_confidence)),
                                check.user_words)
    outcome = run_check(check, corrector)  # (SIGTERM and SIGHUP stop it as Ctrl-C does: `typofix.apps.cli.main`)
    if outcome.errors:
        return USAGE
    return FINDINGS if outcome.findings else OK
