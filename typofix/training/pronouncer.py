"""Pronouncer: the Lightning system of the letter-to-phone model. The corrector's `Seq2Seq` and training loop
(`TypoCorrector`), with phones as its output characters and the two measures G2P is judged by:

* phone error rate (PER): phone edits from the prediction to the reference over the reference's phones, which
  is torchmetrics' character error rate when every character is a phone;
* word error rate (WER): the share of words whose predicted pronunciation is not the reference exactly.
"""

from __future__ import annotations

import torch
from torchmetrics import MeanMetric
from torchmetrics.text import CharErrorRate

from typofix.training.system import TypoCorrector


class Pronouncer(TypoCorrector):
    """Trains Seq2Seq from letters to phones; validates by greedy decoding, logging `per` and `wer`. Takes the
    corrector's parameters, the alphabet being the letters and the phones (`G2P_ALPHABET`, which the g2p
    experiment sets)."""

    evaluation_metrics = ("loss", "word_acc", "per", "wer")

    def setup(self, stage: str) -> None:
        # Made here, not in __init__, so the constructor stays TypoCorrector's (its signature is what the config
        # is checked against and what Lightning saves as hyperparameters); Lightning moves them to the device after.
        if not hasattr(self, "test_wer"):
            self.val_wer = torch.nn.ModuleList(MeanMetric() for _ in self.val_set_names)
            self.test_wer = MeanMetric()

    def _evaluate(self, batch, prefix: str, per: CharErrorRate):
        size = batch["src"].size(0)
        wer = self.test_wer if prefix == "test" else self.val_wer[self.val_set_names.index(prefix)]
        loss = self.model.loss(batch["src"], batch["src_len"], batch["tgt_in"], batch["tgt_out"])
        predictions = [self.vocab.decode(row) for row in self(batch["src"], batch["src_len"])]
        references = [self.vocab.decode(row) for row in batch["tgt_out"]]
        wrong = torch.tensor([float(p != r) for p, r in zip(predictions, references)])
        per.update(predictions, references)
        wer.update(wrong)
        log = dict(batch_size=size, add_dataloader_idx=False)
        self.log(f"{prefix}/loss", loss, sync_dist=True, **log)
        self.log(f"{prefix}/word_acc", 1 - wrong.mean(), sync_dist=True, **log)
        self.log(f"{prefix}/per", per, on_step=False, on_epoch=True, **log)
        self.log(f"{prefix}/wer", wer, on_step=False, on_epoch=True, prog_bar=prefix == "val", **log)
