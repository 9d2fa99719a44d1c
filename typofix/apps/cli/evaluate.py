"""`typofix evaluate`: accuracy, CER and speed on a TSV of real misspellings."""

from __future__ import annotations

import argparse
import json
import sys

from typofix.apps.cli.options import add_jobs_option, add_model_options, load_corrector, positive_int, recipe
from typofix.files.exits import OK, UsageError


def add(subcommands) -> None:
    parser = subcommands.add_parser(
        "evaluate", help="accuracy, CER and speed on a TSV of real misspellings",
        description="Score the corrector on typo<TAB>correct rows: top-1, top-k, character error rate, words/s "
                    "and the share of rows left unchanged.")
    parser.add_argument("file", metavar="FILE.tsv", help="typo<TAB>correct rows")
    parser.add_argument("--top-k", type=positive_int, default=5, metavar="K", help="k of the top-k accuracy")
    parser.add_argument("--limit", type=positive_int, metavar="N", help="only the first N rows")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    add_jobs_option(parser, "the typos")
    add_model_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from typofix.engine import evaluate
    from typofix.files.misspellings import MisspellingsError, read_misspellings

    try:
        rows = read_misspellings(args.file)[:args.limit]
    except MisspellingsError as err:
        raise UsageError(str(err)) from None
    if args.jobs > 1:
        from typofix.engine.jobs import CorrectorPool

        made = recipe(args)
        with CorrectorPool(made, args.jobs) as pool:
            report = evaluate.evaluate(pool, rows, args.top_k, progress=sys.stderr, settings=made.settings)
    else:
        report = evaluate.evaluate(load_corrector(args), rows, args.top_k, progress=sys.stderr)
    print(json.dumps(report.as_dict()) if args.json else report.table())
    return OK
