"""Training data: words drawn from the frequency prior, misspelled on the fly, batched by length.

Every training sample is a pure function of (seed, epoch, index): which word (a per-epoch table drawn from the
prior) and which typo (`typos.rng_for`). Batches therefore need no shared state between workers or processes.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Sampler

from typofix.words.lexicon import Lexicon
from typofix.files.misspellings import read_misspellings
from typofix.files.packagedata import packaged
from typofix.training.config_schema import (SOME_POSITIVE, Agree, Count, ExistingFile, Fraction, Names, NonNegative,
                                            OneOf, Positive, Probabilities, Rule, Seed, Share, Text, check_arguments)
from typofix.training.noise import CHANNELS, CONFUSION_GROUPS, KEYBOARD_KINDS, SOUND_KINDS, TypoGenerator
from typofix.words.vocab import DEFAULT_ALPHABET, Vocab

DEFAULT_DEV_SETS = {"norvig": "norvig-testset1.tsv", "birkbeck": "birkbeck-dev.tsv"}

# Relative weights of the hand-set channel's kinds of error (noise.DEFAULT_WEIGHTS when None).
TypoWeights = Annotated[Mapping[str, NonNegative] | None, Names(KEYBOARD_KINDS + CONFUSION_GROUPS + SOUND_KINDS), SOME_POSITIVE]


def dev_set_path(path_or_name: str) -> Path | None:
    """An existing path as given, else a file of the bundled data/eval/ folder; None if neither is a file."""
    path = Path(path_or_name)
    if path.is_file():
        return path
    bundled = packaged("eval", path_or_name)
    return bundled if bundled.is_file() else None


# Validation sets: name -> a misspelling file (a path, or a file of data/eval/); null drops a set.
DevSets = Mapping[str, Annotated[Text, Rule("a misspelling file (a path, or a file of data/eval/)",
                                            lambda v: dev_set_path(v) is not None, lambda v: "no such file")]
                  | None] | None


class DataError(ValueError):
    """A data file that is missing or malformed; the message names it."""


def split_of(word: str, val_fraction: float, test_fraction: float) -> str:
    """'train', 'val' or 'test' from a hash of the word alone: the split never depends on list order or seed."""
    bucket = int(hashlib.sha1(word.encode("utf-8")).hexdigest()[:8], 16) / 0xFFFFFFFF
    if bucket < val_fraction:
        return "val"
    return "test" if bucket < val_fraction + test_fraction else "train"


def resolve_dev_set(path_or_name: str) -> Path:
    """`dev_set_path`, or DataError if there is no such file."""
    path = dev_set_path(path_or_name)
    if path is None:
        raise DataError(f"misspelling file not found: {path_or_name}")
    return path


def encode_pair(vocab: Vocab, typo: str, word: str):
    """(src ids, tgt_in ids = SOS + word, tgt_out ids = word + EOS) as tensors."""
    return (torch.tensor(vocab.encode(typo), dtype=torch.long),
            torch.tensor(vocab.encode(word, add_sos=True), dtype=torch.long),
            torch.tensor(vocab.encode(word, add_eos=True), dtype=torch.long))


def collate(items, pad_id: int) -> dict[str, torch.Tensor]:
    """Pad a list of encoded pairs: src (B, S), src_len (B,), tgt_in / tgt_out (B, T)."""
    srcs, tgt_ins, tgt_outs = zip(*items)
    pad = lambda seqs: torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=pad_id)  # noqa: E731
    return {"src": pad(srcs), "src_len": torch.tensor([len(s) for s in srcs]), "tgt_in": pad(tgt_ins),
            "tgt_out": pad(tgt_outs)}


class SyntheticTypos(Dataset):
    """Index (epoch, i) -> the i-th generated (typo, word) pair of that epoch, encoded."""

    def __init__(self, words: list[str], weights: np.ndarray, vocab: Vocab, generator: TypoGenerator, seed: int,
                 epoch_size: int):
        self.words, self.vocab, self.generator = words, vocab, generator
        self.seed, self.epoch_size = seed, epoch_size
        self.cum_weights = np.cumsum(weights / weights.sum())
        self._table_epoch, self._table = None, None

    def __len__(self) -> int:
        return self.epoch_size

    def word_table(self, epoch: int) -> np.ndarray:
        """Word index of every sample of `epoch`, drawn from the prior (cached: one table per epoch)."""
        if self._table_epoch != epoch:
            rng = np.random.default_rng([self.seed, epoch])
            self._table = np.searchsorted(self.cum_weights, rng.random(self.epoch_size), side="right")
            self._table = np.minimum(self._table, len(self.words) - 1)
            self._table_epoch = epoch
        return self._table

    def pair(self, epoch: int, index: int):
        word = self.words[self.word_table(epoch)[index]]
        return self.generator.sample(word, self.seed, epoch, index).text, word

    def __getitem__(self, key):
        epoch, index = key
        return encode_pair(self.vocab, *self.pair(epoch, index))


class FixedPairs(Dataset):
    """A fixed list of (typo, word) pairs: the synthetic validation set and the real misspelling sets."""

    def __init__(self, pairs: list[tuple[str, str]], vocab: Vocab):
        self.pairs, self.vocab = pairs, vocab

    def __len__(self) -> int:
        return len(self.pairs)

    def __getitem__(self, index: int):
        return encode_pair(self.vocab, *self.pairs[index])


def length_buckets(lengths, batch_size: int, rng: random.Random | None):
    """Batches of indices with equal (or near) lengths: padding costs a CPU as much as real characters."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    batches = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    if rng is not None:
        rng.shuffle(batches)
    return batches


class LengthBucketSampler(Sampler):
    """Yields batches of (epoch, index) keys grouped by word length, in a seeded order per epoch.

    Under DDP each process takes every world_size-th batch (Lightning's DistributedSampler cannot wrap a batch
    sampler, so `use_distributed_sampler` is off and this does the sharding)."""

    def __init__(self, dataset: SyntheticTypos, batch_size: int, seed: int):
        self.dataset, self.batch_size, self.seed = dataset, batch_size, seed
        self.epoch = 0
        self.start = 0  # batches of this epoch to skip on the next pass: set when a run resumes mid-epoch

    def set_epoch(self, epoch: int) -> None:  # Lightning calls this at the start of every epoch
        self.epoch = epoch

    @property
    def sampler(self) -> LengthBucketSampler:
        # Lightning calls `set_epoch` on `loader.batch_sampler.sampler` (torch's BatchSampler layout), never on
        # a batch sampler itself: without this every epoch would repeat the batches of epoch 0.
        return self

    def _batches(self):
        table = self.dataset.word_table(self.epoch)
        lengths = [len(self.dataset.words[w]) for w in table]
        batches = length_buckets(lengths, self.batch_size, random.Random(f"{self.seed}/batches/{self.epoch}"))
        rank, world = rank_and_world()
        usable = len(batches) - len(batches) % world  # equal batch counts per process, or DDP hangs
        return batches[rank:usable:world]

    def __iter__(self):
        start, self.start = self.start, 0  # the skip applies to one pass only
        for batch in self._batches()[start:]:
            yield [(self.epoch, i) for i in batch]

    def __len__(self) -> int:
        _, world = rank_and_world()
        return (-(-self.dataset.epoch_size // self.batch_size)) // world


class ResumableLoader(DataLoader):
    """The training DataLoader, resumable mid-epoch: `state_dict()` says how far into which epoch training got;
    after `load_state_dict()` the next pass skips what was trained on, so a resumed run sees exactly the batches
    (and, samples being pure functions of their keys, the typos) an uninterrupted one would. The datamodule puts
    the state in checkpoints (see `TypoDataModule.state_dict`); the two methods also tell Lightning it is resumable.

    It counts the batches it hands out rather than those its sampler produced: worker processes read ahead."""

    def __init__(self, dataset: SyntheticTypos, batch_sampler: LengthBucketSampler, **kwargs):
        # A loader-owned generator: creating an iterator then draws its base seed from here, not from torch's
        # global RNG, which would shift dropout masks after a resume (the resumed run creates one iterator more).
        super().__init__(dataset, batch_sampler=batch_sampler, generator=torch.Generator().manual_seed(0), **kwargs)
        self._epoch, self._served = 0, 0
        self._resume: tuple[int, int] | None = None

    def __iter__(self):
        # A generator, so this runs at the first batch, after Lightning's `set_epoch` (it creates the iterator
        # before it sets the epoch).
        sampler = self.batch_sampler
        epoch, skip = self._resume if self._resume and self._resume[0] == sampler.epoch else (sampler.epoch, 0)
        self._resume, sampler.start = None, skip
        self._epoch, self._served = epoch, skip
        for batch in super().__iter__():
            self._served += 1
            yield batch

    def state_dict(self) -> dict[str, int]:
        return {"epoch": self._epoch, "batches": self._served}

    def load_state_dict(self, state: dict[str, int]) -> None:
        self._resume = (state["epoch"], state["batches"])


def rank_and_world() -> tuple[int, int]:
    """(this process's rank, the number of processes): (0, 1) outside DDP."""
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        return torch.distributed.get_rank(), torch.distributed.get_world_size()
    return 0, 1


class TypoDataModule(L.LightningDataModule):
    """Splits the word list by word, serves generated typos for training and fixed sets for validation:
    dataloader 0 is the synthetic validation set, then one per real misspelling file (`dev_sets`).

    Each parameter's type and range is declared here, once: the training config (conf/data/, `data.*`) is
    checked against this signature before anything is built (typofix.training.config_schema), and so is every
    construction."""

    # Keys that must agree with each other.
    agreements = (
        Agree(("val_fraction", "test_fraction"), lambda val, test: val + test < 1, "a sum below 1"),
        Agree(("min_word_len", "max_word_len"), lambda low, high: low <= high, "min_word_len <= max_word_len"),
    )

    def __init__(self, words_path: ExistingFile = None, alphabet: Text = DEFAULT_ALPHABET, seed: Seed = 1234,
                 min_count: Count = 1, min_word_len: Positive = 2, max_word_len: Positive = 24,
                 val_fraction: Fraction = 0.02, test_fraction: Fraction = 0.02, smoothing: NonNegative = 0.5,
                 epoch_size: Positive = 100_000, val_size: Positive = 2000, batch_size: Positive = 256,
                 eval_batch_size: Positive = 512, num_workers: Count = 0,
                 channel: Annotated[str, OneOf(CHANNELS)] = "handset", fitted_share: Share = 0.5,
                 typo_weights: TypoWeights = None, edit_count_probs: Probabilities = (0.45, 0.3, 0.15, 0.1),
                 identity_rate: Fraction = 0.1, dev_sets: DevSets = None):
        check_arguments(TypoDataModule, locals())
        super().__init__()
        self.words_path, self.seed, self.min_count = words_path, seed, min_count
        self.min_word_len, self.max_word_len = min_word_len, max_word_len
        self.val_fraction, self.test_fraction, self.smoothing = val_fraction, test_fraction, smoothing
        self.epoch_size, self.val_size = epoch_size, val_size
        self.batch_size, self.eval_batch_size, self.num_workers = batch_size, eval_batch_size, num_workers
        self.vocab = Vocab(alphabet)
        self.generator = TypoGenerator(typo_weights, tuple(edit_count_probs), identity_rate, channel=channel,
                                       fitted_share=fitted_share)
        # A set overridden to null is dropped (Hydra merges dicts, so a recipe removes a set that way).
        self.dev_sets = {k: v for k, v in (DEFAULT_DEV_SETS if dev_sets is None else dev_sets).items() if v}
        self.val_set_names = ["val"] + [f"val_{name}" for name in self.dev_sets]
        self._ready = False
        self._train_loader: ResumableLoader | None = None
        self._train_loader_state: dict | None = None  # from a checkpoint, for the next train loader

    def setup(self, stage: str | None = None) -> None:
        if self._ready:
            return
        lexicon = Lexicon.from_tsv(self.words_path, min_count=self.min_count)
        usable = [w for w in lexicon.counts
                  if self.vocab.covers(w) and (self.min_word_len <= len(w) <= self.max_word_len or w in ("a", "i"))]
        self.splits: dict[str, list[str]] = {"train": [], "val": [], "test": []}
        for word in usable:
            self.splits[split_of(word, self.val_fraction, self.test_fraction)].append(word)
        if not self.splits["train"]:
            raise DataError("no training words left after filtering the word list")
        counts = np.array([lexicon.count(w) for w in self.splits["train"]], dtype=np.float64)
        self.train_set = SyntheticTypos(self.splits["train"], counts ** self.smoothing, self.vocab, self.generator,
                                        self.seed, self.epoch_size)
        self.val_sets = [FixedPairs(self._held_out_pairs("val"), self.vocab)]
        self.val_sets += [FixedPairs(read_misspellings(resolve_dev_set(p)), self.vocab) for p in self.dev_sets.values()]
        self.test_set = FixedPairs(self._held_out_pairs("test"), self.vocab)
        self._ready = True

    def _held_out_pairs(self, split: str) -> list[tuple[str, str]]:
        """The first `val_size` words of a held-out split (in a seeded order), each with one fixed typo."""
        words = sorted(self.splits[split])
        random.Random(f"{self.seed}/{split}").shuffle(words)
        return [(self.generator.sample(w, self.seed, -1, i).text, w) for i, w in enumerate(words[:self.val_size])]

    def _collate(self, items):
        return collate(items, self.vocab.pad_id)

    def train_dataloader(self) -> DataLoader:
        sampler = LengthBucketSampler(self.train_set, self.batch_size, self.seed)
        self._train_loader = ResumableLoader(self.train_set, sampler, collate_fn=self._collate,
                                             num_workers=self.num_workers, persistent_workers=self.num_workers > 0)
        if self._train_loader_state is not None:
            self._train_loader.load_state_dict(self._train_loader_state)
            self._train_loader_state = None
        return self._train_loader

    # The train loader's position also goes in the checkpoint through the datamodule: Lightning restores its own
    # copy of loader state only after the optimiser is set up, and `estimated_stepping_batches` (which the
    # learning-rate schedule reads there) has built the train loader by then; the datamodule is restored first.
    def state_dict(self) -> dict:
        return {"train_loader": self._train_loader.state_dict()} if self._train_loader is not None else {}

    def load_state_dict(self, state_dict: dict) -> None:
        self._train_loader_state = state_dict.get("train_loader")

    def _fixed_loader(self, dataset: FixedPairs) -> DataLoader:
        lengths = [len(t) for t, _ in dataset.pairs]
        # Own generator: each iterator draws a seed, and drawing it from torch's global RNG would make dropout
        # masks after a resume depend on whether a validation ran between the checkpoint and the next step.
        return DataLoader(dataset, batch_sampler=length_buckets(lengths, self.eval_batch_size, None),
                          collate_fn=self._collate, num_workers=0, generator=torch.Generator().manual_seed(0))

    def val_dataloader(self) -> list[DataLoader]:
        return [self._fixed_loader(d) for d in self.val_sets]

    def test_dataloader(self) -> DataLoader:
        return self._fixed_loader(self.test_set)
