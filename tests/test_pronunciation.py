"""The letter-to-phone model's data, training and runtime: PronunciationDataModule, `typofix-train
experiment=g2p` with a real Trainer on a small slice of CMUdict, its export, and engine.pronounce."""

from __future__ import annotations

import csv
import gzip
import os
import subprocess
import sys

import pytest

from typofix.files.packagedata import packaged
from typofix.training.data import DataError
from typofix.training.pronunciation_data import PronunciationDataModule, read_pronunciations
from typofix.words.phones import G2P_ALPHABET, PHONE_ALPHABET, to_chars


@pytest.fixture(scope="module")
def small_dictionary(tmp_path_factory):
    """Every 200th CMUdict entry (~670 lines): a dictionary in the bundled file's format."""
    with gzip.open(packaged("cmudict.txt.gz"), "rt", encoding="utf-8") as lines:
        kept = [line for i, line in enumerate(lines) if i % 200 == 0]
    path = tmp_path_factory.mktemp("g2p") / "small.txt"
    path.write_text("".join(kept), encoding="utf-8")
    return path


def test_the_splits_are_by_word_and_every_pronunciation_of_a_word_goes_with_it(small_dictionary):
    data = PronunciationDataModule(str(small_dictionary), val_fraction=0.1, test_fraction=0.1)
    data.setup()
    splits = {name: set(words) for name, words in data.splits.items()}
    assert splits["train"] and splits["val"] and splits["test"]
    assert not (splits["train"] & splits["val"]) and not (splits["train"] & splits["test"])
    train_words = [w for w, _ in data.train_set.pairs]
    found = read_pronunciations(small_dictionary)
    assert len(train_words) == sum(len(found[w]) for w in splits["train"])  # every pronunciation trained on
    word, phones = data.test_set.pairs[0]
    assert phones == found[word][0] and set(phones) <= set(PHONE_ALPHABET)  # measured against the first


def test_a_malformed_dictionary_is_one_line_naming_it(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("hello\tHH AH L OW\nworld\tW ER L D QQ\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad.txt:2: not an ARPAbet phone: 'QQ'"):
        read_pronunciations(bad)
    with pytest.raises(DataError, match="not found"):
        read_pronunciations(tmp_path / "missing.txt")


@pytest.fixture(scope="module")
def g2p_run(small_dictionary, tmp_path_factory):
    """`typofix-train experiment=g2p` on the small dictionary, tiny sizes, two short epochs (seconds)."""
    run_dir = tmp_path_factory.mktemp("g2p_run")
    overrides = [f"hydra.run.dir={run_dir}", f"data.pronunciations_path={small_dictionary}", "data.val_fraction=0.1",
                 "data.test_fraction=0.1", "data.batch_size=32", "model.emb_size=16", "model.enc_hidden_size=16",
                 "model.dec_hidden_size=32", "model.attn_size=16", "trainer.max_epochs=2", "threads=1",
                 "callbacks.embedding_snapshots=null"]
    done = subprocess.run([sys.executable, "-m", "typofix.training.train", "experiment=g2p", *overrides],
                          capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"}, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return run_dir


def test_g2p_training_logs_phone_and_word_error_rates(g2p_run):
    rows = list(csv.DictReader(open(g2p_run / "logs" / "metrics.csv", encoding="utf-8")))
    validated = [r for r in rows if r.get("val/per")]
    assert len(validated) == 2  # one per epoch
    for row in validated:
        assert 0 <= float(row["val/per"]) and 0 <= float(row["val/wer"]) <= 1
        assert float(row["val/wer"]) == pytest.approx(1 - float(row["val/word_acc"]), abs=1e-6)
    tested = [r for r in rows if r.get("test/wer")]
    assert tested and 0 <= float(tested[-1]["test/wer"]) <= 1  # the held-out words, after fitting
    assert (g2p_run / "checkpoints" / "last.ckpt").is_file()


def test_the_exported_g2p_model_pronounces_through_the_engine(g2p_run, tmp_path):
    from typofix.engine.pronounce import Pronouncer
    from typofix.training.export import export

    onnx = tmp_path / "g2p.onnxz"
    export(g2p_run / "checkpoints" / "last.ckpt", onnx, int8=True)
    pronouncer = Pronouncer.load(onnx)
    assert pronouncer.vocab.alphabet == G2P_ALPHABET
    found = pronouncer.pronounce_many(["phone", "Night!", "123"], k=3)
    assert 1 <= len(found[0]) <= 3 and found[2] == []  # no letters, nothing to say
    assert all(set(p.phones) <= set(PHONE_ALPHABET) for p in found[0] + found[1])
    assert [p.score for p in found[0]] == sorted((p.score for p in found[0]), reverse=True)
    assert found[1][0].word == "night"  # read as lower-case letters


def test_a_corrector_is_no_pronouncer(tiny_exports):
    from typofix.engine.pronounce import Pronouncer
    from typofix.files.modelfile import ModelError

    with pytest.raises(ModelError, match="not a letter-to-phone model"):
        Pronouncer.load(tiny_exports["onnx"])


def test_the_bundled_pronouncer_is_resolved_like_every_model():
    from typofix.engine.pronounce import Pronouncer

    pronouncer = Pronouncer.load()
    assert [p.arpabet for p in pronouncer.pronounce_many(["cat"])[0]]  # it answers; quality: test_acceptance
    assert to_chars("K AE T") == to_chars("K AE1 T")
