"""What every model loader shares: the one error a bad model file raises, and where the bundled models live.

Kept apart (stdlib only) so that the torch loader (`checkpoint`), the onnxruntime loader (`onnx_model`), the
corrector and the CLI agree on `ModelError` without any of them importing torch.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


class ModelError(Exception):
    """A model file that is missing, unreadable or not a typofix model; the message is one line naming it."""


BUNDLED = ("default", "fast")  # the bundled models: the default preset's, and the fast preset's smaller one


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
