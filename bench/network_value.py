"""What the network buys: the same candidates, search and reranking with no network, an untrained one, a tiny
one and the bundled one (greedy only, then the default wide pass), top-1 and top-5 on the dev sets.

Usage (from the repository root)::

    python -m bench.network_value [--out BENCHMARKS.md] [--tiny-model PATH] [--limit N]

Prints a markdown section (a table and a caption saying what every row is); with ``--out`` it also writes it,
atomically, as the "What the network buys" section of that file (replaced where the file has it, else added at
the end; ``make bench`` keeps it when it rewrites BENCHMARKS.md). Without ``--tiny-model`` it first trains the
tiny network (``typofix-train experiment=tiny``, seed 0, one thread) in a temporary folder. Every row runs
``typofix.engine.evaluate.evaluate`` (``suggest_many``, k=5) on the same rows: the whole dev sets unless ``--limit``
samples them. Accuracy only: the rows run on different runtimes (torch float32 for the untrained and tiny
networks, onnxruntime int8 for the bundled one), so their speeds would say nothing about the network.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SETS = ("data/eval/norvig-testset1.tsv", "data/eval/birkbeck-dev.tsv")
K = 5
SEED = 0
SECTION = "bench.network_value"


@dataclass(frozen=True)
class Network:
    """One row of the table: its label, what it is (for the caption) and how to build its corrector."""

    label: str
    what: str
    load: Callable[[], object]  # -> typofix.engine.corrector.Corrector


def networks(tiny_model: Path | None, seed: int = SEED) -> list[Network]:
    """The table's rows, from no network to the bundled one; `tiny_model` is the tiny network's checkpoint."""
    from typofix.engine.corrector import Corrector
    from typofix.engine.settings import PRESETS, DecodingSettings

    # Every network is compared under the hand-set channel (the fitted scorer's weights were fitted to the bundled
    # network's scores, and would misjudge any other); the last row is the default, with the fitted scorer.
    d, fast = PRESETS["hand"], PRESETS["fast"]
    greedy_only = d.with_(shortlist=3, wide_margin=0.0, wide_min_edits=0)  # the cheap pass alone
    return [
        Network("no network", "no model (`Corrector` with no stepper): every typo's candidates are the wide "
                f"pass's neighbours, every listed word one edit away, the {d.two_edit_candidates} most frequent two "
                f"edits away and the {d.sound_candidates} that sound most like it, and the typo itself, ranked by "
                "the channel alone (prior, edit distance, first letter; log P_model counted as 0); nothing "
                "proposes the greedy or beam candidates a network would", lambda: _with_stepper(None)),
        Network("untrained network", "the bundled model's architecture and alphabet (64-dim character "
                "embeddings, a 2-layer bidirectional LSTM encoder of 128 per direction, a 256 decoder, additive "
                f"attention of 128) with its random initial weights (torch seed {seed}), never trained; the "
                "hand-set channel's settings, on torch", lambda: _untrained(seed)),
        Network("tiny network", "`typofix-train experiment=tiny` (seed 0, one thread: 2 epochs of 512 generated "
                "typos, seconds of CPU; 16-dim embeddings, a 2-layer encoder of 32 per direction, decoder 64, "
                "attention 32), its last.ckpt; the hand-set channel's settings, on torch",
                lambda: Corrector.load(tiny_model, settings=d)),
        Network("bundled network, greedy only", "the bundled model (`typofix/models/default-int8.onnxz`, "
                "onnxruntime) with the cheap pass only (greedy answer + the typo + "
                f"{greedy_only.shortlist} channel-shortlisted one-edit words), no wide pass",
                lambda: Corrector.load(settings=greedy_only)),
        Network("fast network (`--fast`)", "the fast preset's model (`typofix/models/fast-int8.onnxz`, "
                "`typofix-train experiment=fast`: 32-dim embeddings, encoder 64 per direction, decoder 128, attention "
                f"64) with the fast preset: no greedy answer, the typo + {fast.shortlist} shortlisted one-edit words, "
                f"and for the uncertain words the {fast.sound_candidates} best sound-alikes, ranked by its own fitted "
                f"scorer (`data/{fast.rerank_table}`)",
                lambda: Corrector.load(fast=True)),
        Network("bundled network, wide pass", "the same model with the previous default settings (`hand` "
                "preset): the cheap pass (greedy answer + the typo + "
                f"{d.shortlist} shortlisted one-edit words), then for the words whose cheap answer is uncertain "
                f"the wide pass: {f'beam {d.beam} + ' if d.beam > 1 else ''}"
                f"{f'the {d.one_edit_candidates} most frequent one-edit words + ' if d.one_edit_candidates else ''}"
                f"the {d.two_edit_candidates} most frequent two-edit words + the {d.sound_candidates} best "
                "sound-alikes, all scored by the model, ranked by the hand-set channel",
                lambda: Corrector.load(settings=d)),
        Network("bundled network, fitted scorer (default)", "the same model and passes with the "
                f"{DecodingSettings().sound_candidates} best sound-alikes, ranked by the scorer fitted to the dev "
                "sets (`typofix.engine.ranking`, `bench/fit_rerank.py`; its confidence rule and gate re-tuned): what "
                "`typofix correct` does", lambda: Corrector.load()),
    ]


def _with_stepper(stepper, vocab=None):
    """A corrector with the hand-set channel's settings, the bundled word list and dictionary, and `stepper`
    (None: no network) as `Corrector.load` builds one."""
    from typofix.engine.corrector import Corrector
    from typofix.engine.settings import PRESETS
    from typofix.words.lexicon import AcceptedWords, Lexicon
    from typofix.words.vocab import Vocab

    return Corrector(stepper, vocab or Vocab(), Lexicon.from_tsv(), PRESETS["hand"], accepted=AcceptedWords.load())


def _untrained(seed: int):
    """The bundled model's architecture (its stored hyperparameters and alphabet), randomly initialised."""
    import torch

    from typofix.nn.checkpoint import read_checkpoint
    from typofix.nn.model import Seq2Seq
    from typofix.files.modelfile import bundled_model_path
    from typofix.nn.torch_stepper import TorchStepper
    from typofix.words.vocab import Vocab

    bundled = read_checkpoint(bundled_model_path())
    vocab = Vocab(bundled.alphabet)
    torch.manual_seed(seed)
    model = Seq2Seq.from_hparams(bundled.hparams, len(vocab), vocab.pad_id, vocab.sos_id, vocab.eos_id)
    return _with_stepper(TorchStepper(model.eval()), vocab)


def train_tiny(folder: Path, seed: int = SEED) -> tuple[Path, float]:
    """Train `experiment=tiny` into `folder` as a subprocess (Hydra's state stays out of this one): its
    last.ckpt and the wall seconds the run took."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "typofix.training.train", "experiment=tiny", f"hydra.run.dir={folder}",
                           f"seed={seed}", "threads=1"], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"training the tiny network failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return folder / "checkpoints" / "last.ckpt", time.perf_counter() - start


def measure(rows_by_set: dict[str, list[tuple[str, str]]], rows: list[Network],
            log=lambda message: None) -> dict[str, dict[str, tuple[float, float]]]:
    """{network label: {set name: (top-1, top-5)}}, each network loaded once and run on every set."""
    from typofix.engine.evaluate import evaluate

    result = {}
    for network in rows:
        corrector = network.load()
        result[network.label] = {}
        for name, set_rows in rows_by_set.items():
            report = evaluate(corrector, set_rows, k=K)
            result[network.label][name] = (report.top1, report.topk)
            log(f"{network.label}, {name}: top-1 {report.top1:.1%}, top-{K} {report.topk:.1%}")
    return result


def render(result: dict[str, dict[str, tuple[float, float]]], rows: list[Network],
           rows_by_set: dict[str, list[tuple[str, str]]], command: str, note: str = "") -> str:
    """The markdown section: a heading, the table and its caption (what every row is)."""
    names = list(rows_by_set)
    head = "| network | " + " | ".join(f"{n} ({len(rows_by_set[n]):,} rows) top-1 | top-{K}" for n in names) + " |"
    lines = ["## What the network buys", "", head, "|---|" + "---:|" * (2 * len(names))]
    for network in rows:
        cells = [f"{100 * v:.1f}" for n in names for v in result[network.label][n]]
        lines.append(f"| {network.label} | " + " | ".join(cells) + " |")
    caption = [f"`{command}`: the same word list, acceptance dictionary, search, reranking and confidence rule "
               f"in every row (`suggest_many`, k={K}, as `typofix evaluate` scores), only the network changes. "
               "Top-1 and top-5 in percent." + (f" {note}" if note else ""), ""]
    caption += [f"{i}. **{network.label}**: {network.what}." for i, network in enumerate(rows, start=1)]
    return "\n".join(lines + [""] + caption) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.network_value", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="also write the section into this file (atomically)")
    parser.add_argument("--tiny-model", type=Path, help="the tiny network's checkpoint (default: train one now)")
    parser.add_argument("--limit", type=int, help="at most this many rows per set (seeded sample)")
    args = parser.parse_args(argv)
    if args.tiny_model is not None and not args.tiny_model.is_file():
        parser.error(f"--tiny-model {args.tiny_model}: no such file")
    from typofix.files.misspellings import read_misspellings

    from bench.report import write_section
    from bench.run import pin_to_one_core, sample_rows

    pin_to_one_core()  # one thread for torch and onnxruntime: the machine is shared
    rows_by_set = {Path(p).stem: sample_rows(read_misspellings(p), args.limit, SEED) for p in SETS}
    log = lambda message: print(message, file=sys.stderr, flush=True)  # noqa: E731
    with tempfile.TemporaryDirectory(prefix="typofix-tiny-") as folder:
        tiny = args.tiny_model
        note = f"The tiny network here is `{tiny}`, given, not trained in this run." if tiny else ""
        if tiny is None:
            tiny, seconds = train_tiny(Path(folder))
            note = f"The tiny network trained for {seconds:.0f} s (wall, start-up included) in this run."
            log(note)
        rows = networks(tiny)
        result = measure(rows_by_set, rows, log)
    command = "python -m bench.network_value" + "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:]))
    text = render(result, rows, rows_by_set, command, note)
    print(text, end="")
    if args.out is not None:
        write_section(args.out, SECTION, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
