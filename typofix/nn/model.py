"""Character-level encoder-decoder with attention (Bahdanau et al. 2015, "Neural Machine Translation by
Jointly Learning to Align and Translate"), for one word at a time.

Read top to bottom: Encoder -> attention kinds -> Decoder (one `step`) -> Seq2Seq (teacher-forced loop).
Shapes: B batch, S source length, T target length, E embedding, H encoder hidden (per direction),
D decoder hidden, V vocabulary. `src_mask (B, S)` is True where a real character is.
"""

from __future__ import annotations

import inspect
import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class Encoder(nn.Module):
    """Reads the misspelled word with a bidirectional LSTM; returns every position's state and the decoder's
    initial state (the "bridge").

    Two ways to run the same LSTM, with the same parameters and the same results: on the CPU the input is packed
    (the recurrence skips padding, which is less work there, and packing needs the lengths on the CPU anyway); on
    an accelerator it runs over the padded batch with the lengths left on the device (`padded`), so that nothing
    in a training step waits for the device and the step can be captured in a CUDA graph."""

    # A pre-activation this far out saturates the gate's sigmoid to exactly 0 or 1 (fp32, bf16 and fp16 alike).
    HOLD = 1e4

    def __init__(self, vocab_size: int, emb_size: int, hidden_size: int, num_layers: int, dropout: float,
                 dec_hidden_size: int, pad_id: int):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size, padding_idx=pad_id)
        self.rnn = nn.LSTM(emb_size, hidden_size, num_layers=num_layers, bidirectional=True, batch_first=True,
                           dropout=dropout if num_layers > 1 else 0.0)
        self.dropout = nn.Dropout(dropout)
        # The bridge maps the last forward and first backward states to the decoder's (h, c).
        self.bridge_h = nn.Linear(2 * hidden_size, dec_hidden_size)
        self.bridge_c = nn.Linear(2 * hidden_size, dec_hidden_size)
        # The input-weight column of the padded path's extra "is padding" input (gates i, f, g, o): at padding the
        # input gate shuts and the forget gate opens, so the cell state passes through unchanged. Not a parameter
        # and not saved: checkpoints and exports are those of the packed LSTM.
        hold = torch.zeros(4 * hidden_size, 1)
        hold[:hidden_size], hold[hidden_size:2 * hidden_size] = -self.HOLD, self.HOLD
        self.register_buffer("hold", hold, persistent=False)

    def forward(self, src: torch.Tensor, src_len: torch.Tensor):
        emb = self.dropout(self.embedding(src))  # (B, S, E)
        if src.device.type == "cpu":
            enc_out, h_top, c_top = self.packed(emb, src_len)
        else:
            enc_out, h_top, c_top = self.padded(emb, src_len.to(src.device))
        state = (torch.tanh(self.bridge_h(h_top)), self.bridge_c(c_top))  # 2 x (B, D)
        return self.dropout(enc_out), state

    def packed(self, emb: torch.Tensor, src_len: torch.Tensor):
        """(enc_out (B, S, 2H), top layer's h and c (B, 2H) each) over a packed batch."""
        # Packing keeps padding out of the recurrence, so the backward direction starts at the last real char.
        packed = pack_padded_sequence(emb, src_len.cpu(), batch_first=True, enforce_sorted=False)
        packed_out, (h_n, c_n) = self.rnn(packed)
        enc_out, _ = pad_packed_sequence(packed_out, batch_first=True, total_length=emb.size(1))  # (B, S, 2H)
        # h_n: (layers * 2, B, H); the top layer's forward and backward states are the last two rows.
        return enc_out, torch.cat([h_n[-2], h_n[-1]], dim=-1), torch.cat([c_n[-2], c_n[-1]], dim=-1)

    def padded(self, emb: torch.Tensor, src_len: torch.Tensor):
        """What `packed` returns, from the padded batch with `src_len` on the device: no step reads a length on
        the host. Each layer's input gets one more feature, 1 at padding, whose weights (`hold`) shut the input
        gate and open the forget gate there: the backward direction, which meets the padding first, keeps its
        zero initial state through it (c = 0, so h = o * tanh(0) = 0) and starts at the last real character as
        packing would; the forward direction carries the last real character's cell state through to its end,
        and its h is read at that character. One layer at a time, as the next layer's input needs the feature."""
        rnn, (B, S, _) = self.rnn, emb.shape
        src_mask = torch.arange(S, device=emb.device) < src_len.unsqueeze(1)  # (B, S)
        padding = (~src_mask).unsqueeze(-1).to(emb.dtype)  # (B, S, 1)
        zeros = emb.new_zeros(2, B, rnn.hidden_size)  # (directions, B, H)
        x = emb
        for layer in range(rnn.num_layers):
            weights = []
            for suffix in ("", "_reverse"):
                w_ih = getattr(rnn, f"weight_ih_l{layer}{suffix}")  # (4H, I)
                weights += [torch.cat([w_ih, self.hold.to(w_ih.dtype)], dim=1),  # (4H, I + 1)
                            *(getattr(rnn, f"{name}_l{layer}{suffix}") for name in ("weight_hh", "bias_ih", "bias_hh"))]
            if layer > 0:  # nn.LSTM's dropout between layers
                x = F.dropout(x, rnn.dropout, self.training)
            x, h_n, c_n = torch.lstm(torch.cat([x, padding.to(x.dtype)], dim=-1), (zeros, zeros), weights,
                                     True, 1, 0.0, self.training, True, True)  # x: (B, S, 2H); h_n, c_n: (2, B, H)
        last = (src_len - 1).clamp(min=0).view(B, 1, 1).expand(B, 1, x.size(-1))  # (B, 1, 2H)
        h_forward = x.gather(1, last).squeeze(1)[:, :rnn.hidden_size]  # (B, H): at the last real character
        enc_out = x * src_mask.unsqueeze(-1).to(x.dtype)  # (B, S, 2H): zeros at padding, as pad_packed_sequence
        return enc_out, torch.cat([h_forward, h_n[1]], dim=-1), torch.cat([c_n[0], c_n[1]], dim=-1)


# --- attention kinds --------------------------------------------------------------------------------------
# Every kind answers the same two calls: `keys(enc_out)` once per word (whatever does not depend on the
# decoder state), then `forward(query, keys, enc_out, src_mask) -> (context (B, C), weights (B, S))` once per
# output character, where the query is the previous decoder state s_{t-1} (B, D). `context_size` is C.


def masked_softmax(scores: torch.Tensor, src_mask: torch.Tensor) -> torch.Tensor:
    """Softmax over source positions with padding set to -inf first, so padding gets exactly zero weight."""
    return torch.softmax(scores.masked_fill(~src_mask, float("-inf")), dim=-1)  # (B, S)


class BahdanauAttention(nn.Module):
    """Additive attention (Bahdanau): e_tj = v . tanh(W s_{t-1} + U h_j), a_t = softmax_j(e_tj).

    query s_{t-1} (B, D), enc_out h (B, S, 2H) -> context sum_j a_tj h_j (B, 2H), weights a_t (B, S).
    U h_j (B, S, A) is computed once per word."""

    def __init__(self, enc_size: int, dec_size: int, attn_size: int, **_):
        super().__init__()
        self.W = nn.Linear(dec_size, attn_size, bias=False)
        self.U = nn.Linear(enc_size, attn_size)
        self.v = nn.Linear(attn_size, 1, bias=False)
        self.context_size = enc_size

    def keys(self, enc_out):
        return self.U(enc_out)  # (B, S, A)

    def forward(self, query, keys, enc_out, src_mask):
        scores = self.v(torch.tanh(self.W(query).unsqueeze(1) + keys)).squeeze(-1)  # (B, 1, A) + (B, S, A) -> (B, S)
        weights = masked_softmax(scores, src_mask)  # (B, S)
        context = torch.bmm(weights.unsqueeze(1), enc_out).squeeze(1)  # (B, 1, S) @ (B, S, 2H) -> (B, 2H)
        return context, weights


class DotAttention(nn.Module):
    """Luong's dot score: e_tj = s_{t-1} . h_j, a_t = softmax_j(e_tj); no parameters.

    query (B, D), enc_out (B, S, 2H) -> context (B, 2H), weights (B, S). Needs D == 2H (checked here)."""

    scale = False

    def __init__(self, enc_size: int, dec_size: int, **_):
        super().__init__()
        if enc_size != dec_size:
            raise ValueError(f"dot attention needs dec_hidden_size == 2 x enc_hidden_size (the encoder output size), "
                             f"got {dec_size} vs {enc_size}; use general or additive attention for unequal sizes")
        self.context_size = enc_size

    def keys(self, enc_out):
        return enc_out  # (B, S, 2H)

    def forward(self, query, keys, enc_out, src_mask):
        scores = torch.bmm(keys, query.unsqueeze(-1)).squeeze(-1)  # (B, S, K) @ (B, K, 1) -> (B, S)
        if self.scale:
            scores = scores / math.sqrt(keys.size(-1))
        weights = masked_softmax(scores, src_mask)
        context = torch.bmm(weights.unsqueeze(1), enc_out).squeeze(1)  # (B, 2H)
        return context, weights


class ScaledDotAttention(DotAttention):
    """Scaled dot score (Vaswani et al. 2017): e_tj = s_{t-1} . h_j / sqrt(D), keeping softmax out of saturation.

    Shapes and the D == 2H requirement as for dot."""

    scale = True


class GeneralAttention(DotAttention):
    """Luong's "general" (bilinear) score: e_tj = s_{t-1} . (W_a h_j), W_a (D x 2H), so D and 2H may differ.

    query (B, D), enc_out (B, S, 2H) -> context (B, 2H), weights (B, S); W_a h_j (B, S, D) computed once per word."""

    def __init__(self, enc_size: int, dec_size: int, **_):
        nn.Module.__init__(self)
        self.W_a = nn.Linear(enc_size, dec_size, bias=False)
        self.context_size = enc_size

    def keys(self, enc_out):
        return self.W_a(enc_out)  # (B, S, D)


class MultiHeadAttention(nn.Module):
    """torch.nn.MultiheadAttention with the previous decoder state as the one query and `key_padding_mask`
    from the source mask. Head k scores e^k_tj = (W^Q_k s_{t-1}) . (W^K_k h_j) / sqrt(D / heads).

    query (B, D), enc_out (B, S, 2H) -> context (B, D) (the heads' outputs projected by W^O), weights (B, S)
    averaged over heads. D must be divisible by `heads`."""

    def __init__(self, enc_size: int, dec_size: int, heads: int, **_):
        super().__init__()
        self.mha = nn.MultiheadAttention(dec_size, heads, kdim=enc_size, vdim=enc_size, batch_first=True)
        self.context_size = dec_size

    def keys(self, enc_out):
        return enc_out  # projections happen inside nn.MultiheadAttention

    def forward(self, query, keys, enc_out, src_mask):
        context, weights = self.mha(query.unsqueeze(1), keys, enc_out, key_padding_mask=~src_mask)  # (B, 1, D), (B, 1, S)
        return context.squeeze(1), weights.squeeze(1)


class NoAttention(nn.Module):
    """The classic seq2seq bottleneck: no score; the decoder sees only the bridge state.

    query (B, D) -> context zeros (B, 1) (so every kind shares one decoder), weights None."""

    def __init__(self, enc_size: int, **_):
        super().__init__()
        self.context_size = 1  # a single zero input: the decoder's shapes stay those of the other kinds

    def keys(self, enc_out):
        return enc_out

    def forward(self, query, keys, enc_out, src_mask):
        return query.new_zeros(query.size(0), 1), None


ATTENTION_KINDS = {
    "additive": BahdanauAttention, "dot": DotAttention, "general": GeneralAttention,
    "scaled_dot": ScaledDotAttention, "multihead": MultiHeadAttention, "none": NoAttention,
}


class Decoder(nn.Module):
    """Writes the correction one character at a time: attend with s_{t-1}, feed [emb(y_{t-1}); context] to an
    LSTM cell, read out logits from [s_t; context; emb(y_{t-1})]."""

    def __init__(self, vocab_size: int, emb_size: int, enc_size: int, hidden_size: int, dropout: float,
                 attention: str, attn_size: int, heads: int, pad_id: int):
        super().__init__()
        if attention not in ATTENTION_KINDS:
            raise ValueError(f"unknown attention {attention!r}; choose one of {sorted(ATTENTION_KINDS)}")
        self.embedding = nn.Embedding(vocab_size, emb_size, padding_idx=pad_id)
        self.attention = ATTENTION_KINDS[attention](enc_size=enc_size, dec_size=hidden_size, attn_size=attn_size,
                                                    heads=heads)
        ctx = self.attention.context_size
        self.cell = nn.LSTMCell(emb_size + ctx, hidden_size)
        self.readout = nn.Sequential(nn.Linear(hidden_size + ctx + emb_size, hidden_size), nn.Tanh(),
                                     nn.Dropout(dropout), nn.Linear(hidden_size, vocab_size))
        self.dropout = nn.Dropout(dropout)

    def step(self, y_prev, state, keys, enc_out, src_mask):
        """One output character. y_prev (B,), state 2 x (B, D) -> logits (B, V), new state, weights (B, S) or None."""
        emb = self.dropout(self.embedding(y_prev))  # (B, E)
        context, weights = self.attention(state[0], keys, enc_out, src_mask)  # (B, C), (B, S)
        h, c = self.cell(torch.cat([emb, context], dim=-1), state)  # (B, D) each
        logits = self.readout(torch.cat([h, context, emb], dim=-1))  # (B, V)
        return logits, (h, c), weights


class Seq2Seq(nn.Module):
    """Encoder + decoder; `forward` is the teacher-forced pass used for training."""

    def __init__(self, vocab_size: int, pad_id: int, sos_id: int, eos_id: int, emb_size: int = 64,
                 enc_hidden_size: int = 128, enc_layers: int = 2, dec_hidden_size: int = 256, attn_size: int = 128,
                 attention: str = "additive", heads: int = 4, dropout: float = 0.1):
        super().__init__()
        self.pad_id, self.sos_id, self.eos_id = pad_id, sos_id, eos_id
        self.encoder = Encoder(vocab_size, emb_size, enc_hidden_size, enc_layers, dropout, dec_hidden_size, pad_id)
        self.decoder = Decoder(vocab_size, emb_size, 2 * enc_hidden_size, dec_hidden_size, dropout, attention,
                               attn_size, heads, pad_id)

    @classmethod
    def from_hparams(cls, hparams: dict, vocab_size: int, pad_id: int, sos_id: int, eos_id: int) -> "Seq2Seq":
        """The one constructor the training system and the corrector share: picks this class's keys from a
        checkpoint's hyperparameters and ignores the rest (learning rate, data settings, ...)."""
        names = set(inspect.signature(cls.__init__).parameters) - {"self", "vocab_size", "pad_id", "sos_id", "eos_id"}
        return cls(vocab_size, pad_id, sos_id, eos_id, **{k: v for k, v in hparams.items() if k in names})

    def encode(self, src, src_len):
        """Everything the decoder needs that does not change while it writes: (enc_out, keys, mask, state)."""
        # The mask comes from the lengths, not the ids, so whatever sits past a word's end never gets weight.
        src_mask = torch.arange(src.size(1), device=src.device) < src_len.to(src.device).unsqueeze(1)  # (B, S)
        enc_out, state = self.encoder(src, src_len)  # (B, S, 2H), 2 x (B, D)
        return enc_out, self.decoder.attention.keys(enc_out), src_mask, state

    def forward(self, src, src_len, tgt_in):
        """Teacher forcing: tgt_in (B, T) starts with SOS -> logits (B, T, V), attention (B, T, S) or None."""
        enc_out, keys, src_mask, state = self.encode(src, src_len)
        logits, weights = [], []
        for t in range(tgt_in.size(1)):
            step_logits, state, step_weights = self.decoder.step(tgt_in[:, t], state, keys, enc_out, src_mask)
            logits.append(step_logits)
            weights.append(step_weights)
        attn = None if weights[0] is None else torch.stack(weights, dim=1)  # (B, T, S)
        return torch.stack(logits, dim=1), attn  # (B, T, V)

    def loss(self, src, src_len, tgt_in, tgt_out):
        """Mean cross-entropy per target character, padding ignored."""
        logits, _ = self(src, src_len, tgt_in)
        return self.cross_entropy(logits, tgt_out)

    def cross_entropy(self, logits, tgt_out):
        """logits (B, T, V) of a teacher-forced pass against tgt_out (B, T): the mean per real target character."""
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), tgt_out.reshape(-1), ignore_index=self.pad_id)
