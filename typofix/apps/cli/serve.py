"""`typofix serve`: the attention explorer, a local web page (`typofix.apps.serve`)."""

from __future__ import annotations

import argparse
import os
import sys


def add(subcommands) -> None:
    parser = subcommands.add_parser(
        "serve", help="the attention explorer: a local web page that shows the model correcting a word",
        description="Serve the attention explorer on http://HOST:PORT/: type a word or a sentence and see the "
                    "candidates with their scores, what the correction changes, the attention heatmap of each "
                    "candidate and the model's character-embedding map; or, in its pronounce view, the "
                    "letter-to-phone model's pronunciations and their letters-to-phones heatmaps. /?q=recieve opens "
                    "with that word; the page's JSON API is /api/correct?q=WORD and /api/pronounce?q=WORD. Ctrl-C "
                    "stops.")
    parser.add_argument("--model", action="append", metavar="PATH", help="model file (.onnxz, .pt or .ckpt); "
                        "repeat it to compare models side by side (default: the bundled model)")
    parser.add_argument("--pronounce-model", metavar="PATH", help="letter-to-phone model file for the pronounce "
                        "view, as `typofix pronounce --model` takes (default: the bundled one)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this "
                        "machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on, 0 for any free one "
                        "(default: 8000)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from typofix.apps import serve

    code = serve.main(args.model or [None], args.host, args.port, args.pronounce_model)
    # The request threads used torch and onnxruntime; tearing their thread pools down in the interpreter's exit
    # sometimes aborts ("terminate called without an active exception", exit -6: one stop in 25 under load).
    # Every request is answered and the output flushed by now, so the command leaves without that teardown.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
