"""Lightning callbacks that configs attach by name (conf/callbacks/, experiment recipes), and the CSV logger
(conf/logger/csv.yaml)."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import lightning as L
import numpy as np
import torch
from lightning.fabric.loggers.logger import rank_zero_experiment
from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger
from lightning.pytorch.loggers.csv_logs import ExperimentWriter

from typofix.insight.plots import (AXIS_TITLES, PHONE_AXIS_TITLES, Alignment, animate_embeddings, figure_to_rgb,
                                   plot_attention_grid, save_figure)
from typofix.training.config_schema import NON_EMPTY, OneOf, Positive
from typofix.words.phones import PHONE_ALPHABET, symbol_label, to_arpabet

log = logging.getLogger(__name__)


class WordsPerSecond(L.Callback):
    """Logs training throughput each epoch: `train/words_per_sec` over the wall time spent in the training loop
    (data, forward, backward, optimiser step) and `train/words_per_cpu_sec` over this process's CPU time in it.
    Validation is left out of both, so evaluation-heavy recipes do not look slower at training. On a shared
    machine the wall rate depends on the neighbours; the CPU rate (with `threads: 1`, one core's worth of work)
    hardly does, so it is the one to compare runs by."""

    logged_metrics = ("train/words_per_sec", "train/words_per_cpu_sec")

    def __init__(self):
        self._words, self._wall, self._cpu, self._marks = 0, 0.0, 0.0, (0.0, 0.0)

    @staticmethod
    def _now() -> tuple[float, float]:
        return time.perf_counter(), time.process_time()

    def on_train_epoch_start(self, trainer, pl_module):
        self._words, self._wall, self._cpu, self._marks = 0, 0.0, 0.0, self._now()

    def on_validation_end(self, trainer, pl_module):
        # Restart the clocks after a mid-epoch validation, so the next batch is not charged for it.
        self._marks = self._now()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        (wall, cpu), (wall0, cpu0) = self._now(), self._marks
        self._wall, self._cpu, self._marks = self._wall + wall - wall0, self._cpu + cpu - cpu0, (wall, cpu)
        self._words += batch["src"].size(0)

    def on_train_epoch_end(self, trainer, pl_module):
        if self._wall > 0 and self._cpu > 0:
            # Wall rates add up over DDP processes (the whole job's throughput); CPU rates are averaged (per core).
            pl_module.log("train/words_per_sec", self._words / self._wall, sync_dist=True, reduce_fx="sum")
            pl_module.log("train/words_per_cpu_sec", self._words / self._cpu, sync_dist=True, reduce_fx="mean")


# The two callbacks below see the model only through the system's `model` (a Seq2Seq) and `vocab`: they
# must not import typofix.training.system (the import DAG), and need nothing else from it.


def _run_dir_path(trainer, dirpath: str | None, default: str) -> Path:
    """`dirpath` as configured, else `default` under the trainer's root dir (the run dir in our configs)."""
    return Path(dirpath) if dirpath else Path(trainer.default_root_dir) / default


class AttentionSamples(L.Callback):
    """Every validation epoch, draws the attention alignments of a fixed list of words as one grid: a PNG
    `<dirpath>/epochNN.png` always, and an image in TensorBoard when that logger is on. A model without
    attention has nothing to draw: the callback says so once and stays quiet."""

    def __init__(self, words: Annotated[Sequence[str], NON_EMPTY] = ("recieve", "definately", "seperate",
                                                                      "goverment", "untill", "beleive"),
                 dirpath: str | None = None, every_n_epochs: Positive = 1):
        if not words:
            raise ValueError("AttentionSamples needs at least one word")
        self.words, self.dirpath, self.every_n_epochs = list(words), dirpath, every_n_epochs
        self._said_no_attention = False

    def on_validation_epoch_end(self, trainer, pl_module):
        epoch = trainer.current_epoch
        if trainer.sanity_checking or not trainer.is_global_zero or epoch % self.every_n_epochs:
            return
        alignments = self.alignments(pl_module)
        if alignments is None:
            if not self._said_no_attention:
                log.info("attention samples: this model has no attention weights (attention=none); "
                         "no alignment images will be drawn")
                self._said_no_attention = True
            return
        fig = plot_attention_grid(alignments)
        save_figure(fig, _run_dir_path(trainer, self.dirpath, "attention") / f"epoch{epoch:02d}.png")
        for logger in trainer.loggers:
            if isinstance(logger, TensorBoardLogger):
                logger.experiment.add_image("attention", figure_to_rgb(fig), trainer.global_step, dataformats="HWC")

    @torch.no_grad()
    def alignments(self, pl_module) -> list[Alignment] | None:
        """Greedy corrections of the words with their attention weights; None for a model without attention."""
        vocab, model = pl_module.vocab, pl_module.model
        was_training = pl_module.training
        pl_module.eval()  # no dropout in the picture
        try:
            src = torch.nn.utils.rnn.pad_sequence([torch.tensor(vocab.encode(w)) for w in self.words],
                                                  batch_first=True, padding_value=vocab.pad_id).to(pl_module.device)
            src_len = torch.tensor([len(w) for w in self.words], device=pl_module.device)
            ids = pl_module(src, src_len)  # (B, T) greedy output
            # Greedy's weights, recovered by teacher-forcing the model's own output (exactly the same steps):
            # the system's forward returns only ids, and this module may not import the decoder itself.
            sos = torch.full_like(ids[:, :1], vocab.sos_id)
            _, attn = model(src, src_len, torch.cat([sos, ids[:, :-1]], dim=1))  # (B, T, S) or None
        finally:
            pl_module.train(was_training)
        if attn is None:
            return None
        attn = attn.float().cpu().numpy()
        # A letter-to-phone model (its alphabet has the phones) writes phones: its rows and titles in ARPAbet.
        g2p = all(c in vocab.alphabet for c in PHONE_ALPHABET)
        alignments = []
        for b, word in enumerate(self.words):
            row = ids[b].tolist()
            steps = row.index(vocab.eos_id) + 1 if vocab.eos_id in row else len(row)  # keep the EOS step
            out = [vocab.symbols[i] for i in row[:steps]]
            written = vocab.decode(row)
            alignments.append(Alignment(list(word), [symbol_label(s) for s in out] if g2p else out,
                                        attn[b, :steps, : len(word)],
                                        title=f"{word} -> {to_arpabet(written) if g2p else written}",
                                        axis_titles=PHONE_AXIS_TITLES if g2p else AXIS_TITLES))
        return alignments


class EmbeddingSnapshots(L.Callback):
    """Every validation epoch, copies a character-embedding matrix (encoder input by default, or the
    decoder's) to `<dirpath>/epochNN.npy` (all symbols, in vocabulary order) and keeps it in `snapshots`;
    at the end of training writes `gif_path`, the embedding map animated over the epochs."""

    def __init__(self, embedding: Annotated[str, OneOf(("encoder", "decoder"))] = "encoder",
                 dirpath: str | None = None, gif_path: str | None = None):
        if embedding not in ("encoder", "decoder"):
            raise ValueError(f"embedding must be 'encoder' or 'decoder', got {embedding!r}")
        self.embedding, self.dirpath, self.gif_path = embedding, dirpath, gif_path
        self.snapshots: dict[int, np.ndarray] = {}
        self._rows: list[int] = []
        self._symbols: list[str] = []

    def on_train_start(self, trainer, pl_module):
        # A resumed run picks up the snapshots its earlier parts saved, so the GIF covers every epoch. (Here, not
        # at fit start: the epoch is restored from the checkpoint in between.) Later ones are redrawn as it goes.
        if trainer.ckpt_path is None or not trainer.is_global_zero:
            return
        folder = _run_dir_path(trainer, self.dirpath, "embeddings")
        for path in sorted(folder.glob("epoch*.npy")):
            epoch = int(path.stem[5:]) if path.stem[5:].isdigit() else None
            if epoch is not None and epoch <= trainer.current_epoch:
                self.snapshots.setdefault(epoch, np.load(path))
        self._remember_symbols(pl_module)

    def _remember_symbols(self, pl_module) -> None:
        # The map shows the alphabet only: the specials' rows are padding (zeros) or never trained.
        vocab = pl_module.vocab
        self._rows, self._symbols = vocab.encode(vocab.alphabet), list(vocab.alphabet)

    def on_validation_epoch_end(self, trainer, pl_module):
        if trainer.sanity_checking or not trainer.is_global_zero:
            return
        module = pl_module.model.encoder if self.embedding == "encoder" else pl_module.model.decoder
        matrix = module.embedding.weight.detach().float().cpu().numpy().copy()  # (V, E)
        epoch = trainer.current_epoch
        path = _run_dir_path(trainer, self.dirpath, "embeddings") / f"epoch{epoch:02d}.npy"
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, matrix)
        self.snapshots[epoch] = matrix
        self._remember_symbols(pl_module)

    def on_train_end(self, trainer, pl_module):
        # Not on_exception too: a failure while drawing there would mask the error being handled (SIGTERM's
        # checkpoint, say); an interrupted run keeps its .npy snapshots.
        if not self.snapshots or not trainer.is_global_zero:
            return
        path = Path(self.gif_path) if self.gif_path else Path(trainer.default_root_dir) / "embeddings.gif"
        frames = {epoch: self.snapshots[epoch][self._rows] for epoch in sorted(self.snapshots)}
        animate_embeddings(frames, self._symbols, path)


class _AppendingWriter(ExperimentWriter):
    """Lightning's CSV writer, minus deleting an existing metrics.csv: it continues the file (its columns too)."""

    def _check_log_dir_exists(self) -> None:
        if self._fs.isfile(self.metrics_file_path):
            with self._fs.open(self.metrics_file_path, "r") as f:
                header = f.readline().strip()
            self.metrics_keys = [k for k in header.split(",") if k]


class AppendingCSVLogger(CSVLogger):
    """CSVLogger whose metrics.csv is appended to, never replaced: a resumed run keeps the rows of every part in
    one file (Lightning's own deletes the file it finds, and a resume would lose the first part's metrics)."""

    @property
    @rank_zero_experiment
    def experiment(self) -> ExperimentWriter:
        if self._experiment is None:
            self._fs.makedirs(self.root_dir, exist_ok=True)
            self._experiment = _AppendingWriter(log_dir=self.log_dir)
        return self._experiment
