"""Torch model files (`typofix.nn.checkpoint`): a Lightning checkpoint and a slim export read with
`torch.load(weights_only=True)` alone into the same model, and every bad file is a one-line `ModelError`."""

from __future__ import annotations

import pytest
import torch

from typofix.engine.corrector import Corrector, ModelError
from typofix.nn.checkpoint import FORMAT, FORMAT_VERSION, build_model, read_checkpoint


def test_a_checkpoint_and_its_slim_export_build_the_same_model(tiny_ckpt, tiny_exports):
    full, exported = read_checkpoint(tiny_ckpt), read_checkpoint(tiny_exports["slim"])
    assert not any(k.startswith("model.") for k in full.state_dict)  # Lightning's prefix is gone
    assert full.state_dict.keys() == exported.state_dict.keys()
    assert all(torch.equal(exported.state_dict[k], v.half() if v.is_floating_point() else v)
               for k, v in full.state_dict.items())
    assert full.hparams == exported.hparams and full.alphabet == exported.alphabet
    assert full.trained == exported.trained and set(full.trained) == {"epoch", "global_step"}
    raw = torch.load(tiny_exports["slim"], weights_only=True)
    assert (raw["format"], raw["format_version"]) == (FORMAT, FORMAT_VERSION)
    (model, vocab), (halved, _) = build_model(full), build_model(exported)
    assert not model.training and not halved.training and vocab.alphabet == full.alphabet
    assert all(p.dtype == torch.float32 for p in halved.parameters())  # float16 weights come back as float32
    src, src_len = torch.tensor([vocab.encode("speling")]), torch.tensor([7])
    tgt_in = torch.tensor([vocab.encode("spelling", add_sos=True)])
    with torch.no_grad():
        torch.testing.assert_close(halved(src, src_len, tgt_in)[0], model(src, src_len, tgt_in)[0], atol=0.05, rtol=0)


def test_bad_model_files_are_one_line_model_errors(tmp_path, tiny_ckpt, tiny_exports):
    cases = {"missing.pt": None, "empty.pt": b"", "junk.pt": b"not a checkpoint\n",
             "truncated.ckpt": tiny_ckpt.read_bytes()[:5000]}
    for name, content in cases.items():
        if content is not None:
            (tmp_path / name).write_bytes(content)
        with pytest.raises(ModelError) as err:
            Corrector.load(tmp_path / name)
        assert "\n" not in str(err.value) and name in str(err.value)
    with pytest.raises(ModelError, match="not a file"):
        read_checkpoint(tmp_path)
    blob = torch.load(tiny_exports["slim"], weights_only=True)
    torch.save({**blob, "format_version": 99}, tmp_path / "future.pt")
    with pytest.raises(ModelError, match="format version 99"):
        read_checkpoint(tmp_path / "future.pt")
    torch.save({**blob, "format": "other-model"}, tmp_path / "other.pt")
    with pytest.raises(ModelError, match="not a typofix model"):
        read_checkpoint(tmp_path / "other.pt")
    torch.save([1, 2, 3], tmp_path / "list.pt")
    with pytest.raises(ModelError, match="not a typofix model"):
        read_checkpoint(tmp_path / "list.pt")
    torch.save({"state_dict": {}}, tmp_path / "no-hparams.ckpt")
    with pytest.raises(ModelError, match="no hyperparameters"):
        read_checkpoint(tmp_path / "no-hparams.ckpt")
    bad = {**blob, "hparams": {**blob["hparams"], "dec_hidden_size": 7}}
    torch.save(bad, tmp_path / "mismatch.pt")
    with pytest.raises(ModelError, match="do not match"):
        Corrector.load(tmp_path / "mismatch.pt")
