from pathlib import Path

import pytest
import torch

from typofix.training.data import (DataError, LengthBucketSampler, TypoDataModule, collate, resolve_dev_set,
                          split_of)


@pytest.fixture(scope="module")
def datamodule():
    dm = TypoDataModule(epoch_size=2000, val_size=50, batch_size=32, dev_sets={"norvig": "norvig-testset1.tsv"})
    dm.setup()
    return dm


def test_splits_are_by_word_disjoint_and_stable(datamodule):
    train, val, test = (set(datamodule.splits[s]) for s in ("train", "val", "test"))
    assert not (train & val) and not (train & test) and not (val & test)
    assert 0.01 < len(val) / (len(train) + len(val) + len(test)) < 0.03
    assert all(split_of(w, 0.02, 0.02) == "val" for w in val)
    assert {w for _, w in datamodule.val_sets[0].pairs} <= val


def test_sample_is_a_pure_function_of_epoch_and_index(datamodule):
    fresh = TypoDataModule(epoch_size=2000, val_size=50, batch_size=32, dev_sets={})
    fresh.setup()
    keys = [(0, i) for i in range(0, 2000, 97)] + [(3, i) for i in range(0, 2000, 89)]
    assert [datamodule.train_set.pair(*k) for k in keys] == [fresh.train_set.pair(*k) for k in reversed(keys)][::-1]
    epoch0 = [datamodule.train_set.pair(0, i) for i in range(200)]
    epoch1 = [datamodule.train_set.pair(1, i) for i in range(200)]
    assert epoch0 != epoch1


def test_frequent_words_are_sampled_more(datamodule):
    train = datamodule.train_set
    top = set(train.words[:1000])  # the word list is sorted by count, most frequent first
    sampled = [train.pair(0, i)[1] for i in range(2000)]
    uniform_share = len(top) / len(train.words)
    assert sum(w in top for w in sampled) / len(sampled) > 3 * uniform_share


def test_batches_group_words_of_equal_length_and_cover_the_epoch(datamodule):
    sampler = LengthBucketSampler(datamodule.train_set, batch_size=32, seed=1)
    sampler.set_epoch(2)
    batches = list(sampler)
    assert len(batches) == len(sampler)
    assert sorted(i for b in batches for _, i in b) == list(range(2000))
    words = datamodule.train_set.words
    table = datamodule.train_set.word_table(2)
    same_length = sum(len({len(words[table[i]]) for _, i in b}) == 1 for b in batches)
    assert same_length >= len(batches) - 20  # only the batches that straddle two lengths mix
    assert all(epoch == 2 for b in batches for epoch, _ in b)


def test_validation_sets_are_fixed_across_epochs(datamodule):
    first = [batch["src"].tolist() for batch in datamodule.val_dataloader()[0]]
    again = [batch["src"].tolist() for batch in datamodule.val_dataloader()[0]]
    assert first == again
    assert datamodule.val_set_names == ["val", "val_norvig"]
    assert len(datamodule.val_sets[1]) == 265


def test_collate_pads_and_shifts_targets(datamodule):
    vocab = datamodule.vocab
    batch = collate([datamodule.train_set[(0, i)] for i in range(8)], vocab.pad_id)
    assert batch["src"].shape[0] == 8 and batch["src_len"].max() == batch["src"].shape[1]
    assert (batch["tgt_in"][:, 0] == vocab.sos_id).all()
    assert torch.equal(batch["tgt_in"][:, 1:].ne(vocab.pad_id), batch["tgt_out"][:, :-1].ne(vocab.pad_id) &
                       batch["tgt_out"][:, :-1].ne(vocab.eos_id))
    assert ((batch["tgt_out"] == vocab.eos_id).sum(dim=1) == 1).all()


def test_dev_sets_are_found_by_name_or_path(tmp_path):
    assert resolve_dev_set("norvig-testset1.tsv").read_bytes() == Path("data/eval/norvig-testset1.tsv").read_bytes()
    (tmp_path / "mine.tsv").write_text("teh\tthe\n")
    assert resolve_dev_set(str(tmp_path / "mine.tsv")) == tmp_path / "mine.tsv"
    with pytest.raises(DataError, match="not found"):
        resolve_dev_set("no-such-file.tsv")


def test_the_fitted_channel_feeds_training():
    dm = TypoDataModule(epoch_size=200, val_size=20, dev_sets={}, channel="fitted")
    dm.setup()
    pairs = [dm.train_set.pair(0, i) for i in range(200)]
    assert sum(t != w for t, w in pairs) > 150 and all(t for t, _ in pairs)
    assert dm.generator.fitted.kinds == ("insertion", "deletion", "substitution", "transposition", "multi-letter")
    assert dm.generator.handset is None


def test_the_mixed_channel_draws_from_both():
    """channel=mixed: about fitted_share of the typos come from the fitted table (its multi-letter edits), the
    rest from the hand-set channel; a hand-set-only run draws exactly the typos it drew before mixing existed."""
    from typofix.training.noise import TypoGenerator
    words = ["necessary", "separate", "definitely", "government", "beginning"] * 80
    mixed = TypoGenerator(channel="mixed", fitted_share=0.5, identity_rate=0.0)
    handset = TypoGenerator(channel="handset", identity_rate=0.0)
    fitted_kinds = set(mixed.fitted.kinds) - set(mixed.handset.kinds)
    kinds = [e.kind for i, w in enumerate(words) for e in mixed.sample(w, 7, 0, i).edits]
    assert fitted_kinds & set(kinds) and set(mixed.handset.kinds) & set(kinds)
    only_handset = TypoGenerator(channel="mixed", fitted_share=0.0, identity_rate=0.0)
    assert [only_handset.sample(w, 7, 0, i).text for i, w in enumerate(words)] == \
        [handset.sample(w, 7, 0, i).text for i, w in enumerate(words)]
    with pytest.raises(ValueError, match="fitted_share"):
        TypoGenerator(channel="mixed", fitted_share=1.5)


def test_the_signature_checks_every_construction():
    """The ranges the config is checked by are the constructor's own: a Python caller gets the same one line."""
    from typofix.training.config_schema import ConfigError

    with pytest.raises(ConfigError, match=r"^batch_size=0: expected an integer >= 1$"):
        TypoDataModule(batch_size=0)
    with pytest.raises(ConfigError, match=r"^edit_count_probs=\[0.5, 0.6\]: expected .* summing to 1 \(these sum"):
        TypoDataModule(edit_count_probs=(0.5, 0.6))
    with pytest.raises(ConfigError, match=r"^typo_weights.vowl=1.0: unknown key \(did you mean vowel\?\)"):
        TypoDataModule(typo_weights={"vowl": 1.0})
    with pytest.raises(ConfigError, match=r"^val_fraction=0.6, test_fraction=0.4: expected a sum below 1$"):
        TypoDataModule(val_fraction=0.6, test_fraction=0.4)
    assert TypoDataModule(edit_count_probs=[0.35, 0.3, 0.2, 0.15], dev_sets={}).generator.handset.edit_count_probs \
        == (0.35, 0.3, 0.2, 0.15)
