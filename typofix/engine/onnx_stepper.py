"""The ONNX model file (.onnxz) and `OnnxStepper`, which runs it with onnxruntime: the correction path
without torch (`import torch` alone takes seconds; onnxruntime a fraction of one).

A .onnxz file is a zip of three members, written by `typofix.training.export.export_onnx` from a torch model:

* `encoder.onnx`: (src (B, S) int64, src_len (B,) int64) -> enc_out (B, S, 2H), keys (B, S, K),
  src_mask (B, S) bool, h (B, D), c (B, D): `Seq2Seq.encode`;
* `step.onnx`: (y (N,) int64, h, c (N, D), keys, enc_out, src_mask with N rows) -> log_probs (N, V), h_out,
  c_out (N, D), attn (N, S): one `Decoder.step` and its log-softmax. A model without attention has no attn
  output, and no keys / enc_out / src_mask inputs (the exporter drops inputs a graph never reads);
* `meta.json`: format name and version, alphabet, special ids, hyperparameters, where it was trained from;
* `embeddings.npy` (optional, written since the web explorer): the encoder's character embedding matrix
  (V, E), so the embedding map of an ONNX model is drawn without torch. Older files lack it.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
import zlib
from pathlib import Path

import numpy as np

from typofix.files.modelfile import ModelError, check_file
from typofix.words.indexcache import cached, file_digest
from typofix.words.vocab import Vocab

FORMAT = "typofix-onnx"
FORMAT_VERSION = 1
ENCODER, STEP, META, EMBEDDINGS = "encoder.onnx", "step.onnx", "meta.json", "embeddings.npy"


def read_members(path: Path) -> tuple[dict, bytes, bytes]:
    """(meta, encoder bytes, step bytes) of a .onnxz file, checked to be a typofix ONNX model this code reads."""
    check_file(path)
    try:
        with zipfile.ZipFile(path) as archive:
            missing = [name for name in (META, ENCODER, STEP) if name not in archive.namelist()]
            if missing:
                raise ModelError(f"{path} is not a typofix ONNX model (no {missing[0]} in it)")
            meta = json.loads(archive.read(META))
            encoder, step = archive.read(ENCODER), archive.read(STEP)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError, ValueError) as err:
        raise ModelError(f"cannot read model {path}: truncated, corrupt or not a typofix ONNX model "
                         f"({type(err).__name__})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ModelError(f"{path} is not a typofix ONNX model (format "
                         f"{meta.get('format') if isinstance(meta, dict) else None!r})")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ModelError(f"{path} is a typofix ONNX model of format version {meta.get('format_version')}; this "
                         f"typofix reads version {FORMAT_VERSION} (re-export it with typofix export)")
    return meta, encoder, step


class Graphs:
    """A .onnxz file's meta and graphs as arrays for the index cache (`typofix.words.indexcache`): inflating the
    bundled model's graphs took 35-45 ms of every run on this machine, reading them back a millisecond."""

    def __init__(self, meta: dict, encoder: bytes, step: bytes):
        self.meta, self.encoder, self.step = meta, encoder, step

    @classmethod
    def read(cls, path: Path) -> "Graphs":
        """The graphs of the .onnxz file at `path` (its bytes' digest names them in the cache); ModelError as
        `read_members`."""
        check_file(path)
        try:
            digest = file_digest(path)
        except OSError as err:
            raise ModelError(f"cannot read model {path}: {err.strerror or err}") from None
        return cached("model", digest, lambda: cls(*read_members(path)), cls.from_arrays)

    @classmethod
    def from_arrays(cls, arrays) -> "Graphs":
        meta = json.loads(bytes(arrays["meta"]))
        if not isinstance(meta, dict):
            raise ValueError("not a model's meta")
        return cls(meta, bytes(arrays["encoder"]), bytes(arrays["step"]))

    def arrays(self) -> dict[str, np.ndarray]:
        return {"meta": np.frombuffer(json.dumps(self.meta).encode(), dtype=np.uint8),
                "encoder": np.frombuffer(self.encoder, dtype=np.uint8),
                "step": np.frombuffer(self.step, dtype=np.uint8)}


def read_embeddings(path: Path) -> tuple[dict, np.ndarray | None]:
    """(meta, the encoder's embedding matrix (V, E) or None for a file exported before it was stored)."""
    meta, _, _ = read_members(path)
    try:
        with zipfile.ZipFile(path) as archive:
            if EMBEDDINGS not in archive.namelist():
                return meta, None
            matrix = np.load(io.BytesIO(archive.read(EMBEDDINGS)), allow_pickle=False)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as err:
        raise ModelError(f"cannot read the embeddings of {path} ({type(err).__name__})") from None
    if matrix.ndim != 2:
        raise ModelError(f"{path}: {EMBEDDINGS} has shape {matrix.shape}, not (vocabulary, embedding)")
    return meta, matrix


class OnnxStepper:
    """Runs the encoder and decoder-step graphs of a .onnxz file on onnxruntime's CPU provider; see
    `search.Stepper`. Threads: OMP_NUM_THREADS when set (as torch does), else onnxruntime's default; idle ones
    sleep instead of spinning. With `when_needed`, onnxruntime is imported and the graphs are read into it on
    the first call, not now: a run whose words are all known or searched before (`typofix correct` of a clean
    text, `typofix check` from kept searches) never pays for them (about 0.07 s of CPU and 45 MB)."""

    def __init__(self, encoder: bytes, step: bytes, pad_id: int, sos_id: int, eos_id: int, source: str = "model",
                 when_needed: bool = False):
        self.pad_id, self.sos_id, self.eos_id = pad_id, sos_id, eos_id
        self._graphs: tuple[bytes, bytes] | None = (encoder, step)
        self._source = source
        self._sessions = None
        self._step_inputs: list[str] = []
        if not when_needed:
            self._open()

    @property
    def encoder(self):
        return (self._sessions or self._open())[0]

    @property
    def stepper(self):
        return (self._sessions or self._open())[1]

    def _open(self) -> tuple:
        """The encoder's and the step's sessions, made now (ModelError: no onnxruntime, a damaged graph)."""
        try:
            import onnxruntime
        except ImportError:
            raise ModelError(f"{self._source}: running an ONNX model needs onnxruntime (pip install onnxruntime)"
                             ) from None
        options = onnxruntime.SessionOptions()
        threads = os.environ.get("OMP_NUM_THREADS", "")
        if threads.isdigit() and int(threads) > 0:
            options.intra_op_num_threads = int(threads)
            options.inter_op_num_threads = 1
        # Between two of our small graph calls the engine works in Python (tries, rapidfuzz) about as long, and
        # onnxruntime's idle threads spin by default: they took the second core from it. Measured on this 2-core
        # machine, its default two threads, five runs each, medians spinning -> not: `evaluate --fast` on
        # birkbeck-dev 1,612 -> 2,013 words/s at 1.8 -> 1.1 cores busy; the default preset (2,000 rows) 673 ->
        # 791 at 1.7 -> 1.1; `correct --file` the dev prose 1.62 -> 1.42 s.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        # The graphs are small and every call's shapes differ (rows per trie depth, words per batch): onnxruntime's
        # arena keeps the largest of them all reserved, where plain allocations are returned. Measured on birkbeck-
        # dev's first 800 typos, default preset, one process each, twice: peak RSS 460-487 -> 413-422 MB at the
        # same CPU time (3.4-5.2 s with, 3.4-3.9 without; a shared machine).
        options.enable_cpu_mem_arena = False
        # For the same reason no memory pattern: onnxruntime plans and keeps one block layout per distinct input
        # shape, and a long text meets hundreds of (rows, source length) shapes. The same outputs bit for bit;
        # 400 birkbeck-dev typos, beam 4, twice, one thread: 103-122 -> 56-72 MB of anonymous memory left, peak
        # RSS 183-196 -> 131-140 MB, CPU time the same or less (docs/engine.md).
        options.enable_mem_pattern = False
        try:
            sessions = tuple(onnxruntime.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
                             for graph in self._graphs)
        except Exception as err:  # onnxruntime raises its own exception types for a damaged graph
            first = (str(err).strip().splitlines() or [""])[0][:160]
            raise ModelError(f"{self._source}: a damaged ONNX graph ({type(err).__name__}: {first})") from None
        self._sessions, self._graphs = sessions, None
        self._step_inputs = [i.name for i in sessions[1].get_inputs()]
        return sessions

    @classmethod
    def load(cls, path: str | Path, when_needed: bool = False) -> tuple["OnnxStepper", Vocab]:
        """The stepper and vocabulary of a .onnxz file (ModelError if it is missing, damaged or foreign; with
        `when_needed`, a damaged graph or a missing onnxruntime is found on the first call)."""
        path = Path(path)
        graphs = Graphs.read(path)
        meta, encoder, step = graphs.meta, graphs.encoder, graphs.step
        try:
            vocab = Vocab(meta["alphabet"])
            special = {"pad": vocab.pad_id, "sos": vocab.sos_id, "eos": vocab.eos_id}
        except (KeyError, TypeError, ValueError) as err:
            raise ModelError(f"{path}: bad meta.json ({type(err).__name__}: {err})") from None
        if meta.get("special_ids") != special:
            raise ModelError(f"{path}: special ids {meta.get('special_ids')} differ from this typofix's {special}")
        return cls(encoder, step, vocab.pad_id, vocab.sos_id, vocab.eos_id, str(path), when_needed), vocab

    def encode(self, src: np.ndarray, src_len: np.ndarray):
        enc_out, keys, src_mask, h, c = self.encoder.run(None, {"src": np.asarray(src, dtype=np.int64),
                                                                "src_len": np.asarray(src_len, dtype=np.int64)})
        return (enc_out, keys, src_mask), (h, c)

    def step(self, y: np.ndarray, state, memory):
        given = {"y": y, "h": state[0], "c": state[1], "enc_out": memory[0], "keys": memory[1],
                 "src_mask": memory[2]}
        stepper = self.stepper  # (opened first: the inputs it reads are known then)
        outputs = stepper.run(None, {name: given[name] for name in self._step_inputs})
        log_probs, h, c = outputs[:3]  # (N, V), (N, D), (N, D)
        return log_probs, (h, c), outputs[3] if len(outputs) > 3 else None
