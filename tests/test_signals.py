"""A signal at any moment of a training run: it stops at a safe point with a checkpoint, says the command that
continues, and that command, run as printed, ends where an uninterrupted run ends (the same weights, the same
validation rows in metrics.csv, the same checkpoint files). The moments are made to happen on purpose
(TYPOFIX_FAULT, typofix.training.faults.FaultInjection), never by sleeping and hoping. In-process runs call
`train`; the ones about the command line run `typofix-train` as a subprocess."""

from __future__ import annotations

import csv
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from hydra import compose, initialize_config_module

from typofix.training.config_schema import ConfigError
from typofix.training.faults import FAULT_ENV, Fault, FaultInjection, StopSignals
from typofix.training.resume import RunFinished
from typofix.training.train import TrainingStopped, train

QUIET = ("trainer.enable_progress_bar=false", "callbacks.progress_bar=null", "threads=1")
LEAN = ("callbacks.attention_samples=null", "callbacks.embedding_snapshots=null")
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "HYDRA_FULL_ERROR": "0"}
TRAIN = str(Path(sys.executable).parent / "typofix-train")


def config(run_dir: Path, *overrides: str):
    with initialize_config_module(config_module="typofix.conf", version_base="1.3"):
        return compose(config_name="train",
                       overrides=["experiment=tiny", f"run_dir='{run_dir}'", *QUIET, *LEAN, *overrides])


def outcome(run: Path) -> tuple[int, dict, list, list]:
    """What a finished run leaves that a resume must reproduce: its last step and weights, its validation rows
    (epoch, step, loss) and its checkpoint files."""
    last = torch.load(run / "checkpoints" / "last.ckpt", map_location="cpu", weights_only=True)
    with open(run / "logs" / "metrics.csv") as f:
        rows = [(r["epoch"], r["step"], r["val/loss"]) for r in csv.DictReader(f) if r.get("val/loss")]
    return last["global_step"], last["state_dict"], rows, sorted(p.name for p in (run / "checkpoints").iterdir())


def assert_same_run(straight: Path, resumed: Path) -> None:
    step, weights, rows, files = outcome(straight)
    step2, weights2, rows2, files2 = outcome(resumed)
    assert step2 == step == 16
    for name, weight in weights.items():
        torch.testing.assert_close(weights2[name], weight, msg=name, rtol=0, atol=0)
    assert rows2 == rows  # one validation row per epoch, the interrupted epoch's too, none twice
    assert files2 == files  # the best epoch's checkpoint too


@pytest.fixture(scope="module")
def straight(tmp_path_factory) -> Path:
    """An uninterrupted tiny run: 2 epochs of 8 steps, a validation after each."""
    run = tmp_path_factory.mktemp("straight")
    train(config(run))
    return run


def printed_command(message: str) -> list[str]:
    """The command a stop's message says to run."""
    command = shlex.split(message.split(" with: ", 1)[1])
    assert command[0] == "typofix-train", message
    return command


def stop_and_resume(run: Path, fault: str, monkeypatch, *overrides: str) -> TrainingStopped:
    """Train with `fault`, expect the stop, then run the printed command (in-process: a run with no Hydra record
    resumes with ckpt_path=<its last.ckpt>) without the fault."""
    monkeypatch.setenv(FAULT_ENV, fault)
    with pytest.raises(TrainingStopped) as stopped:
        train(config(run, *overrides))
    monkeypatch.delenv(FAULT_ENV)
    command = printed_command(str(stopped.value))
    assert command[1].startswith("ckpt_path=")
    train(config(run, *overrides, *command[1:]))
    return stopped.value


# The moments of a run a signal can hit, each where it matters to resuming. Step 8 ends epoch 0: its last batch,
# then its validation, then its checkpoints and end hooks.
MOMENTS = [
    "train_start",                 # before the first batch
    "train_batch@5",               # inside a batch, mid-epoch
    "batch_end@8",                 # after an epoch's last batch, before its validation (the crash of issue #29)
    "validation@8",                # inside validation
    "validation_end@8",            # after validation, before the epoch's checkpoints
    "checkpoint@8",                # while a checkpoint is written
    "epoch_end@8",                 # in the epoch's end hooks
    "train_batch@12",              # inside a batch of the next epoch
    "validation@16",               # inside the last validation
]
FAST = {"batch_end@8", "validation@8:INT", "checkpoint@8"}


@pytest.mark.parametrize("fault", [pytest.param(m, marks=() if m in FAST else pytest.mark.slow)
                                   for m in MOMENTS + ["validation@8:INT", "checkpoint@8:INT"]])
def test_a_stop_at_any_moment_resumes_as_an_uninterrupted_run(straight, tmp_path, monkeypatch, fault):
    stopped = stop_and_resume(tmp_path, fault, monkeypatch)
    signum = Fault.parse(fault).signum
    assert stopped.status == 128 + signum
    assert str(stopped).startswith(f"stopped by {'Ctrl-C (SIGINT)' if signum == signal.SIGINT else 'SIGTERM'} at step ")
    assert_same_run(straight, tmp_path)


def test_ctrl_c_twice_stops_at_once_and_the_last_checkpoint_resumes(straight, tmp_path, monkeypatch):
    """The second Ctrl-C stops inside the batch, writing nothing: the hint resumes from the checkpoint of the last
    validation, and the run still ends as an uninterrupted one."""
    stopped = stop_and_resume(tmp_path, "train_batch@12:INT,train_batch@12:INT", monkeypatch)
    assert stopped.status == 130
    assert str(stopped).startswith("stopped by Ctrl-C (SIGINT) twice at step 12, saving nothing; resume from step 8 "
                                   "with: typofix-train ckpt_path=")
    assert_same_run(straight, tmp_path)


def test_a_stop_after_the_last_epoch_says_training_is_complete(straight, tmp_path, monkeypatch):
    monkeypatch.setenv(FAULT_ENV, "epoch_end@16")
    with pytest.raises(TrainingStopped, match=r"^stopped by SIGTERM at step 16, after the last epoch: training is "
                                              r"complete \(.*last\.ckpt\)$") as stopped:
        train(config(tmp_path))
    assert stopped.value.status == 143
    monkeypatch.delenv(FAULT_ENV)
    with pytest.raises(RunFinished, match=r"has finished \(2 of trainer.max_epochs=2 epochs, step 16\): nothing to "
                                          r"do \(trainer.max_epochs=<more> continues it\)"):
        train(config(tmp_path, f"ckpt_path='{tmp_path / 'checkpoints' / 'last.ckpt'}'"))
    assert_same_run(straight, tmp_path)


def test_a_stop_while_testing_says_training_had_finished(tmp_path, monkeypatch):
    monkeypatch.setenv(FAULT_ENV, "test")
    with pytest.raises(TrainingStopped, match="^stopped by SIGTERM while testing, after training had finished at "
                                              "step 16: the run is complete but for its test"):
        train(config(tmp_path, "test_after_fit=true", "data.eval_batch_size=16"))  # 4 test batches


def test_fault_specs():
    assert Fault.parse("validation@8:INT") == Fault("validation", 8, signal.SIGINT)
    assert Fault.parse("checkpoint:SIGTERM") == Fault("checkpoint", None, signal.SIGTERM)
    assert Fault.parse(" train_batch@5 ") == Fault("train_batch", 5, signal.SIGTERM)
    for bad in ("lunch@3", "validation@x", "validation:NOPE"):
        with pytest.raises(ConfigError, match=FAULT_ENV):
            Fault.parse(bad)


def test_faults_fire_once_each_in_order(monkeypatch):
    raised = []
    monkeypatch.setattr(signal, "raise_signal", raised.append)
    monkeypatch.setenv(FAULT_ENV, "validation@8,batch_end:INT,validation@8:INT")
    faults = FaultInjection.from_environment()
    faults.point("validation", 7)
    assert raised == []
    faults.point("validation", 8)
    faults.point("validation", 8)
    faults.point("batch_end", 3)
    faults.point("batch_end", 4)
    assert raised == [signal.SIGTERM, signal.SIGINT, signal.SIGINT]


def test_ctrl_c_asks_for_lightnings_stop_and_a_second_one_stops_at_once():
    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    for first, second, forced in ((signal.SIGINT, signal.SIGINT, True), (signal.SIGTERM, signal.SIGTERM, False),
                                  (signal.SIGTERM, signal.SIGINT, True), (signal.SIGINT, signal.SIGTERM, False)):
        stop, lightning = StopSignals(), []
        with stop.installed():
            ours = signal.getsignal(signal.SIGTERM)
            # As Lightning's fit does: its own SIGTERM handler (which sets its stop flag), then the one it found.
            signal.signal(signal.SIGTERM, lambda signum, frame: (lightning.append(signum), ours(signum, frame)))
            signal.raise_signal(first)
            assert stop.signum == first and lightning == [signal.SIGTERM]
            if forced:
                with pytest.raises(KeyboardInterrupt):
                    signal.raise_signal(second)
            else:
                signal.raise_signal(second)
        assert stop.forced == forced and stop.signum == first
    assert {signum: signal.getsignal(signum) for signum in before} == before  # given back


# --- the command line -------------------------------------------------------------------------------------------

def typofix_train(*arguments: str, fault: str | None = None, **kwargs) -> subprocess.CompletedProcess:
    env = {**ENV, FAULT_ENV: fault} if fault else {k: v for k, v in ENV.items() if k != FAULT_ENV}
    return subprocess.run([TRAIN, *arguments], capture_output=True, text=True, env=env, timeout=300, **kwargs)


def run_as_printed(message: str) -> subprocess.CompletedProcess:
    return typofix_train(*printed_command(message)[1:])


@pytest.mark.slow
def test_ctrl_c_prints_the_sigterm_hint_and_exits_130(tmp_path):
    """Ctrl-C between an epoch's last batch and its validation (where a resume once died looking for val/loss):
    exit 130, the same one-line hint as SIGTERM, and the hint run as printed finishes the run."""
    run = tmp_path / "run"
    first = typofix_train("experiment=tiny", f"hydra.run.dir={run}", *QUIET, *LEAN, fault="batch_end@8:INT")
    assert first.returncode == 130, first.stderr[-2000:]
    assert "Traceback" not in first.stderr and "KeyboardInterrupt" not in first.stdout + first.stderr
    message = first.stderr.strip().splitlines()[-1]
    assert message == f"typofix-train: stopped by Ctrl-C (SIGINT) at step 8; resume with: typofix-train resume={run}"
    done = run_as_printed(message)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "could not find the monitored key" not in done.stderr
    assert outcome(run)[0] == 16
    assert [row[:2] for row in outcome(run)[2]] == [("0", "7"), ("1", "15")]  # one validation row per epoch


@pytest.mark.parametrize("fault, status, name", [("build", 143, "SIGTERM"), pytest.param(
    "build:INT", 130, "Ctrl-C (SIGINT)", marks=pytest.mark.slow)])
def test_a_signal_before_training_is_one_line_and_leaves_no_run_folder(tmp_path, fault, status, name):
    done = typofix_train("experiment=tiny", *QUIET, fault=fault, cwd=tmp_path)
    assert done.returncode == status
    assert done.stderr.splitlines() == [f"typofix-train: stopped by {name} before training began"]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_resuming_a_finished_run_says_so(tiny_ckpt):
    run = tiny_ckpt.parent.parent
    record = sorted(p.name for p in (run / ".hydra").iterdir())
    done = typofix_train(f"resume={run}")
    assert done.returncode == 0
    assert done.stderr.splitlines() == [f"typofix-train: the run in {run} has finished (2 of trainer.max_epochs=2 "
                                        "epochs, step 16): nothing to do (trainer.max_epochs=<more> continues it)"]
    assert sorted(p.name for p in (run / ".hydra").iterdir()) == record  # nothing moved


def test_a_bad_fault_spec_stops_before_training(tmp_path, monkeypatch):
    monkeypatch.setenv(FAULT_ENV, "lunch@3")
    with pytest.raises(ConfigError, match=f"^{FAULT_ENV}: 'lunch@3' is not "):
        train(config(tmp_path))
    assert not (tmp_path / "checkpoints").exists()


# The measurement of issue #29: SIGTERM at ten moments spread over a tiny run, each resumed exactly as printed
# (resume=<run>), every resume exiting 0 with no traceback and ending as the uninterrupted run does.
TEN = ["train_start", "train_batch@3", "batch_end@8", "validation@8", "validation_end@8", "checkpoint@8",
       "epoch_end@8", "train_batch@12", "batch_end@16", "validation@16"]


@pytest.fixture(scope="module")
def straight_cli(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("straight_cli") / "run"
    done = typofix_train("experiment=tiny", f"hydra.run.dir={run}", *QUIET, *LEAN)
    assert done.returncode == 0, done.stderr[-2000:]
    return run


@pytest.mark.slow
@pytest.mark.parametrize("fault", TEN)
def test_sigterm_at_ten_moments_each_resumed_as_printed(straight_cli, tmp_path, fault):
    run = tmp_path / "run"
    first = typofix_train("experiment=tiny", f"hydra.run.dir={run}", *QUIET, *LEAN, fault=fault)
    assert first.returncode == 143, first.stderr[-2000:]
    assert "Traceback" not in first.stderr
    message = first.stderr.strip().splitlines()[-1]
    assert message.startswith("typofix-train: stopped by SIGTERM at step ")
    assert message.endswith(f"; resume with: typofix-train resume={run}")
    done = run_as_printed(message)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert_same_run(straight_cli, run)
