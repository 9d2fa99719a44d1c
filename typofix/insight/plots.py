"""Pictures of what the model learned: attention alignments and character-embedding maps.

The only module that imports matplotlib. It takes arrays and labels, never a model, and returns `Figure`s
(never `plt.show()`). It uses `matplotlib.figure.Figure` with the Agg canvas directly instead of pyplot, so
there is no global figure registry to leak into and no display backend is ever chosen.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
from matplotlib.animation import PillowWriter
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from typofix.files.atomic import atomic_path
from typofix.insight.charmap import char_class, check_rows, pca, project, unit_rows

IMAGE_FORMATS = {".png": "png", ".svg": "svg"}
# Vowels / consonants / everything else (apostrophe, hyphen, specials): colour-blind-safe Okabe-Ito hues.
CLASS_COLOURS = {"vowel": "#D55E00", "consonant": "#0072B2", "other": "#777777"}
MARK_COLOUR = "#D55E00"
# Attention weight 0 to 1: white to deep blue, darker = more attention, in a straight line between the two (the
# explorer's heatmap draws the same two colours so: typofix/apps/static/app.js, ATTENTION_COLOURS), so that a
# picture and the page read alike, on paper too.
ATTENTION_COLOURS = ("#f7fbff", "#08306b")
ATTENTION_CMAP = LinearSegmentedColormap.from_list("attention", ATTENTION_COLOURS)
CELL_INCHES = 0.32  # one attention cell: big enough for a 9 pt character label
COLORBAR_INCHES = 0.9  # the attention scale beside the matrices, with its label
INPUT_TITLE = "input: the typo's characters"
OUTPUT_TITLE = "output: the characters written"
WEIGHT_TITLE = "attention weight"
AXIS_TITLES = (INPUT_TITLE, OUTPUT_TITLE)
PHONE_AXIS_TITLES = ("input: the word's letters", "output: the phones written (ARPAbet)")  # letters to phones


class Alignment(NamedTuple):
    """One word's attention picture: the input and output labels, weights (len(out), len(src)), and the
    input spans to mark as the typo: (start, end) outlines columns start..end-1, start == end marks the gap
    before column start (characters missing there). `axis_titles`: the input's and the output's (the letter-to-
    phone model's are PHONE_AXIS_TITLES)."""

    src_chars: Sequence[str]
    out_chars: Sequence[str]
    weights: np.ndarray
    marks: Sequence[tuple[int, int]] = ()
    title: str | None = None
    axis_titles: tuple[str, str] = AXIS_TITLES


# --- attention ----------------------------------------------------------------------------------------------


def plot_attention(src_chars: Sequence[str], out_chars: Sequence[str], weights, *,
                   marks: Sequence[tuple[int, int]] = (), title: str | None = None, ax=None,
                   colorbar: bool | None = None, axis_titles: tuple[str, str] = AXIS_TITLES) -> Figure:
    """The alignment matrix as in Bahdanau et al. (2015), Fig. 3: weight a_tj of input character j (x) when writing
    output character t (y), white 0 to deep blue 1 (darker = more attention), each axis titled. Pass the end-of-word
    step's label (e.g. "</s>") as the last output character so the row that ends the word is named. Draws into `ax`
    when given. `colorbar`: draw the weight scale beside it; by default only on a figure of its own (a grid draws
    one scale for all its panels). `axis_titles`: the input's and the output's."""
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (len(out_chars), len(src_chars)):
        raise ValueError(f"weights have shape {weights.shape}, expected (outputs, inputs) = "
                         f"({len(out_chars)}, {len(src_chars)})")
    if colorbar is None:
        colorbar = ax is None
    if ax is None:
        fig = _new_figure(max(2.5, CELL_INCHES * len(src_chars) + 1.6) + (COLORBAR_INCHES if colorbar else 0.0),
                          max(2.0, CELL_INCHES * len(out_chars) + 1.4))
        fig.get_layout_engine().set(w_pad=0.1, h_pad=0.1)
        ax = fig.add_subplot()
    image = ax.imshow(weights, cmap=ATTENTION_CMAP, vmin=0.0, vmax=1.0, aspect="equal", interpolation="nearest")
    ax.set_xticks(range(len(src_chars)), labels=list(src_chars), fontsize=9)
    ax.set_yticks(range(len(out_chars)), labels=list(out_chars), fontsize=9)
    # Input along the top, read left to right like the word; output top to bottom, as in the paper.
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.tick_params(length=0)
    ax.set_xlabel(axis_titles[0], fontsize=8, loc="left")  # from the first column, however short the word
    ax.set_ylabel(axis_titles[1], fontsize=8, loc="top")
    # A frame around the matrix itself, not the axes: in a grid the axes may be larger than a short word,
    # and a near-white (weight 0) cell must not melt into the background.
    ax.set_frame_on(False)
    ax.add_patch(Rectangle((-0.5, -0.5), len(src_chars), len(out_chars), fill=False, edgecolor="black",
                           linewidth=0.8))
    ax.set_anchor("NW")
    for start, end in marks:
        _mark_span(ax, start, end, len(out_chars))
    if title:
        # Above the input characters and their axis title, which sit along the top.
        ax.set_title(title, fontsize=8, loc="left", pad=4)
    if colorbar:
        _add_colorbar(ax.figure, image, [ax])
    return ax.figure


def _add_colorbar(fig: Figure, image, axes) -> None:
    """The weight scale, white 0 to deep blue 1, beside `axes`, framed so that its white end shows."""
    bar = fig.colorbar(image, ax=axes, shrink=0.8, aspect=25, pad=0.02)
    bar.set_label(WEIGHT_TITLE, fontsize=8)
    bar.ax.tick_params(labelsize=7)
    bar.outline.set_linewidth(0.8)


def _mark_span(ax, start: int, end: int, n_rows: int) -> None:
    """Outline the input columns a typo occupies (a red line in the gap when the typo lost characters) and
    colour their tick labels, so the reader sees where the model found the error."""
    if start == end:  # something is missing here: mark the gap between two columns
        ax.axvline(start - 0.5, color=MARK_COLOUR, linewidth=2.5)
        return
    ax.add_patch(Rectangle((start - 0.5, -0.5), end - start, n_rows, fill=False, edgecolor=MARK_COLOUR,
                           linewidth=2.0, clip_on=False))
    for label in ax.get_xticklabels()[start:end]:
        label.set_color(MARK_COLOUR)
        label.set_fontweight("bold")


def plot_attention_grid(alignments: Sequence[Alignment], ncols: int | None = None) -> Figure:
    """Several words' alignments in a near-square grid, every panel sized for the longest word."""
    if not alignments:
        raise ValueError("no alignments to plot")
    ncols = ncols or math.ceil(math.sqrt(len(alignments)))
    nrows = -(-len(alignments) // ncols)
    cols = max(len(a.src_chars) for a in alignments)
    rows = max(len(a.out_chars) for a in alignments)
    fig = _new_figure(ncols * (CELL_INCHES * cols + 1.6) + COLORBAR_INCHES, nrows * (CELL_INCHES * rows + 1.6))
    fig.get_layout_engine().set(w_pad=0.1, h_pad=0.1)  # inches: the matrices' frames sit on the axes' edges
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax, alignment in zip(axes, alignments):
        plot_attention(alignment.src_chars, alignment.out_chars, alignment.weights, marks=alignment.marks,
                       title=alignment.title, ax=ax, colorbar=False, axis_titles=alignment.axis_titles)
        # One scale for every panel: a short word gets small cells in the corner, not giant ones.
        ax.set_xlim(-0.5, cols - 0.5)
        ax.set_ylim(rows - 0.5, -0.5)
    for ax in axes[len(alignments):]:
        ax.set_axis_off()
    # One weight scale for the grid, added after the panels so that fig.axes lists them first, in order.
    _add_colorbar(fig, axes[0].images[0], list(axes))
    return fig


# --- embeddings -------------------------------------------------------------------------------------------


def plot_embeddings(weights, symbols: Sequence[str], title: str | None = None, normalize: bool = True) -> Figure:
    """Character embeddings (one row per symbol) projected on their first two principal components, each
    character drawn as its own label, vowels / consonants / other symbols in three colours.

    With `normalize` (the default) every row is scaled to unit length first, so the map shows directions
    (which characters the model treats alike) rather than lengths, which mostly track how often a character
    was seen in training: without it the frequent vowels shrink towards the centre among the consonants."""
    points, explained = project(weights, symbols, normalize)  # (N, 2)
    fig = _new_figure(5.0, 4.6)
    ax = fig.add_subplot()
    _draw_map(ax, points, symbols, explained, _limits(points))
    if title:
        ax.set_title(title, fontsize=10)
    return fig


def animate_embeddings(snapshots: Mapping[int, np.ndarray], symbols: Sequence[str], path: str | os.PathLike,
                       fps: float = 2.0, dpi: int = 80, normalize: bool = True) -> Path:
    """Write a GIF of the embedding map across training, one frame per snapshot (keyed by epoch, in order);
    `normalize` as for `plot_embeddings`.

    The projection (components and axis limits) is fitted once, on the last snapshot, so a character's
    movement between frames is the model's doing and not a re-fitted PCA flipping or rotating its axes."""
    path = Path(path)
    if path.suffix.lower() != ".gif":
        raise ValueError(f"an animation is written as .gif, got {path.name!r}")
    if not snapshots:
        raise ValueError("no embedding snapshots to animate")
    matrices = [np.asarray(m, dtype=float) for m in snapshots.values()]
    for matrix in matrices:
        check_rows(matrix, symbols)
    if normalize:
        matrices = [unit_rows(m) for m in matrices]
    _, components, explained = pca(matrices[-1])
    # Each frame is centred on its own mean: a drift of the whole cloud says nothing about the characters.
    frames = [(m - m.mean(axis=0)) @ components.T for m in matrices]  # (N, E) @ (E, 2) -> (N, 2)
    limits = _limits(np.concatenate(frames))
    fig = _new_figure(5.0, 4.6)
    ax = fig.add_subplot()
    writer = PillowWriter(fps=fps)
    with atomic_path(path) as tmp, writer.saving(fig, str(tmp), dpi):
        for epoch, points in zip(snapshots, frames):
            ax.clear()
            _draw_map(ax, points, symbols, explained, limits, fitted_on="last epoch")
            ax.set_title(f"epoch {epoch}", fontsize=10)
            writer.grab_frame()
    return path


def _limits(points: np.ndarray) -> tuple[tuple[float, float], tuple[float, float]]:
    """Axis limits with a margin, so labels at the edge stay inside the frame."""
    low, high = points.min(axis=0), points.max(axis=0)
    pad = 0.08 * np.maximum(high - low, 1e-6)
    return (low[0] - pad[0], high[0] + pad[0]), (low[1] - pad[1], high[1] + pad[1])


def _draw_map(ax, points: np.ndarray, symbols: Sequence[str], explained: np.ndarray, limits,
              fitted_on: str | None = None) -> None:
    """The embedding map itself: a text label per symbol (a faint dot under it), a legend of the classes."""
    classes = [char_class(s) for s in symbols]
    for kind, colour in CLASS_COLOURS.items():
        rows = [i for i, c in enumerate(classes) if c == kind]
        ax.scatter(points[rows, 0], points[rows, 1], s=60, color=colour, alpha=0.15, linewidths=0)
        if rows:  # text is not an artist a legend lists: an empty, opaque marker carries the entry
            ax.scatter([], [], s=30, color=colour, label=f"{kind} ({len(rows)})")
    for (x, y), symbol, kind in zip(points, symbols, classes):
        ax.text(x, y, symbol, color=CLASS_COLOURS[kind], fontsize=11 if len(symbol) == 1 else 7,
                fontweight="bold", ha="center", va="center")
    suffix = f" of {fitted_on}" if fitted_on else ""
    ax.set_xlabel(f"PC1{suffix} ({100 * explained[0]:.1f}% of variance)", fontsize=9)
    ax.set_ylabel(f"PC2{suffix} ({100 * explained[1]:.1f}% of variance)", fontsize=9)
    ax.set_xlim(*limits[0])
    ax.set_ylim(*limits[1])
    ax.tick_params(labelsize=7)
    ax.legend(loc="best", fontsize=8, frameon=False)


# --- output -------------------------------------------------------------------------------------------------


def _new_figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)  # attaches itself as fig.canvas: rendering is Agg whatever backend is configured
    return fig


def image_format(path: str | os.PathLike) -> str:
    """'png' or 'svg' from the file's suffix; ValueError for anything else (checked before any work is done)."""
    suffix = Path(path).suffix.lower()
    if suffix not in IMAGE_FORMATS:
        raise ValueError(f"cannot write {os.fspath(path)!r}: the file name must end in "
                         f"{' or '.join(IMAGE_FORMATS)}")
    return IMAGE_FORMATS[suffix]


def save_figure(fig: Figure, path: str | os.PathLike, dpi: int = 100) -> Path:
    """Write `fig` as PNG or SVG (by suffix), atomically: a reader never sees a half-written image."""
    fmt = image_format(path)
    path = Path(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=fmt, dpi=dpi)
    return path


def figure_to_rgb(fig: Figure, dpi: int = 100) -> np.ndarray:
    """The rendered figure as an (H, W, 3) uint8 array, for loggers that take images (TensorBoard)."""
    fig.set_dpi(dpi)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()
