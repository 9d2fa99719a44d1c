"""Fault tolerance for training, wired in by `train.build` and `train.fit` (not tunables, so not config): torch's
RNG state in the checkpoint (a resume equals an uninterrupted run), a stop at a safe point and a checkpoint on
SIGTERM or Ctrl-C, atomic checkpoint files; and faults on purpose (TYPOFIX_FAULT), so that tests can make a
signal arrive at each moment of a run that matters to resuming it."""

from __future__ import annotations

import logging
import os
import re
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import lightning as L
import torch
from lightning.pytorch.plugins.io import TorchCheckpointIO
from lightning.pytorch.utilities.exceptions import SIGTERMException

from typofix.files import exits
from typofix.files.atomic import atomic_path
from typofix.training.config_schema import ConfigError

log = logging.getLogger(__name__)


class AtomicCheckpointIO(TorchCheckpointIO):
    """Writes each checkpoint to a temporary file beside its final name, fsyncs it, then renames it into place:
    a killed job leaves the previous file or the new one, never a partial one. (Lightning's default writes via
    fsspec to a file in the system temp dir, whose move is a plain copy when that is another filesystem.)"""

    def __init__(self, faults: "FaultInjection | None" = None):
        super().__init__()
        self.faults = faults

    def save_checkpoint(self, checkpoint, path, storage_options=None) -> None:
        if "://" in str(path) or storage_options is not None:  # remote storage: fsspec's own transaction
            return super().save_checkpoint(checkpoint, path, storage_options)
        with atomic_path(path, keep_suffix=False) as tmp:  # not *.ckpt: never mistaken for a checkpoint
            torch.save(checkpoint, tmp)
            if self.faults is not None:  # between the temporary file's writing and its renaming
                self.faults.point("checkpoint", checkpoint.get("global_step", -1))


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
    """On a stop during fit (SIGTERM, or Ctrl-C turned into the same stop by StopSignals), saves `last.ckpt` in the
    checkpoint folder. Lightning's own handling only stops the loop at its next safe point by raising
    SIGTERMException, which exits with status 0 and saves nothing."""

    def on_exception(self, trainer, pl_module, exception) -> None:
        if isinstance(exception, SIGTERMException) and trainer.state.fn == "fit":
            if trainer.validating:
                rewind_validation(trainer)
            # Collective under DDP, which is fine: every process gets the exception.
            trainer.save_checkpoint(last_checkpoint_path(trainer), weights_only=False)


def rewind_validation(trainer) -> None:
    """Set the validation loop's progress back to the start of the validation a stop cut short, marked as begun,
    so that the resumed run validates again from its first batch. Left as it is, the checkpoint says a validation
    of several batches ended after the one it was in, and Lightning, resuming, skips the rest of it: the epoch's
    metrics, its early-stopping verdict and its best checkpoint would be missing."""
    progress = trainer.fit_loop.epoch_loop.val_loop.batch_progress
    before = progress.total.completed - progress.current.completed  # batches of earlier validations this epoch
    progress.reset_on_run()
    progress.total.reset()
    progress.total.increment_by(before)
    # Lightning's sign of a checkpoint taken inside an evaluation batch (RESTARTED_MID_EVALUATION): one batch
    # started and not processed. It resumes by going back into validation, whose counters restart from the
    # completed ones: none.
    progress.increment_ready()
    progress.increment_started()


def last_checkpoint_path(trainer) -> Path:
    """`last.ckpt` in the ModelCheckpoint's folder (or `checkpoints/` under the run dir if there is none)."""
    folder = getattr(trainer.checkpoint_callback, "dirpath", None) or Path(trainer.default_root_dir, "checkpoints")
    return Path(folder) / "last.ckpt"


# --- stopping on a signal ---------------------------------------------------------------------------------------

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopSignals(L.Callback):
    """While a trainer runs (`with stop.installed()`), SIGINT (Ctrl-C) asks it to stop as SIGTERM does: Lightning
    stops at its next safe point, after the current training or validation batch or the checkpoint being written,
    never inside one; SigtermCheckpoint then saves `last.ckpt`, and `train.fit` turns the stop into the exit status
    of its signal and the command that resumes. (Python's own Ctrl-C raises KeyboardInterrupt wherever the loop
    is, and the state that leaves cannot be resumed exactly.) A second Ctrl-C stops at once, saving nothing; a
    second SIGTERM changes nothing. Wired in by `train.build`; signal handlers live in the main thread only."""

    def __init__(self):
        self.signum: int | None = None  # the first stop signal
        self.forced = False  # a second Ctrl-C

    @contextmanager
    def installed(self) -> Iterator["StopSignals"]:
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        # Lightning, when fit starts, puts its SIGTERM handler before this one (and gives this one back after).
        previous = {signum: signal.signal(signum, self._handle) for signum in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield self
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)

    def _handle(self, signum: int, frame) -> None:
        if self.signum is None:
            self.signum = signum
            log.info(f"{exits.signal_name(signum)}: stopping at the next safe point, after saving a checkpoint"
                     + (" (Ctrl-C again stops at once, saving nothing)" if signum == signal.SIGINT else ""))
            if signum != signal.SIGTERM:
                signal.raise_signal(signal.SIGTERM)  # Lightning's stop (this handler, called again, passes)
        elif signum == signal.SIGINT and not self.forced:
            self.forced = True
            raise KeyboardInterrupt

    # Lightning installs its SIGTERM handler when fit (or test) starts, and clears its stop flag then: a signal
    # that came before is given to it again.
    def on_train_start(self, trainer, pl_module):
        if self.signum is not None and not trainer.received_sigterm:
            signal.raise_signal(signal.SIGTERM)

    def on_test_start(self, trainer, pl_module):
        self.on_train_start(trainer, pl_module)


# --- faults on purpose ------------------------------------------------------------------------------------------

FAULT_ENV = "TYPOFIX_FAULT"
# The moments a fault can be injected at. Its step is trainer.global_step then (the optimizer steps taken so far):
# `train_batch@5` is inside the 6th batch, `validation@8` inside the validation that follows step 8,
# `checkpoint@8` between writing a checkpoint of step 8 to its temporary file and renaming it into place.
MOMENTS = {
    "build": "while the run is built, before training",
    "train_start": "before the first training batch",
    "train_batch": "inside a training batch",
    "batch_end": "after a training batch, before the validation or the batch that follows it",
    "validation": "inside validation",
    "validation_end": "after validation, before its checkpoints are written",
    "checkpoint": "while a checkpoint is written",
    "epoch_end": "at the end of a training epoch",
    "test": "inside the test after training",
}


@dataclass(frozen=True)
class Fault:
    """A signal raised at a chosen moment of a run: `<moment>[@<step>][:<SIGNAL>]`, e.g. `validation@8:SIGINT`
    (SIGTERM when no signal is named; the moment's first time when no step is)."""

    moment: str
    step: int | None = None
    signum: int = signal.SIGTERM

    @classmethod
    def parse(cls, text: str) -> "Fault":
        match = re.fullmatch(r"(\w+)(?:@(\d+))?(?::(?:SIG)?([A-Za-z]+))?", text.strip())
        if not match or match[1] not in MOMENTS:
            raise ConfigError(f"{FAULT_ENV}: {text.strip()!r} is not <moment>[@<step>][:<SIGNAL>], the moment one of "
                              + ", ".join(MOMENTS))
        name = f"SIG{(match[3] or 'TERM').upper()}"
        if name not in signal.Signals.__members__:
            raise ConfigError(f"{FAULT_ENV}: {text.strip()!r}: no signal {name}")
        return cls(match[1], int(match[2]) if match[2] else None, int(signal.Signals[name]))


class FaultInjection(L.Callback):
    """Raises signals at chosen moments of a run, each once: `TYPOFIX_FAULT=<fault>[,<fault>...]` (see Fault;
    `train_batch@5:INT,train_batch@5:INT` is a Ctrl-C pressed twice). It makes the moments that a supervisor's or
    a user's signal can hit happen on purpose, so tests need not sleep and hope. An environment variable, not a
    config key: a run's recorded overrides, which its resume replays, never hold it. Wired in by `train.build`
    when the variable is set; the checkpoint moment is called from AtomicCheckpointIO."""

    def __init__(self, faults: list[Fault]):
        self.pending = list(faults)

    @classmethod
    def from_environment(cls) -> "FaultInjection | None":
        """The faults TYPOFIX_FAULT asks for (ConfigError, one line, if it cannot be read); None when unset."""
        text = os.environ.get(FAULT_ENV, "").strip()
        return cls([Fault.parse(part) for part in text.split(",")]) if text else None

    def point(self, moment: str, step: int) -> None:
        """Raise the signal of each pending fault of this moment and step, in order."""
        for fault in [f for f in self.pending if f.moment == moment and f.step in (None, step)]:
            self.pending.remove(fault)
            log.info(f"{FAULT_ENV}: {signal.Signals(fault.signum).name} {MOMENTS[moment]} (step {step})")
            signal.raise_signal(fault.signum)

    def on_train_start(self, trainer, pl_module):
        self.point("train_start", trainer.global_step)

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        self.point("train_batch", trainer.global_step)

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        self.point("batch_end", trainer.global_step)

    def on_validation_batch_start(self, trainer, pl_module, batch, batch_idx, dataloader_idx=0):
        if not trainer.sanity_checking and batch_idx == 0 and dataloader_idx == 0:
            self.point("validation", trainer.global_step)

    def on_validation_end(self, trainer, pl_module):
        if not trainer.sanity_checking:
            self.point("validation_end", trainer.global_step)

    def on_train_epoch_end(self, trainer, pl_module):
        self.point("epoch_end", trainer.global_step)

    def on_test_batch_start(self, trainer, pl_module, batch, batch_idx, dataloader_idx=0):
        self.point("test", trainer.global_step)
