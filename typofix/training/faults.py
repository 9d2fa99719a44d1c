"""Fault tolerance for training, wired in by `train.build` (not tunables, so not config): torch's RNG state in
the checkpoint (a resume equals an uninterrupted run), a checkpoint on SIGTERM, atomic checkpoint files."""

from __future__ import annotations

from pathlib import Path

import lightning as L
import torch
from lightning.pytorch.plugins.io import TorchCheckpointIO
from lightning.pytorch.utilities.exceptions import SIGTERMException

from typofix.files.atomic import atomic_path


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
