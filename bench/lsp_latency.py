"""How long an editor waits for `typofix lsp`'s diagnostics of a 2,000-line file once the engine is warm.

Usage (from the repository root)::

    python -m bench.lsp_latency [--text NAME=FILE ...] [--lines 2000] [--repeat 3] [--out BENCHMARKS.md]

Each run starts `python -m typofix lsp` as an editor would and talks to it over its stdio with pygls' LSP client:
initialize, then a one-line warm-up document (the engine loads and checks it), then for each text its first
`--lines` lines (the file repeated where it is shorter) opened as a Markdown document, timed from the
`didOpen` notification sent to its diagnostics received (reading, checking every line, judging, publishing:
what an editor waits for on opening the file), then one line of it replaced by an incremental change, timed the
same way to the new version's diagnostics (this includes the server's 0.25 s debounce: a change is checked
after a quarter second of quiet). Each text's first open is the first time the server sees its words. One
core and one thread (`bench.run.pin_to_one_core`); each cell is the median of `--repeat` runs, each run a new
server. Prints a markdown section; with ``--out`` it also writes it, atomically, as a kept section of that
file (``make bench`` carries it over).

The default texts are the dev prose's: `informal` (text as people type it, 72 slips in 21,759 tokens), `prose`
(1,160 real misspellings put in the same text: a typo in one word of 19, far more than anyone's draft) and
`clean` (the same text without typos).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from bench.run import pin_to_one_core

SECTION = "bench.lsp_latency"
DEV = Path("../shared/eval")
TEXTS = {"informal": DEV / "informal" / "typos.txt", "prose": DEV / "prose" / "typos.txt",
         "clean": DEV / "prose" / "clean.txt"}
EDIT = "We recieve the letter and teh parcel."  # the line an edit puts in (two typos)


class Client(LanguageClient):
    def __init__(self):
        super().__init__("typofix-bench", "1")
        self.published: dict[tuple[str, int | None], tuple[float, int]] = {}
        self.arrived = asyncio.Event()

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams):
            self.published[(params.uri, params.version)] = (time.perf_counter(), len(params.diagnostics))
            self.arrived.set()

    async def diagnostics(self, uri: str, version: int) -> tuple[float, int]:
        """When the diagnostics of `uri` at `version` arrived, and how many there were."""
        while (uri, version) not in self.published:
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), 600)
        return self.published[(uri, version)]


async def one_run(texts: dict[str, str], folder: Path) -> dict[str, tuple[float, float, int]]:
    """Per text: seconds to its diagnostics on open, seconds to them after a one-line edit, and how many."""
    client = Client()
    await client.start_io(sys.executable, "-m", "typofix", "lsp", env={**os.environ,
                                                                       "XDG_CONFIG_HOME": str(folder / "config")})
    try:
        await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                             root_uri=folder.as_uri()))
        client.initialized(types.InitializedParams())
        warm = (folder / "warm.md").as_uri()
        client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
            uri=warm, language_id="markdown", version=1, text="We recieved teh letter.\n")))
        await client.diagnostics(warm, 1)
        found = {}
        for name, text in texts.items():
            uri = (folder / f"{name}.md").as_uri()
            sent = time.perf_counter()
            client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
                uri=uri, language_id="markdown", version=1, text=text)))
            opened, count = await client.diagnostics(uri, 1)
            middle = text.count("\n") // 2
            old = text.split("\n")[middle]
            change = types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(middle, 0), types.Position(middle, len(old.encode("utf-16-le")) // 2)),
                text=EDIT)
            sent_edit = time.perf_counter()
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=2), [change]))
            edited, _ = await client.diagnostics(uri, 2)
            found[name] = (opened - sent, edited - sent_edit, count)
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        await client.stop()
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lsp_latency", description=__doc__.split("\n")[0])
    parser.add_argument("--text", nargs="+", metavar="NAME=FILE", help="the texts (default: the dev prose's "
                        "informal, prose and clean texts)")
    parser.add_argument("--lines", type=int, default=2000, help="lines of each text opened (default 2000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs, each a new server (the median is shown)")
    parser.add_argument("--out", type=Path, help="also write the section into this file (atomically)")
    args = parser.parse_args(argv)
    sources = dict(item.split("=", 1) for item in args.text) if args.text else TEXTS
    missing = [str(path) for path in sources.values() if not Path(path).is_file()]
    if missing or args.lines < 1 or args.repeat < 1:
        print(f"error: {'not found: ' + ', '.join(missing) if missing else '--lines and --repeat must be at least 1'}",
              file=sys.stderr)
        return 2
    texts = {}
    for name, path in sources.items():
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        texts[name] = "".join(f"{line}\n" for line in (lines * (args.lines // len(lines) + 1))[:args.lines])
    pinned = pin_to_one_core()
    load = os.getloadavg()[0]
    runs = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="typofix-lsp-") as folder:
            runs.append(asyncio.run(one_run(texts, Path(folder))))
    text = render(runs, sources, texts, args, pinned, load)
    print(text)
    if args.out is not None:
        from bench.report import write_section

        write_section(args.out, SECTION, text)
    return 0


def render(runs, sources, texts, args, pinned: str, load: float) -> str:
    command = "python -m bench.lsp_latency" + (f" --lines {args.lines}" if args.lines != 2000 else "") + \
        (f" --repeat {args.repeat}" if args.repeat != 3 else "")
    lines = ["## typofix lsp: diagnostics of a 2,000-line file", "",
             f"`{command}` ({platform.machine()}, {os.cpu_count()} CPU cores, load average {load:.1f} at the start; "
             f"{pinned}): `typofix lsp` started as an editor starts it, the engine warm (it has checked a "
             f"one-line document), each text's first {args.lines:,} lines opened as a Markdown document; seconds "
             f"from `didOpen` sent to its diagnostics received, and from a one-line incremental change (two "
             f"typos put in the middle line) to the new version's, which includes the 0.25 s debounce; median "
             f"of {args.repeat} runs, each a new server.", "",
             "| text | words | diagnostics | open: seconds | one-line edit: seconds |", "|---|---:|---:|---:|---:|"]
    for name in texts:
        opened = statistics.median(run[name][0] for run in runs)
        edited = statistics.median(run[name][1] for run in runs)
        count = runs[0][name][2]
        lines.append(f"| {name} (`{sources[name]}`) | {len(texts[name].split()):,} | {count} | {opened:.2f} | "
                     f"{edited:.2f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
