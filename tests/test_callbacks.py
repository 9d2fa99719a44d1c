"""The attention and embedding callbacks in real `experiment=tiny` runs, composed from the real config."""

import logging

import numpy as np
import pytest
from conftest import compose_train_config
from PIL import Image

from typofix.training.train import train

QUIET = ["callbacks.progress_bar=null", "trainer.enable_progress_bar=false", "data.dev_sets.norvig=null"]


@pytest.mark.slow
def test_callbacks_write_attention_images_embedding_snapshots_and_the_gif(tmp_path):
    train(compose_train_config("experiment=tiny", f"run_dir={tmp_path}", "logger=tensorboard", *QUIET))

    for epoch in (0, 1):
        with Image.open(tmp_path / "attention" / f"epoch{epoch:02d}.png") as image:
            assert image.format == "PNG" and image.width > 200
        snapshot = np.load(tmp_path / "embeddings" / f"epoch{epoch:02d}.npy")
        assert snapshot.shape == (4 + 28, 16)  # every symbol (specials + alphabet) x the tiny emb_size
    with Image.open(tmp_path / "embeddings.gif") as gif:
        assert gif.n_frames == 2

    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(tmp_path / "tensorboard"))
    events.Reload()
    assert len(events.Images("attention")) == 2


@pytest.mark.slow  # a second training run; the attention case above covers the callbacks
def test_a_model_without_attention_gets_snapshots_and_one_log_line(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="typofix.training.callbacks")
    train(compose_train_config("experiment=tiny", f"run_dir={tmp_path}", "model.attention=none", *QUIET))

    assert not (tmp_path / "attention").exists()
    assert sorted(p.name for p in (tmp_path / "embeddings").iterdir()) == ["epoch00.npy", "epoch01.npy"]
    assert (tmp_path / "embeddings.gif").is_file()
    said = [r for r in caplog.records if "no attention weights" in r.getMessage()]
    assert len(said) == 1
