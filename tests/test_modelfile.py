"""Which model file a command runs (`typofix.files.modelfile.resolve_model`, the one resolution every front door
calls): a file given is checked and run; none is the preset's bundled model, its int8 ONNX export where
onnxruntime can run it, else its torch export."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from typofix.files.modelfile import (BUNDLED, ModelError, bundled_int8_path, bundled_model_path, bundled_onnx_path,
                                     check_file, resolve_model)

needs_bundled = pytest.mark.skipif(not all(bundled_int8_path(p).is_file() for p in BUNDLED),
                                   reason="the bundled ONNX models are not exported yet")


def test_a_file_given_is_the_file_run_and_must_be_one(tmp_path):
    model = tmp_path / "mine.ckpt"
    model.write_bytes(b"anything: reading it is the loader's job")
    assert resolve_model(model) == model and resolve_model(str(model), "fast", onnx=False) == model
    with pytest.raises(ModelError, match="model file not found: .*missing.onnxz"):
        resolve_model(tmp_path / "missing.onnxz")
    with pytest.raises(ModelError, match="not a file"):
        check_file(tmp_path)


def test_the_bundled_files_of_a_preset_are_named_after_it():
    for preset in BUNDLED:
        torch_file = bundled_model_path(preset)
        assert torch_file.name == f"{preset}.pt" and torch_file.parent.name == "models"
        assert bundled_onnx_path(preset) == torch_file.with_suffix(".onnxz")
        assert bundled_int8_path(preset) == torch_file.with_name(f"{preset}-int8.onnxz")
    with pytest.raises(ModelError, match="no bundled model 'huge'; the bundled ones are default, fast"):
        resolve_model(None, "huge")


@needs_bundled
@pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None, reason="onnxruntime is not installed")
def test_no_file_is_the_presets_int8_export_on_the_cpu():
    assert resolve_model() == bundled_int8_path() and resolve_model(None, "fast") == bundled_int8_path("fast")
    assert resolve_model(None, "fast", onnx=False) == bundled_model_path("fast")  # a GPU run: torch


def test_without_onnxruntime_no_file_is_the_torch_export(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # what an uninstalled package looks like to import
    assert resolve_model() == bundled_model_path() and resolve_model(None, "fast") == bundled_model_path("fast")
