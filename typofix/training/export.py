"""Model exports: `typofix export CKPT OUT` turns a training
checkpoint, or an earlier export, into a file the corrector ships with. The suffix of OUT picks the kind:

* `.onnxz`: the ONNX export that `typofix correct` runs with onnxruntime and no torch (`typofix.engine.onnx_stepper`
  describes the file): `Seq2Seq.encode` and one `Decoder.step` traced by `torch.onnx.export`, fp16 weights
  that a Cast turns back into float32 when onnxruntime loads the graph (`--int8`: the decoder step in int8 over
  fixed activation ranges, `typofix.training.quantize`);
* anything else: the slim torch file, format version, hyperparameters, alphabet and fp16 weights. No optimiser
  state, no Lightning objects.

Either is written atomically (temporary file, fsync, rename) and read back and checked before the rename.
"""

from __future__ import annotations

import io
import json
import warnings
import zipfile
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import torch
from torch import nn

from typofix import __version__
from typofix.files.atomic import atomic_path
from typofix.nn.checkpoint import (FORMAT, FORMAT_VERSION, Checkpoint, average_checkpoints, build_model,
                                   read_checkpoint)
from typofix.nn.model import NoAttention, Seq2Seq
from typofix.files.modelfile import ModelError
from typofix.training.quantize import quantize_step
from typofix.words.vocab import Vocab

_PLAIN = (str, int, float, bool, type(None))
OPSET = 17
WEIGHTS_INT8 = "int8 decoder step (fixed activation ranges), float16 encoder"  # meta.json's "weights" of --int8
# Words the export is checked on: a short, a long, a one-letter word (ids past the alphabet are skipped).
CHECK_WORDS = ["speling", "acommodation", "a", "recieve"]


def export(checkpoint: str | Path, out: str | Path, half: bool = True, int8: bool = False,
           average: Sequence[str | Path] = ()) -> int:
    """Write the export named by `out`'s suffix (.onnxz: ONNX, else the slim torch file) and return its size in
    bytes; the written file is read back before this returns, so a file that exists is a file that loads.
    `int8` (ONNX only): the decoder step's weights int8, its activations quantized over fixed ranges
    (`typofix.training.quantize`); the encoder float. `average`: more checkpoints whose weights are averaged
    with `checkpoint`'s (`typofix.nn.checkpoint.average_checkpoints`)."""
    if Path(out).suffix == ".onnxz":
        return export_onnx(checkpoint, out, half, int8, average)
    if int8:
        raise ModelError(f"{out}: int8 quantization is for the ONNX export (.onnxz) only")
    source = read_source(checkpoint, average)
    build_model(source, checkpoint)  # fail here, not in a user's corrector, when weights and hparams disagree
    weights = {k: (v.half() if half and v.is_floating_point() else v).contiguous()
               for k, v in source.state_dict.items()}
    blob = {"format": FORMAT, "format_version": FORMAT_VERSION, "typofix_version": __version__,
            "hparams": _plain(source.hparams), "alphabet": source.alphabet, "state_dict": weights,
            "trained": source.trained}
    return _write_atomically(Path(out), lambda handle: torch.save(blob, handle),
                             lambda tmp: build_model(read_checkpoint(tmp), out))


def read_source(checkpoint: str | Path, average: Sequence[str | Path] = ()) -> Checkpoint:
    """The checkpoint to export: `checkpoint`'s, or its weights averaged with those of `average`."""
    if not average:
        return read_checkpoint(checkpoint)
    paths = [checkpoint, *average]
    return average_checkpoints([read_checkpoint(p) for p in paths], [str(p) for p in paths])


def export_onnx(checkpoint: str | Path, out: str | Path, half: bool = True, int8: bool = False,
                average: Sequence[str | Path] = ()) -> int:
    """Write the .onnxz of a checkpoint (averaged with `average`) and return its size; checked against the torch
    model before renaming."""
    from typofix.engine.onnx_stepper import (EMBEDDINGS, ENCODER, FORMAT as ONNX_FORMAT, FORMAT_VERSION as ONNX_VERSION, META,
                                    STEP)

    source = read_source(checkpoint, average)
    model, vocab = build_model(source, checkpoint)
    encoder, step = _encoder_graph(model), _step_graph(model)
    if int8:  # the step int8 over fixed ranges, the encoder float (typofix.training.quantize says why)
        encoder, step = _halve(encoder) if half else encoder, quantize_step(step)
    elif half:
        encoder, step = _halve(encoder), _halve(step)
    meta = {"format": ONNX_FORMAT, "format_version": ONNX_VERSION, "typofix_version": __version__,
            "alphabet": vocab.alphabet, "special_ids": {"pad": vocab.pad_id, "sos": vocab.sos_id, "eos": vocab.eos_id},
            "hparams": _plain(source.hparams), "opset": OPSET,
            "weights": WEIGHTS_INT8 if int8 else "float16" if half else "float32",
            "exported_from": Path(checkpoint).name, "trained": source.trained, "torch_version": torch.__version__}

    # The encoder's character embeddings as a plain array too: the explorer's embedding map without torch.
    embeddings = io.BytesIO()
    weight = model.encoder.embedding.weight.detach()  # (V, E)
    np.save(embeddings, (weight.half() if half else weight).numpy(), allow_pickle=False)

    def write(handle) -> None:
        with zipfile.ZipFile(handle, "w") as archive:
            for name, data in ((META, (json.dumps(meta, indent=1, default=str) + "\n").encode()), (ENCODER, encoder),
                               (STEP, step), (EMBEDDINGS, embeddings.getvalue())):
                # A fixed date: the same model exports to the same bytes, so a re-export changes nothing in git.
                member = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                archive.writestr(member, data, compress_type=zipfile.ZIP_DEFLATED)

    # fp16 weights of an fp32 checkpoint move log-probabilities by ~1e-3; of an fp16 export, not at all; int8
    # weights and activations of the bundled model by up to ~0.3 (what that costs is measured, not assumed).
    tolerance = 1.0 if int8 else 0.05 if half else 1e-3
    return _write_atomically(Path(out), write, lambda tmp: check_onnx(tmp, model, vocab, tolerance))


def _plain(hparams: dict) -> dict:
    """The hyperparameters that are plain values (what a model file needs to rebuild the model)."""
    return {k: v for k, v in hparams.items()
            if isinstance(v, _PLAIN) or (isinstance(v, list) and all(isinstance(x, _PLAIN) for x in v))}


def _write_atomically(out: Path, write: Callable, check: Callable[[str], object]) -> int:
    """Write `out` with `write(binary handle)`, `check(temporary path)` it, then rename it into place; its size."""
    with atomic_path(out, keep_suffix=False) as tmp:  # a half-written .pt must never look like a model file
        with open(tmp, "wb") as handle:
            write(handle)
        check(tmp)
    return out.stat().st_size


# --- the two ONNX graphs -------------------------------------------------------------------------------------


class _Encoder(nn.Module):
    """`Seq2Seq.encode` with flat outputs, the shape `torch.onnx.export` wants."""

    def __init__(self, model: Seq2Seq):
        super().__init__()
        self.model = model

    def forward(self, src, src_len):
        enc_out, keys, src_mask, (h, c) = self.model.encode(src, src_len)
        return enc_out, keys, src_mask, h, c


class _Step(nn.Module):
    """One `Decoder.step` with flat state and its log-softmax (the beam search wants log-probabilities)."""

    def __init__(self, model: Seq2Seq):
        super().__init__()
        self.model = model

    def forward(self, y, h, c, keys, enc_out, src_mask):
        logits, (h, c), weights = self.model.decoder.step(y, (h, c), keys, enc_out, src_mask)
        log_probs = torch.log_softmax(logits.float(), dim=-1)  # (N, V)
        return (log_probs, h, c) if weights is None else (log_probs, h, c, weights)


def _sample(model: Seq2Seq):
    """A small batch of unsorted, unequal lengths to trace with: src (3, 7), src_len (3,)."""
    src_len = torch.tensor([5, 7, 2])
    src = torch.randint(4, model.decoder.embedding.num_embeddings, (3, 7), generator=torch.Generator().manual_seed(0))
    return src.masked_fill(torch.arange(7) >= src_len.unsqueeze(1), model.pad_id), src_len


def _to_onnx(wrapper: nn.Module, args: tuple, inputs: list[str], outputs: list[str], axes: dict) -> bytes:
    """`torch.onnx.export` of `wrapper` in eval mode, as bytes."""
    buffer = io.BytesIO()
    # The exporter restores the module's training flag afterwards, and a new wrapper starts in training mode:
    # without eval() here the graph would keep dropout on.
    wrapper.eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer warnings about Python values frozen into the graph: sizes only
        torch.onnx.export(wrapper, args, buffer, input_names=inputs, output_names=outputs,
                          dynamic_axes={k: v for k, v in axes.items() if k in inputs + outputs},
                          dynamo=False, opset_version=OPSET)
    return buffer.getvalue()


def _encoder_graph(model: Seq2Seq) -> bytes:
    rows, both = {0: "B"}, {0: "B", 1: "S"}
    return _to_onnx(_Encoder(model), _sample(model), ["src", "src_len"], ["enc_out", "keys", "src_mask", "h", "c"],
                    {"src": both, "src_len": rows, "enc_out": both, "keys": both, "src_mask": both, "h": rows,
                     "c": rows})


def _step_graph(model: Seq2Seq) -> bytes:
    with torch.no_grad():
        enc_out, keys, src_mask, (h, c) = model.encode(*_sample(model))
    y = torch.full((len(h),), model.sos_id, dtype=torch.long)
    outputs = ["log_probs", "h_out", "c_out"] + ([] if isinstance(model.decoder.attention, NoAttention) else ["attn"])
    rows, both = {0: "N"}, {0: "N", 1: "S"}
    return _to_onnx(_Step(model), (y, h, c, keys, enc_out, src_mask), ["y", "h", "c", "keys", "enc_out", "src_mask"],
                    outputs, {"y": rows, "h": rows, "c": rows, "keys": both, "enc_out": both, "src_mask": both,
                              "log_probs": rows, "h_out": rows, "c_out": rows, "attn": both})


def _halve(graph: bytes) -> bytes:
    """The graph with its float32 weights stored as float16, each behind a Cast back to float32 (onnxruntime
    folds the Casts when it loads the graph, so it computes in float32 as before): half the bytes."""
    try:
        import onnx
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        raise ModelError("the fp16 ONNX export needs the onnx package (pip install onnx), or use --fp32") from None
    proto = onnx.load_from_string(graph)
    casts = []
    for weight in proto.graph.initializer:
        if weight.data_type != TensorProto.FLOAT:
            continue
        name, values = weight.name, numpy_helper.to_array(weight)
        weight.CopyFrom(numpy_helper.from_array(values.astype(np.float16), f"{name}.fp16"))
        casts.append(helper.make_node("Cast", [f"{name}.fp16"], [name], to=TensorProto.FLOAT))
    nodes = casts + list(proto.graph.node)
    del proto.graph.node[:]
    proto.graph.node.extend(nodes)
    onnx.checker.check_model(proto)
    return proto.SerializeToString()


def check_onnx(path: str | Path, model: Seq2Seq, vocab: Vocab, tolerance: float) -> None:
    """Raise ModelError unless the .onnxz at `path` loads, its per-step log-probabilities of CHECK_WORDS (each
    forced to write itself) are within `tolerance` of the torch model's, and so are its stored embeddings."""
    from typofix.engine.onnx_stepper import OnnxStepper, read_embeddings
    from typofix.engine.scoring import forced_log_probs
    from typofix.nn.torch_stepper import TorchStepper

    onnx_stepper, _ = OnnxStepper.load(path)
    words = [vocab.encode(w) for w in CHECK_WORDS if vocab.covers(w)] or [[vocab.unk_id]]
    src = np.full((len(words), max(map(len, words))), vocab.pad_id, dtype=np.int64)  # (B, S)
    for row, ids in enumerate(words):
        src[row, :len(ids)] = ids
    src_len = np.array([len(ids) for ids in words])
    expected, expected_attn = forced_log_probs(TorchStepper(model), src, src_len, words)  # (B, T), (B, T, S)
    got, got_attn = forced_log_probs(onnx_stepper, src, src_len, words)
    worst = float(np.abs(got - expected).max())
    if expected_attn is not None:
        worst = max(worst, float(np.abs(got_attn - expected_attn).max()))
    if not worst <= tolerance:
        raise ModelError(f"{path}: the ONNX graphs disagree with the torch model by {worst:.3g} (> {tolerance})")
    _, embeddings = read_embeddings(Path(path))
    expected_embeddings = model.encoder.embedding.weight.detach().numpy()  # (V, E)
    if embeddings is None or not np.allclose(embeddings, expected_embeddings, atol=tolerance):
        raise ModelError(f"{path}: the stored embeddings differ from the torch model's")
