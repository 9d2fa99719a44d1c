"""The `typofix` command line (also `python -m typofix`): one module per subcommand, each with `add`, which
declares its options, and a handler that imports what it needs when it runs, so `typofix --help` never loads
torch. Exit codes and errors: `typofix.files.exits` (one line on stderr; TYPOFIX_DEBUG=1 for the traceback)."""

from __future__ import annotations

import argparse
import os
import signal
import sys

# numpy's BLAS starts a thread of its own (on this 2-core machine, one) that blocks no signal, and the engine does
# no BLAS work worth one (onnxruntime runs the model on its own threads). While a pool starts its workers this
# process ignores Ctrl-C (a spawned worker inherits that) with Ctrl-C blocked in this thread: one the kernel hands
# to that thread meanwhile would be lost. Without it, one that comes waits, blocked, and is answered after.
# Set before numpy is first imported; yours wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from typofix import __version__
from typofix.apps.cli import check, correct, evaluate, export, lsp, plots, pronounce, serve
from typofix.files.exits import STOP_SIGNALS, UsageError, run_command, stop_on

PROG = "typofix"
SUBCOMMANDS = (correct.add, check.add, pronounce.add, plots.add_attention, plots.add_embeddings, evaluate.add,
               export.add, serve.add, lsp.add)


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error (usage stays available through --help), and options written in full:
    with argparse's abbreviations, `typofix correct --wo x` meant `--words x`, so a word to correct that starts
    with two dashes became an option, and a new option could change what an abbreviation meant."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)  # (the subcommands' parsers are made by this class too)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        raise UsageError(f"{message} (see {self.prog} --help)")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog=PROG, description="Correct misspelled English words with a character-level "
                    "LSTM encoder-decoder with attention.")
    parser.add_argument("--version", action="version", version=f"typofix {__version__}")
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in SUBCOMMANDS:
        add(subcommands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit code."""
    # Undecodable bytes (in arguments or text) travel through as they came instead of failing to print.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="surrogateescape")

    def body() -> int:
        args = build_parser().parse_args(argv)
        # SIGTERM and SIGHUP end every command as Ctrl-C does (exit 143, 129): through its own clean-up, files
        # closed, temporary ones removed, workers stopped, output flushed in whole lines
        with stop_on(*(signum for signum in STOP_SIGNALS if signum != signal.SIGINT)):
            return args.handler(args)

    return run_command(PROG, body)
