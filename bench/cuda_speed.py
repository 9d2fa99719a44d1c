"""Training speed on a CUDA GPU, bf16 autocast: words/s of the training step, eager and captured in a CUDA graph,
and of `typofix-train` end to end. `bench/train_speed.py --device cuda` runs it (or `python -m bench.cuda_speed`).

Step table: `Seq2Seq` with its defaults (= conf/model/bahdanau.yaml), one training step = forward (bf16 autocast)
+ backward + gradient clipping (1.0) + AdamW (capturable, so that its step count stays on the device). For each
batch size, one batch of TypoDataModule's length-bucketed loader (epoch 0, the batch of median length) is timed:
  * eager    -- the step as Python runs it, one kernel launch after another;
  * graph    -- the same step captured once in a CUDA graph (torch.cuda.graph) and replayed. A capture fails on
                any host synchronisation inside the step (a length copied to the CPU, an .item()): that it
                succeeds is the proof that the step has none (typofix.nn.model.Encoder.padded).
The figures are the median of `--windows` windows of `--steps` steps each, after warm-up; words/s counts the
batch's words. Both columns time the same batch, so their ratio is the launch overhead the graph removes.

End-to-end table: `typofix-train experiment=default trainer=gpu data.batch_size=B` for `--e2e-steps` steps (data
loading in trainer=gpu's workers, the Lightning loop, bf16-mixed, gradient clipping, the logger; no validation,
which an epoch longer than the run leaves out), as a subprocess: `train/words_per_sec` is the callback
typofix.training.callbacks.WordsPerSecond's figure over the training loop, `whole command` the words over the
command's wall time, start-up and data set-up included.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from typofix.nn.model import Seq2Seq
from typofix.training.data import LengthBucketSampler, TypoDataModule, collate


def batch_of_median_length(datamodule: TypoDataModule, batch_size: int, seed: int) -> dict:
    """One full batch of the loader's length buckets for `batch_size`, the one of median source length."""
    sampler = LengthBucketSampler(datamodule.train_set, batch_size, seed)
    full = [keys for keys in sampler if len(keys) == batch_size] or list(sampler)
    data = datamodule.train_set
    full.sort(key=lambda keys: sum(len(data.words[data.word_table(e)[i]]) for e, i in keys))
    return collate([data[k] for k in full[len(full) // 2]], datamodule.vocab.pad_id)


class Step:
    """One training step of a fresh model on a fixed batch on the GPU: `run()` eagerly, or `capture()` then
    `replay()`. The batch's tensors are static (a graph reads the same memory at every replay)."""

    def __init__(self, vocab_size: int, pad_id: int, sos_id: int, eos_id: int, batch: dict, seed: int):
        torch.manual_seed(seed)
        self.model = Seq2Seq(vocab_size, pad_id, sos_id, eos_id).cuda().train()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=3e-3, weight_decay=1e-4, capturable=True)
        self.batch = {k: v.cuda() for k, v in batch.items()}
        self.words = batch["src"].size(0)
        self.graph: torch.cuda.CUDAGraph | None = None
        self.loss: torch.Tensor | None = None

    def _body(self) -> torch.Tensor:
        b = self.batch
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = self.model.loss(b["src"], b["src_len"], b["tgt_in"], b["tgt_out"])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        return loss

    def run(self) -> torch.Tensor:
        self.optimizer.zero_grad(set_to_none=True)
        return self._body()

    def capture(self, warmup: int = 3) -> None:
        """Warm up on a side stream (the optimiser's state is made there), then capture one step."""
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(warmup):
                self.run()
        torch.cuda.current_stream().wait_stream(stream)
        self.graph = torch.cuda.CUDAGraph()
        self.optimizer.zero_grad(set_to_none=True)  # the captured backward allocates the gradients in its pool
        with torch.cuda.graph(self.graph):
            self.loss = self._body()

    def replay(self) -> torch.Tensor:
        self.graph.replay()
        return self.loss


def time_steps(call, steps: int, windows: int) -> float:
    """Median seconds per step over `windows` windows of `steps` calls, the device synchronised around each."""
    times = []
    for _ in range(windows):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(steps):
            call()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) / steps)
    return statistics.median(times)


def step_table(datamodule: TypoDataModule, args) -> list[str]:
    vocab = datamodule.vocab
    rows = ["| batch | source x target length | eager ms/step | eager words/s | graph ms/step | graph words/s "
            "| graph vs eager |", "|---:|---|---:|---:|---:|---:|---:|"]
    for size in args.batch_sizes:
        batch = batch_of_median_length(datamodule, size, args.seed)
        shape = f"{batch['src'].size(1)} x {batch['tgt_in'].size(1)}"
        eager = Step(len(vocab), vocab.pad_id, vocab.sos_id, vocab.eos_id, batch, args.seed)
        for _ in range(args.warmup):
            eager.run()
        eager_s = time_steps(eager.run, args.steps, args.windows)
        words = eager.words
        del eager
        graph_cells = "capture failed | - | -"
        try:
            graph = Step(len(vocab), vocab.pad_id, vocab.sos_id, vocab.eos_id, batch, args.seed)
            graph.capture(args.warmup)
            graph_s = time_steps(graph.replay, args.steps, args.windows)
            if not torch.isfinite(graph.loss):
                raise RuntimeError(f"non-finite loss after replays ({graph.loss.item()})")
            graph_cells = f"{1e3 * graph_s:.1f} | {words / graph_s:,.0f} | {eager_s / graph_s:.2f}x"
        except Exception as err:  # say why in the table and go on: the other columns still stand
            graph_cells = f"capture failed: {str(err).splitlines()[0][:120]} | - | -"
        finally:
            graph = None
            torch.cuda.empty_cache()
        rows.append(f"| {size:,} | {shape} | {1e3 * eager_s:.1f} | {words / eager_s:,.0f} | {graph_cells} |")
    return rows


def end_to_end(size: int, steps: int, workdir: Path) -> tuple[float, float, int]:
    """(train/words_per_sec, words per second of the whole command, exit status) of one typofix-train run."""
    run = workdir / f"e2e-{size}"
    command = [sys.executable, "-m", "typofix.training.train", "experiment=default", "trainer=gpu",
               f"data.batch_size={size}", f"data.epoch_size={size * (steps + 8)}", f"trainer.max_steps={steps}",
               "trainer.max_time=null", f"hydra.run.dir={run}", "test_after_fit=false",
               "trainer.enable_progress_bar=false", "callbacks.progress_bar=null", "callbacks.attention_samples=null",
               "callbacks.embedding_snapshots=null", "callbacks.checkpoint=null",
               "+callbacks.speed._target_=typofix.training.callbacks.WordsPerSecond"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        print(f"<!-- batch {size}: typofix-train exited {done.returncode}: {done.stderr.strip()[-500:]} -->")
        return float("nan"), float("nan"), done.returncode
    with open(run / "logs" / "metrics.csv") as f:
        rates = [float(r["train/words_per_sec"]) for r in csv.DictReader(f) if r.get("train/words_per_sec")]
    return (rates[-1] if rates else float("nan")), size * steps / wall, 0


def main(argv: list[str] | None = None, seed: int = 1234) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batch-sizes", type=lambda t: [int(x) for x in t.split(",")], default=[512, 4096, 8192])
    parser.add_argument("--steps", type=int, default=20, help="steps per timed window")
    parser.add_argument("--windows", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--e2e-steps", type=int, default=60, help="steps of each typofix-train run (0: none)")
    parser.add_argument("--seed", type=int, default=seed)
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        raise SystemExit("bench.cuda_speed: no CUDA device")
    torch.backends.cudnn.benchmark = False
    datamodule = TypoDataModule(seed=args.seed, epoch_size=max(args.batch_sizes) * 16)
    datamodule.setup("fit")
    started = time.perf_counter()
    print("## typofix training speed on a GPU\n")
    print(f"- device: {torch.cuda.get_device_name()}, torch {torch.__version__}, CUDA {torch.version.cuda}, "
          f"cuDNN {torch.backends.cudnn.version()}; {os.cpu_count()} CPUs")
    print(f"- step: Seq2Seq defaults, bf16 autocast, clip 1.0, AdamW(capturable); median of {args.windows} "
          f"windows of {args.steps} steps after {args.warmup} warm-up steps\n")
    print("\n".join(step_table(datamodule, args)))
    if args.e2e_steps:
        print(f"\n`typofix-train experiment=default trainer=gpu data.batch_size=B`, {args.e2e_steps} steps "
              "(trainer=gpu's loader workers; no validation):\n")
        print("| batch | train/words_per_sec | whole command words/s |")
        print("|---:|---:|---:|")
        with tempfile.TemporaryDirectory(prefix="typofix-e2e-") as workdir:
            for size in args.batch_sizes:
                in_loop, whole, status = end_to_end(size, args.e2e_steps, Path(workdir))
                print(f"| {size:,} | {in_loop:,.0f} | {whole:,.0f} |" if status == 0 else
                      f"| {size:,} | failed (exit {status}) | - |")
    print(f"\n(run took {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
