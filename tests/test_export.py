"""Exporting a checkpoint (`typofix.training.export`) and the command that does it (`typofix export`,
`typofix.apps.cli.export`): the slim fp16 file corrects as the checkpoint does, an export is reproducible to the
byte and leaves no temporary file, and the bundled model files keep to their size budget."""

from __future__ import annotations

import json
import zipfile

import pytest
import torch

from typofix.apps.cli import main
from typofix.engine.corrector import Corrector, ModelError
from typofix.engine.settings import DecodingSettings
from typofix.files.modelfile import PRONOUNCER, bundled_int8_path, bundled_model_path, bundled_onnx_path
from typofix.training.export import WEIGHTS_INT8, export

SMALL = DecodingSettings(beam=3)


def test_the_slim_export_is_small_and_corrects_as_the_checkpoint(tiny_ckpt, tmp_path):
    slim = tmp_path / "model.pt"
    export(tiny_ckpt, slim)
    blob = torch.load(slim, weights_only=True)
    assert set(blob) >= {"format", "format_version", "hparams", "alphabet", "state_dict"}
    assert all(t.dtype == torch.float16 for t in blob["state_dict"].values() if t.is_floating_point())
    assert slim.stat().st_size < tiny_ckpt.stat().st_size / 3
    export(tiny_ckpt, tmp_path / "fp32.pt", half=False)
    words = ["speling", "recieve", "wierd"]
    expected = Corrector.load(tiny_ckpt, settings=SMALL).suggest_many(words, 3)
    assert Corrector.load(tmp_path / "fp32.pt", settings=SMALL).suggest_many(words, 3) == expected  # the checkpoint
    halved = [s.score for ranked in Corrector.load(slim, settings=SMALL).suggest_many(words, 1) for s in ranked]
    assert halved == pytest.approx([ranked[0].score for ranked in expected], abs=0.05)
    with pytest.raises(ModelError, match="ONNX export"):
        export(tiny_ckpt, tmp_path / "int8.pt", int8=True)


def test_export_is_reproducible(tiny_ckpt, tmp_path):
    """The same model exports to the same bytes, so regenerating the bundled file changes nothing in git."""
    export(tiny_ckpt, tmp_path / "a.onnxz")
    export(tiny_ckpt, tmp_path / "b.onnxz")
    assert (tmp_path / "a.onnxz").read_bytes() == (tmp_path / "b.onnxz").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.onnxz", "b.onnxz"]  # no temporary files left


def test_the_export_command_writes_the_kind_its_name_and_options_ask_for(tiny_ckpt, tmp_path, capsys):
    """In process: the file named, a line saying so, float32 weights with --fp32 (twice the size of float16)."""
    for name, options in [("half.pt", []), ("full.pt", ["--fp32"]), ("model.onnxz", [])]:
        assert main(["export", str(tiny_ckpt), str(tmp_path / name), *options]) == 0
        assert capsys.readouterr().out.startswith(f"wrote {tmp_path / name} (")
    assert 1.8 < (tmp_path / "full.pt").stat().st_size / (tmp_path / "half.pt").stat().st_size < 2.2
    with zipfile.ZipFile(tmp_path / "model.onnxz") as archive:
        assert json.loads(archive.read("meta.json"))["weights"] == "float16"
    assert main(["export", str(tmp_path / "missing.ckpt"), str(tmp_path / "x.pt")]) == 1  # a model error
    assert "missing.ckpt" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full.pt", "half.pt", "model.onnxz"]


@pytest.mark.skipif(not (bundled_model_path().is_file() and bundled_onnx_path().is_file()),
                    reason="the bundled models are not exported yet")
def test_bundled_models_stay_small():
    paths = [bundled_model_path(), bundled_onnx_path(), bundled_int8_path(), bundled_model_path("fast"),
             bundled_int8_path("fast"), bundled_int8_path(PRONOUNCER)]
    assert sorted(p.name for p in paths) == sorted(p.name for p in bundled_model_path().parent.iterdir()
                                                     if p.suffix in (".pt", ".onnxz"))  # every one counted
    assert sum(p.stat().st_size for p in paths) <= 10_000_000  # the budget for all model files
    weights = []
    for path in (bundled_onnx_path(), bundled_int8_path(), bundled_int8_path("fast")):
        with zipfile.ZipFile(path) as archive:
            meta = json.loads(archive.read("meta.json"))
        assert meta["format"] == "typofix-onnx"
        weights.append(meta["weights"])
    assert weights == ["float16", WEIGHTS_INT8, WEIGHTS_INT8]


def test_checkpoints_average_into_one_model(tiny_ckpt, tmp_path):
    """`typofix export CKPT OUT --average MORE...`: the mean of the weights; a checkpoint averaged with itself is
    itself, and a model of another architecture is refused in one line."""
    from typofix.nn.checkpoint import average_checkpoints, read_checkpoint
    from typofix.training.export import read_source

    one = read_checkpoint(tiny_ckpt)
    same = read_source(tiny_ckpt, [tiny_ckpt])
    assert all(torch.allclose(same.state_dict[k].float(), v.float()) for k, v in one.state_dict.items())
    shifted = read_checkpoint(tiny_ckpt)
    shifted.state_dict = {k: v + 2.0 if v.is_floating_point() else v for k, v in one.state_dict.items()}
    mean = average_checkpoints([one, shifted], ["a", "b"])
    name = next(k for k, v in one.state_dict.items() if v.is_floating_point())
    assert torch.allclose(mean.state_dict[name], one.state_dict[name] + 1.0)
    shifted.state_dict = {k: v[..., :1] if v.dim() else v for k, v in one.state_dict.items()}
    with pytest.raises(ModelError, match="b: cannot average with a"):
        average_checkpoints([one, shifted], ["a", "b"])
    out = tmp_path / "averaged.pt"
    assert main(["export", str(tiny_ckpt), str(out), "--average", str(tiny_ckpt)]) == 0 and out.is_file()
