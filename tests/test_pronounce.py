"""The user-facing side of letters to phones: `typofix pronounce` and `typofix plot-attention --pronounce` as real
subprocesses (output, --top-k, --json, --model-only, errors), the ARPAbet names of a plot's rows, and the
training callback's grid for a letter-to-phone model. What the bundled model writes for the issue's words is
`acceptance` (a property of the trained model); everything else runs always, against the dictionary and the
model's own answers in process."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from tests.test_cli import one_line_error, typofix
from typofix.engine.pronounce import Pronouncer
from typofix.files.modelfile import PRONOUNCER, bundled_int8_path
from typofix.words.phones import PHONE_ALPHABET, PHONES, Pronunciations, phone_labels, symbol_label, to_arpabet

pytestmark = pytest.mark.skipif(not bundled_int8_path(PRONOUNCER).is_file(), reason="no bundled g2p model yet")


@pytest.fixture(scope="module")
def model() -> Pronouncer:
    return Pronouncer.load()  # the file `typofix pronounce` runs


def lines(*args: str) -> list[list[str]]:
    done = typofix("pronounce", *args)
    assert done.returncode == 0 and not done.stderr, done.stderr
    return [line.split("\t") for line in done.stdout.decode().splitlines()]


def test_one_line_per_word_listed_words_from_cmudict_others_from_the_model(model):
    assert "recieve" not in Pronunciations.bundled() and "colonel" in Pronunciations.bundled()
    best = model.pronounce_many(["recieve"])[0][0]
    assert lines("recieve", "Colonel", "read") == [
        ["recieve", best.arpabet],  # the model's likeliest: no mark
        ["Colonel", "K ER N AH L (CMUdict)"],  # listed: the dictionary's, marked, whatever the case typed
        ["read", "R EH D (CMUdict)"]]  # top-1: the first listed
    assert lines("--model-only", "colonel") == [["colonel", model.pronounce_many(["colonel"])[0][0].arpabet]]


def test_top_k_gives_alternatives_with_scores(model):
    expected = model.pronounce_many(["recieve"], k=3)[0]
    [[word, *alternatives], [listed, *readings]] = lines("--top-k", "3", "recieve", "read")
    assert word == "recieve" and alternatives == [f"{p.arpabet} ({p.score:.3f})" for p in expected]
    scores = [p.score for p in expected]
    assert len(scores) == 3 and scores == sorted(scores, reverse=True)
    assert listed == "read" and readings == ["R EH D (CMUdict)", "R IY D (CMUdict)"]  # all CMUdict has, no more


def test_json_lines_name_their_source(model):
    done = typofix("pronounce", "--json", "--top-k", "2", "recieve", "Read")
    assert done.returncode == 0, done.stderr
    typo, word = [json.loads(line) for line in done.stdout.decode().splitlines()]
    expected = model.pronounce_many(["recieve"], k=2)[0]
    assert typo == {"input": "recieve", "pronunciations": [{**p.as_json(), "source": "model"} for p in expected]}
    assert word == {"input": "Read", "pronunciations": [
        {"word": "read", "phones": "R EH D", "score": None, "source": "cmudict"},
        {"word": "read", "phones": "R IY D", "score": None, "source": "cmudict"}]}
    [only] = [json.loads(line) for line in typofix("pronounce", "--json", "--model-only", "read").stdout.splitlines()]
    assert [p["source"] for p in only["pronunciations"]] == ["model"]


def test_bad_words_and_models_are_one_line_errors_before_any_output(tmp_path):
    for args in (["recieve", "123"], ["caf\u00e9"], ["recieve", "--top-k", "0"], ["--json"], ["--", "--"]):
        done = typofix("pronounce", *args)
        one_line_error(done, 2)
        assert done.stdout == b""
    assert "no letters" in one_line_error(typofix("pronounce", "42"), 2)
    one_line_error(typofix("pronounce", "x", "--model", str(tmp_path / "nope.onnxz")), 1)
    corrector = bundled_int8_path("fast")  # a model, but one that writes letters
    assert "not a letter-to-phone model" in one_line_error(typofix("pronounce", "x", "--model", str(corrector)), 1)


@pytest.mark.acceptance
def test_the_issues_words_sound_as_they_should():
    """Issue 30: `typofix pronounce recieve fone nite` gives S IY, F OW N, N AY T; and so does the model alone
    (fone and nite are in CMUdict)."""
    for args in ([], ["--model-only"]):
        got = lines(*args, "recieve", "fone", "nite")
        assert [row[0] for row in got] == ["recieve", "fone", "nite"]
        for row, sound in zip(got, ["S IY", "F OW N", "N AY T"]):
            assert sound in row[1], (args, row)


# --- plots ---------------------------------------------------------------------------------------------------


def test_phone_characters_are_named_in_arpabet():
    assert phone_labels("S6") == ["S", "IY"] and symbol_label("^") == "SH" and symbol_label("</s>") == "</s>"
    assert symbol_label("a") == "a"  # a letter (a model's stray one) stays itself
    assert [symbol_label(c) for c in PHONE_ALPHABET] == list(PHONES)


def test_plot_attention_pronounce_writes_the_letters_to_phones_grid(tmp_path, model):
    done = typofix("plot-attention", "--pronounce", "recieve", "Phone", "--out", str(tmp_path / "g2p.png"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == f"wrote {tmp_path / 'g2p.png'}\n"
    with Image.open(tmp_path / "g2p.png") as image:
        assert image.format == "PNG" and image.width > 300
    assert typofix("plot-attention", "--pronounce", "fone", "--out", str(tmp_path / "g2p.svg")).returncode == 0
    svg = (tmp_path / "g2p.svg").read_text()
    best = model.pronounce_many(["fone"])[0][0]
    assert f"fone -&gt; {best.arpabet}" in svg and "phones written (ARPAbet)" in svg


def test_plot_attention_pronounce_errors(tmp_path):
    out = ["--out", str(tmp_path / "a.png")]
    assert "correction options" in one_line_error(typofix("plot-attention", "--pronounce", "--fast", "x", *out), 2)
    one_line_error(typofix("plot-attention", "--pronounce", "--beam", "3", "x", *out), 2)
    one_line_error(typofix("plot-attention", "--pronounce", "r2d2!", *out), 2)
    one_line_error(typofix("plot-attention", "--pronounce", "x", "--out", str(tmp_path / "a.jpg")), 2)
    one_line_error(typofix("plot-attention", "--pronounce", "x", *out, "--model", str(bundled_int8_path("fast"))), 1)
    assert not list(tmp_path.iterdir())


def test_training_samples_of_a_letter_to_phone_model_are_named_in_arpabet():
    """AttentionSamples on a g2p run: rows and titles in ARPAbet, the axes say letters and phones."""
    import torch

    from typofix.insight.plots import PHONE_AXIS_TITLES
    from typofix.training.callbacks import AttentionSamples
    from typofix.training.pronouncer import Pronouncer as G2PSystem
    from typofix.words.phones import G2P_ALPHABET

    torch.manual_seed(0)
    system = G2PSystem(alphabet=G2P_ALPHABET, emb_size=8, enc_hidden_size=8, dec_hidden_size=16, attn_size=8)
    with torch.no_grad():  # an untrained model that writes IY (and only IY) at every step
        system.model.decoder.readout[-1].bias[system.vocab.encode(PHONES["IY"][0])[0]] = 100.0
    [alignment] = AttentionSamples(["phone"]).alignments(system)
    assert set(alignment.out_chars) == {"IY"} and alignment.title.startswith("phone -> IY IY")
    assert alignment.axis_titles == PHONE_AXIS_TITLES and alignment.weights.shape == (len(alignment.out_chars), 5)
    assert np.isfinite(alignment.weights).all()


def test_remembered_pronunciations_are_the_models_without_their_attention(model):
    words = ["recieve", "definately", "phonetik", "recieve"]
    asked = model.pronounce_many(words, 2, beam=2)
    remembered = model.best_many(words, 2)
    again = model.best_many(words, 2)  # from what it keeps
    for found, kept, kept_again in zip(asked, remembered, again):
        assert [(p.word, p.phones, p.score) for p in found] == [(p.word, p.phones, p.score) for p in kept]
        assert kept == kept_again and all(p.attn is None for p in kept)
    assert all(p.attn is not None for found in asked for p in found)  # asked directly, the weights are there


def test_a_words_pronunciations_do_not_depend_on_the_words_batched_with_it(model):
    # Each word's output may run to its own step limit (`PHONE_ROOM` past twice its letters), not its batch's longest
    # word's: `cmp` alone was heard S EH M P and K AH M EH P; among longer words, S EH M P P had room to finish.
    short = ["cmp", "wb", "dcn", "rfcs", "pls", "thx", "nginx", "ssh"]
    batched = model.pronounce_many(short + ["internationalization", "uncharacteristically"], 2, beam=2)
    for word, together in zip(short, batched):
        alone = model.pronounce_many([word], 2, beam=2)[0]
        assert [(p.phones, round(p.score, 4)) for p in together] == [(p.phones, round(p.score, 4)) for p in alone]
