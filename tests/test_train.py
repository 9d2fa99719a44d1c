"""Training under faults and at scale: exact resume, SIGTERM, atomic checkpoints, DDP on CPU, non-finite loss,
bad config values. In-process tests compose the real config and call `train`; the ones about processes and
signals run `typofix-train` as a subprocess."""

from __future__ import annotations

import csv
import math
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import lightning as L
import pytest
import torch
from hydra import compose, initialize_config_module
from hydra.utils import instantiate
from lightning.fabric.utilities.data import _set_sampler_epoch
from omegaconf import OmegaConf
from PIL import Image

from typofix.training.resume import RunFinished
from typofix.training.faults import AtomicCheckpointIO, FaultInjection, RngState, SigtermCheckpoint, StopSignals
from typofix.training.system import TypoCorrector
from typofix.training.train import build, train

QUIET = ("trainer.enable_progress_bar=false", "callbacks.progress_bar=null", "threads=1")
# The plotting callbacks cost seconds and prove nothing here (they run in eval mode and draw no random numbers).
LEAN = ("callbacks.attention_samples=null", "callbacks.embedding_snapshots=null")
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "HYDRA_FULL_ERROR": "0"}


def q(path) -> str:
    """A path quoted for a Hydra override (pytest's folder names may hold '[' or '=')."""
    return f"'{path}'"


def config(run_dir: Path, *overrides: str):
    with initialize_config_module(config_module="typofix.conf", version_base="1.3"):
        return compose(config_name="train",
                       overrides=["experiment=tiny", f"run_dir={q(run_dir)}", *QUIET, *LEAN, *overrides])


def train_command(run_dir: Path, *overrides: str) -> list[str]:
    return [sys.executable, "-m", "typofix.training.train", "experiment=tiny", f"hydra.run.dir={q(run_dir)}", *QUIET, *LEAN,
            *overrides]


def load(path: Path) -> dict:
    return torch.load(path, map_location="cpu", weights_only=True)


def test_build_wires_fault_tolerance_and_clipping(tmp_path):
    _, _, trainer = build(config(tmp_path))
    assert trainer.gradient_clip_val == 1.0  # on by default (conf/trainer/default.yaml)
    assert isinstance(trainer.strategy.checkpoint_io, AtomicCheckpointIO)
    assert {RngState, SigtermCheckpoint, StopSignals} <= {type(c) for c in trainer.callbacks}
    assert FaultInjection not in {type(c) for c in trainer.callbacks}  # only when TYPOFIX_FAULT asks for faults


# --- resume equals continuous ---------------------------------------------------------------------------------

def test_train_loader_resumes_mid_epoch_and_moves_on_each_epoch(tmp_path):
    cfg = config(tmp_path)
    datamodule = instantiate(cfg.data, _convert_="all")
    datamodule.setup("fit")
    loader = datamodule.train_dataloader()
    whole_epoch = [b["src"] for b in loader]
    batches = iter(loader)
    seen = [next(batches)["src"] for _ in range(3)]
    state = datamodule.state_dict()
    assert state == {"train_loader": {"epoch": 0, "batches": 3}}

    fresh = instantiate(cfg.data, _convert_="all")
    fresh.setup("fit")
    fresh.load_state_dict(state)
    rest = [b["src"] for b in fresh.train_dataloader()]
    assert len(seen) + len(rest) == len(whole_epoch)
    assert all(torch.equal(a, b) for a, b in zip(seen + rest, whole_epoch))

    _set_sampler_epoch(loader, 1)  # what Lightning calls at each epoch start
    assert not all(torch.equal(a, b["src"]) for a, b in zip(whole_epoch, loader))


@pytest.fixture(scope="module")
def continuous_run(tmp_path_factory) -> Path:
    """An uninterrupted tiny run (2 epochs of 8 steps, validation between) that also saves every step."""
    run_dir = tmp_path_factory.mktemp("continuous")
    train(config(run_dir, "+callbacks.every_step._target_=lightning.pytorch.callbacks.ModelCheckpoint",
                 "+callbacks.every_step.dirpath=${run_dir}/steps", "+callbacks.every_step.every_n_train_steps=1",
                 "+callbacks.every_step.save_top_k=-1", "+callbacks.every_step.filename='step{step}'",
                 "+callbacks.every_step.auto_insert_metric_name=false"))
    return run_dir


@pytest.mark.parametrize("step", [5, pytest.param(8, marks=pytest.mark.slow), pytest.param(13, marks=pytest.mark.slow)])
def test_resume_equals_continuous(continuous_run, tmp_path, step):
    """Resumed mid-epoch 0 (5: across validation and an epoch boundary), at the epoch's end (8), mid-epoch 1 (13):
    same data, same typos, same dropout masks, so the same final weights."""
    train(config(tmp_path, f"ckpt_path={q(continuous_run / 'steps' / f'step{step}.ckpt')}"))
    straight, resumed = load(continuous_run / "checkpoints" / "last.ckpt"), load(tmp_path / "checkpoints" / "last.ckpt")
    assert resumed["global_step"] == straight["global_step"] == 16
    for name, weight in straight["state_dict"].items():
        torch.testing.assert_close(resumed["state_dict"][name], weight, msg=name)


# --- a second stage from given weights --------------------------------------------------------------------------

def test_init_weights_starts_from_the_weights_alone(continuous_run, tmp_path):
    """init_weights copies the model weights and nothing else: the step count, schedule and data start over."""
    first = load(continuous_run / "checkpoints" / "last.ckpt")
    _, system, _ = build(config(tmp_path, f"init_weights={q(continuous_run / 'checkpoints' / 'last.ckpt')}"))
    for name, weight in system.model.state_dict().items():
        torch.testing.assert_close(weight, first["state_dict"][f"model.{name}"], msg=name)
    train(config(tmp_path, f"init_weights={q(continuous_run / 'checkpoints' / 'last.ckpt')}"))
    second = load(tmp_path / "checkpoints" / "last.ckpt")
    assert second["global_step"] == 16  # counted from zero again, not from the first run's 16
    assert any(not torch.equal(weight, first["state_dict"][name]) for name, weight in second["state_dict"].items())


@pytest.mark.slow
def test_init_weights_of_another_shape_is_a_one_line_error(continuous_run, tmp_path):
    done = subprocess.run(train_command(tmp_path, "model.emb_size=8",
                                        f"init_weights={q(continuous_run / 'checkpoints' / 'last.ckpt')}"),
                          capture_output=True, text=True, env=ENV, timeout=300)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("typofix-train: error: init_weights ") and "does not fit" in last


# --- SIGTERM --------------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_sigterm_saves_a_checkpoint_and_the_printed_command_resumes_the_run(tmp_path):
    """The hint printed on SIGTERM works exactly as printed, and the resumed run keeps everything of the first
    part: its config and overrides, its metrics (one metrics.csv), its snapshots (a GIF of every epoch), its
    `.hydra` record (in .hydra/part1/)."""
    run_dir = tmp_path / "run"
    overrides = ["experiment=tiny", f"hydra.run.dir={run_dir}", *QUIET, "callbacks.attention_samples=null",
                 "trainer.max_epochs=4"]
    # SIGTERM inside the 13th batch (typofix.training.faults.FaultInjection), after the first checkpoint.
    process = subprocess.run([sys.executable, "-m", "typofix.training.train", *overrides], capture_output=True,
                             text=True, env={**ENV, "TYPOFIX_FAULT": "train_batch@12:TERM"}, timeout=300)
    stdout, stderr = process.stdout, process.stderr

    assert process.returncode == 128 + signal.SIGTERM
    assert "Traceback" not in stderr
    last = run_dir / "checkpoints" / "last.ckpt"
    message = stderr.strip().splitlines()[-1]
    assert message.startswith("typofix-train: stopped by SIGTERM at step ")
    assert message.endswith(f"; resume with: typofix-train resume={run_dir}")
    ckpt = load(last)
    step = ckpt["global_step"]
    assert step == int(message.split("at step ")[1].split(";")[0]) == 13
    assert ckpt["TypoDataModule"]["train_loader"] == {"epoch": (step - 1) // 8, "batches": (step - 1) % 8 + 1}
    TypoCorrector.load_from_checkpoint(last, map_location="cpu")

    command = shlex.split(message.split("resume with: ")[1])
    assert command[0] == "typofix-train"
    done = subprocess.run([str(Path(sys.executable).parent / "typofix-train"), *command[1:]], capture_output=True,
                          text=True, env=ENV, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert load(last)["global_step"] == 32  # the run's own trainer.max_epochs=4 (and its experiment=tiny model)
    with open(run_dir / "logs" / "metrics.csv") as f:
        rows = list(csv.DictReader(f))
    assert sorted(int(r["epoch"]) for r in rows if r["val/loss"]) == [0, 1, 2, 3]  # both parts, one file
    assert [int(r["step"]) for r in rows if r["train/loss"]][0] < step < int(rows[-1]["step"])
    assert Image.open(run_dir / "embeddings.gif").n_frames == 4  # epochs 0-3, the first part's too
    record = run_dir / ".hydra"
    assert OmegaConf.load(record / "part1" / "overrides.yaml") == overrides[:1] + overrides[2:]
    assert OmegaConf.load(record / "overrides.yaml")[:len(overrides) - 1] == overrides[:1] + overrides[2:]
    log = (run_dir / "train.log").read_text()
    assert "last checkpoint: " in log
    for output in (stdout, stderr, done.stdout, done.stderr):
        assert "Tip:" not in output and "LeafSpec" not in output and "exists and is not empty" not in output


@pytest.mark.slow
def test_resume_with_fewer_epochs_than_the_checkpoint_ran_is_one_line(tiny_ckpt):
    run = tiny_ckpt.parent.parent
    record = sorted(p.name for p in (run / ".hydra").iterdir())
    done = subprocess.run([sys.executable, "-m", "typofix.training.train", f"resume={run}", "trainer.max_epochs=1"],
                          capture_output=True, text=True, env=ENV, timeout=300)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"typofix-train: error: trainer.max_epochs=1: expected at least 2, as {tiny_ckpt} has already run into "
        "epoch 2 (step 16)"]
    assert sorted(p.name for p in (run / ".hydra").iterdir()) == record  # a refused resume changes nothing


@pytest.mark.slow
def test_a_checkpoint_of_another_model_size_is_one_line(tiny_ckpt, tmp_path):
    loose = tmp_path / "tiny.ckpt"  # outside its run folder: the configured (default) model applies
    shutil.copy(tiny_ckpt, loose)
    done = subprocess.run([sys.executable, "-m", "typofix.training.train", f"ckpt_path={loose}"], capture_output=True,
                          text=True, env=ENV, timeout=300, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"typofix-train: error: ckpt_path {loose} does not fit model.* of this run: emb_size=16 (this run: 64), "
        "enc_hidden_size=32 (this run: 128), dec_hidden_size=64 (this run: 256), attn_size=32 (this run: 128) "
        "(resume=<run folder> reuses the run's own config)"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.ckpt"]  # no run folder


def test_ckpt_path_last_with_nothing_to_resume_is_an_error(tmp_path):
    done = subprocess.run(train_command(tmp_path / "run", "ckpt_path=last"), capture_output=True, text=True, env=ENV,
                          timeout=300)
    assert done.returncode == 2  # bad input
    missing = tmp_path / "run" / "checkpoints" / "last.ckpt"
    assert done.stderr.splitlines() == [
        f"typofix-train: error: ckpt_path=last: no checkpoint to resume in {missing} (resume=outputs/<run> continues "
        "a run)"]
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_a_run_that_fails_before_training_leaves_no_run_folder(tmp_path):
    words = tmp_path.parent / f"{tmp_path.name}-words.tsv"  # a word list that only reading it shows to be none
    words.write_text("no tab here\n")
    done = subprocess.run([sys.executable, "-m", "typofix.training.train", "experiment=tiny", "threads=1",
                           f"data.words_path={words}"], capture_output=True, text=True, env=ENV,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 2  # bad input, found while the run was built (after Hydra made its folder)
    assert done.stderr.splitlines()[-1].startswith(f"typofix-train: error: {words}:1: ")
    assert list(tmp_path.iterdir()) == []  # no outputs/<date>/<time>/ (and no empty outputs/<date>/)


# --- atomic checkpoint writes ---------------------------------------------------------------------------------

WRITER = """
import sys, torch
from typofix.training.faults import AtomicCheckpointIO
io = AtomicCheckpointIO()
io.save_checkpoint({"version": torch.tensor(1)}, sys.argv[1])
print("first written", flush=True)
io.save_checkpoint({"version": torch.tensor(2), "big": torch.ones(64_000_000)}, sys.argv[1])  # 256 MB
print("second written", flush=True)
"""


@pytest.mark.slow
def test_a_writer_killed_mid_checkpoint_leaves_no_partial_file(tmp_path):
    target = tmp_path / "last.ckpt"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(target)], stdout=subprocess.PIPE, text=True,
                              env=ENV)
    assert writer.stdout.readline().strip() == "first written"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # until the second write has begun filling its temporary file
        temporary = next(iter(tmp_path.glob(f".last.{writer.pid}-*.tmp")), None)
        if temporary is not None and temporary.exists() and temporary.stat().st_size > 0:
            break
        time.sleep(0.001)
    writer.kill()  # SIGKILL: no handler, no cleanup, as when a node dies
    writer.wait(timeout=60)
    assert temporary is not None and temporary.exists(), "the writer finished before it was killed; nothing tested"
    assert load(target)["version"].item() == 1  # the previous checkpoint, whole
    assert [p.name for p in tmp_path.glob("*.ckpt")] == ["last.ckpt"]


# --- DDP on CPU -----------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_ddp_on_two_cpu_processes_trains_and_reduces_metrics(tmp_path):
    run_dir = tmp_path / "ddp"
    done = subprocess.run(train_command(run_dir, "trainer=ddp", "trainer.devices=2", "trainer.accelerator=cpu",
                                        "trainer.max_epochs=1"),
                          capture_output=True, text=True, env=ENV, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    checkpoints = run_dir / "checkpoints"
    assert sorted(p.name for p in checkpoints.iterdir()) == ["epoch00-step4.ckpt", "last.ckpt"]  # rank 0 writes
    last = checkpoints / "last.ckpt"
    assert load(last)["global_step"] == 4  # the epoch's 8 batches split over 2 processes

    with open(run_dir / "logs" / "metrics.csv") as f:
        logged = [row for row in csv.DictReader(f) if row.get("val/loss")][-1]
    # The same weights validated by one process: the reduced metrics must be the single-process values.
    datamodule = instantiate(config(tmp_path / "single").data, _convert_="all")
    trainer = L.Trainer(accelerator="cpu", devices=1, logger=False, enable_progress_bar=False,
                        enable_model_summary=False)
    results = trainer.validate(TypoCorrector.load_from_checkpoint(last, map_location="cpu"), datamodule=datamodule,
                               verbose=False)
    single = {k: v for result in results for k, v in result.items()}
    assert {"val/loss", "val/word_acc", "val/cer", "val_norvig/cer"} <= single.keys()
    for name, value in single.items():
        assert float(logged[name]) == pytest.approx(value, rel=1e-5, abs=1e-6), name


# --- numerical faults and bad config --------------------------------------------------------------------------

@pytest.mark.slow
def test_non_finite_loss_stops_with_one_line_and_no_checkpoint(tmp_path):
    done = subprocess.run(train_command(tmp_path, "model.lr=inf"), capture_output=True, text=True, env=ENV,
                          timeout=300)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("typofix-train: error: non-finite training loss")
    assert not list(tmp_path.rglob("*.ckpt"))


def test_bad_config_value_is_a_one_line_error(tmp_path):
    done = subprocess.run(train_command(tmp_path, "data.batch_size=abc"), capture_output=True, text=True, env=ENV,
                          timeout=300)
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["typofix-train: error: data.batch_size=abc: expected an integer >= 1"]


# --- the GPU recipe -------------------------------------------------------------------------------------------
# One recipe, two places to fail: on CUDA (pytest -m gpu, on a machine with a GPU) and on the CPU (make test), so
# that a change to its logic (bf16-mixed, loader workers, checkpoint and resume, "nothing to do") is caught here.

def gpu_recipe_trains_and_resumes(tmp_path, *device: str) -> None:
    """trainer=gpu (bf16-mixed, loader workers) on experiment=tiny: one epoch to a checkpoint with finite weights;
    resuming it with the same schedule is "nothing to do"; with one more epoch it goes on from step 8 to 16."""
    first = tmp_path / "a"
    train(config(first, "trainer=gpu", *device, "trainer.max_epochs=1"))
    last = first / "checkpoints" / "last.ckpt"
    ckpt = load(last)
    assert ckpt["global_step"] == 8
    assert all(torch.isfinite(w).all() for w in ckpt["state_dict"].values())
    with pytest.raises(RunFinished, match=r"has finished \(1 of trainer.max_epochs=1 epochs, step 8\)"):
        train(config(tmp_path / "b", "trainer=gpu", *device, f"ckpt_path={q(last)}", "trainer.max_epochs=1"))
    train(config(tmp_path / "b", "trainer=gpu", *device, f"ckpt_path={q(last)}", "trainer.max_epochs=2"))
    resumed = load(tmp_path / "b" / "checkpoints" / "last.ckpt")
    assert resumed["global_step"] == 16
    assert resumed["TypoDataModule"]["train_loader"] == {"epoch": 1, "batches": 8}
    assert all(torch.isfinite(w).all() for w in resumed["state_dict"].values())


def test_gpu_recipe_logic_on_the_cpu(tmp_path):
    gpu_recipe_trains_and_resumes(tmp_path, "trainer.accelerator=cpu", "data.num_workers=1")


CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


@pytest.mark.gpu
@CUDA
def test_gpu_recipe_trains_in_bf16_and_resumes(tmp_path):
    gpu_recipe_trains_and_resumes(tmp_path)


@pytest.mark.gpu
@CUDA
def test_gpu_encoder_matches_the_packed_cpu_encoder():
    """The padded path on CUDA (cuDNN) against packing on the CPU, same weights, fp32 (no TF32)."""
    from typofix.nn.model import Seq2Seq

    torch.manual_seed(0)
    model = Seq2Seq(40, 0, 1, 2, dropout=0.0).eval()
    lengths = torch.tensor([9, 3, 1, 6, 12, 2, 12, 7])
    src = torch.randint(4, 40, (8, 12)).masked_fill(torch.arange(12) >= lengths.unsqueeze(1), 0)
    with torch.no_grad():
        cpu_out, (cpu_h, cpu_c) = model.encoder(src, lengths)
        tf32 = torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32
        torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
        try:
            gpu_out, (gpu_h, gpu_c) = model.cuda().encoder(src.cuda(), lengths.cuda())
        finally:
            torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = tf32
    for name, a, b in (("enc_out", cpu_out, gpu_out), ("h", cpu_h, gpu_h), ("c", cpu_c, gpu_c)):
        torch.testing.assert_close(b.cpu(), a, rtol=1e-4, atol=1e-5, msg=name)


@pytest.mark.gpu
@CUDA
def test_gpu_training_step_never_waits_for_the_device():
    """The Lightning system's step (training_step, backward, clipping, AdamW) under CUDA's sync debug mode, which
    raises on any host synchronisation; then the same step captured in a CUDA graph trains when replayed."""
    from bench.cuda_speed import Step
    from typofix.training.data import collate
    from typofix.words.vocab import Vocab

    vocab = Vocab()
    words = ["receive", "separate", "government", "necessary", "definitely", "believe", "until", "which"]
    pairs = [(torch.tensor(vocab.encode(w[::-1])), torch.tensor(vocab.encode(w, add_sos=True)),
              torch.tensor(vocab.encode(w, add_eos=True))) for w in words]
    batch = collate(pairs, vocab.pad_id)
    system = TypoCorrector(emb_size=16, enc_hidden_size=32, dec_hidden_size=64, attn_size=32).cuda()
    optimizer = torch.optim.AdamW(system.parameters(), lr=1e-3, capturable=True)
    on_device = {k: v.cuda() for k, v in batch.items()}
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        for step in range(3):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = system.training_step(on_device, step)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(system.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    system.check_finite()

    step = Step(len(vocab), vocab.pad_id, vocab.sos_id, vocab.eos_id, batch, seed=0)
    step.capture()
    losses = [float(step.replay()) for _ in range(20)]
    assert all(map(math.isfinite, losses)) and losses[-1] < losses[0]
