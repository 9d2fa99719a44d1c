"""`typofix check`: report (or fix) misspelled words in files and folders."""

from __future__ import annotations

import argparse

from typofix.apps.cli.options import add_model_options, add_real_words_option, add_words_option, load_corrector
from typofix.files.exits import FINDINGS, OK, UsageError


def add(subcommands) -> None:
    parser = subcommands.add_parser(
        "check", help="report misspelled words in files (PATH:LINE:COL: typo ==> correction)",
        description="Check text files and folders (recursively; .git and binary files are skipped) and print "
                    "PATH:LINE:COL: typo ==> correction for each misspelled word (columns 1-based, a tab counts "
                    "one). Exit 1 when anything was found, 0 when clean, 2 on bad usage.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to check")
    parser.add_argument("-w", "--write-changes", action="store_true", help="fix the files in place (atomically; "
                        "every other byte kept)")
    add_real_words_option(parser)
    add_words_option(parser)
    add_model_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
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
    return FINDINGS if found else OK
