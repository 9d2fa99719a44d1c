"""The ONNX runtime path (`typofix.engine.onnx_stepper`): graphs exported from real torch models of every
attention kind step as the torch models do, the one beam search gives the same answers on either runtime, the
bundled .onnxz corrects as the bundled .pt, and damaged files or a missing onnxruntime are one-line model errors."""

from __future__ import annotations

import json
import sys
import zipfile

import numpy as np
import pytest

from conftest import TYPOS, random_checkpoint, word_batch
from typofix.engine.corrector import Corrector, ModelError, load_stepper
from typofix.engine.onnx_stepper import OnnxStepper, read_embeddings
from typofix.engine.scoring import forced_log_probs
from typofix.engine.search import LexiconConstraint, beam_search
from typofix.files.modelfile import bundled_model_path, bundled_onnx_path
from typofix.nn.checkpoint import build_model, read_checkpoint
from typofix.nn.model import ATTENTION_KINDS
from typofix.nn.torch_stepper import TorchStepper
from typofix.training.export import export
from typofix.words.lexicon import Lexicon

needs_bundled = pytest.mark.skipif(not (bundled_model_path().is_file() and bundled_onnx_path().is_file()),
                                   reason="the bundled models are not exported yet")


@pytest.mark.parametrize("attention", sorted(ATTENTION_KINDS))
def test_every_attention_kind_steps_as_the_torch_model(attention, tmp_path):
    ckpt = random_checkpoint(tmp_path / "model.ckpt", attention)
    out = tmp_path / "model.onnxz"
    export(ckpt, out)
    model, vocab = build_model(read_checkpoint(ckpt))
    onnx_stepper, onnx_vocab = OnnxStepper.load(out)
    assert onnx_vocab.alphabet == vocab.alphabet
    src, src_len = word_batch(vocab, TYPOS)
    outputs = [vocab.encode(w[::-1]) for w in TYPOS]  # any outputs: the steps are what is compared
    expected, expected_attn = forced_log_probs(TorchStepper(model), src, src_len, outputs)  # (B, T), (B, T, S)
    got, got_attn = forced_log_probs(onnx_stepper, src, src_len, outputs)
    np.testing.assert_allclose(got, expected, atol=1e-4)  # dropout off: the exported graph is in eval mode
    if attention == "none":
        assert got_attn is None and expected_attn is None
    else:
        np.testing.assert_allclose(got_attn, expected_attn, atol=1e-5)
    meta, embeddings = read_embeddings(out)  # the encoder's table travels with the graphs, for the explorer
    assert meta["alphabet"] == vocab.alphabet
    np.testing.assert_array_equal(embeddings, model.encoder.embedding.weight.detach().numpy())


def test_beam_search_is_the_same_on_both_runtimes(tiny_ckpt, tmp_path):
    out = tmp_path / "tiny.onnxz"
    export(tiny_ckpt, out, half=False)
    torch_stepper, vocab = load_stepper(tiny_ckpt)
    onnx_stepper, _ = load_stepper(out)
    assert isinstance(torch_stepper, TorchStepper) and isinstance(onnx_stepper, OnnxStepper)
    constraint = LexiconConstraint(Lexicon.from_tsv().trie, vocab.symbols, vocab.eos_id)
    for options in ({"beam": 4}, {"beam": 3, "constraint": constraint, "alpha": 0.5}):
        expected = beam_search(torch_stepper, *word_batch(vocab, TYPOS), **options)
        got = beam_search(onnx_stepper, *word_batch(vocab, TYPOS), **options)
        for want, have in zip(expected, got):
            assert [h.ids for h in have] == [h.ids for h in want]
            assert [h.score for h in have] == pytest.approx([h.score for h in want], abs=1e-4)
            for a, b in zip(have, want):
                np.testing.assert_allclose(a.attn, b.attn, atol=1e-5)


@needs_bundled
def test_bundled_onnx_corrects_like_the_bundled_torch_model():
    words = [line.split("\t")[0] for line in open("data/eval/birkbeck-dev.tsv", encoding="utf-8").read().splitlines()
             if line][:40] + ["speling", "recieve", "teh", "definately", "acommodate", "goverment"]
    via_onnx, via_torch = Corrector.load(bundled_onnx_path()), Corrector.load(bundled_model_path())
    assert isinstance(via_onnx.stepper, OnnxStepper) and isinstance(via_torch.stepper, TorchStepper)
    assert via_onnx.correct_many(words) == via_torch.correct_many(words)
    for want, have in zip(via_torch.suggest_many(words, 5), via_onnx.suggest_many(words, 5)):
        assert [s.word for s in have] == [s.word for s in want]
        assert [s.score for s in have] == pytest.approx([s.score for s in want], abs=1e-3)


def test_damaged_onnx_files_are_model_errors(tiny_ckpt, tmp_path):
    good = tmp_path / "good.onnxz"
    export(tiny_ckpt, good)
    data = good.read_bytes()
    with zipfile.ZipFile(good) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}

    def rezip(name: str, **replaced: bytes):
        with zipfile.ZipFile(tmp_path / name, "w") as archive:
            for member, content in {**members, **replaced}.items():
                if content is not None:
                    archive.writestr(member, content)

    for name, content in {"empty.onnxz": b"", "junk.onnxz": b"not a model\n", "truncated.onnxz": data[:len(data) // 2],
                          "tail.onnxz": data[-5000:]}.items():
        (tmp_path / name).write_bytes(content)
    rezip("no-step.onnxz", **{"step.onnx": None})
    rezip("bad-graph.onnxz", **{"encoder.onnx": members["encoder.onnx"][:1000]})
    rezip("future.onnxz", **{"meta.json": json.dumps({**json.loads(members["meta.json"]), "format_version": 99}).encode()})
    rezip("foreign.onnxz", **{"meta.json": b"[1, 2]"})
    rezip("bad-json.onnxz", **{"meta.json": b"{"})
    for name in ["missing.onnxz", "empty.onnxz", "junk.onnxz", "truncated.onnxz", "tail.onnxz", "no-step.onnxz",
                 "bad-graph.onnxz", "future.onnxz", "foreign.onnxz", "bad-json.onnxz"]:
        with pytest.raises(ModelError) as err:
            Corrector.load(tmp_path / name)
        assert "\n" not in str(err.value) and name in str(err.value), str(err.value)


def test_without_onnxruntime_an_onnx_model_is_a_model_error(tiny_ckpt, tmp_path, monkeypatch):
    out = tmp_path / "tiny.onnxz"
    export(tiny_ckpt, out)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # what an uninstalled package looks like to import
    with pytest.raises(ModelError, match="needs onnxruntime"):
        OnnxStepper.load(out)


def test_a_model_files_graphs_from_the_index_cache_run_as_read_from_the_file(tiny_ckpt, tmp_path, monkeypatch):
    """The graphs are inflated once and kept in the index cache: cold, warm and with the cache off, the same
    meta and the same outputs; a file changed in place is read afresh."""
    out = tmp_path / "tiny.onnxz"
    export(tiny_ckpt, out)

    def run():
        stepper, vocab = OnnxStepper.load(out)
        src, src_len = word_batch(vocab, TYPOS)
        memory, state = stepper.encode(src, src_len)
        return vocab.alphabet, [a.tolist() for a in (*memory, *state)]

    monkeypatch.setenv("TYPOFIX_CACHE_DIR", "")
    want = run()
    monkeypatch.setenv("TYPOFIX_CACHE_DIR", str(tmp_path / "cache"))
    assert run() == want and run() == want
    assert len([p for p in (tmp_path / "cache").iterdir() if p.name.startswith("model-")]) == 1
    with zipfile.ZipFile(out) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    meta = json.loads(members["meta.json"])
    meta["format_version"] = 99  # another model file at the same path, with the same graphs: never the cached one
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, json.dumps(meta) if name == "meta.json" else data)
    with pytest.raises(ModelError, match="version 99"):
        OnnxStepper.load(out)
