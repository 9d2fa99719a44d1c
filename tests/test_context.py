"""The context model (`typofix.words.context`): word bigrams on the bundled data, and a word's neighbours in text."""

from __future__ import annotations

import gzip

import pytest

from typofix.words.context import BigramModel, ContextError
from typofix.words.lexicon import Lexicon
from typofix.words.text import neighbours, split_text


@pytest.fixture(scope="module")
def model():
    return BigramModel.load(Lexicon.from_tsv().counts)


def test_a_listed_pair_beats_an_unlikely_one(model):
    came_from, came_form = model.evidence(["from", "form"], "came", "the")
    assert came_from > came_form
    piece, price = model.evidence(["piece", "price"], "a", "of")
    assert piece > price


def test_the_word_lists_total_given_scores_as_the_counts_summed(model):
    lexicon = Lexicon.from_tsv()
    given = BigramModel.load(lexicon.counts, total=lexicon.total)
    pairs = (["the", "of", "zzyzx", "teh"], ["end", "course", "the", "end"])
    assert given.log_total == model.log_total and (given.pair_evidence(*pairs) == model.pair_evidence(*pairs)).all()


def test_no_neighbour_or_an_unknown_word_is_no_evidence(model):
    assert model.evidence(["from", "form"], None, None).tolist() == [0.0, 0.0]
    assert model.evidence(["recieved", "zzqx"], "we", "the").tolist() == [0.0, 0.0]


def test_a_bad_file_is_a_context_error(tmp_path, model):
    bad = tmp_path / "bigrams.bin.gz"
    bad.write_bytes(gzip.compress(b"typofix-bigrams 1 2 1\nof\nthe\n\x01"))
    with pytest.raises(ContextError, match="not a typofix bigram file"):
        BigramModel.load({}, bad)
    with pytest.raises(ContextError, match="not found"):
        BigramModel.load({}, tmp_path / "missing.gz")


def test_neighbours_are_words_across_white_space_only():
    pieces = split_text("Yes, a pice of cake. Done; I sa 3 cats")
    texts = [p.text for p in pieces]
    assert neighbours(pieces, texts.index("pice")) == ("a", "of")  # "a" is copied text, still a word
    assert neighbours(pieces, 0) == (None, None)  # "Yes" then a comma
    assert neighbours(pieces, texts.index("cake")) == ("of", None)  # a full stop
    assert neighbours(pieces, texts.index("sa")) == ("i", None)  # a number is no word


def test_the_bigram_file_rebuilds_byte_for_byte(tmp_path):
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("build_bigrams", Path(__file__).parents[1] / "data" / "build_bigrams.py")
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    if build.default_source() is None:
        pytest.skip("symspellpy is not installed (pip install -e '.[bench]')")
    out = tmp_path / "bigrams.bin.gz"
    assert build.main(["--out", str(out)]) == 0
    assert out.read_bytes() == (Path(__file__).parents[1] / "data" / "bigrams.bin.gz").read_bytes()
