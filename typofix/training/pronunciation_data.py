"""Training data for the letter-to-phone model: CMUdict words and their pronunciations, split by word.

A word's pronunciations all go to one split (a hash of the word decides, as for the corrector's words), so the
test words are words the model never saw. Training pairs are every pronunciation of every training word, in
length buckets shuffled anew each epoch; validation and test take each held-out word with its first (most
common) pronunciation, the target the error rates are measured against.
"""

from __future__ import annotations

import random
from pathlib import Path

import lightning as L
import torch
from torch.utils.data import DataLoader, Sampler

from typofix.files.packagedata import packaged
from typofix.training.config_schema import (Count, Fraction, OptionalPath, Positive, Seed, Text, Agree,
                                            check_arguments)
from typofix.training.data import DataError, FixedPairs, collate, length_buckets, rank_and_world, split_of
from typofix.words.phones import G2P_ALPHABET, PhoneError
from typofix.words.phones import read_pronunciations as read_pronunciation_file
from typofix.words.vocab import Vocab


def read_pronunciations(path: str | Path | None) -> dict[str, list[str]]:
    """word -> its pronunciations as phone strings, from a `word<TAB>PH PH ...` file (gzipped or not); None
    reads the bundled data/cmudict.txt.gz."""
    path = Path(path) if path else packaged("cmudict.txt.gz")
    if not path.is_file():
        raise DataError(f"pronunciation file not found: {path}")
    try:
        return read_pronunciation_file(path)
    except PhoneError as err:
        raise DataError(str(err)) from None


class ShuffledBuckets(Sampler):
    """Batches of indices of equal-length sources, in a new seeded order each epoch; under DDP each process
    takes every world_size-th batch."""

    def __init__(self, lengths: list[int], batch_size: int, seed: int):
        self.lengths, self.batch_size, self.seed, self.epoch = lengths, batch_size, seed, 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    @property
    def sampler(self) -> "ShuffledBuckets":  # where Lightning calls set_epoch (see data.LengthBucketSampler)
        return self

    def _batches(self) -> list[list[int]]:
        rng = random.Random(f"{self.seed}/g2p/{self.epoch}")
        order = list(range(len(self.lengths)))
        rng.shuffle(order)  # equal lengths in a new order each epoch, so no two epochs batch alike
        batches = length_buckets([self.lengths[i] for i in order], self.batch_size, rng)
        rank, world = rank_and_world()
        usable = len(batches) - len(batches) % world
        return [[order[i] for i in batch] for batch in batches[rank:usable:world]]

    def __iter__(self):
        yield from self._batches()

    def __len__(self) -> int:
        _, world = rank_and_world()
        return (-(-len(self.lengths) // self.batch_size)) // world


class PronunciationDataModule(L.LightningDataModule):
    """Serves (word, pronunciation) pairs: dataloader 0 validates on held-out words; `test` on the others held out.

    Each parameter's type and range is declared here, once (typofix.training.config_schema)."""

    agreements = (Agree(("val_fraction", "test_fraction"), lambda val, test: val + test < 1, "a sum below 1"),)

    def __init__(self, pronunciations_path: OptionalPath = None, alphabet: Text = G2P_ALPHABET, seed: Seed = 1234,
                 max_word_len: Positive = 24, val_fraction: Fraction = 0.02, test_fraction: Fraction = 0.05,
                 val_size: Positive = 2000, batch_size: Positive = 256, eval_batch_size: Positive = 512,
                 num_workers: Count = 0):
        check_arguments(PronunciationDataModule, locals())
        super().__init__()
        self.pronunciations_path, self.seed, self.max_word_len = pronunciations_path, seed, max_word_len
        self.val_fraction, self.test_fraction, self.val_size = val_fraction, test_fraction, val_size
        self.batch_size, self.eval_batch_size, self.num_workers = batch_size, eval_batch_size, num_workers
        self.vocab = Vocab(alphabet)
        self.val_set_names = ["val"]
        self._ready = False

    def setup(self, stage: str | None = None) -> None:
        if self._ready:
            return
        found = read_pronunciations(self.pronunciations_path)
        self.splits: dict[str, list[str]] = {"train": [], "val": [], "test": []}
        for word in sorted(found):
            if len(word) <= self.max_word_len and self.vocab.covers(word) and all(map(self.vocab.covers, found[word])):
                self.splits[split_of(word, self.val_fraction, self.test_fraction)].append(word)
        if not self.splits["train"]:
            raise DataError("no training words left after filtering the pronunciations")
        self.pronunciations = found
        self.train_set = FixedPairs([(w, p) for w in self.splits["train"] for p in found[w]], self.vocab)
        val_words = list(self.splits["val"])
        random.Random(f"{self.seed}/val").shuffle(val_words)
        self.val_sets = [FixedPairs([(w, found[w][0]) for w in sorted(val_words[:self.val_size])], self.vocab)]
        self.test_set = FixedPairs([(w, found[w][0]) for w in self.splits["test"]], self.vocab)
        self._ready = True

    def _collate(self, items):
        return collate(items, self.vocab.pad_id)

    def train_dataloader(self) -> DataLoader:
        sampler = ShuffledBuckets([len(w) for w, _ in self.train_set.pairs], self.batch_size, self.seed)
        return DataLoader(self.train_set, batch_sampler=sampler, collate_fn=self._collate,
                          num_workers=self.num_workers, persistent_workers=self.num_workers > 0,
                          generator=torch.Generator().manual_seed(0))

    def _fixed_loader(self, dataset: FixedPairs) -> DataLoader:
        batches = length_buckets([len(w) for w, _ in dataset.pairs], self.eval_batch_size, None)
        return DataLoader(dataset, batch_sampler=batches, collate_fn=self._collate, num_workers=0,
                          generator=torch.Generator().manual_seed(0))

    def val_dataloader(self) -> list[DataLoader]:
        return [self._fixed_loader(d) for d in self.val_sets]

    def test_dataloader(self) -> DataLoader:
        return self._fixed_loader(self.test_set)
