"""The figures (`typofix.insight.plots`): attention heatmaps with their ticks, marks and grids, the embedding map
and its animation, written by suffix without a temporary file left."""

import re
from pathlib import Path

import numpy as np
import pytest
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from PIL import Image

from typofix.insight import plots
from typofix.insight.plots import (ATTENTION_CMAP, ATTENTION_COLOURS, AXIS_TITLES, PHONE_AXIS_TITLES, Alignment,
                                   animate_embeddings, figure_to_rgb, plot_attention, plot_attention_grid,
                                   plot_embeddings, save_figure)

SYMBOLS = list("abcdefghijklmnopqrstuvwxyz'-")


def weights_for(src: str, out: list[str]) -> np.ndarray:
    """Rows that sum to one, like attention."""
    w = np.random.default_rng(0).random((len(out), len(src)))
    return w / w.sum(axis=1, keepdims=True)


def tick_texts(labels) -> list[str]:
    return [label.get_text() for label in labels]


def test_attention_ticks_are_the_characters_and_the_end_of_word():
    out = list("receive") + ["</s>"]
    fig = plot_attention("recieve", out, weights_for("recieve", out))
    ax = fig.axes[0]
    assert tick_texts(ax.get_xticklabels()) == list("recieve")
    assert tick_texts(ax.get_yticklabels()) == out
    image = ax.images[0]
    assert image.get_clim() == (0.0, 1.0) and image.get_cmap() is ATTENTION_CMAP


def test_darker_is_more_attention_in_the_explorers_colours():
    """Weight 0 is the lightest colour and 1 the darkest, in the two colours the explorer's heatmap draws
    (typofix/apps/static/app.js), so that a picture and the page read alike."""
    app = (Path(plots.__file__).parents[1] / "apps" / "static" / "app.js").read_text(encoding="utf-8")
    declared = re.search(r"const ATTENTION_COLOURS = \[(.*?)\];", app)
    assert declared and re.findall(r'"(#[0-9a-f]{6})"', declared.group(1)) == list(ATTENTION_COLOURS)
    lightness = [sum(ATTENTION_CMAP(w)[:3]) for w in np.linspace(0, 1, 11)]
    assert lightness == sorted(lightness, reverse=True) and lightness[0] > 2.9 > 1.0 > lightness[-1]
    np.testing.assert_allclose(ATTENTION_CMAP(0.0)[:3], to_rgb(ATTENTION_COLOURS[0]))
    np.testing.assert_allclose(ATTENTION_CMAP(1.0)[:3], to_rgb(ATTENTION_COLOURS[1]))


def test_attention_axes_are_titled_and_the_weight_scale_is_beside_them():
    out = list("receive") + ["</s>"]
    fig = plot_attention("recieve", out, weights_for("recieve", out))
    ax = fig.axes[0]
    assert "input" in ax.get_xlabel() and "output" in ax.get_ylabel()
    bar = ax.images[0].colorbar  # set by fig.colorbar(image): the scale reads this matrix's colours
    assert bar is not None and bar.ax in fig.axes and len(fig.axes) == 2
    assert (bar.vmin, bar.vmax) == (0.0, 1.0) and bar.cmap is ATTENTION_CMAP
    assert bar.ax.get_ylabel() == "attention weight"
    # Drawn into a given axes (a panel of someone else's figure), it adds no scale of its own.
    panel = Figure().add_subplot()
    assert plot_attention("recieve", out, weights_for("recieve", out), ax=panel) is panel.figure
    assert panel.images[0].colorbar is None and panel.figure.axes == [panel]


def test_attention_marks_colour_the_typo_characters():
    out = list("receive") + ["</s>"]
    ax = plot_attention("recieve", out, weights_for("recieve", out), marks=[(3, 5)], title="t").axes[0]
    coloured = [label.get_text() for label in ax.get_xticklabels() if label.get_color() != "black"]
    assert coloured == ["i", "e"]
    assert ax.get_title(loc="left") == "t"


def test_attention_rejects_weights_of_the_wrong_shape():
    with pytest.raises(ValueError, match="expected"):
        plot_attention("abc", ["a", "</s>"], np.zeros((3, 3)))


def test_grid_has_one_labelled_panel_per_word_and_hides_the_spare_cells():
    words = ["teh", "recieve", "goverment"]
    alignments = [Alignment(w, list(w) + ["</s>"], weights_for(w, list(w) + ["</s>"]), title=w) for w in words]
    fig = plot_attention_grid(alignments)
    panels = [ax for ax in fig.axes if ax.images or not ax.axison]
    visible = [ax for ax in panels if ax.axison]
    assert len(visible) == 3 and len(panels) == 4  # a 2 x 2 grid, one cell left empty
    assert fig.axes[:4] == panels  # the panels first, in order (bench.ablation writes into the empty one)
    assert [tick_texts(ax.get_xticklabels()) for ax in visible] == [list(w) for w in words]
    assert all("input" in ax.get_xlabel() and "output" in ax.get_ylabel() for ax in visible)
    # One weight scale for the whole grid, 0 to 1 like every panel.
    bars = [image.colorbar for ax in visible for image in ax.images if image.colorbar is not None]
    assert len(bars) == 1 and len(fig.axes) == 5 and bars[0].ax is fig.axes[4]
    assert (bars[0].vmin, bars[0].vmax) == (0.0, 1.0) and bars[0].ax.get_ylabel() == "attention weight"
    assert all(image.get_clim() == (0.0, 1.0) for ax in visible for image in ax.images)


def test_a_letters_to_phones_panel_names_its_axes_and_rows_so():
    out = ["F", "OW", "N", "</s>"]  # phone_labels("F7N") and the end of the word
    alignments = [Alignment("fone", out, weights_for("fone", out), axis_titles=PHONE_AXIS_TITLES),
                  Alignment("teh", list("the") + ["</s>"], weights_for("teh", list("the") + ["</s>"]))]
    phones, letters = plot_attention_grid(alignments, ncols=2).axes[:2]
    assert tick_texts(phones.get_yticklabels()) == out
    assert (phones.get_xlabel(), phones.get_ylabel()) == PHONE_AXIS_TITLES
    assert (letters.get_xlabel(), letters.get_ylabel()) == AXIS_TITLES  # the default: a correction's


def test_embedding_map_draws_every_symbol_once_in_its_class_colour():
    weights = np.random.default_rng(1).normal(size=(len(SYMBOLS), 8))
    ax = plot_embeddings(weights, SYMBOLS).axes[0]
    texts = ax.texts
    assert [t.get_text() for t in texts] == SYMBOLS
    colour = {t.get_text(): t.get_color() for t in texts}
    assert colour["a"] == colour["e"] != colour["b"] == colour["z"] != colour["'"]
    assert sum(len(c.get_offsets()) for c in ax.collections) == len(SYMBOLS)  # one point per symbol
    assert "% of variance" in ax.get_xlabel() and "% of variance" in ax.get_ylabel()


def test_normalized_map_ignores_row_lengths():
    weights = np.random.default_rng(3).normal(size=(len(SYMBOLS), 8))
    scaled = weights * np.arange(1, len(SYMBOLS) + 1)[:, None]  # frequent characters' rows shrink, say
    where = lambda fig: np.array([t.get_position() for t in fig.axes[0].texts])  # noqa: E731
    assert np.allclose(where(plot_embeddings(weights, SYMBOLS)), where(plot_embeddings(scaled, SYMBOLS)))
    assert not np.allclose(where(plot_embeddings(weights, SYMBOLS, normalize=False)),
                           where(plot_embeddings(scaled, SYMBOLS, normalize=False)))


def test_gif_has_one_frame_per_snapshot(tmp_path):
    rng = np.random.default_rng(2)
    snapshots = {epoch: rng.normal(size=(len(SYMBOLS), 8)) for epoch in range(4)}
    path = animate_embeddings(snapshots, SYMBOLS, tmp_path / "emb.gif")
    with Image.open(path) as gif:
        assert gif.format == "GIF" and gif.n_frames == 4
    assert [p.name for p in tmp_path.iterdir()] == ["emb.gif"]  # no temporary file left behind


def test_animation_wants_a_gif_name(tmp_path):
    with pytest.raises(ValueError, match="gif"):
        animate_embeddings({0: np.zeros((28, 4))}, SYMBOLS, tmp_path / "emb.png")


def test_save_figure_picks_the_format_by_suffix_and_leaves_no_temporary_file(tmp_path):
    fig = plot_attention("ab", ["a", "b", "</s>"], weights_for("ab", ["a", "b", "</s>"]))
    save_figure(fig, tmp_path / "a.png")
    save_figure(fig, tmp_path / "sub" / "a.svg")
    assert (tmp_path / "a.png").read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in (tmp_path / "sub" / "a.svg").read_bytes()[:2000]
    with pytest.raises(ValueError, match=r"\.png or \.svg"):
        save_figure(fig, tmp_path / "a.jpg")
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["a.png", "a.svg"]


def test_figure_to_rgb_is_an_image_array():
    fig = plot_embeddings(np.eye(len(SYMBOLS), 4), SYMBOLS)
    rgb = figure_to_rgb(fig, dpi=50)
    assert rgb.dtype == np.uint8 and rgb.ndim == 3 and rgb.shape[2] == 3 and rgb.shape[0] > 100
