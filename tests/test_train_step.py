"""The training step off the CPU: the encoder's padded path gives what packing gives, and nothing in the step waits
for the device (checked on PyTorch's meta device, where any read of a tensor's value on the host fails: an
`.item()`, a `bool()`, a copy to the CPU such as packing's lengths). A GPU is never needed here; tests/test_train.py's
gpu tests run the same step on CUDA."""

from __future__ import annotations

import pytest
import torch

from typofix.nn.model import Seq2Seq
from typofix.training.system import NonFiniteLossError, TypoCorrector

V, PAD, SOS, EOS = 16, 0, 1, 2


def batch(lengths=(9, 3, 1, 6, 9, 2), target=5, device="cpu") -> dict:
    gen = torch.Generator().manual_seed(3)
    src_len = torch.tensor(lengths)
    src = torch.randint(4, V, (len(lengths), max(lengths)), generator=gen)  # (B, S)
    src = src.masked_fill(torch.arange(src.size(1)) >= src_len.unsqueeze(1), PAD)
    tgt = torch.randint(4, V, (len(lengths), target), generator=gen)  # (B, T)
    tgt_in = torch.cat([torch.full((len(lengths), 1), SOS), tgt[:, :-1]], dim=1)
    return {k: v.to(device) for k, v in dict(src=src, src_len=src_len, tgt_in=tgt_in, tgt_out=tgt).items()}


@pytest.mark.parametrize("layers", [1, 2, 3])
def test_padded_encoder_gives_what_packing_gives_and_the_same_gradients(layers):
    torch.manual_seed(0)
    encoder = Seq2Seq(V, PAD, SOS, EOS, emb_size=8, enc_hidden_size=6, enc_layers=layers, dropout=0.0).encoder
    b = batch()
    emb = encoder.embedding(b["src"])  # (B, S, E)
    packed, padded = encoder.packed(emb, b["src_len"]), encoder.padded(emb, b["src_len"])
    for name, x, y in zip(("enc_out", "h", "c"), packed, padded):
        torch.testing.assert_close(y, x, rtol=1e-5, atol=1e-6, msg=name)
    parameters = list(encoder.rnn.parameters())
    # Any function of all three outputs: the gradients reach every weight the same way through both paths.
    grads = [torch.autograd.grad(sum((out * torch.linspace(-1, 1, out.numel()).view_as(out)).sum() for out in outs),
                                 parameters)
             for outs in (encoder.packed(emb, b["src_len"]), encoder.padded(emb, b["src_len"]))]
    for (name, _), g_packed, g_padded in zip(encoder.rnn.named_parameters(), *grads):
        torch.testing.assert_close(g_padded, g_packed, rtol=1e-4, atol=1e-6, msg=name)


def test_padding_content_is_held_out_of_the_padded_path():
    """Whatever the padded positions hold, the outputs at real positions and the states are the same."""
    torch.manual_seed(0)
    encoder = Seq2Seq(V, PAD, SOS, EOS, emb_size=8, enc_hidden_size=6, dropout=0.0).encoder
    b = batch()
    emb = encoder.embedding(b["src"])
    noisy = emb + 5 * torch.randn_like(emb) * (b["src"] == PAD).unsqueeze(-1)
    for x, y in zip(encoder.padded(emb, b["src_len"]), encoder.padded(noisy, b["src_len"])):
        torch.testing.assert_close(y, x)


def test_the_bundled_models_encoders_agree_on_both_paths():
    """The shipped weights (typofix/models/*.pt) give the same encoder outputs either way: the padded path needs no
    new parameter and changes nothing a checkpoint holds."""
    from importlib import resources

    from typofix.nn.checkpoint import read_checkpoint
    from typofix.words.vocab import Vocab

    for name in ("default.pt", "fast.pt"):
        checkpoint = read_checkpoint(resources.files("typofix.models") / name)
        vocab = Vocab(checkpoint.alphabet)
        model = Seq2Seq.from_hparams(checkpoint.hparams, len(vocab), vocab.pad_id, vocab.sos_id, vocab.eos_id)
        model.load_state_dict({k: v.float() for k, v in checkpoint.state_dict.items()})  # strict: nothing new
        encoder = model.eval().encoder
        b = batch()
        emb = encoder.embedding(b["src"])
        for x, y in zip(encoder.packed(emb, b["src_len"]), encoder.padded(emb, b["src_len"])):
            torch.testing.assert_close(y, x, rtol=1e-4, atol=1e-5, msg=name)


def meta_step(system: TypoCorrector, b: dict) -> None:
    """The training step as Lightning runs it (training_step, backward, clipping, AdamW), on the meta device."""
    optimizer = torch.optim.AdamW(system.parameters(), lr=1e-3)
    loss = system.training_step(b, 0)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(system.parameters(), 1.0)
    optimizer.step()


def test_nothing_in_the_training_step_waits_for_the_device():
    system = TypoCorrector(emb_size=8, enc_hidden_size=8, dec_hidden_size=16, attn_size=8).to("meta")
    meta_step(system, batch(device="meta"))
    assert system._first_non_finite.device.type == "meta"  # noted on the device, not read


def test_the_meta_device_catches_a_host_sync():
    """The check above can fail: packing (lengths to the CPU) and asking whether the loss is finite both do."""
    encoder = Seq2Seq(V, PAD, SOS, EOS, emb_size=8, enc_hidden_size=6).encoder.to("meta")
    b = batch(device="meta")
    with pytest.raises(NotImplementedError):
        encoder.packed(encoder.embedding(b["src"]), b["src_len"])
    with pytest.raises(RuntimeError, match="meta"):
        bool(torch.isfinite(torch.ones((), device="meta")))


def test_a_non_finite_loss_is_reported_with_its_step_when_checked():
    system = TypoCorrector(emb_size=8, enc_hidden_size=8, dec_hidden_size=16, attn_size=8)
    b = batch()
    system.training_step(b, 0)
    system.check_finite()  # finite so far
    with torch.no_grad():
        system.model.decoder.readout[-1].bias.fill_(float("nan"))
    system.training_step(b, 1)
    system.training_step(b, 2)  # a later non-finite step does not move the first one
    with pytest.raises(NonFiniteLossError, match="non-finite training loss at step 0;"):
        system.check_finite()
