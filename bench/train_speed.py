"""Training speed of the default model: on this CPU, words/s and achieved GFLOP/s against the fp32 matmul peak;
on a CUDA GPU (`--device cuda`), words/s of the training step and of `typofix-train` end to end.

    nice -n 5 env OMP_NUM_THREADS=1 .venv/bin/python bench/train_speed.py --threads 1
    .venv/bin/python bench/train_speed.py --device cuda      # on a machine with a GPU: bench.cuda_speed

What is timed: one training step = forward + backward + gradient clipping (1.0, as conf/trainer/default.yaml)
+ AdamW step, for `Seq2Seq` with its defaults (= conf/model/bahdanau.yaml sizes), fp32. Batches are built before
timing: the data pipeline (typo generation, collation) is not in the figures. Each timed window runs every batch
of a pool once; the variants of a table alternate window by window (rotating their order) so that load from other
processes hits them alike; figures are the median window, after warm-up steps. Wall-clock figures are what a run
gets; CPU-time figures (time.process_time) leave out the time the process waited for a core, so on a shared
machine they are the steadier ones (with one thread they are the single-core speed).

Attention table, on `--batches` real batches of TypoDataModule's length-bucketed training loader (epoch 0),
picked at evenly spaced quantiles of its batch lengths so the pool has the epoch's length mix:
  * keys once per word -- typofix/nn/model.py as it is: U h_j computed once per word.
  * textbook           -- the same weights, U h_j recomputed at every decoder step (TextbookBahdanau, below).

Padding table, keys once per word: `--padding-batches` x batch-size words drawn at random from the same epoch
(with their typos), served (a) in random mixed-length batches, as a plain shuffled loader would, and (b) the same
words grouped by `typofix.training.data.length_buckets`, the loader's own bucketing. Bucketing a sample this small leaves
more padding than the loader's buckets over a whole epoch, so the measured ratio is, if anything, an underestimate.

FLOPs: counted by `torch.utils.flop_counter.FlopCounterMode` on one forward+backward of every pool batch. It does
not see inside oneDNN's fused LSTM kernel (aten.mkldnn_rnn_layer counts 0 FLOPs), so the counting pass runs with
oneDNN off, where nn.LSTM decomposes into the addmm/mm calls it counts; the timed passes use the default kernels,
which do the same matmuls. Only matmul-type ops are counted (mm, addmm, bmm; 2 FLOPs per multiply-add):
elementwise work (gate nonlinearities, tanh, softmax) and the optimizer are not, which is what makes a matmul peak
the right yardstick. An analytic count -- forward matmuls from the model's shapes (encoder LSTM 4 gates x
(input + recurrent) per real character, both directions and layers; bridge; U h_j; per decoder step W s, v.tanh,
context bmm, LSTM cell gates, readout), x3 for forward + backward -- is printed beside it as a cross-check.

Matmul peak: the best of several fp32 `torch.mm` (1024..2048 square) at the same thread count, measured at the
start and at the end of the run, wall-clock and CPU-time alike. On a shared machine absolute figures move with the
load: compare the ratios taken within one run.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
import warnings
from dataclasses import dataclass, field

import torch
from torch.utils.flop_counter import FlopCounterMode

from typofix.training.data import TypoDataModule, collate, length_buckets
from typofix.nn.model import BahdanauAttention, Seq2Seq

# Toggling oneDNN for the FLOP count warns about TF32 on Intel GPUs, which does not concern a CPU run.
warnings.filterwarnings("ignore", message="TF32 acceleration on top of oneDNN")


class TextbookBahdanau(BahdanauAttention):
    """The textbook loop: nothing precomputed per word, U h_j recomputed from enc_out at every decoder step."""

    def keys(self, enc_out):
        return enc_out

    def forward(self, query, keys, enc_out, src_mask):
        return super().forward(query, self.U(enc_out), enc_out, src_mask)


def build_model(vocab, textbook: bool, seed: int) -> Seq2Seq:
    torch.manual_seed(seed)  # every variant starts from the same weights
    model = Seq2Seq(len(vocab), vocab.pad_id, vocab.sos_id, vocab.eos_id)
    if textbook:
        assert type(model.decoder.attention) is BahdanauAttention
        model.decoder.attention.__class__ = TextbookBahdanau  # same parameters, per-step keys
    return model.train()


def train_step(model, optimizer, batch) -> None:
    optimizer.zero_grad(set_to_none=True)
    loss = model.loss(batch["src"], batch["src_len"], batch["tgt_in"], batch["tgt_out"])
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()


def count_flops(model, batches) -> int:
    """Matmul FLOPs of forward + backward over `batches`, measured (oneDNN off so nn.LSTM is visible)."""
    total = 0
    with torch.backends.mkldnn.flags(enabled=False):
        for batch in batches:
            model.zero_grad(set_to_none=True)
            with FlopCounterMode(display=False) as counter:
                model.loss(batch["src"], batch["src_len"], batch["tgt_in"], batch["tgt_out"]).backward()
            total += counter.get_total_flops()
    model.zero_grad(set_to_none=True)
    return total


def analytic_flops(model: Seq2Seq, batch, textbook: bool) -> int:
    """Forward matmul FLOPs from the shapes (2 per multiply-add), x3 for forward + backward (the usual rule:
    backward = gradient wrt inputs + gradient wrt weights, each as costly as the forward)."""
    enc, dec = model.encoder.rnn, model.decoder
    E, H, L = enc.input_size, enc.hidden_size, enc.num_layers
    D, A = dec.cell.hidden_size, dec.attention.W.out_features
    V, C = dec.readout[-1].out_features, dec.attention.context_size
    B, S = batch["src"].shape
    T = batch["tgt_in"].size(1)
    n_src = int(batch["src_len"].sum())  # packed: the encoder LSTM runs over real characters only
    f = 0
    for layer in range(L):  # 4 gates from W_ih x + W_hh h, both directions
        f += 2 * 2 * n_src * 4 * H * ((E if layer == 0 else 2 * H) + H)
    f += 2 * 2 * B * 2 * H * D  # bridge_h, bridge_c
    f += 2 * B * S * C * A * (T if textbook else 1)  # U h_j: once per word, or at every step
    per_step = (2 * B * D * A  # W s_{t-1}
                + 2 * B * S * A  # v . tanh(...)
                + 2 * B * S * C  # context bmm
                + 2 * B * 4 * D * (E + C + D)  # LSTM cell gates
                + 2 * B * (D + C + E) * D + 2 * B * D * V)  # readout
    return 3 * (f + T * per_step)


def matmul_peak() -> tuple[float, float]:
    """Best fp32 torch.mm GFLOP/s over square sizes 1024..2048 at the current thread count: (wall, CPU-time)."""
    best_wall = best_cpu = 0.0
    for n in (1024, 1536, 2048):
        a, b = torch.randn(n, n), torch.randn(n, n)
        out = torch.empty(n, n)
        torch.mm(a, b, out=out)  # warm-up
        for _ in range(4):
            wall, cpu = time.perf_counter(), time.process_time()
            torch.mm(a, b, out=out)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            best_wall = max(best_wall, 2 * n ** 3 / wall / 1e9)
            best_cpu = max(best_cpu, 2 * n ** 3 / max(cpu, 1e-9) / 1e9)
    return best_wall, best_cpu


@dataclass
class Variant:
    name: str
    batches: list
    textbook: bool = False
    wall: list = field(default_factory=list)
    cpu: list = field(default_factory=list)
    flops: int = 0
    analytic: int = 0

    @property
    def words(self) -> int:
        return sum(b["src"].size(0) for b in self.batches)

    def words_per_s(self, cpu: bool = False) -> float:
        return self.words / statistics.median(self.cpu if cpu else self.wall)

    def gflops(self, cpu: bool = False) -> float:
        return self.flops / statistics.median(self.cpu if cpu else self.wall) / 1e9

    def pad_share(self) -> float:
        """Share of the decoder's target positions that are padding (each target is word + EOS)."""
        real = sum(int(b["tgt_real"]) for b in self.batches)
        return 1 - real / sum(b["tgt_out"].numel() for b in self.batches)


def run_variants(variants: list[Variant], vocab, args) -> None:
    """Count FLOPs, warm up, then time the variants in interleaved windows (order rotated every window)."""
    models = {v.name: build_model(vocab, v.textbook, args.seed) for v in variants}
    optimizers = {name: torch.optim.AdamW(m.parameters(), lr=3e-3, weight_decay=1e-4) for name, m in models.items()}
    for v in variants:
        v.flops = count_flops(models[v.name], v.batches)
        v.analytic = sum(analytic_flops(models[v.name], b, v.textbook) for b in v.batches)
        for i in range(args.warmup):
            train_step(models[v.name], optimizers[v.name], v.batches[i % len(v.batches)])
    for window in range(args.windows):
        shift = window % len(variants)
        for v in variants[shift:] + variants[:shift]:
            wall, cpu = time.perf_counter(), time.process_time()
            for batch in v.batches:
                train_step(models[v.name], optimizers[v.name], batch)
            v.wall.append(time.perf_counter() - wall)
            v.cpu.append(time.process_time() - cpu)


def check_textbook_matches(vocab, batch, seed: int) -> None:
    """Same weights, same batch, no dropout: both attention loops must give the same loss."""
    fast, slow = build_model(vocab, False, seed).eval(), build_model(vocab, True, seed).eval()
    with torch.no_grad():
        a = fast.loss(batch["src"], batch["src_len"], batch["tgt_in"], batch["tgt_out"])
        b = slow.loss(batch["src"], batch["src_len"], batch["tgt_in"], batch["tgt_out"])
    if not torch.allclose(a, b, atol=1e-5):
        raise SystemExit(f"textbook variant computes a different loss ({b.item()} vs {a.item()})")


def load_pools(args):
    """(vocab, loader pool, bucketed sample, mixed sample): see the module docstring."""
    dm = TypoDataModule(batch_size=args.batch_size, seed=args.seed)
    dm.setup("fit")
    data, pad = dm.train_set, dm.vocab.pad_id

    def encode(keys):
        batch = collate([data[k] for k in keys], pad)
        batch["tgt_real"] = (batch["tgt_out"] != pad).sum()
        return batch

    def word_len(key):
        epoch, index = key
        return len(data.words[data.word_table(epoch)[index]])

    # The loader's batches for epoch 0 (index lists only), ordered by mean word length, picked at quantiles.
    loader_batches = sorted(dm.train_dataloader().batch_sampler,
                            key=lambda keys: sum(map(word_len, keys)) / len(keys))
    n = len(loader_batches)
    picks = sorted({min(n - 1, int((i + 0.5) * n / args.batches)) for i in range(args.batches)})
    loader_pool = [encode(loader_batches[i]) for i in picks]
    bucketed, mixed = [], []
    if args.padding_batches:
        keys = [k for batch in loader_batches for k in batch]
        random.Random(f"{args.seed}/mixed").shuffle(keys)
        keys = keys[:args.padding_batches * args.batch_size]
        mixed = [encode(keys[i:i + args.batch_size]) for i in range(0, len(keys), args.batch_size)]
        lengths = [word_len(k) for k in keys]
        bucketed = [encode([keys[i] for i in batch]) for batch in length_buckets(lengths, args.batch_size, None)]
    return dm.vocab, loader_pool, bucketed, mixed


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (default 1)")
    parser.add_argument("--batches", type=int, default=8, help="loader batches in the attention table's pool")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--padding-batches", type=int, default=12,
                        help="batches of random words for the bucketed vs mixed table (0 skips it)")
    parser.add_argument("--windows", type=int, default=5, help="timed windows per variant (median reported)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed training steps per variant first")
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                        help="cuda: the GPU tables of bench.cuda_speed (its own options follow, see --device cuda -h)")
    args, rest = parser.parse_known_args()
    if args.device == "cuda":
        try:
            from bench.cuda_speed import main as cuda_main
        except ImportError:  # run as a script (bench/train_speed.py): its own folder is on sys.path
            from cuda_speed import main as cuda_main

        return cuda_main(rest, seed=args.seed)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")

    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    vocab, loader_pool, bucketed, mixed = load_pools(args)
    check_textbook_matches(vocab, loader_pool[0], args.seed)

    peak_start = matmul_peak()
    attention = [Variant("keys once per word (model.py)", loader_pool),
                 Variant("textbook (keys every step)", loader_pool, textbook=True)]
    run_variants(attention, vocab, args)
    padding = [Variant("length-bucketed", bucketed), Variant("mixed lengths (same words)", mixed)] if bucketed else []
    if padding:
        run_variants(padding, vocab, args)
    peak_end = matmul_peak()
    peak_wall, peak_cpu = max(peak_start[0], peak_end[0]), max(peak_start[1], peak_end[1])

    fast, slow = attention
    print("## typofix training speed\n")
    print(f"- machine: {cpu_model()}, {os.cpu_count()} logical CPUs, {platform.machine()}; torch {torch.__version__} "
          f"(CPU capability {torch.backends.cpu.get_cpu_capability()}); threads: torch {torch.get_num_threads()}, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}; load average at the end "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}; run took {time.perf_counter() - started:.0f} s")
    print(f"- model: Seq2Seq defaults (emb 64, 2-layer BiLSTM encoder 128/direction, decoder 256, additive "
          f"attention 128), {sum(p.numel() for p in build_model(vocab, False, 0).parameters()):,} parameters, fp32; "
          f"step = forward + backward + clip + AdamW, batch {args.batch_size}")
    print(f"- pool: {len(loader_pool)} length-bucketed TypoDataModule batches = {fast.words} words "
          f"(target padding {100 * fast.pad_share():.1f}%); {args.warmup} warm-up steps per variant, median of "
          f"{args.windows} interleaved windows")
    print(f"- fp32 matmul peak (best torch.mm 1024-2048, start/end of run): {peak_wall:.1f} GFLOP/s wall "
          f"({peak_start[0]:.1f}/{peak_end[0]:.1f}), {peak_cpu:.1f} GFLOP/s per CPU-second\n")

    print("| variant | words/s | GFLOP/s | % of matmul peak | speed vs textbook |")
    print("|---|---:|---:|---:|---:|")
    for v in attention:
        print(f"| {v.name} | {v.words_per_s():,.0f} | {v.gflops():.1f} | {100 * v.gflops() / peak_wall:.0f}% | "
              f"{v.words_per_s() / slow.words_per_s():.2f}x |")
    print("\nThe same on CPU time (time the process ran, so other processes' load drops out):\n")
    print("| variant | words per CPU-s | GFLOP per CPU-s | % of matmul peak | speed vs textbook |")
    print("|---|---:|---:|---:|---:|")
    for v in attention:
        print(f"| {v.name} | {v.words_per_s(True):,.0f} | {v.gflops(True):.1f} | "
              f"{100 * v.gflops(True) / peak_cpu:.0f}% | {v.words_per_s(True) / slow.words_per_s(True):.2f}x |")

    if padding:
        bucket, mix = padding
        print(f"\nPadding: {bucket.words} random words of the same epoch (with their typos), keys once per word:\n")
        print("| batches | words/s | words per CPU-s | target padding | training MFLOP/word | speed vs mixed |")
        print("|---|---:|---:|---:|---:|---:|")
        for v in padding:
            wall_ratio, cpu_ratio = v.words_per_s() / mix.words_per_s(), v.words_per_s(True) / mix.words_per_s(True)
            print(f"| {v.name} ({len(v.batches)}) | {v.words_per_s():,.0f} | {v.words_per_s(True):,.0f} | "
                  f"{100 * v.pad_share():.0f}% | {v.flops / v.words / 1e6:.0f} | "
                  f"{wall_ratio:.2f}x (CPU {cpu_ratio:.2f}x) |")

    print("\nFLOP counts (forward + backward, matmuls only) and the spread of the timed windows:\n")
    print("| pool / variant | training MFLOP/word, FlopCounterMode | analytic (fwd x3) | measured/analytic "
          "| window wall s (min-max) |")
    print("|---|---:|---:|---:|---:|")
    for v in attention + padding:
        print(f"| {v.name} | {v.flops / v.words / 1e6:.1f} | {v.analytic / v.words / 1e6:.1f} | "
              f"{v.flops / v.analytic:.3f} | {min(v.wall):.2f}-{max(v.wall):.2f} |")
    print("\nFlopCounterMode counts nn.LSTM only with oneDNN off (its fused kernel reports 0), so FLOPs are counted "
          "in a separate untimed pass; it skips gradients nobody needs (the encoder's zero initial state), hence "
          "measured/analytic just under 1. The machine may be shared: absolute figures are noisy, compare the "
          "ratios within one run.")


if __name__ == "__main__":
    main()
