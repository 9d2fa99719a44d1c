"""The int8 decoder step (`typofix.training.quantize`): each activation quantized over a fixed range derived
from the operators that made it, so that a word's scores never depend on the words batched with it; the int8
model is what `typofix correct` runs by default and corrects as the float one does but for a few close calls."""

from __future__ import annotations

import zipfile

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from typofix.engine.corrector import Corrector
from typofix.engine.onnx_stepper import OnnxStepper
from typofix.files.modelfile import bundled_int8_path, bundled_onnx_path
from typofix.training.export import export
from typofix.training.quantize import INPUT_BOUNDS, activation_bounds

needs_bundled = pytest.mark.skipif(not (bundled_int8_path().is_file() and bundled_onnx_path().is_file()),
                                   reason="the bundled ONNX models are not exported yet")


def test_activation_bounds_follow_the_operators_that_made_them():
    """A graph of the step's kinds of operators: the bound of each tensor is its function's range, carried
    through reshapes, concatenation, products, and weighted averages of rows (a softmax times a matrix)."""
    table = np.array([[-0.5, 2.0], [0.25, -3.0]], dtype=np.float32)
    nodes = [helper.make_node("Tanh", ["x"], ["tanh"]), helper.make_node("Sigmoid", ["x"], ["gate"]),
             helper.make_node("Mul", ["gate", "tanh"], ["gated"]),
             helper.make_node("Gather", ["table", "ids"], ["embedded"]),
             helper.make_node("Concat", ["embedded", "h"], ["joined"], axis=1),
             helper.make_node("Softmax", ["x"], ["weights"]),
             helper.make_node("Reshape", ["weights", "shape"], ["rows"]),
             helper.make_node("MatMul", ["rows", "enc_out"], ["context"]),
             helper.make_node("MatMul", ["x", "enc_out"], ["unbounded"])]
    floats = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, None)  # noqa: E731
    graph = helper.make_graph(nodes, "step", [floats("x"), floats("h"), floats("enc_out"),
                                              helper.make_tensor_value_info("ids", TensorProto.INT64, None)],
                              [floats("context")], initializer=[numpy_helper.from_array(table, "table"),
                                                                numpy_helper.from_array(np.array([1, -1]), "shape")])
    bounds = activation_bounds(graph)
    assert bounds["h"] == INPUT_BOUNDS["h"] and bounds["enc_out"] == INPUT_BOUNDS["enc_out"] and "x" not in bounds
    assert bounds["tanh"] == (-1.0, 1.0) and bounds["gate"] == (0.0, 1.0) and bounds["gated"] == (-1.0, 1.0)
    assert bounds["embedded"] == (-3.0, 2.0) and bounds["joined"] == (-3.0, 2.0)
    assert bounds["context"] == bounds["enc_out"]  # an average of encoder rows stays within their bounds
    assert "unbounded" not in bounds  # x is not a softmax: no bound follows


def test_the_int8_export_quantizes_over_fixed_ranges_and_loads(tiny_ckpt, tmp_path):
    out = tmp_path / "tiny-int8.onnxz"
    export(tiny_ckpt, out, int8=True)  # checked against the torch model inside, before the rename
    with zipfile.ZipFile(out) as archive:
        step = onnx.load_from_string(archive.read("step.onnx"))
    ops = {node.op_type for node in step.graph.node}
    assert {"QuantizeLinear", "MatMulIntegerToFloat"} <= ops and "DynamicQuantizeLinear" not in ops  # fixed ranges
    stepper, vocab = OnnxStepper.load(out)
    assert vocab.alphabet and 1 <= len(Corrector.load(out).suggest("speling", 3)) <= 3


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
        assert [s.word for s in batched[typo]] == [s.word for s in alone[typo]]
        assert [s.score for s in batched[typo]] == pytest.approx([s.score for s in alone[typo]], abs=1e-4)


@needs_bundled
@pytest.mark.acceptance
def test_the_int8_model_is_the_default_and_corrects_like_the_float_one():
    words = [line.split("\t")[0] for line in open("data/eval/norvig-testset1.tsv", encoding="utf-8").read().splitlines()
             if line][:80]
    int8, float16 = Corrector.load(), Corrector.load(bundled_onnx_path())
    assert isinstance(int8.stepper, OnnxStepper)
    same = sum(a == b for a, b in zip(int8.correct_many(words), float16.correct_many(words)))
    assert same >= 0.9 * len(words)  # int8 moves log-probabilities by up to ~0.3: a few close calls flip
