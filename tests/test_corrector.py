"""The Corrector on a real tiny model and the real word list: text handling, the API's shapes, model files."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from typofix.checkpoint import read_checkpoint
from typofix.corrector import Corrector, ModelError, one_edit_words
from typofix.export import export
from typofix.text import split_text


@pytest.fixture(scope="module")
def corrector(tiny_ckpt):
    return Corrector.load(tiny_ckpt, beam=3)


@pytest.fixture(scope="module")
def slim(tiny_ckpt, tmp_path_factory):
    out = tmp_path_factory.mktemp("slim") / "model.pt"
    export(tiny_ckpt, out)
    return out


def test_case_is_kept(corrector):
    lower = corrector.correct("teh")
    assert corrector.correct("Teh") == lower[:1].upper() + lower[1:]
    assert corrector.correct("TEH") == lower.upper()


def test_known_words_are_left_alone(tiny_ckpt):
    every_listed = Corrector.load(tiny_ckpt, beam=2, known_min_count=1)
    assert every_listed.correct_text("the brown fox planed") == "the brown fox planed"
    assert every_listed.suggest("fox", 3)[0][0] == "fox"
    common_only = Corrector.load(tiny_ckpt, beam=2, known_min_count=10_000_000)
    assert common_only.is_known("the") and not common_only.is_known("planed")
    assert common_only.suggest("the", 3)[0][0] == "the"


def test_pass_through(corrector):
    for text in ["3", "1,000.5", "http://exmaple.com/speling", "someone@exmaple.com", "abc123", "café", "naïve",
                 "iPhone", "x" * 40, "z" * 10_000, "", " \t\n", "\x00\x01\ufffd", "o'clock"]:
        assert corrector.correct_text(text) == text, text


def test_every_character_outside_words_is_unchanged(corrector):
    text = "  Teh QUIK, brown-fox\trecieved 3 leters (from http://exmaple.com).\r\nWe'd said: \"speling!\"\n"
    pieces = split_text(text)
    fixed = [corrector.correct(p.text) if p.word else p.text for p in pieces]
    assert corrector.correct_text(text) == "".join(fixed)
    assert corrector.correct_many([text, "teh"]) == [corrector.correct_text(text), corrector.correct("teh")]


def test_suggestions(corrector):
    ranked = corrector.suggest_many(["speling", "recieve", "Teh", "123"], 3)
    assert len(ranked) == 4
    for candidates in ranked[:3]:
        assert 1 <= len(candidates) <= 3
        scores = [s for _, s in candidates]
        assert scores == sorted(scores, reverse=True)
    assert all(w[:1].isupper() for w, _ in ranked[2])
    assert ranked[3] == [("123", 0.0)]
    assert corrector.suggest("speling", 1)[0][0] == corrector.correct("speling")


def test_one_edit_words(corrector):
    near = one_edit_words("teh", corrector.lexicon, corrector.vocab.alphabet)
    assert {"the", "ten", "tech", "tea"} <= near and "teh" not in near
    assert all(w in corrector.lexicon for w in near)
    assert one_edit_words("recieve", corrector.lexicon, "abcdefghijklmnopqrstuvwxyz") == {"receive", "relieve"}


def test_edit_candidates_join_the_beam(tiny_ckpt):
    plain = Corrector.load(tiny_ckpt, beam=2, edit_candidates=False).suggest("recieve", 50)
    joined = Corrector.load(tiny_ckpt, beam=2, edit_candidates=True).suggest("recieve", 50)
    assert {w for w, _ in plain} < {w for w, _ in joined} and "receive" in {w for w, _ in joined}
    assert [s for _, s in joined] == sorted((s for _, s in joined), reverse=True)


def test_explain_gives_attention(corrector):
    best = corrector.explain("speling", 2)[0]
    assert best.attn.shape == (len(best.word) + 1, len("speling"))


def test_without_lexicon_the_model_alone_decides(tiny_ckpt):
    plain = Corrector.load(tiny_ckpt, beam=2, use_lexicon=False)
    assert plain.lexicon is None and plain.constraint is None
    assert isinstance(plain.correct("the"), str)


def test_slim_export_is_small_and_equivalent(tiny_ckpt, slim, corrector, tmp_path):
    blob = torch.load(slim, weights_only=True)
    assert set(blob) >= {"format", "format_version", "hparams", "alphabet", "state_dict"}
    assert all(t.dtype == torch.float16 for t in blob["state_dict"].values() if t.is_floating_point())
    assert slim.stat().st_size < tiny_ckpt.stat().st_size / 3
    export(tiny_ckpt, tmp_path / "fp32.pt", half=False)
    words = ["speling", "recieve", "wierd"]
    expected = corrector.suggest_many(words, 3)
    assert Corrector.load(tmp_path / "fp32.pt", beam=3).suggest_many(words, 3) == expected  # exactly the checkpoint
    halved = [s for ranked in Corrector.load(slim, beam=3).suggest_many(words, 1) for _, s in ranked]
    assert halved == pytest.approx([ranked[0][1] for ranked in expected], abs=0.05)


def test_bad_model_files(tmp_path, tiny_ckpt, slim):
    cases = {"missing.pt": None, "empty.pt": b"", "junk.pt": b"not a checkpoint\n",
             "truncated.ckpt": tiny_ckpt.read_bytes()[:5000]}
    for name, content in cases.items():
        if content is not None:
            (tmp_path / name).write_bytes(content)
        with pytest.raises(ModelError) as err:
            Corrector.load(tmp_path / name)
        assert "\n" not in str(err.value) and name in str(err.value)
    blob = torch.load(slim, weights_only=True)
    torch.save({**blob, "format_version": 99}, tmp_path / "future.pt")
    with pytest.raises(ModelError, match="format version 99"):
        read_checkpoint(tmp_path / "future.pt")
    torch.save([1, 2, 3], tmp_path / "list.pt")
    with pytest.raises(ModelError, match="not a typofix model"):
        read_checkpoint(tmp_path / "list.pt")
    bad = {**blob, "hparams": {**blob["hparams"], "dec_hidden_size": 7}}
    torch.save(bad, tmp_path / "mismatch.pt")
    with pytest.raises(ModelError, match="do not match"):
        Corrector.load(tmp_path / "mismatch.pt")


def test_correcting_never_imports_lightning_or_hydra(slim, tiny_ckpt):
    code = ("import sys; from typofix import Corrector\n"
            f"for path in [{str(slim)!r}, {str(tiny_ckpt)!r}]:\n"
            "    c = Corrector.load(path); c.correct_text('Teh speling'); c.suggest_many(['recieve'], 3)\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('lightning', 'pytorch_lightning', 'hydra'))\n"
            "print(bad)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_two_edit_candidates_are_the_most_frequent_words_two_edits_away(tiny_ckpt):
    from typofix.typos import osa_distance

    plain = Corrector.load(tiny_ckpt, beam=2, two_edit_candidates=0)
    more = Corrector.load(tiny_ckpt, beam=2, two_edit_candidates=3)
    lexicon = more.lexicon
    two_away = sorted((w for w in lexicon.counts if osa_distance("teh", w) == 2), key=lambda w: -lexicon.count(w))
    found = {word for word, _ in more.suggest("teh", 10_000)}
    added = found - {word for word, _ in plain.suggest("teh", 10_000)}
    assert set(two_away[:3]) <= found
    assert added and added <= set(two_away[:3])
    with pytest.raises(ValueError, match="two_edit_candidates"):
        Corrector.load(tiny_ckpt, two_edit_candidates=-1)
