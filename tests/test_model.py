"""Seq2Seq and its attention kinds: shapes, masking, normalisation, construction, and one tiny training run each."""

from __future__ import annotations

import io

import hydra
import pytest
import torch

from typofix.nn.decode import greedy
from typofix.nn.model import ATTENTION_KINDS, NoAttention, Seq2Seq

KINDS = list(ATTENTION_KINDS)
ATTENDING = [k for k in KINDS if ATTENTION_KINDS[k] is not NoAttention]
V, PAD, SOS, EOS = 12, 0, 1, 2
LENGTHS = [5, 3, 1]  # unequal on purpose: rows 1 and 2 are padded
SIZES = dict(emb_size=8, enc_hidden_size=8, enc_layers=2, dec_hidden_size=16, attn_size=8, heads=2, dropout=0.1)


def make_model(kind: str, **overrides) -> Seq2Seq:
    """A small model in eval mode (dropout off), seeded so two calls build identical weights."""
    torch.manual_seed(0)
    return Seq2Seq(V, PAD, SOS, EOS, **{**SIZES, "attention": kind, **overrides}).eval()


def make_batch(pad_with: int | None = None):
    """src (B, S) with real ids in [4, V) and `pad_with` (default PAD) past each length; tgt_in (B, T)."""
    gen = torch.Generator().manual_seed(1)
    src_len = torch.tensor(LENGTHS)
    src = torch.randint(4, V, (len(LENGTHS), max(LENGTHS)), generator=gen)  # (B, S)
    padding = torch.arange(src.size(1)) >= src_len.unsqueeze(1)  # (B, S) True past the end
    src = src.masked_fill(padding, PAD if pad_with is None else pad_with)
    tgt_in = torch.cat([torch.full((len(LENGTHS), 1), SOS), torch.randint(4, V, (len(LENGTHS), 3), generator=gen)], 1)
    return src, src_len, tgt_in, padding


@pytest.mark.parametrize("kind", KINDS)
def test_forward_step_and_greedy_shapes(kind):
    model = make_model(kind)
    src, src_len, tgt_in, _ = make_batch()
    (b, s), t = src.shape, tgt_in.size(1)
    logits, attn = model(src, src_len, tgt_in)
    assert logits.shape == (b, t, V)
    assert attn is None if kind == "none" else attn.shape == (b, t, s)

    enc_out, keys, src_mask, state = model.encode(src, src_len)
    assert enc_out.shape == (b, s, 2 * SIZES["enc_hidden_size"]) and src_mask.shape == (b, s)
    step_logits, (h, c), weights = model.decoder.step(tgt_in[:, 0], state, keys, enc_out, src_mask)
    assert step_logits.shape == (b, V) and h.shape == c.shape == (b, SIZES["dec_hidden_size"])
    assert weights is None if kind == "none" else weights.shape == (b, s)

    out = greedy(model, src, src_len, max_len=6)
    assert out.ids.shape[0] == b and out.ids.shape[1] <= 6
    assert out.attn is None if kind == "none" else out.attn.shape == (b, out.ids.shape[1], s)


@pytest.mark.parametrize("kind", ATTENDING)
def test_padding_gets_exactly_zero_weight_and_rows_sum_to_one(kind):
    src, src_len, tgt_in, padding = make_batch()
    _, attn = make_model(kind)(src, src_len, tgt_in)
    padding = padding.unsqueeze(1).expand_as(attn)  # (B, T, S)
    assert torch.all(attn[padding] == 0)
    assert torch.all(attn >= 0)
    torch.testing.assert_close(attn.sum(-1), torch.ones(attn.shape[:2]))


def test_no_attention_returns_no_weights():
    model = make_model("none")
    src, src_len, tgt_in, _ = make_batch()
    assert model(src, src_len, tgt_in)[1] is None
    assert greedy(model, src, src_len, max_len=4).attn is None


@pytest.mark.parametrize("kind", KINDS)
def test_padding_content_does_not_change_outputs(kind):
    model = make_model(kind)
    src, src_len, tgt_in, _ = make_batch()
    logits, attn = model(src, src_len, tgt_in)
    # The same words with junk (real character ids) where the padding was: the lengths alone mark the end.
    for junk in (5, V - 1):
        junk_src = make_batch(pad_with=junk)[0]
        assert not torch.equal(junk_src, src)
        junk_logits, junk_attn = model(junk_src, src_len, tgt_in)
        torch.testing.assert_close(junk_logits, logits)
        if attn is not None:
            torch.testing.assert_close(junk_attn, attn)


@pytest.mark.parametrize("kind", KINDS)
def test_padded_row_matches_the_word_alone(kind):
    """Batching pads short words; a padded row must come out as that word would on its own."""
    model = make_model(kind)
    src, src_len, tgt_in, _ = make_batch()
    logits, attn = model(src, src_len, tgt_in)
    row, length = 1, LENGTHS[1]
    alone_logits, alone_attn = model(src[row:row + 1, :length], src_len[row:row + 1], tgt_in[row:row + 1])
    torch.testing.assert_close(logits[row:row + 1], alone_logits, atol=1e-5, rtol=1e-4)
    if attn is not None:
        torch.testing.assert_close(attn[row:row + 1, :, :length], alone_attn, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("kind", KINDS)
def test_from_hparams_round_trip(kind):
    """Hyperparameters + state dict through torch.save / weights-only torch.load rebuild the same model;
    keys that are not the model's (learning rate, alphabet) are ignored."""
    hparams = {**SIZES, "attention": kind, "lr": 1e-3, "alphabet": "abc"}
    model = Seq2Seq.from_hparams(hparams, V, PAD, SOS, EOS).eval()
    assert isinstance(model.decoder.attention, ATTENTION_KINDS[kind])
    buffer = io.BytesIO()
    torch.save({"hparams": hparams, "state_dict": model.state_dict()}, buffer)
    buffer.seek(0)
    saved = torch.load(buffer, weights_only=True)
    rebuilt = Seq2Seq.from_hparams(saved["hparams"], V, PAD, SOS, EOS).eval()
    rebuilt.load_state_dict(saved["state_dict"])
    src, src_len, tgt_in, _ = make_batch()
    torch.testing.assert_close(rebuilt(src, src_len, tgt_in)[0], model(src, src_len, tgt_in)[0])


@pytest.mark.parametrize("kind", ["dot", "scaled_dot"])
def test_dot_scores_need_equal_sizes(kind):
    with pytest.raises(ValueError, match="dec_hidden_size == 2 x enc_hidden_size"):
        make_model(kind, enc_hidden_size=8, dec_hidden_size=24)
    make_model("general", enc_hidden_size=8, dec_hidden_size=24)  # the bilinear score bridges the sizes


def test_unknown_attention_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown attention 'cosine'"):
        make_model("cosine")


# Each a training run of seconds: in `make test`, the model without attention (the tiny model every other test
# trains has the default, additive); every kind in `make test-all`.
@pytest.mark.parametrize("kind", [k if k == "none" else pytest.param(k, marks=pytest.mark.slow) for k in KINDS])
def test_tiny_training_run_for_every_kind(kind, tmp_path):
    """`typofix-train experiment=tiny model.attention=K` in-process; its checkpoint loads with that kind."""
    from typofix.training.system import TypoCorrector
    from typofix.training.train import train

    overrides = ["experiment=tiny", f"model.attention={kind}", f"run_dir={tmp_path}", "trainer.max_epochs=1",
                 "data.epoch_size=128"]
    with hydra.initialize_config_module(config_module="typofix.conf", version_base="1.3"):
        cfg = hydra.compose("train", overrides=overrides)
    metrics = train(cfg)
    assert {"train/loss", "val/word_acc", "val_norvig/word_acc"} <= set(metrics)
    system = TypoCorrector.load_from_checkpoint(tmp_path / "checkpoints" / "last.ckpt", map_location="cpu")
    assert isinstance(system.model.decoder.attention, ATTENTION_KINDS[kind])
