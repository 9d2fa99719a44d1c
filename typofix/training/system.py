"""TypoCorrector: the Lightning system that owns a Seq2Seq model and knows how to train and measure it."""

from __future__ import annotations

import math
from typing import Annotated

import lightning as L
import torch
from torchmetrics.text import CharErrorRate

from typofix.nn.decode import greedy
from typofix.nn.model import ATTENTION_KINDS, Seq2Seq
from typofix.training.config_schema import (Agree, Count, ExistingFile, Fraction, Given, NonNegative, OneOf, Positive,
                                            Range, Share, Text, check_arguments)
from typofix.training.distill import Teacher, soft_cross_entropy
from typofix.words.vocab import DEFAULT_ALPHABET, Vocab


class NonFiniteLossError(RuntimeError):
    """Training produced a NaN or infinite loss; raised before anything can be checkpointed from it."""


class TypoCorrector(L.LightningModule):
    """Trains Seq2Seq with teacher-forced cross-entropy; validates by greedy exact match and CER.

    With a `teacher` (a trained model file), the training loss mixes in the teacher's next-letter distributions
    with weight `distill_weight` (typofix.training.distill): a smaller student distilled from a larger model. The
    validation loss stays the plain cross-entropy, comparable between runs with and without a teacher.

    Takes only plain values, so a checkpoint rebuilds it with no Hydra and no DataModule. Each parameter's type
    and range is declared here, once: the training config (conf/model/, `model.*`) is checked against this
    signature before anything is built (typofix.training.config_schema), and so is every construction."""

    # Keys that must agree with each other (the attention modules refuse to be built otherwise).
    agreements = (
        Agree(("attention", "enc_hidden_size", "dec_hidden_size"),
              lambda attention, enc, dec: attention not in ("dot", "scaled_dot") or dec == 2 * enc,
              "dec_hidden_size = 2 x enc_hidden_size (the encoder's output size) for dot and scaled_dot attention"),
        Agree(("attention", "dec_hidden_size", "heads"),
              lambda attention, dec, heads: attention != "multihead" or dec % heads == 0,
              "heads dividing dec_hidden_size for multihead attention"),
    )

    def __init__(self, alphabet: Text = DEFAULT_ALPHABET, emb_size: Positive = 64, enc_hidden_size: Positive = 128,
                 enc_layers: Positive = 2, dec_hidden_size: Positive = 256, attn_size: Positive = 128,
                 attention: Annotated[str, OneOf(ATTENTION_KINDS)] = "additive", heads: Positive = 4,
                 dropout: Fraction = 0.1, lr: Annotated[float, Range(0, low_open=True)] = 3e-3,
                 weight_decay: NonNegative = 1e-4, warmup_steps: Count = 200, min_lr_ratio: Share = 0.05,
                 teacher: ExistingFile = None, distill_weight: Share = 0.5,
                 val_set_names: Annotated[list[str] | None, Given("set by train.build: the datamodule's sets")] = None):
        check_arguments(TypoCorrector, locals())
        super().__init__()
        self.save_hyperparameters()
        self.vocab = Vocab(alphabet)
        self.model = Seq2Seq.from_hparams(dict(self.hparams), len(self.vocab), self.vocab.pad_id, self.vocab.sos_id,
                                          self.vocab.eos_id)
        # A plain attribute, not a submodule: the teacher is neither trained nor saved in checkpoints.
        self.teacher = Teacher(teacher, alphabet) if teacher else None
        self.val_set_names = list(val_set_names or ["val"])
        # One CER metric per validation set: torchmetrics accumulates across batches and reduces across DDP ranks.
        self.val_cer = torch.nn.ModuleList(CharErrorRate() for _ in self.val_set_names)
        self.test_cer = CharErrorRate()
        self._first_non_finite: torch.Tensor | None = None  # the step of the first non-finite loss (-1: none yet)

    # What `_evaluate` logs under each validation set's prefix (and test/): callbacks may monitor these.
    evaluation_metrics = ("loss", "word_acc", "cer")

    @classmethod
    def logged_metrics(cls, val_set_names: list[str]) -> list[str]:
        """The metrics a fit logs, given the datamodule's validation sets (`val`, `val_<dev set>`, ...)."""
        return ["train/loss"] + [f"{prefix}/{name}" for prefix in val_set_names for name in cls.evaluation_metrics]

    def forward(self, src, src_len):
        """Inference: greedy corrections as id tensors (B, T)."""
        return greedy(self.model, src, src_len).ids

    def training_loss(self, batch):
        """Teacher-forced cross-entropy against the gold letters, mixed with the teacher's soft targets if any."""
        src, src_len, tgt_in, tgt_out = batch["src"], batch["src_len"], batch["tgt_in"], batch["tgt_out"]
        logits, _ = self.model(src, src_len, tgt_in)  # (B, T, V)
        loss = self.model.cross_entropy(logits, tgt_out)
        if self.teacher is None:
            return loss
        targets = self.teacher.soft_targets(src, src_len, tgt_in)  # (B, T, V)
        weight = self.hparams.distill_weight
        return (1 - weight) * loss + weight * soft_cross_entropy(logits, targets, tgt_out, self.vocab.pad_id)

    def training_step(self, batch, batch_idx):
        loss = self.training_loss(batch)
        # Whether the loss is finite is noted on the device, not asked: asking waits for the device at every step.
        # `check_finite` reads the note where the host waits anyway, and before any checkpoint is written.
        first = self._first_non_finite
        if first is None or first.device != loss.device:
            first = torch.full((), -1, dtype=torch.long, device=loss.device)
        self._first_non_finite = torch.where((first < 0) & ~torch.isfinite(loss), self.global_step, first)
        self.log("train/loss", loss, prog_bar=True, batch_size=batch["src"].size(0))
        return loss

    def check_finite(self) -> None:
        """NonFiniteLossError if a training loss since the start was NaN or infinite (every process agrees under
        DDP: one process stopping alone would hang the rest)."""
        first = -1 if self._first_non_finite is None else int(self._first_non_finite)
        finite = first < 0
        if self._trainer is not None:
            finite = self.trainer.strategy.reduce_boolean_decision(finite, all=True)
        if not finite:
            where = f" at step {first}" if first >= 0 else " in another process"
            raise NonFiniteLossError(
                f"non-finite training loss{where}; stopping before a checkpoint is written from it (lower model.lr "
                "or keep gradient clipping on)")

    # Where the host waits anyway (the logger reads the loss every log_every_n_steps), before a validation would
    # spend its time on broken weights, before any checkpoint is written, and at the end.
    def on_train_batch_end(self, outputs, batch, batch_idx):
        if self.global_step % max(1, self.trainer.log_every_n_steps) == 0:
            self.check_finite()

    def on_validation_start(self):
        if self.trainer.state.fn == "fit" and not self.trainer.sanity_checking:
            self.check_finite()

    def on_save_checkpoint(self, checkpoint):
        self.check_finite()

    def on_train_end(self):
        self.check_finite()

    def _evaluate(self, batch, prefix: str, cer: CharErrorRate):
        """Loss, greedy exact-match accuracy and CER of one batch, logged under `prefix/`."""
        size = batch["src"].size(0)
        loss = self.model.loss(batch["src"], batch["src_len"], batch["tgt_in"], batch["tgt_out"])
        predictions = [self.vocab.decode(row) for row in self(batch["src"], batch["src_len"])]
        targets = [self.vocab.decode(row) for row in batch["tgt_out"]]
        correct = sum(p == t for p, t in zip(predictions, targets))
        cer.update(predictions, targets)
        log = dict(batch_size=size, add_dataloader_idx=False, sync_dist=True)
        self.log(f"{prefix}/loss", loss, **log)
        self.log(f"{prefix}/word_acc", correct / size, prog_bar=prefix == "val", **log)
        self.log(f"{prefix}/cer", cer, on_step=False, on_epoch=True, add_dataloader_idx=False, batch_size=size)

    def validation_step(self, batch, batch_idx, dataloader_idx: int = 0):
        self._evaluate(batch, self.val_set_names[dataloader_idx], self.val_cer[dataloader_idx])

    def test_step(self, batch, batch_idx):
        self._evaluate(batch, "test", self.test_cer)

    def configure_optimizers(self):
        """AdamW with linear warm-up then cosine decay to `min_lr_ratio` over the planned number of steps. The
        warm-up takes `warmup_steps` or a tenth of the planned steps, whichever is fewer: a short run (a smoke test,
        a small fine-tuning) still reaches its peak rate and decays from it."""
        decay = [p for n, p in self.named_parameters() if p.dim() >= 2 and "embedding" not in n]
        no_decay = [p for n, p in self.named_parameters() if p.dim() < 2 or "embedding" in n]
        optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": self.hparams.weight_decay},
                                       {"params": no_decay, "weight_decay": 0.0}], lr=self.hparams.lr)
        total = max(1, int(self.trainer.estimated_stepping_batches)) if self._trainer else 1
        warmup, floor = min(self.hparams.warmup_steps, max(1, total // 10)), self.hparams.min_lr_ratio

        def factor(step: int) -> float:
            if step < warmup:
                return (step + 1) / warmup
            progress = min(1.0, (step - warmup) / max(1, total - warmup))
            return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * progress))

        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}
