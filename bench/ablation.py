"""The attention ablation's report: reads a `make ablation` sweep, scores every checkpoint the same way and
writes docs/ablation.md with three figures.

    python -m bench.ablation [--sweep multirun/ablation/<stamp>] [--docs docs] [--note "machine ..."]

Per run it takes the training-time numbers from the run's CSV log (validation accuracy and CER on the synthetic
held-out words and the real dev sets, training words/s measured by `typofix.training.callbacks.WordsPerSecond`) and
loads `checkpoints/last.ckpt` through the corrector's loader (the same budget for every kind, so the last
checkpoint, not the best). With the model it measures accuracy by word length, draws one heatmap per kind,
and compares each alignment row with a Gaussian kernel on the length-scaled diagonal.
"""

from __future__ import annotations

import argparse
import csv
import math
import platform
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from matplotlib.figure import Figure
from omegaconf import OmegaConf
from torchmetrics.functional.text import char_error_rate

from typofix.nn.checkpoint import build_model, read_checkpoint
from typofix.engine.corrector import Corrector
from typofix.training.data import TypoDataModule, collate, encode_pair, resolve_dev_set
from typofix.files.misspellings import read_misspellings
from typofix.nn.decode import greedy
from typofix.nn.model import ATTENTION_KINDS, Seq2Seq
from typofix.insight.plots import Alignment, plot_attention_grid, save_figure
from typofix.words.vocab import EOS, Vocab

SWEEP_ROOT = Path("multirun/ablation")
KINDS = list(ATTENTION_KINDS)  # table and legend order
SPEEDS = ("train/words_per_sec", "train/words_per_cpu_sec")  # logged by typofix.training.callbacks.WordsPerSecond
DEV_SETS = ("norvig-testset1.tsv", "birkbeck-dev.tsv")
EVAL_SEED = 1234  # the held-out words and typos every checkpoint is scored on, whatever seed it trained with
EVAL_WORDS = 2000
LENGTH_BINS = ((2, 4), (5, 6), (7, 8), (9, 10), (11, 12), (13, 24))  # correct-word length, inclusive
LONG_WORD = 11  # "long" in the summary: at least this many letters
HEATMAP_PAIR = ("acommodation", "accommodation")  # from norvig-testset1: long, with a dropped letter
SHOWCASE = ("recieve", "definately", "seperate", "goverment", "acommodation", "embarasment")
KERNEL_SIGMA = 1.0  # width (characters) of the fixed positional kernel the headline number uses
SIGMAS = (0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0)
KERNEL_WORDS = 500
OFFSETS = np.arange(-4, 5)  # the learned-kernel profile: weight at these offsets from the diagonal
COLOURS = {"additive": "#0072B2", "dot": "#E69F00", "general": "#009E73", "scaled_dot": "#CC79A7",
           "multihead": "#D55E00", "none": "#555555"}  # Okabe-Ito, colour-blind safe


@dataclass
class Run:
    """One (kind, seed) training run of the sweep and what it measured."""

    kind: str
    seed: int
    path: Path
    config: dict
    final: dict[str, float]  # last logged value of every metric
    speed: dict[str, float]  # median over epochs of train/words_per_sec and train/words_per_cpu_sec
    steps: int
    wall_s: float
    model: Seq2Seq
    vocab: Vocab
    # filled in by the evaluations below
    predictions: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # set -> (word, greedy output)
    kernel_tv: dict[float, float] = field(default_factory=dict)
    profile: np.ndarray | None = None

    @property
    def params(self) -> int:
        return sum(p.numel() for p in self.model.parameters())


# --- collecting the sweep -----------------------------------------------------------------------------------


def newest_sweep(root: Path) -> Path:
    """The most recent sweep folder under `root` (their names are timestamps)."""
    sweeps = sorted(p for p in root.iterdir() if (p / "multirun.yaml").is_file()) if root.is_dir() else []
    if not sweeps:
        raise SystemExit(f"no ablation sweep under {root}: run `make ablation` first")
    return sweeps[-1]


def read_metrics(path: Path) -> tuple[dict[str, float], dict[str, float], int]:
    """(last value of each metric, median over epochs of each SPEEDS metric, optimiser steps) from a CSV log."""
    final, speeds, steps = {}, defaultdict(list), 0
    with path.open(newline="") as handle:
        for row in csv.DictReader(handle):
            steps = max(steps, int(row["step"]) + 1)
            for key, value in row.items():
                if value and key not in ("epoch", "step"):
                    final[key] = float(value)
                    if key in SPEEDS:
                        speeds[key].append(float(value))
    return final, {k: statistics.median(speeds[k]) if speeds[k] else float("nan") for k in SPEEDS}, steps


def load_run(job: Path) -> Run:
    """A finished job folder -> Run; the model comes back through the corrector's loader (torch only)."""
    config = OmegaConf.to_container(OmegaConf.load(job / ".hydra" / "config.yaml"), resolve=False)
    checkpoint = job / "checkpoints" / "last.ckpt"
    model, vocab = build_model(read_checkpoint(checkpoint), checkpoint)
    final, speed, steps = read_metrics(job / "logs" / "metrics.csv")
    # From the job's config being written to its last checkpoint: training plus validation, as a user waits.
    wall = checkpoint.stat().st_mtime - (job / ".hydra" / "config.yaml").stat().st_mtime
    return Run(config["model"]["attention"], int(config["seed"]), job, config, final, speed, steps, wall, model,
               vocab)


def collect(sweep: Path) -> list[Run]:
    """Every finished run of the sweep, in table order (kind, then seed); unfinished jobs are reported."""
    runs = []
    for job in sorted(p for p in sweep.iterdir() if p.is_dir()):
        if (job / "checkpoints" / "last.ckpt").is_file() and (job / "logs" / "metrics.csv").is_file():
            runs.append(load_run(job))
        else:
            print(f"skipping {job.name}: no last.ckpt or metrics.csv (still running, or it failed)")
    if not runs:
        raise SystemExit(f"no finished runs in {sweep}")
    return sorted(runs, key=lambda r: (KINDS.index(r.kind), r.seed))


# --- evaluating a model -------------------------------------------------------------------------------------


def evaluation_pairs(alphabet: str) -> dict[str, list[tuple[str, str]]]:
    """The fixed (typo, word) sets every checkpoint is scored on: synthetic held-out words with EVAL_SEED's
    typos (the `val` split: no model trained on these words), and the real dev sets."""
    data = TypoDataModule(alphabet=alphabet, seed=EVAL_SEED, val_size=EVAL_WORDS, dev_sets={})
    data.setup("fit")
    vocab = Vocab(alphabet)
    real = [p for name in DEV_SETS for p in read_misspellings(resolve_dev_set(name)) if vocab.covers(p[0] + p[1])]
    return {"synthetic": data.val_sets[0].pairs, "real": real}


def batches(pairs: list[tuple[str, str]], vocab: Vocab, size: int = 256):
    """(pairs, collated batch) in length order, so little of each batch is padding."""
    ordered = sorted(pairs, key=lambda p: len(p[0]))
    for start in range(0, len(ordered), size):
        chunk = ordered[start:start + size]
        yield chunk, collate([encode_pair(vocab, typo, word) for typo, word in chunk], vocab.pad_id)


def predict(run: Run, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(correct word, greedy output of the model alone) for every pair."""
    out = []
    for chunk, batch in batches(pairs, run.vocab):
        ids = greedy(run.model, batch["src"], batch["src_len"]).ids
        out += [(word, run.vocab.decode(row)) for (_, word), row in zip(chunk, ids)]
    return out


def in_bins(predictions: list[tuple[str, str]], bins) -> tuple[list[str], list[str]]:
    """(outputs, words) of the pairs whose correct word's length falls in one of `bins`."""
    kept = [(out, word) for word, out in predictions if any(lo <= len(word) <= hi for lo, hi in bins)]
    return [o for o, _ in kept], [w for _, w in kept]


def accuracy(runs: list[Run], names, bins) -> float:
    """Exact-match accuracy (%) of a kind's seeds pooled, over the sets `names` and length `bins`."""
    hits = total = 0
    for run in runs:
        for name in names:
            outputs, words = in_bins(run.predictions[name], bins)
            hits, total = hits + sum(o == w for o, w in zip(outputs, words)), total + len(words)
    return 100 * hits / total if total else float("nan")


def cer(runs: list[Run], names, bins) -> float:
    """Character error rate (edits / characters of the correct words, as torchmetrics counts it in
    training) of a kind's seeds pooled, over the sets `names` and length `bins`."""
    outputs, words = [], []
    for run in runs:
        for name in names:
            o, w = in_bins(run.predictions[name], bins)
            outputs, words = outputs + o, words + w
    return float(char_error_rate(outputs, words)) if words else float("nan")


@torch.no_grad()
def alignments(run: Run, pairs: list[tuple[str, str]]) -> list[np.ndarray]:
    """Teacher-forced attention of each pair over its real characters: (len(word), len(typo)) per pair; the
    end-of-word row is left out, since it has no diagonal position to be compared with."""
    out = []
    for chunk, batch in batches(pairs, run.vocab):
        _, attn = run.model(batch["src"], batch["src_len"], batch["tgt_in"])  # (B, T, S)
        for (typo, word), weights in zip(chunk, attn):
            out.append(weights[:len(word), :len(typo)].numpy())
    return out


def diagonal_kernel(rows: int, cols: int, sigma: float) -> np.ndarray:
    """The pure positional alignment: row t is a Gaussian of width `sigma` centred on the length-scaled
    diagonal mu_t = t (cols - 1) / (rows - 1), normalised over the `cols` source positions. (rows, cols)"""
    centre = np.arange(rows)[:, None] * (cols - 1) / max(rows - 1, 1)  # (rows, 1)
    kernel = np.exp(-0.5 * ((np.arange(cols)[None, :] - centre) / sigma) ** 2)  # (rows, cols)
    return kernel / kernel.sum(axis=1, keepdims=True)


def total_variation(weights: list[np.ndarray], sigma: float) -> float:
    """Mean over all rows of all words of TV(a_t, k_t) = 1/2 sum_j |a_tj - k_tj|: 0 when attention is the
    positional kernel, 1 when the two put their mass on disjoint positions."""
    distances = [0.5 * np.abs(w - diagonal_kernel(*w.shape, sigma)).sum(axis=1) for w in weights]
    return float(np.concatenate(distances).mean())


def offset_profile(weights: list[np.ndarray]) -> np.ndarray:
    """The learned kernel: mean weight at each integer offset (OFFSETS) of a source position from the
    diagonal, over every row of every word. Mass outside the window is dropped."""
    total, rows = np.zeros(len(OFFSETS)), 0
    for w in weights:
        t, s = w.shape
        centre = np.rint(np.arange(t) * (s - 1) / max(t - 1, 1)).astype(int)  # (t,)
        offset = np.arange(s)[None, :] - centre[:, None]  # (t, s)
        for i, d in enumerate(OFFSETS):
            total[i] += w[offset == d].sum()
        rows += t
    return total / rows


def greedy_one(run: Run, typo: str) -> tuple[str, torch.Tensor | None, bool]:
    """(output, attention (1, T, S) or None, whether it ended with EOS) of greedy decoding one word."""
    batch = collate([encode_pair(run.vocab, typo, typo)], run.vocab.pad_id)
    result = greedy(run.model, batch["src"], batch["src_len"])
    return run.vocab.decode(result.ids[0]), result.attn, run.vocab.eos_id in result.ids[0].tolist()


def heatmap(run: Run, typo: str) -> Alignment:
    """Greedy correction of `typo` with its alignment (output characters + the end-of-word step)."""
    output, attn, ended = greedy_one(run, typo)
    labels = list(output) + [EOS] if ended else list(output)  # an unfinished output has no EOS row
    return Alignment(list(typo), labels, attn[0, :len(labels), :len(typo)].numpy(),
                     title=f"{run.kind}: {typo} -> {output}")


def kernel_pairs(sets) -> list[tuple[str, str]]:
    """The pairs the kernel view is measured on: synthetic held-out pairs of 4+ characters on both sides
    (shorter ones have too few positions for a row to differ from any kernel)."""
    return [p for p in sets["synthetic"] if len(p[0]) >= 4 and len(p[1]) >= 4][:KERNEL_WORDS]


def evaluate(runs: list[Run], sets: dict[str, list[tuple[str, str]]]) -> None:
    """Fill in each run's greedy predictions and, for attending kinds, its kernel distances and profile."""
    pairs = kernel_pairs(sets)
    for run in runs:
        print(f"evaluating {run.path.name}")
        run.predictions = {name: predict(run, pairs) for name, pairs in sets.items()}
        if run.kind != "none":
            weights = alignments(run, pairs)
            run.kernel_tv = {sigma: total_variation(weights, sigma) for sigma in SIGMAS}
            run.profile = offset_profile(weights)


def uniform_reference(sets) -> dict[float, float]:
    """TV of uniform attention (every real position equal) from the kernels: the scale a TV is read on."""
    uniform = [np.full((len(w), len(t)), 1 / len(t)) for t, w in kernel_pairs(sets)]
    return {sigma: total_variation(uniform, sigma) for sigma in SIGMAS}


# --- figures ------------------------------------------------------------------------------------------------
# plots.py draws alignments; the two line charts below are specific to this report, so they live here and
# only save through plots.save_figure.


def by_kind(runs: list[Run]) -> dict[str, list[Run]]:
    grouped = defaultdict(list)
    for run in runs:
        grouped[run.kind].append(run)
    return {k: grouped[k] for k in KINDS if k in grouped}


def figure_by_length(runs: list[Run]) -> Figure:
    """Accuracy (top) and CER (bottom) by correct-word length, one line per kind (seeds pooled), synthetic
    held-out words and real dev sets side by side."""
    fig = Figure(figsize=(10, 7), layout="constrained")
    axes = fig.subplots(2, 2)  # not sharex: each column's tick labels carry its own set's counts
    sets = {"synthetic": "synthetic typos of held-out words", "real": "real misspellings (Norvig + Birkbeck dev)"}
    for col, (name, label) in enumerate(sets.items()):
        sizes = [len(in_bins(runs[0].predictions[name], [b])[1]) for b in LENGTH_BINS]
        ticks = [f"{lo}-{hi}\n(n={n})" if hi < 24 else f"{lo}+\n(n={n})" for (lo, hi), n in zip(LENGTH_BINS, sizes)]
        for row, (measure, ylabel) in enumerate(((accuracy, "greedy top-1 accuracy (%)"),
                                                 (cer, "character error rate"))):
            ax = axes[row, col]
            for kind, group in by_kind(runs).items():
                ax.plot(range(len(LENGTH_BINS)), [measure(group, [name], [b]) for b in LENGTH_BINS], marker="o",
                        color=COLOURS[kind], linestyle="--" if kind == "none" else "-", label=kind)
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
        axes[0, col].set_title(label, fontsize=10)
        axes[0, col].set_xticks(range(len(LENGTH_BINS)), labels=[])
        axes[1, col].set_xticks(range(len(LENGTH_BINS)), labels=ticks, fontsize=8)
        axes[1, col].set_xlabel("length of the correct word (letters)")
    axes[0, 0].legend(fontsize=8)
    return fig


def figure_heatmaps(runs: list[Run], typo: str) -> Figure:
    """One alignment per kind (first seed) for the same word; the `none` panel says why it is empty."""
    firsts = [group[0] for group in by_kind(runs).values()]
    attending = [heatmap(r, typo) for r in firsts if r.kind != "none"]
    fig = plot_attention_grid(attending, ncols=3)
    free = fig.axes[len(attending)] if len(fig.axes) > len(attending) else None
    for run in firsts:
        if run.kind == "none" and free is not None:
            free.text(0.05, 0.5, f"none: {typo} -> {greedy_one(run, typo)[0]}\n\nno attention: the decoder sees "
                      "only\nthe encoder's final state,\nso there is no alignment to draw", fontsize=9,
                      va="center", transform=free.transAxes)
    return fig


def figure_kernel(runs: list[Run], uniform: dict[float, float]) -> Figure:
    """Left: distance from the positional kernel as its width varies. Right: the learned kernel (weight by
    offset from the diagonal) beside the fixed Gaussian."""
    fig = Figure(figsize=(10, 4), layout="constrained")
    left, right = fig.subplots(1, 2)
    for kind, group in by_kind(runs).items():
        if kind == "none":
            continue
        left.plot(SIGMAS, [np.mean([r.kernel_tv[s] for r in group]) for s in SIGMAS], marker="o",
                  color=COLOURS[kind], label=kind)
        right.plot(OFFSETS, np.mean([r.profile for r in group], axis=0), marker="o", color=COLOURS[kind],
                   label=kind)
    left.plot(SIGMAS, [uniform[s] for s in SIGMAS], color="black", linestyle=":", label="uniform weights")
    left.axvline(KERNEL_SIGMA, color="grey", linewidth=0.8)
    left.set_xlabel("kernel width sigma (characters)")
    left.set_ylabel("mean total-variation distance")
    left.set_title("learned rows vs a Gaussian on the diagonal", fontsize=10)
    left.legend(fontsize=8)
    gauss = offset_profile([diagonal_kernel(12, 12, KERNEL_SIGMA)])
    right.bar(OFFSETS, gauss, color="lightgrey", label=f"Gaussian, sigma={KERNEL_SIGMA:g}")
    right.set_xlabel("source position - diagonal position (characters)")
    right.set_ylabel("mean attention weight")
    right.set_title("the learned kernel: weight by offset from the diagonal", fontsize=10)
    right.legend(fontsize=8)
    for ax in (left, right):
        ax.grid(alpha=0.3)
    return fig


# --- the report ---------------------------------------------------------------------------------------------


def spread(values: list[float], digits: int = 1, scale: float = 1.0) -> str:
    """'mean ± half-range' of a kind's seeds (half the max-min gap: with two seeds, each seed's distance from
    the mean)."""
    values = [v * scale for v in values if not math.isnan(v)]
    if not values:
        return "-"
    mean, half = statistics.fmean(values), (max(values) - min(values)) / 2
    return f"{mean:.{digits}f} ± {half:.{digits}f}" if len(values) > 1 else f"{mean:.{digits}f}"


def showcase(runs: list[Run]) -> list[str]:
    """Markdown rows: a few real misspellings through the normal correction path (Corrector.load: beam search,
    lexicon, prior) for each kind's first-seed checkpoint; it shows every kind loads and corrects."""
    rows = ["| kind | " + " | ".join(SHOWCASE) + " |", "|---|" + "---|" * len(SHOWCASE)]
    for group in by_kind(runs).values():
        corrector = Corrector.load(group[0].path / "checkpoints" / "last.ckpt")
        rows.append(f"| {group[0].kind} | " + " | ".join(corrector.correct(w) for w in SHOWCASE) + " |")
    return rows


def budget(runs: list[Run], note: str | None) -> list[str]:
    """The sentence a reader needs to repeat the run: data, steps, model, seeds, machine and wall time."""
    cfg, model = runs[0].config, runs[0].config["model"]
    words = cfg["data"]["epoch_size"] * cfg["trainer"]["max_epochs"]
    lines = [
        f"- **Budget, identical for every kind:** {cfg['trainer']['max_epochs']} epochs x "
        f"{cfg['data']['epoch_size']:,} generated pairs = {words:,} training words, batch "
        f"{cfg['data']['batch_size']}, {runs[0].steps:,} optimiser steps (AdamW, lr {model['lr']}, "
        f"{model['warmup_steps']} warm-up steps, cosine decay), no early stopping; the last checkpoint is scored.",
        f"- **Model:** embeddings {model['emb_size']}, bidirectional LSTM encoder {model['enc_layers']} x "
        f"{model['enc_hidden_size']} per direction, decoder LSTM {model['dec_hidden_size']}, additive attention "
        f"size {model['attn_size']}, {model['heads']} heads for multihead, dropout {model['dropout']}.",
        f"- **Seeds:** {', '.join(str(s) for s in sorted({r.seed for r in runs}))} (the seed sets initialisation, "
        "the training words and typos, and the synthetic validation set); every table cell is mean ± half-range "
        "over seeds.",
        f"- **Machine:** {platform.machine()}, {cfg.get('threads') or 'all'} torch thread(s) per run, runs one "
        f"after another; {len(runs)} runs took {sum(r.wall_s for r in runs) / 60:.0f} min of wall time "
        f"(training + validation, {statistics.median(r.wall_s for r in runs):.0f} s median per run).",
    ]
    if note:
        lines.append(f"- **Conditions:** {note}")
    return lines


def table(runs: list[Run]) -> list[str]:
    """The ablation table: one row per kind, training-time metrics plus parameters, long-word scores and the
    kernel distance."""
    head = ("| attention | parameters | training words/CPU-s | (wall words/s) | synthetic val acc (%) | "
            "Norvig top-1 (%) | Birkbeck top-1 (%) | CER synthetic val | CER Birkbeck | long words acc (%) | "
            "long words CER | TV from kernel |")
    rows = [head, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    long_bins, both = [b for b in LENGTH_BINS if b[0] >= LONG_WORD], ("synthetic", "real")
    for kind, group in by_kind(runs).items():
        metric = lambda key: [r.final.get(key, float("nan")) for r in group]  # noqa: E731
        long_acc = [accuracy([r], both, long_bins) for r in group]
        long_cer = [cer([r], both, long_bins) for r in group]
        tv = spread([r.kernel_tv[KERNEL_SIGMA] for r in group], 2) if kind != "none" else "n/a"
        rows.append(f"| {kind} | {group[0].params:,} | {spread([r.speed[SPEEDS[1]] for r in group], 0)} | "
                    f"{spread([r.speed[SPEEDS[0]] for r in group], 0)} | "
                    f"{spread(metric('val/word_acc'), 1, 100)} | {spread(metric('val_norvig/word_acc'), 1, 100)} | "
                    f"{spread(metric('val_birkbeck/word_acc'), 1, 100)} | {spread(metric('val/cer'), 3)} | "
                    f"{spread(metric('val_birkbeck/cer'), 3)} | {spread(long_acc)} | {spread(long_cer, 3)} | {tv} |")
    return rows


def headline(runs: list[Run], uniform: dict[float, float]) -> list[str]:
    """Three sentences computed from this sweep (so they stay true when it is re-run): what attention does to
    short and long words, which kind trains fastest and slowest per CPU-second, how positional the alignments are."""
    groups = by_kind(runs)
    attending = {k: g for k, g in groups.items() if k != "none"}
    lines = []
    if "none" in groups and attending:
        def compare(bins) -> str:
            scores = [accuracy(g, ["synthetic"], bins) for g in attending.values()]
            return (f"{accuracy(groups['none'], ['synthetic'], bins):.1f}% without attention against "
                    f"{min(scores):.1f}-{max(scores):.1f}% with it")
        short, long_ = [b for b in LENGTH_BINS if b[1] <= 6], [b for b in LENGTH_BINS if b[0] >= LONG_WORD]
        lines.append(f"- **Length:** greedy accuracy on synthetic held-out words of 2-6 letters is {compare(short)}; "
                     f"on words of {LONG_WORD}+ letters it is {compare(long_)}.")
    speed = {k: statistics.fmean(r.speed[SPEEDS[1]] for r in g) for k, g in groups.items()}
    fast, slow = max(speed, key=speed.get), min(speed, key=speed.get)
    lines.append(f"- **Speed:** per CPU-second, {fast} trains fastest ({speed[fast]:,.0f} words) and {slow} slowest "
                 f"({speed[slow]:,.0f}).")
    if attending:
        best = {k: min((statistics.fmean(r.kernel_tv[s] for r in g), s) for s in SIGMAS) for k, g in attending.items()}
        narrow, wide = min(best, key=lambda k: best[k][1]), max(best, key=lambda k: best[k][1])
        fixed = [statistics.fmean(r.kernel_tv[KERNEL_SIGMA] for r in g) for g in attending.values()]
        lines.append(f"- **Kernel:** from the fixed sigma={KERNEL_SIGMA:g} Gaussian on the diagonal, the attending "
                     f"kinds' rows are at mean TV {min(fixed):.2f}-{max(fixed):.2f}, uniform attention at "
                     f"{uniform[KERNEL_SIGMA]:.2f}; the best-fitting widths run from sigma={best[narrow][1]:g} "
                     f"({narrow}) to sigma={best[wide][1]:g} ({wide}).")
    return lines


def length_gap(runs: list[Run]) -> list[str]:
    """What attention buys by length: each attending kind's CER and accuracy next to `none`'s, on short and on
    long words (synthetic and real pooled), so the claim "it matters most on long words" is read off numbers."""
    groups = by_kind(runs)
    if "none" not in groups or len(groups) < 2:
        return []
    short, long_ = [b for b in LENGTH_BINS if b[1] <= 6], [b for b in LENGTH_BINS if b[0] >= LONG_WORD]
    both = ("synthetic", "real")
    lines = ["| attention | CER, 2-6 letters | CER, 11+ letters | acc 2-6 (%) | acc 11+ (%) |", "|---|--:|--:|--:|--:|"]
    for kind, group in groups.items():
        lines.append(f"| {kind} | {cer(group, both, short):.3f} | {cer(group, both, long_):.3f} | "
                     f"{accuracy(group, both, short):.1f} | {accuracy(group, both, long_):.1f} |")
    return lines


def kernel_summary(runs: list[Run], uniform: dict[float, float]) -> list[str]:
    """One line per attending kind: TV at the fixed width and the width that fits it best."""
    lines = []
    for kind, group in by_kind(runs).items():
        if kind == "none":
            continue
        means = {s: np.mean([r.kernel_tv[s] for r in group]) for s in SIGMAS}
        best = min(means, key=means.get)
        lines.append(f"- **{kind}**: TV {means[KERNEL_SIGMA]:.2f} from the sigma={KERNEL_SIGMA:g} kernel; closest "
                     f"positional kernel sigma={best:g} (TV {means[best]:.2f}).")
    lines.append(f"- For scale: uniform attention is at TV {uniform[KERNEL_SIGMA]:.2f} from the "
                 f"sigma={KERNEL_SIGMA:g} kernel.")
    return lines


def write_report(runs: list[Run], sweep: Path, docs: Path, uniform, showcase_rows: list[str],
                 note: str | None) -> Path:
    """docs/ablation.md: budget, table, figures and the kernel view, all from this sweep."""
    text = [
        "# What attention buys: the ablation",
        "",
        "Generated by `make ablation` (`typofix-train -m experiment=ablation ...` then `python -m bench.ablation`) "
        f"from the sweep `{sweep}`. One small model per attention kind (`model.attention=`), everything else equal: "
        "the query is always the previous decoder state, the decoder loop and `Decoder.step` are shared.",
        "",
        *budget(runs, note),
        "",
        "## Results",
        "",
        *headline(runs, uniform),
        "",
        *table(runs),
        "",
        "- *synthetic val acc*, *Norvig / Birkbeck top-1* and the CERs are what training logged at its last "
        "validation: greedy decoding of the model alone (no lexicon, no beam), exact match, on the synthetic "
        "held-out words and on `data/eval/norvig-testset1.tsv` and `birkbeck-dev.tsv`.",
        f"- *long words*: greedy accuracy and CER on correct words of {LONG_WORD}+ letters, synthetic held-out "
        f"({EVAL_WORDS:,} words, typo seed {EVAL_SEED}) and real dev pairs pooled, measured on the checkpoint.",
        "- *training words/CPU-s*: `train/words_per_cpu_sec` from `typofix.training.callbacks.WordsPerSecond`: training "
        "words over the training loop's process CPU time (data, forward, backward, optimiser; validation "
        "excluded; one torch thread), median over epochs. It is what one dedicated core would do, and it does not "
        "depend on what else the machine ran. *(wall words/s)* is the same over wall-clock time, as measured on "
        "the shared machine: it shows the contention, not the kinds.",
        f"- *TV from kernel*: see [attention as a kernel](#attention-as-a-kernel); sigma = {KERNEL_SIGMA:g}.",
        "",
        "![accuracy by word length](ablation_by_length.png)",
        "",
        "Greedy accuracy (top) and character error rate (bottom) by the length of the correct word, seeds "
        "pooled. Without attention the whole word must pass through the encoder's final state, so the gap to the "
        "attending kinds should grow with length. The same, short against long words (seeds, synthetic and real "
        "pooled):",
        "",
        *length_gap(runs),
        "",
        f"![one alignment per kind](ablation_heatmaps.png)",
        "",
        f"The same real misspelling, *{HEATMAP_PAIR[0]}* (correct: *{HEATMAP_PAIR[1]}*), through each kind's "
        "seed-1 model: rows are output characters (and the end-of-word step), columns the input; white is weight 1.",
        "",
        "### Through the normal correction path",
        "",
        "Each kind's seed-1 checkpoint loaded by `Corrector.load` (beam search, lexicon constraint, frequency "
        "prior: what `typofix correct --model <ckpt>` does):",
        "",
        *showcase_rows,
        "",
        "## Attention as a kernel",
        "",
        "A spelling corrector's alignment is close to monotone, so a fixed positional kernel is a natural null "
        "model: row t of a Gaussian centred on the length-scaled diagonal mu_t = t (S-1)/(T-1) (S input, T output "
        f"characters). Over {KERNEL_WORDS} synthetic held-out pairs (teacher-forced on the correct word, "
        "end-of-word row left out) we take the total-variation distance TV = 1/2 sum_j |a_tj - k_tj| of every "
        "learned row a_t from the kernel row k_t and average: 0 means attention *is* a positional smoothing "
        "filter, 1 means it puts its mass elsewhere.",
        "",
        *kernel_summary(runs, uniform),
        "",
        "![attention as a kernel](ablation_kernel.png)",
        "",
        "Left: mean TV as the kernel's width varies (the dotted line is uniform attention). Right: the learned "
        "kernel, the mean weight at each offset from the diagonal position, beside the fixed Gaussian's.",
        "",
    ]
    path = docs / "ablation.md"
    path.write_text("\n".join(text), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", type=Path, help="a sweep folder (default: the newest under multirun/ablation)")
    parser.add_argument("--docs", type=Path, default=Path("docs"), help="where ablation.md and the PNGs go")
    parser.add_argument("--note", help="one line on the machine's conditions, added to the budget")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # the numbers are small; one thread does not fight a training job for the CPU
    sweep = args.sweep or newest_sweep(SWEEP_ROOT)
    runs = collect(sweep)
    sets = evaluation_pairs(runs[0].vocab.alphabet)
    evaluate(runs, sets)
    uniform = uniform_reference(sets)
    args.docs.mkdir(parents=True, exist_ok=True)
    save_figure(figure_by_length(runs), args.docs / "ablation_by_length.png")
    save_figure(figure_heatmaps(runs, HEATMAP_PAIR[0]), args.docs / "ablation_heatmaps.png")
    if any(r.kind != "none" for r in runs):
        save_figure(figure_kernel(runs, uniform), args.docs / "ablation_kernel.png")
    print(f"wrote {write_report(runs, sweep, args.docs, uniform, showcase(runs), args.note)}")


if __name__ == "__main__":
    main()
