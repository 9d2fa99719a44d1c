"""The ONNX path (`typofix.engine.onnx_stepper`, `typofix.training.export.export_onnx`): graphs exported from real torch models
of every attention kind agree with torch, the one beam search gives the same answers on either runtime, the
bundled .onnxz matches the bundled .pt, and damaged files are one-line model errors."""

from __future__ import annotations

import json
import sys
import zipfile

import numpy as np
import onnx
import pytest
import torch

from typofix.nn.checkpoint import build_model, read_checkpoint
from typofix.engine.corrector import Corrector, ModelError, load_stepper
from typofix.training.export import WEIGHTS_INT8, export
from typofix.nn.model import ATTENTION_KINDS, Seq2Seq
from typofix.files.modelfile import bundled_int8_path, bundled_model_path, bundled_onnx_path
from typofix.engine.onnx_stepper import OnnxStepper
from typofix.engine.search import LexiconConstraint, beam_search, forced_log_probs
from typofix.nn.torch_stepper import TorchStepper
from typofix.words.vocab import Vocab

WORDS = ["speling", "recieve", "teh", "a", "acommodation", "definately", "wierd", "x"]
needs_bundled = pytest.mark.skipif(not (bundled_model_path().is_file() and bundled_onnx_path().is_file()),
                                   reason="the bundled models are not exported yet")


def batch(vocab: Vocab, words: list[str]):
    """src (B, S) and src_len (B,) of `words`, unsorted, padded."""
    src = np.full((len(words), max(map(len, words))), vocab.pad_id, dtype=np.int64)  # (B, S)
    for row, word in enumerate(words):
        src[row, :len(word)] = vocab.encode(word)
    return src, np.array([len(w) for w in words])


def random_checkpoint(path, attention: str):
    """A Lightning-style checkpoint of an untrained small model of one attention kind, its weights rounded to
    float16 so that the fp16 export carries exactly the torch model's weights."""
    torch.manual_seed(0)
    vocab = Vocab()
    hparams = {"emb_size": 16, "enc_hidden_size": 16, "enc_layers": 2, "dec_hidden_size": 32, "attn_size": 16,
               "attention": attention, "heads": 2, "dropout": 0.3}
    model = Seq2Seq.from_hparams(hparams, len(vocab), vocab.pad_id, vocab.sos_id, vocab.eos_id)
    state = {f"model.{k}": v.half().float() for k, v in model.state_dict().items()}
    torch.save({"hyper_parameters": {**hparams, "alphabet": vocab.alphabet}, "state_dict": state}, path)
    return path


@pytest.mark.parametrize("attention", sorted(ATTENTION_KINDS))
def test_every_attention_kind_exports_and_agrees(attention, tmp_path):
    ckpt = random_checkpoint(tmp_path / "model.ckpt", attention)
    out = tmp_path / "model.onnxz"
    export(ckpt, out)
    model, vocab = build_model(read_checkpoint(ckpt))
    onnx_stepper, onnx_vocab = OnnxStepper.load(out)
    assert onnx_vocab.alphabet == vocab.alphabet
    src, src_len = batch(vocab, WORDS)
    outputs = [vocab.encode(w[::-1]) for w in WORDS]  # any outputs: the steps are what is compared
    expected, expected_attn = forced_log_probs(TorchStepper(model), src, src_len, outputs)  # (B, T), (B, T, S)
    got, got_attn = forced_log_probs(onnx_stepper, src, src_len, outputs)
    np.testing.assert_allclose(got, expected, atol=1e-4)  # dropout off: the exported graph is in eval mode
    if attention == "none":
        assert got_attn is None and expected_attn is None
    else:
        np.testing.assert_allclose(got_attn, expected_attn, atol=1e-5)


def test_export_is_reproducible(tiny_ckpt, tmp_path):
    """The same model exports to the same bytes, so regenerating the bundled file changes nothing in git."""
    export(tiny_ckpt, tmp_path / "a.onnxz")
    export(tiny_ckpt, tmp_path / "b.onnxz")
    assert (tmp_path / "a.onnxz").read_bytes() == (tmp_path / "b.onnxz").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.onnxz", "b.onnxz"]  # no temporary files left


def test_beam_search_is_the_same_on_both_runtimes(tiny_ckpt, tmp_path):
    out = tmp_path / "tiny.onnxz"
    export(tiny_ckpt, out, half=False)
    torch_stepper, vocab = load_stepper(tiny_ckpt)
    onnx_stepper, _ = load_stepper(out)
    assert isinstance(torch_stepper, TorchStepper) and isinstance(onnx_stepper, OnnxStepper)
    from typofix.words.lexicon import Lexicon

    constraint = LexiconConstraint(Lexicon.from_tsv().trie, vocab.symbols, vocab.eos_id)
    for options in ({"beam": 4}, {"beam": 3, "constraint": constraint, "alpha": 0.5}):
        expected = beam_search(torch_stepper, *batch(vocab, WORDS), **options)
        got = beam_search(onnx_stepper, *batch(vocab, WORDS), **options)
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
        assert [w for w, _ in have] == [w for w, _ in want]
        assert [s for _, s in have] == pytest.approx([s for _, s in want], abs=1e-3)


@needs_bundled
def test_bundled_models_stay_small():
    paths = [bundled_model_path(), bundled_onnx_path(), bundled_int8_path(), bundled_model_path("fast"),
             bundled_int8_path("fast")]
    assert sum(p.stat().st_size for p in paths) <= 10_000_000  # the budget for all model files
    weights = []
    for path in (bundled_onnx_path(), bundled_int8_path(), bundled_int8_path("fast")):
        with zipfile.ZipFile(path) as archive:
            meta = json.loads(archive.read("meta.json"))
        assert meta["format"] == "typofix-onnx"
        weights.append(meta["weights"])
    assert weights == ["float16", WEIGHTS_INT8, WEIGHTS_INT8]


@needs_bundled
@pytest.mark.parametrize("fast", [False, True])
def test_a_words_scores_do_not_depend_on_the_words_batched_with_it(fast):
    # Dynamic int8 quantization ranged activations per batch: greedy `afert` was `after` alone, `afford` among
    # 50 five-letter words, and `--jobs 2` (other batches per process) rewrote a word `--jobs 1` got right.
    corrector = Corrector.load(fast=fast)
    assert isinstance(corrector.stepper, OnnxStepper)
    five = [w for w in list(corrector.lexicon.counts)[:5000] if len(w) == 5][:120]
    typos = ["afert", "recieve", "speling"]
    alone = {typo: corrector.suggest(typo, 5) for typo in typos}
    batched = dict(zip(typos, corrector.suggest_many(typos + [w[::-1] for w in five] + ["subdirectoreis"], 5)))
    for typo in typos:
        assert [w for w, _ in batched[typo]] == [w for w, _ in alone[typo]]
        assert [s for _, s in batched[typo]] == pytest.approx([s for _, s in alone[typo]], abs=1e-4)


@needs_bundled
def test_the_int8_model_is_the_default_and_corrects_like_the_float_one():
    words = [line.split("\t")[0] for line in open("data/eval/norvig-testset1.tsv", encoding="utf-8").read().splitlines()
             if line][:80]
    int8, float16 = Corrector.load(), Corrector.load(bundled_onnx_path())
    assert isinstance(int8.stepper, OnnxStepper)
    same = sum(a == b for a, b in zip(int8.correct_many(words), float16.correct_many(words)))
    assert same >= 0.9 * len(words)  # int8 moves log-probabilities by up to ~0.3: a few close calls flip


def test_int8_export_loads_and_follows_the_checkpoint(tiny_ckpt, tmp_path):
    out = tmp_path / "tiny-int8.onnxz"
    export(tiny_ckpt, out, int8=True)  # checked against the torch model inside, before the rename
    with zipfile.ZipFile(out) as archive:
        step = onnx.load_from_string(archive.read("step.onnx"))
    ops = {node.op_type for node in step.graph.node}
    assert {"QuantizeLinear", "MatMulIntegerToFloat"} <= ops and "DynamicQuantizeLinear" not in ops  # fixed ranges
    stepper, vocab = OnnxStepper.load(out)
    assert vocab.alphabet and 1 <= len(Corrector.load(out).suggest("speling", 3)) <= 3


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


def test_without_onnxruntime(tiny_ckpt, tmp_path, monkeypatch):
    """No onnxruntime: an explicit .onnxz is a model error; the default falls back to the bundled torch model."""
    out = tmp_path / "tiny.onnxz"
    export(tiny_ckpt, out)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # what an uninstalled package looks like to import
    with pytest.raises(ModelError, match="needs onnxruntime"):
        Corrector.load(out)
    if bundled_model_path().is_file():
        assert isinstance(load_stepper()[0], TorchStepper)
