"""The Hydra entry point: `typofix-train key=value ...` composes conf/train.yaml, builds and fits.

`build(cfg)` and `train(cfg)` take a composed config and never touch Hydra's global state, so tests call
them directly with a config from `hydra.compose`.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import hydra
import lightning as L
import torch
from hydra.errors import InstantiationException
from hydra.utils import instantiate
from lightning.pytorch.plugins.io import TorchCheckpointIO
from lightning.pytorch.utilities.exceptions import SIGTERMException
from lightning.pytorch.utilities.rank_zero import rank_zero_only
from omegaconf import DictConfig, OmegaConf

from typofix.atomic import atomic_path
from typofix.checkpoint import ModelError, read_checkpoint
from typofix.data import DataError
from typofix.lexicon import LexiconError
from typofix.misspellings import MisspellingsError
from typofix.system import NonFiniteLossError

CONFIG_PATH = "pkg://typofix.conf"


class TrainingStopped(RuntimeError):
    """Training was stopped by SIGTERM after saving a checkpoint to resume from."""


class AtomicCheckpointIO(TorchCheckpointIO):
    """Writes each checkpoint to a temporary file beside its final name, fsyncs it, then renames it into place:
    a killed job leaves the previous file or the new one, never a partial one. (Lightning's default writes via
    fsspec to a file in the system temp dir, whose move is a plain copy when that is another filesystem.)"""

    def save_checkpoint(self, checkpoint, path, storage_options=None) -> None:
        if "://" in str(path) or storage_options is not None:  # remote storage: fsspec's own transaction
            return super().save_checkpoint(checkpoint, path, storage_options)
        with atomic_path(path, keep_suffix=False) as tmp:  # not *.ckpt: never mistaken for a checkpoint
            torch.save(checkpoint, tmp)


class RngState(L.Callback):
    """Keeps torch's RNG state (dropout masks) in the checkpoint, so a resumed run draws the same masks as an
    uninterrupted one. Lightning restores data, weights, optimiser and loop state, not RNG. Under DDP the file
    holds rank 0's state, which every rank gets back: training stays valid, masks are not bit-identical."""

    def state_dict(self) -> dict:
        state = {"torch": torch.get_rng_state()}
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            state["cuda"] = torch.cuda.get_rng_state()
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        torch.set_rng_state(state_dict["torch"])
        if "cuda" in state_dict and torch.cuda.is_available():
            torch.cuda.set_rng_state(state_dict["cuda"])


class SigtermCheckpoint(L.Callback):
    """On SIGTERM during fit, saves `last.ckpt` in the checkpoint folder. Lightning's own handling only stops the
    loop (after the current batch) by raising SIGTERMException, which exits with status 0 and saves nothing."""

    def on_exception(self, trainer, pl_module, exception) -> None:
        if isinstance(exception, SIGTERMException) and trainer.state.fn == "fit":
            # Collective under DDP, which is fine: every process gets the exception.
            trainer.save_checkpoint(last_checkpoint_path(trainer), weights_only=False)


def last_checkpoint_path(trainer) -> Path:
    """`last.ckpt` in the ModelCheckpoint's folder (or `checkpoints/` under the run dir if there is none)."""
    folder = getattr(trainer.checkpoint_callback, "dirpath", None) or Path(trainer.default_root_dir, "checkpoints")
    return Path(folder) / "last.ckpt"


def load_initial_weights(system, path) -> None:
    """Copy the model weights of a checkpoint or export into `system` (nothing else: not the optimiser, the
    schedule or the data position, which is what sets a second stage apart from a resume)."""
    checkpoint = read_checkpoint(path)
    if checkpoint.alphabet != system.vocab.alphabet:
        raise ModelError(f"init_weights {path}: alphabet {checkpoint.alphabet!r} differs from this run's "
                         f"{system.vocab.alphabet!r}")
    try:
        system.model.load_state_dict(checkpoint.state_dict)  # fp16 exports are copied into float32 parameters
    except RuntimeError as err:
        first = (str(err).strip().splitlines() or ["mismatch"])[0][:160]
        raise ModelError(f"init_weights {path} does not fit model.* of this run ({first})") from None


def build(cfg: DictConfig):
    """(datamodule, system, trainer) from a composed config; the datamodule is set up first so the system
    knows the names of its validation sets."""
    L.seed_everything(cfg.seed, workers=True)
    if cfg.threads:
        torch.set_num_threads(int(cfg.threads))
    datamodule = instantiate(cfg.data, _convert_="all")
    datamodule.setup("fit")
    system = instantiate(cfg.model, _convert_="all", val_set_names=datamodule.val_set_names)
    if cfg.get("init_weights"):
        load_initial_weights(system, cfg.init_weights)
    callbacks = [instantiate(c) for c in (cfg.get("callbacks") or {}).values() if c is not None]
    # Fault tolerance is not a tunable, so not config: exact resume, a checkpoint on SIGTERM, atomic files.
    callbacks += [RngState(), SigtermCheckpoint()]
    logger = instantiate(cfg.logger) if cfg.get("logger") else False
    trainer = instantiate(cfg.trainer, callbacks=callbacks, logger=logger, plugins=[AtomicCheckpointIO()])
    return datamodule, system, trainer


def train(cfg: DictConfig) -> dict[str, float]:
    """Fit (resuming from `ckpt_path` if set), optionally test, and return the final logged metrics."""
    datamodule, system, trainer = build(cfg)
    try:
        trainer.fit(system, datamodule=datamodule, ckpt_path=cfg.ckpt_path)
        metrics = {k: float(v) for k, v in trainer.callback_metrics.items()}
        if cfg.test_after_fit and not trainer.interrupted:
            for result in trainer.test(system, datamodule=datamodule, verbose=False):
                metrics.update(result)
    except SIGTERMException:  # a SystemExit with status 0: turn it into an error that says how to go on
        raise TrainingStopped(f"stopped by SIGTERM at step {trainer.global_step}; resume with "
                              f"ckpt_path={last_checkpoint_path(trainer)}") from None
    if trainer.checkpoint_callback is not None and trainer.is_global_zero:
        print(f"best checkpoint: {trainer.checkpoint_callback.best_model_path or '-'}")
        print(f"last checkpoint: {last if (last := last_checkpoint_path(trainer)).is_file() else '-'}")
    return metrics


@hydra.main(version_base="1.3", config_path=CONFIG_PATH, config_name="train")
def _hydra_main(cfg: DictConfig) -> None:
    try:
        train(cfg)
    except TrainingStopped as err:
        _fail(str(err), 128 + signal.SIGTERM)  # the shell's status for "terminated by SIGTERM"
    except (DataError, LexiconError, MisspellingsError, ModelError, NonFiniteLossError, FileNotFoundError,
            InstantiationException) as err:
        # They already say what is wrong and where (a bad config value: which key): no traceback, one line.
        _fail("error: " + " ".join(str(err).split()), 1)


def _fail(message: str, status: int) -> None:
    if rank_zero_only.rank == 0:  # under DDP every process gets the error; say it once
        print(f"typofix-train: {message}", file=sys.stderr)
    sys.exit(status)


def main() -> None:
    """Console script `typofix-train`."""
    _hydra_main()


if __name__ == "__main__":
    main()
