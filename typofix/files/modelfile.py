"""What every model loader shares: the one error a bad model file raises, where the bundled models live, and
the one function that says which model file a command runs (`resolve_model`).

Kept apart (stdlib only) so that the torch loader (`typofix.nn.checkpoint`), the onnxruntime loader
(`typofix.engine.onnx_stepper`), the corrector and every front door agree on `ModelError` and on the file to
run without any of them importing torch.
"""

from __future__ import annotations

import importlib.util
from importlib import resources
from pathlib import Path


class ModelError(Exception):
    """A model file that is missing, unreadable or not a typofix model; the message is one line naming it."""


BUNDLED = ("default", "fast")  # the bundled correctors: the default preset's, and the fast preset's smaller one
PRONOUNCER = "g2p"  # the bundled letter-to-phone model (`typofix pronounce`, the phone channel): int8 ONNX only


def bundled_model_path(name: str = "default") -> Path:
    """A bundled torch model (fp16 weights), made by `typofix export CKPT typofix/models/NAME.pt`."""
    return Path(str(resources.files("typofix").joinpath("models", f"{name}.pt")))


def bundled_onnx_path(name: str = "default") -> Path:
    """The same model exported to ONNX, made from the file above by `make onnx`."""
    return bundled_model_path(name).with_suffix(".onnxz")


def bundled_int8_path(name: str = "default") -> Path:
    """The ONNX export with an int8 decoder step (`make onnx`, `typofix.training.quantize`), what the correction path runs
    by default: about half the time per decoder step of the float one on an AVX2 CPU, the same corrections on the
    dev sets but for a few close calls (README)."""
    return bundled_model_path(name).with_name(f"{name}-int8.onnxz")


def check_file(path: Path) -> None:
    """Raise ModelError unless `path` is an existing file."""
    if not path.exists():
        raise ModelError(f"model file not found: {path}")
    if not path.is_file():
        raise ModelError(f"model path is not a file: {path}")


def resolve_model(path: str | Path | None = None, preset: str = "default", onnx: bool = True) -> Path:
    """The model file to run: `path` when one is given (checked to be a file), else the bundled model of
    `preset` ("default" or "fast", or "g2p" for the letter-to-phone model): its int8 ONNX export where `onnx` is allowed (a CPU run) and onnxruntime is
    installed, else its float ONNX export, else its torch export. Every front door (correct, check, the Ispell
    pipe, serve, the plots) resolves its model here, so they all run the same file and rank the same way."""
    if path is not None:
        path = Path(path)
        check_file(path)
        return path
    if preset not in BUNDLED + (PRONOUNCER,):
        raise ModelError(f"no bundled model {preset!r}; the bundled ones are {', '.join(BUNDLED + (PRONOUNCER,))}")
    if onnx and importlib.util.find_spec("onnxruntime") is not None:
        for candidate in (bundled_int8_path(preset), bundled_onnx_path(preset)):
            if candidate.is_file():
                return candidate
    return bundled_model_path(preset)
