"""The Hydra entry point: `typofix-train key=value ...` composes conf/train.yaml, builds and fits.

`build(cfg)` and `train(cfg)` take a composed config and never touch Hydra's global state, so tests call
them directly with a config from `hydra.compose`.
"""

from __future__ import annotations

import sys

import hydra
import lightning as L
import torch
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from typofix.data import DataError
from typofix.lexicon import LexiconError
from typofix.system import NonFiniteLossError

CONFIG_PATH = "pkg://typofix.conf"


def build(cfg: DictConfig):
    """(datamodule, system, trainer) from a composed config; the datamodule is set up first so the system
    knows the names of its validation sets."""
    L.seed_everything(cfg.seed, workers=True)
    if cfg.threads:
        torch.set_num_threads(int(cfg.threads))
    datamodule = instantiate(cfg.data, _convert_="all")
    datamodule.setup("fit")
    system = instantiate(cfg.model, _convert_="all", val_set_names=datamodule.val_set_names)
    callbacks = [instantiate(c) for c in (cfg.get("callbacks") or {}).values() if c is not None]
    logger = instantiate(cfg.logger) if cfg.get("logger") else False
    trainer = instantiate(cfg.trainer, callbacks=callbacks, logger=logger)
    return datamodule, system, trainer


def train(cfg: DictConfig) -> dict[str, float]:
    """Fit (resuming from `ckpt_path` if set), optionally test, and return the final logged metrics."""
    datamodule, system, trainer = build(cfg)
    trainer.fit(system, datamodule=datamodule, ckpt_path=cfg.ckpt_path)
    metrics = {k: float(v) for k, v in trainer.callback_metrics.items()}
    if cfg.test_after_fit and not trainer.interrupted:
        for result in trainer.test(system, datamodule=datamodule, verbose=False):
            metrics.update(result)
    if trainer.checkpoint_callback is not None and trainer.is_global_zero:
        print(f"best checkpoint: {trainer.checkpoint_callback.best_model_path or '-'}")
        print(f"last checkpoint: {trainer.checkpoint_callback.last_model_path or '-'}")
    return metrics


@hydra.main(version_base="1.3", config_path=CONFIG_PATH, config_name="train")
def _hydra_main(cfg: DictConfig) -> None:
    try:
        train(cfg)
    except (DataError, LexiconError, NonFiniteLossError, FileNotFoundError) as err:
        # Our own errors already say what is wrong and where: one line, no traceback.
        print(f"typofix-train: error: {err}", file=sys.stderr)
        sys.exit(1)


def main() -> None:
    """Console script `typofix-train`."""
    _hydra_main()


if __name__ == "__main__":
    main()
