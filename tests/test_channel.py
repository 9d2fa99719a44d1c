"""The fitted channel: the alignment that cuts a misspelling into edits, the fitting script and its table, and the
generator driven by that table."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bench import fit_channel, typo_stats
from typofix.training.channel import KINDS, MAX_SPAN, Block, FittedChannel, anchored, bucket, edit_blocks
from typofix.training.noise import TypoGenerator

from test_noise import undo

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("word, typo, edits", [
    ("separate", "seperate", [("substitution", "a", "e")]),
    ("definitely", "definately", [("substitution", "i", "a")]),
    ("receive", "recieve", [("transposition", "ei", "ie")]),
    ("occurred", "occured", [("deletion", "r", "")]),
    ("until", "untill", [("insertion", "", "l")]),
    ("physician", "fysician", [("multi-letter", "ph", "f")]),
    ("caught", "cort", [("multi-letter", "aug", "o"), ("substitution", "h", "r")]),  # cut at MAX_SPAN letters
    ("government", "goverment", [("deletion", "n", "")]),
    ("word", "word", []),
])
def test_edit_blocks(word, typo, edits):
    blocks = edit_blocks(word, typo)
    assert [(b.kind, b.before, b.after) for b in blocks] == edits
    assert all(word[b.start:b.end] == b.before for b in blocks)


def test_edit_blocks_rebuild_the_typo_and_never_exceed_the_span():
    rng = random.Random(0)
    for _ in range(300):
        word = "".join(rng.choice("abcdeilnorst") for _ in range(rng.randint(1, 12)))
        typo = "".join(rng.choice("abcdeilnorst") for _ in range(rng.randint(1, 12)))
        blocks = edit_blocks(word, typo)
        rebuilt, pos = [], 0
        for b in blocks:
            assert len(b.before) <= MAX_SPAN and len(b.after) <= MAX_SPAN and b.kind in KINDS
            rebuilt += [word[pos:b.start], b.after]
            pos = b.end
        assert "".join(rebuilt) + word[pos:] == typo


def test_insertions_carry_a_neighbouring_letter():
    assert anchored(Block("insertion", 4, 4, "", "l"), "until") == Block("insertion", 4, 5, "l", "ll")
    assert anchored(Block("insertion", 5, 5, "", "l"), "until") == Block("insertion", 4, 5, "l", "ll")
    assert anchored(Block("insertion", 3, 3, "", "e"), "until") == Block("insertion", 2, 3, "t", "te")
    assert anchored(Block("insertion", 0, 0, "", "h"), "onest") == Block("insertion", 0, 1, "o", "ho")
    assert [bucket(i, i + 1, 8) for i in range(8)] == [0, 1, 2, 2, 3, 3, 4, 4]


def test_fitting_is_deterministic_and_the_committed_table_is_its_output(tmp_path):
    outs = [tmp_path / "a.json", tmp_path / "b.json"]
    for out in outs:
        assert fit_channel.main(["--out", str(out)]) == 0
    assert outs[0].read_bytes() == outs[1].read_bytes() == (ROOT / "data/channel.json").read_bytes()


def test_the_table_loads_and_says_what_the_dev_sets_do():
    channel = FittedChannel.load(ROOT / "data/channel.json")
    assert set(channel.kinds) == set(KINDS)
    shares = dict(zip(channel.kinds, channel.kind_weights))
    assert shares["substitution"] > shares["transposition"] and shares["multi-letter"] > shares["insertion"]
    assert channel.edit_count_probs[0] == max(channel.edit_count_probs)  # one edit is the commonest
    table = fit_channel.fit([("recieve", "receive"), ("fysician", "physician"), ("seperate", "separate")])
    assert table["kinds"]["transposition"] == table["kinds"]["multi-letter"] == table["kinds"]["substitution"] == 1


def test_a_table_that_is_not_one_is_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"kinds": {"telepathy": 1}}')
    with pytest.raises(ValueError, match="not a fitted channel table"):
        FittedChannel.load(bad)
    with pytest.raises(ValueError, match="cannot read"):
        FittedChannel.load(tmp_path / "missing.json")
    with pytest.raises(ValueError, match="unknown channel 'learned'"):
        TypoGenerator(channel="learned")


def test_fitted_typos_are_pure_functions_of_their_key_with_exact_spans():
    gen, again = TypoGenerator(channel="fitted"), TypoGenerator(channel="fitted")
    words = ["separate", "receive", "government", "physician", "a", "knowledge", "independence", "beautiful"]
    typos = [gen.sample(words[i % len(words)], 5, 2, i) for i in range(2000)]
    assert [t.text for t in typos] == [again.sample(t.word, 5, 2, i).text for i, t in enumerate(typos)]
    assert [t.text for t in typos] != [gen.sample(t.word, 5, 3, i).text for i, t in enumerate(typos)]
    for typo in typos:
        assert typo.text and undo(typo) == typo.word
        assert {e.kind for e in typo.edits} <= set(KINDS)


@pytest.mark.slow  # (about 8 s of generated typos and their alignments)
def test_fitted_typos_look_more_like_the_dev_sets_than_hand_set_ones():
    dev = typo_stats.profile([pair for pairs in typo_stats.dev_pairs().values() for pair in pairs])
    fitted = typo_stats.profile(typo_stats.generated("fitted", 3000, 1234))
    hand_set = typo_stats.profile(typo_stats.generated("handset", 3000, 1234))
    tv = typo_stats.total_variation
    assert tv(fitted["distance"], dev["distance"]) < tv(hand_set["distance"], dev["distance"])
    assert tv(fitted["kinds"], dev["kinds"]) < tv(hand_set["kinds"], dev["kinds"])
