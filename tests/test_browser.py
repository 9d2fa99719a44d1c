"""The attention explorer in a real browser: Debian's headless Chromium loads /?q=recieve from a running
`typofix serve` subprocess, and the DOM its script builds holds the correction and heatmaps whose cells carry the
model's own attention weights; driven over its DevTools pipe, a click on another candidate shows that candidate's
alignment, hovering a cell shows its weight, and a new query gets its own shareable address. Skips where
/usr/bin/chromium is absent; `make test-browser` installs it."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import numpy as np
import pytest

from conftest import random_checkpoint
from tests.explorer import CHROMIUM, Browser, dump_dom, served
from tests.test_serve import correct
from typofix.engine.corrector import Corrector
from typofix.engine.pronounce import Pronouncer
from typofix.files.modelfile import bundled_onnx_path, resolve_model
from typofix.insight.plots import ATTENTION_CMAP, ATTENTION_COLOURS

pytestmark = [pytest.mark.skipif(not CHROMIUM.is_file(), reason="needs /usr/bin/chromium (make test-browser)"),
              pytest.mark.skipif(not bundled_onnx_path().is_file(), reason="no bundled ONNX model yet")]


class Page(HTMLParser):
    """What the test reads from the dumped DOM: per model panel, its candidate buttons and its heatmap cells."""

    def __init__(self, dom: str):
        super().__init__()
        # {"model", "candidates", "pressed", "cells": {(t, j): weight}, "fills": {(t, j): colour}, "rows",
        #  "scale": the weight scale's colours, weight 0's first}
        self.panels: list[dict] = []
        self.symbols: dict[str, str] = {}  # embedding map: symbol -> class
        self.corrected: list[str] = []
        self._in_corrected = self._in_row = False
        self.feed(dom)

    def handle_starttag(self, tag: str, attrs) -> None:
        a = dict(attrs)
        if tag == "div" and a.get("class") in ("panel", "panel pronounce"):
            model = a["data-model"]  # a corrector's index, or "pronounce"
            self.panels.append({"model": int(model) if model.isdigit() else model, "candidates": [], "pressed": None,
                                "cells": {}, "fills": {}, "rows": [], "scale": []})
        elif tag == "button" and "data-word" in a:
            self.panels[-1]["candidates"].append(a["data-word"])
            if a.get("aria-pressed") == "true":
                self.panels[-1]["pressed"] = a["data-word"]
        elif tag == "rect" and "data-weight" in a:
            self.panels[-1]["cells"][int(a["data-out"]), int(a["data-in"])] = float(a["data-weight"])
            self.panels[-1]["fills"][int(a["data-out"]), int(a["data-in"])] = a["fill"]
        elif tag == "stop":
            self.panels[-1]["scale"].append(a["stop-color"])
        elif tag == "g" and "data-symbol" in a:
            self.symbols[a["data-symbol"]] = a["class"]
        elif tag == "span" and a.get("class") == "line":
            self._in_corrected = True
        elif tag == "text" and a.get("class", "").startswith("out"):
            self._in_row = True

    def handle_endtag(self, tag: str) -> None:
        self._in_corrected = self._in_corrected and tag != "span"
        self._in_row = False

    def handle_data(self, data: str) -> None:
        if self._in_corrected:
            self.corrected.append(data)
        if self._in_row:
            self.panels[-1]["rows"].append(data)


def matrix(cells: dict[tuple[int, int], float]) -> np.ndarray:
    rows, cols = max(t for t, _ in cells) + 1, max(j for _, j in cells) + 1
    assert len(cells) == rows * cols  # every cell drawn once
    out = np.zeros((rows, cols))
    for (t, j), weight in cells.items():
        out[t, j] = weight
    return out


def test_the_page_shows_the_correction_and_the_models_attention():
    with served() as (base, _):
        page = Page(dump_dom(base + "/?q=recieve"))
        api = correct(base, "recieve")
    expected = Corrector.load(resolve_model()).explain("recieve", 5)
    assert page.corrected == ["receive"]
    [panel] = page.panels
    assert panel["candidates"] == [c.word for c in expected] and panel["pressed"] == "receive"
    shown = matrix(panel["cells"])  # (T, S): receive + </s> down, recieve across
    np.testing.assert_allclose(shown, expected[0].attn, atol=1e-3)
    np.testing.assert_allclose(shown, api["words"][0]["results"][0]["candidates"][0]["attn"], atol=1e-9)
    assert len(page.symbols) == 28 and [s for s, kind in page.symbols.items() if kind == "vowel"] == list("aeiou")


def test_darker_is_more_attention_in_the_colours_of_the_pngs_with_a_scale():
    """The heatmap draws each weight in the colour `typofix plot-attention` gives it (darker = more attention),
    beside a weight scale from weight 0's colour to weight 1's, as the PNGs' colour bar."""
    with served() as (base, _):
        [panel] = Page(dump_dom(base + "/?q=recieve")).panels
    assert panel["scale"] == list(ATTENTION_COLOURS)
    for cell, weight in panel["cells"].items():
        drawn = [int(c) for c in re.fullmatch(r"rgb\((\d+),(\d+),(\d+)\)", panel["fills"][cell]).groups()]
        np.testing.assert_allclose(drawn, 255 * np.array(ATTENTION_CMAP(weight)[:3]), atol=2)


def test_several_models_side_by_side(tiny_ckpt, tmp_path):
    no_attention = random_checkpoint(tmp_path / "none.ckpt", "none")
    with served("--model", str(bundled_onnx_path()), "--model", str(tiny_ckpt), "--model", str(no_attention)) as (
            base, _):
        page = Page(dump_dom(base + "/?q=recieve"))
    models = [Corrector.load(bundled_onnx_path()), Corrector.load(tiny_ckpt)]
    assert [p["model"] for p in page.panels] == [0, 1, 2]
    for panel, corrector in zip(page.panels, models):
        best = corrector.explain("recieve", 5)[0]
        assert panel["pressed"] == best.word
        np.testing.assert_allclose(matrix(panel["cells"]), best.attn, atol=1e-3)
    assert page.panels[2]["candidates"] and not page.panels[2]["cells"]  # attention=none: no heatmap to draw


def test_the_pronounce_view_shows_letters_to_phones_in_arpabet():
    """/?q=...&view=pronounce: a panel per word with the letter-to-phone model's pronunciations, the best one's
    alignment drawn with the model's weights and its rows named in ARPAbet, the dictionary's listed beside."""
    with served() as (base, _):
        page = Page(dump_dom(base + "/?q=recieve%20colonel&view=pronounce"))
    expected = Pronouncer.load().pronounce_many(["recieve", "colonel"], 5)
    assert [p["model"] for p in page.panels] == ["pronounce", "pronounce"] and page.corrected == []
    for panel, found in zip(page.panels, expected):
        assert panel["candidates"] == [p.arpabet for p in found] and panel["pressed"] == found[0].arpabet
        np.testing.assert_allclose(matrix(panel["cells"]), found[0].attn, atol=1e-3)
        assert panel["rows"] == [*found[0].arpabet.split(), "</s>"]


SHOWN = """[...document.querySelectorAll("rect[data-weight]")].map((cell) =>
    [Number(cell.dataset.out), Number(cell.dataset.in), Number(cell.dataset.weight)])"""


def test_click_hover_and_a_new_query():
    expected = {c.word: c for c in Corrector.load(resolve_model()).explain("recieve", 5)}
    with served() as (base, _), Browser() as browser:
        browser.goto(base + "/?q=recieve")
        browser.wait_for('document.querySelector("rect[data-weight]")')
        second = browser.evaluate('document.querySelectorAll("button[data-word]")[1].dataset.word')
        assert second != "receive" and second in expected
        browser.click(f'button[data-word="{second}"]')
        assert browser.evaluate('document.querySelector("button[aria-pressed=true]").dataset.word') == second
        assert browser.evaluate('document.querySelector(".explain").textContent').startswith(f"recieve -> {second}")
        cells = {(t, j): w for t, j, w in browser.evaluate(SHOWN)}
        np.testing.assert_allclose(matrix(cells), expected[second].attn, atol=1e-3)

        browser.hover('rect[data-out="3"][data-in="4"]')
        readout = browser.evaluate('document.querySelector(".readout").textContent')
        assert f"weight {expected[second].attn[3, 4]:.4f}" in readout

        browser.evaluate('document.getElementById("q").value = "definately"; '
                         'document.getElementById("ask").requestSubmit(); true')
        browser.wait_for('document.querySelector("h2") && document.querySelector("h2").textContent === "definately"')
        assert browser.evaluate("location.search") == "?q=definately"
        best = Corrector.load(resolve_model()).explain("definately", 1)[0]
        assert browser.evaluate('document.querySelector("button[aria-pressed=true]").dataset.word') == best.word
        cells = {(t, j): w for t, j, w in browser.evaluate(SHOWN)}
        np.testing.assert_allclose(matrix(cells), best.attn, atol=1e-3)
