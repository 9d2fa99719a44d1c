"""The Corrector facade on a real tiny model and the real word list: the API's result types (suggest, explain,
trace), the model alone, loading without Lightning or Hydra, the presets."""

from __future__ import annotations

import inspect
import subprocess
import sys

import numpy as np
import pytest

from typofix.engine.corrector import Corrector
from typofix.engine.results import Suggestion, Trace
from typofix.engine.settings import DecodingSettings
from typofix.words.distance import osa_distance

SMALL = DecodingSettings(beam=3)


@pytest.fixture(scope="module")
def corrector(tiny_ckpt):
    return Corrector.load(tiny_ckpt, settings=SMALL)


def test_suggestions(corrector):
    ranked = corrector.suggest_many(["speling", "recieve", "Teh", "123"], 3)
    assert len(ranked) == 4
    for typo, candidates in zip(["speling", "recieve", "Teh"], ranked):
        assert 1 <= len(candidates) <= 3 and all(isinstance(s, Suggestion) for s in candidates)
        scores = [s.score for s in candidates]
        assert scores == sorted(scores, reverse=True)
        assert all(s.typo == typo for s in candidates)  # each with its attention (T, S) as evidence
    assert all(s.word[:1].isupper() for s in ranked[2])
    assert ranked[3] == [Suggestion("123", 0.0, "123")]
    assert corrector.suggest("speling", 1)[0].word == corrector.correct("speling")


def test_the_first_suggestion_is_the_correction(corrector):
    words = ["speling", "recieve", "wierd", "teh", "acommodate", "fox"]
    assert [ranked[0].word for ranked in corrector.suggest_many(words, 5)] == corrector.correct_many(words)


def test_explain_gives_attention(corrector):
    best = corrector.explain("Speling", 2)[0]
    assert isinstance(best, Suggestion) and best.typo == "speling"
    assert best.attn.shape == (len(best.word) + 1, len("speling"))
    assert best.explanation.startswith(f"speling -> {best.word}  (")


def test_the_trace_holds_each_pass_and_the_scores_suggest_gives(tiny_ckpt):
    """`trace` shows what `suggest` ranks (with the typo itself, `with_typo`): the last pass's scores are the
    suggestions' (the typo's own plus `min_confidence`, the confidence rule), and each candidate's parts are its
    model score, length, edits and prior. Every word goes wide under an infinite margin; with no margin and beam
    1 there is no wide pass. (No word here is a name or has a repaired form, which would change its margin.)"""
    wide = Corrector.load(tiny_ckpt, settings=SMALL.with_(wide_margin=1e9))
    words = ["speling", "recieve", "freind", "wierd", "acommodate"]
    traces = wide.trace(words + ["Freind", "caf\u00e9"])  # a capital is searched lowercase; unreadable: left out
    assert set(traces) == set(words) | {"Freind"} and traces["Freind"] == traces["freind"]
    for word, got in zip(words, wide.suggest_many(words, 10_000, with_typo=True)):
        trace = traces[word]
        assert isinstance(trace, Trace) and trace.typo == word and trace.wide is not None
        assert trace.final is trace.wide and set(trace.cheap) <= set(trace.wide) and word in trace.cheap
        stay = wide.settings.min_confidence
        assert {s.word: s.score for s in got} == {w: c.score + (stay if w == word else 0.0)
                                                 for w, c in trace.final.items()}
        for w, c in trace.wide.items():
            assert c.word == w and c.steps == len(w) + 1 and c.edits == osa_distance(word, w)
            assert c.prior == wide.lexicon.log_prior(w) and c.log_prob <= 0.0
    cheap = Corrector.load(tiny_ckpt, settings=SMALL.with_(beam=1, wide_margin=0.0, wide_min_edits=0))
    traces = cheap.trace(words)
    assert all(t.wide is None and t.final is t.cheap for t in traces.values())
    for word, got in zip(words, cheap.suggest_many(words, 10_000, with_typo=True)):
        assert {s.word for s in got} == set(traces[word].cheap)
        assert word not in {s.word for s in cheap.suggest(word, 10_000)}  # never the typo itself, by default
    with pytest.raises(ValueError, match="no lexicon"):
        Corrector.load(tiny_ckpt, settings=SMALL.with_(use_lexicon=False)).trace(words)


def test_without_lexicon_the_model_alone_decides(tiny_ckpt):
    plain = Corrector.load(tiny_ckpt, settings=SMALL.with_(use_lexicon=False))
    assert plain.lexicon is None and plain.constraint is None
    assert isinstance(plain.correct("the"), str)


def test_correcting_never_imports_lightning_or_hydra(tiny_exports, tiny_ckpt):
    code = ("import sys; from typofix import Corrector\n"
            f"for path in [{str(tiny_exports['slim'])!r}, {str(tiny_ckpt)!r}]:\n"
            "    c = Corrector.load(path); c.correct('Teh speling'); c.suggest_many(['recieve'], 3)\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('lightning', 'pytorch_lightning', 'hydra'))\n"
            "print(bad)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_fast_preset_runs_the_smaller_bundled_model():
    """`fast=True` (`--fast`) loads the fast model, a quarter of the default's width: its encoder writes 128
    numbers per character (64 per direction) where the default's writes 256, and scores with its own fitted table;
    a model file given explicitly wins."""
    from typofix.engine.stepper import load_stepper
    from typofix.files.modelfile import bundled_int8_path

    if not bundled_int8_path("fast").is_file() or not bundled_int8_path().is_file():
        pytest.skip("no bundled ONNX models")
    src, src_len = np.array([[5, 6, 7]]), np.array([3])
    widths = {}
    for name in ("default", "fast"):
        stepper, _ = load_stepper(None, bundled=name)
        (enc_out, *_), _ = stepper.encode(src, src_len)
        widths[name] = enc_out.shape[-1]
    assert widths == {"default": 256, "fast": 128}
    fast = Corrector.load(fast=True)
    assert fast.settings.bundled_model == "fast"
    # and scores with the weights fitted to that model's scores (data/rerank-fast.json), not the default's
    from typofix.engine.ranking import FittedScorer, table_path
    assert fast.scorer is FittedScorer.load(table_path("rerank-fast.json"))
    assert fast.scorer is not Corrector.load().scorer
    (enc_out, *_), _ = fast.stepper.encode(src, src_len)
    assert enc_out.shape[-1] == 128
    given = Corrector.load(bundled_int8_path(), fast=True)  # a model file given explicitly wins
    (enc_out, *_), _ = given.stepper.encode(src, src_len)
    assert enc_out.shape[-1] == 256


def text_methods() -> dict[str, str]:
    """Corrector's public methods whose first argument is text: name -> "str" or "list[str]"."""
    found = {}
    for name, method in inspect.getmembers(Corrector, inspect.isfunction):
        first = list(inspect.signature(method).parameters.values())[1:2]
        if not name.startswith("_") and first and first[0].annotation in ("str", "list[str]"):
            found[name] = first[0].annotation
    return found


def test_every_text_method_names_the_type_it_takes(corrector):
    methods = text_methods()
    assert {"correct", "suggest", "explain", "correct_many", "suggest_many"} <= set(methods)
    for name, takes in methods.items():
        method = getattr(corrector, name)
        wanted = "a list of str" if takes == "list[str]" else "a str"
        for wrong, called in [(None, "None"), (b"teh", "bytes"), (42, "int")]:
            with pytest.raises(TypeError, match=rf"^Corrector\.{name}\(\): \w+ must be {wanted}, got {called}"):
                method(wrong)
        if takes == "list[str]":
            with pytest.raises(TypeError, match=rf"^Corrector\.{name}\(\): \w+ must be a list of str, got str"):
                method("teh")  # never read as the texts "t", "e", "h"
            with pytest.raises(TypeError, match=rf"^Corrector\.{name}\(\): \w+ must be a list of str: item 1 is "
                                                r"bytes \(decode it first"):
                method(["the", b"teh"])
    with pytest.raises(TypeError, match=r"^Corrector\.suggest\(\): word must be a str, got None"):
        corrector.suggest(word=None)  # by name as by position


def test_any_iterable_of_texts_is_a_list_of_texts(corrector):
    words = ["speling", "teh"]
    assert corrector.correct_many(w for w in words) == corrector.correct_many(words)
    assert corrector.suggest(word="speling", k=1) == corrector.suggest("speling", 1)
