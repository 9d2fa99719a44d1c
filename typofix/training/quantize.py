"""The int8 decoder step: weights stored as int8, every activation quantized over a fixed range.

onnxruntime's dynamic quantization measures each activation's range per call, over the whole batch: a word's
log-probabilities then depended on the words it was batched with. Measured with the bundled model, greedy
`afert` gave `after` (-1.21) alone and `afford` (-2.15) or `afferent` (-4.47) among 50 or 115 other
five-letter words, and `typofix correct --jobs 2` rewrote a word of the dev prose that `--jobs 1` left right.

Here each activation the step quantizes gets a range that holds whatever the batch: the bound of the
function that made it, propagated through the graph (`activation_bounds`). Tanh and an LSTM's hidden state
lie in [-1, 1], a sigmoid in [0, 1], an embedding lookup within its table's smallest and largest entry, an
attention context (softmax weights times the encoder's LSTM outputs) within the encoder outputs' bounds. The
quantization is then the same for every row, its integer products exact, and a word's scores are its own.
Against the float model the bundled one moves a greedy log-probability by about 0.003 (`afert`: -1.177
against -1.180); the step costs about what the dynamic one did (README, "The bundled model").

The encoder stays float (its LSTM is one fused operator, `DynamicQuantizeLSTM`, whose input onnxruntime
quantizes per call with no way to give it a range); it runs once per word, the step once per letter and
candidate.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

import numpy as np

from typofix.files.modelfile import ModelError

# Graph inputs of the step (`export._step_graph`) and their ranges: `h` is the decoder LSTM's hidden state (or
# the encoder bridge's tanh), `enc_out` the encoder's bidirectional LSTM outputs.
INPUT_BOUNDS = {"h": (-1.0, 1.0), "enc_out": (-1.0, 1.0)}
_SAME_BOUNDS = {"Unsqueeze", "Squeeze", "Reshape", "Transpose", "Identity", "Cast"}
_LEVELS = 255  # uint8, as onnxruntime's dynamic quantization of activations


def quantize_step(graph: bytes) -> bytes:
    """The step graph with int8 weights (onnxruntime's `quantize_dynamic` for MatMul and Gemm) and each
    activation quantized over its bounds (a QuantizeLinear with constant scale and zero point in place of each
    DynamicQuantizeLinear). ModelError if an activation has no bound this module can derive."""
    weights_int8 = _quantize_weights(graph)
    import onnx  # present: onnxruntime's quantization tool, which the line above needs, needs it
    from onnx import helper, numpy_helper

    proto = onnx.load_from_string(weights_int8)
    bounds = activation_bounds(proto.graph)
    nodes = []
    for node in proto.graph.node:
        if node.op_type != "DynamicQuantizeLinear":
            nodes.append(node)
            continue
        activation = node.input[0]
        if activation not in bounds:
            raise ModelError(f"int8 export: no fixed range for the activation {activation!r}; export without --int8")
        low, high = bounds[activation]
        low, high = min(low, 0.0), max(high, 0.0)  # the range must hold 0 exactly (ONNX quantization's rule)
        scale = (high - low) / _LEVELS
        zero_point = int(round(-low / scale))
        quantized, scale_name, zero_point_name = node.output
        proto.graph.initializer.extend([numpy_helper.from_array(np.array(scale, dtype=np.float32), scale_name),
                                        numpy_helper.from_array(np.array(zero_point, dtype=np.uint8), zero_point_name)])
        nodes.append(helper.make_node("QuantizeLinear", [activation, scale_name, zero_point_name], [quantized],
                                      name=f"{node.name}_fixed_range"))
    del proto.graph.node[:]
    proto.graph.node.extend(_fused_integer_matmuls(nodes))
    if not any(op.domain == "com.microsoft" for op in proto.opset_import):
        proto.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    onnx.checker.check_model(proto)
    return proto.SerializeToString()


def _fused_integer_matmuls(nodes: list) -> list:
    """`nodes` with each MatMulInteger -> Cast -> Mul(a_scale * b_scale) chain as one onnxruntime
    MatMulIntegerToFloat. onnxruntime fuses that chain itself only behind a DynamicQuantizeLinear; unfused, a step
    of the fast model took 4.8-5.2 us per row against 3.9-4.7 fused (one thread, this machine's noise)."""
    from onnx import helper

    made_by = {out: node for node in nodes for out in node.output}
    used_by: dict[str, list] = {}
    for node in nodes:
        for name in node.input:
            used_by.setdefault(name, []).append(node)
    replaced, fused = set(), {}
    for matmul in (n for n in nodes if n.op_type == "MatMulInteger" and len(used_by.get(n.output[0], [])) == 1):
        cast = used_by[matmul.output[0]][0]
        mul = used_by.get(cast.output[0], [None])[0] if cast.op_type == "Cast" else None
        if mul is None or mul.op_type != "Mul" or len(used_by[cast.output[0]]) != 1:
            continue
        scales = made_by.get(mul.input[1] if mul.input[0] == cast.output[0] else mul.input[0])
        if scales is None or scales.op_type != "Mul" or len(used_by[scales.output[0]]) != 1:
            continue
        a, b, a_zero_point, b_zero_point = (list(matmul.input) + ["", ""])[:4]
        fused[id(matmul)] = helper.make_node("MatMulIntegerToFloat", [a, b, *scales.input, a_zero_point, b_zero_point],
                                             [mul.output[0]], name=f"{matmul.name}_to_float", domain="com.microsoft")
        replaced.update({id(cast), id(mul), id(scales)})
    return [fused.get(id(n), n) for n in nodes if id(n) not in replaced]


def activation_bounds(graph) -> dict[str, tuple[float, float]]:
    """{tensor: (low, high)} for the tensors of `graph` whose range follows from the operators that made them
    (graph nodes come in topological order, so one pass sees every input before its use)."""
    from onnx import numpy_helper

    weights = {w.name: numpy_helper.to_array(w) for w in graph.initializer}
    bounds = {name: b for name, b in INPUT_BOUNDS.items() if name in {i.name for i in graph.input}}
    convex = set()  # tensors whose rows are weights summing to 1 (softmax outputs, reshaped)
    for node in graph.node:
        ins, out = list(node.input), node.output[0] if node.output else None
        op = node.op_type
        if op == "Tanh":
            bounds[out] = (-1.0, 1.0)
        elif op in ("Sigmoid", "Softmax"):
            bounds[out] = (0.0, 1.0)
            if op == "Softmax":
                convex.add(out)
        elif op in _SAME_BOUNDS and ins[0] in bounds:
            bounds[out] = bounds[ins[0]]
            if ins[0] in convex and op != "Cast":
                convex.add(out)
        elif op == "Gather" and ins[0] in weights:  # an embedding lookup
            table = weights[ins[0]].astype(np.float32)
            bounds[out] = (float(table.min()), float(table.max()))
        elif op == "Concat" and all(i in bounds for i in ins):
            bounds[out] = (min(bounds[i][0] for i in ins), max(bounds[i][1] for i in ins))
        elif op == "Mul" and len(ins) == 2 and all(i in bounds for i in ins):
            products = [a * b for a in bounds[ins[0]] for b in bounds[ins[1]]]
            bounds[out] = (min(products), max(products))
        elif op == "MatMul" and ins[0] in convex and ins[1] in bounds:  # a weighted average of rows
            bounds[out] = bounds[ins[1]]
    return bounds


def _quantize_weights(graph: bytes) -> bytes:
    """onnxruntime's dynamic quantization of the MatMul and Gemm weights (its activations' ranges measured per
    call, until `quantize_step` fixes them)."""
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:
        raise ModelError("the int8 ONNX export needs onnxruntime and onnx (pip install onnx)") from None
    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder) / "fp32.onnx", Path(folder) / "int8.onnx"
        source.write_bytes(graph)
        logging.getLogger().setLevel(logging.ERROR)  # its advice to run a pre-processing script first
        quantize_dynamic(source, target, weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul", "Gemm"])
        return target.read_bytes()
