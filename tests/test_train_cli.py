"""typofix-train as a new user runs it, through the real command line: each of issue 39's five reports replayed as
written gives one line, the exit status of the policy (2 for bad input, 0 for nothing to do) and loses nothing of
an existing run (its record, its log, its checkpoints and metrics stay byte for byte)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

TRAIN = str(Path(sys.executable).parent / "typofix-train")
QUIET = ["trainer.enable_progress_bar=false", "callbacks.progress_bar=null", "threads=1",
         "callbacks.attention_samples=null", "callbacks.embedding_snapshots=null"]
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "HYDRA_FULL_ERROR": "0"}


def run(*overrides: str, cwd: Path | None = None, fault: str | None = None) -> subprocess.CompletedProcess:
    env = {**ENV, "TYPOFIX_FAULT": fault} if fault else ENV
    return subprocess.run([TRAIN, *overrides], capture_output=True, text=True, env=env, timeout=300, cwd=cwd)


def one_line(done: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-3000:]
    return lines[0]


def snapshot(folder: Path) -> dict[str, str]:
    """Every file of a run folder (its record, log, checkpoints, metrics) by content."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def step_of(run_dir: Path) -> int:
    return torch.load(run_dir / "checkpoints" / "last.ckpt", map_location="cpu", weights_only=True)["global_step"]


@pytest.mark.slow
def test_1_resuming_a_finished_run_says_so_and_one_with_more_to_do_continues(tmp_path):
    """The GPU test's resume leg, as a command: a run cut by trainer.max_steps inside its last epoch has finished
    (Lightning counts that epoch as done), which is said in one line with exit 0; more epochs continue it."""
    rA = tmp_path / "rA"
    assert run("experiment=tiny", "trainer.max_steps=12", f"hydra.run.dir={rA}", *QUIET).returncode == 0
    before = snapshot(rA)
    done = run(f"resume={rA}", "trainer.max_steps=16")
    assert done.returncode == 0
    assert one_line(done) == (f"typofix-train: the run in {rA} has finished (2 of trainer.max_epochs=2 epochs, step "
                              "12): nothing to do (trainer.max_epochs=<more> continues it)")
    assert snapshot(rA) == before
    done = run(f"resume={rA}", "trainer.max_steps=16", "trainer.max_epochs=3")
    assert done.returncode == 0, done.stderr[-3000:]
    assert step_of(rA) == 16


@pytest.mark.slow
def test_2_a_failed_start_in_a_run_folder_leaves_the_run_as_it_was(tmp_path):
    rA = tmp_path / "rA"
    done = run("experiment=tiny", "trainer.max_epochs=3", f"hydra.run.dir={rA}", *QUIET, fault="train_batch@5:INT")
    assert done.returncode == 130 and "resume with: typofix-train resume=" in done.stderr
    before = snapshot(rA)
    done = run("experiment=tiny", "data.dev_sets.birkbeck=missing.tsv", f"hydra.run.dir={rA}", *QUIET)
    assert done.returncode == 2
    assert one_line(done).startswith("typofix-train: error: data.dev_sets.birkbeck=missing.tsv: ")
    # A resume that fails while it is built (a word list that is no word list: found only by reading it).
    bad = tmp_path / "words.tsv"
    bad.write_text("no tab here\n")
    done = run(f"resume={rA}", f"data.words_path={bad}")
    assert done.returncode == 2
    assert one_line(done).startswith(f"typofix-train: error: {bad}:1: ")
    assert snapshot(rA) == before  # .hydra, train.log, checkpoint, metrics: untouched
    done = run(f"resume={rA}")  # the interrupted run's own config comes back, and it finishes
    assert done.returncode == 0, done.stderr[-3000:]
    assert step_of(rA) == 24  # its trainer.max_epochs=3 of 8 steps


@pytest.mark.slow
def test_3_a_second_run_into_a_run_folder_is_refused(tiny_ckpt):
    rA = tiny_ckpt.parent.parent
    before = snapshot(rA)
    done = run("experiment=tiny", f"hydra.run.dir={rA}", *QUIET)
    assert done.returncode == 2
    assert one_line(done) == (f"typofix-train: error: hydra.run.dir={rA} holds another run (checkpoints/last.ckpt): "
                              f"resume={rA} continues it; a new run needs a fresh hydra.run.dir")
    assert snapshot(rA) == before


@pytest.mark.slow  # (about 10 s: a run is started to be refused; test_3 keeps the refusal in make test)
def test_3_a_run_folder_with_metrics_and_no_checkpoint_is_refused_too(tmp_path):
    rA = tmp_path / "rA"
    (rA / "logs").mkdir(parents=True)
    (rA / "logs" / "metrics.csv").write_text("epoch,step,train/loss\n0,1,3.0\n")
    done = run("experiment=tiny", f"hydra.run.dir={rA}", *QUIET)
    assert done.returncode == 2
    assert "holds another run (logs/metrics.csv, no checkpoint to resume)" in one_line(done)


@pytest.mark.parametrize("overrides, monitor", [
    (["experiment=default", "data.dev_sets.birkbeck=null"], "callbacks.checkpoint.monitor=val_birkbeck/word_acc"),
    pytest.param(["experiment=tiny", "callbacks.early_stopping.monitor=val_birkbeck/loss"],
                 "callbacks.early_stopping.monitor=val_birkbeck/loss", marks=pytest.mark.slow),
])
def test_4_a_monitor_of_a_metric_the_run_never_logs_is_refused_before_any_data(tmp_path, overrides, monitor):
    done = run(*overrides, *QUIET, cwd=tmp_path)
    assert done.returncode == 2
    line = one_line(done)
    assert line.startswith(f"typofix-train: error: {monitor}: not a metric this run logs; no data.dev_sets.birkbeck")
    assert "val_norvig/word_acc" in line  # what it does log
    assert list(tmp_path.iterdir()) == []  # stopped before Hydra made a run folder


@pytest.mark.parametrize("overrides, expected", [
    (["resume=nonexistent-dir"], "resume=nonexistent-dir: no such run folder"),
    (["experiment=tiny", "data.dev_sets.birkbeck=missing.tsv"],
     "data.dev_sets.birkbeck=missing.tsv: expected a non-empty string, a misspelling file (a path, or a file of "
     "data/eval/) (no such file)"),
    (["model.enc_hidden_size=abc"], "model.enc_hidden_size=abc: expected an integer >= 1"),
    (["model.teacher=missing.pt"], "model.teacher=missing.pt: expected a non-empty string or null, an existing file "
     "(no such file)"),
])
def test_5_bad_input_exits_2_with_one_line(tmp_path, overrides, expected):
    done = run(*overrides, cwd=tmp_path)
    assert done.returncode == 2
    assert one_line(done) == f"typofix-train: error: {expected}"
    assert list(tmp_path.iterdir()) == []


def test_the_metrics_a_monitor_may_name_are_the_ones_a_run_logs(tiny_ckpt):
    """What the monitor check accepts (TypoCorrector.logged_metrics) is what a run writes to its metrics.csv."""
    from typofix.training.system import TypoCorrector

    with open(tiny_ckpt.parent.parent / "logs" / "metrics.csv") as f:
        columns = set(f.readline().strip().split(","))
    logged = {c for c in columns if c.startswith(("train/loss", "val"))}
    assert logged == set(TypoCorrector.logged_metrics(["val", "val_norvig"]))  # experiment=tiny: one dev set


@pytest.mark.slow  # two starts that import torch to read the teacher: about 20 s
def test_a_teacher_that_is_no_model_of_the_runs_alphabet_is_a_one_line_error_before_any_data(tmp_path):
    """model.teacher is read before the data and the model are built: a file that is no model, or a model of
    another alphabet, is one line (exit 1, as typofix says model errors) and leaves no run folder."""
    (tmp_path / "notes.pt").write_text("not a model")
    done = run("experiment=tiny", "model.teacher=notes.pt", cwd=tmp_path)
    assert done.returncode == 1
    assert one_line(done).startswith("typofix-train: error: cannot read model notes.pt: ")
    bundled = Path(__file__).resolve().parent.parent / "typofix" / "models" / "fast.pt"
    done = run("experiment=tiny", f"model.teacher={bundled}", "alphabet=abcdefghijklmnopqrstuvwxyz", cwd=tmp_path)
    assert done.returncode == 1
    assert one_line(done).startswith(f"typofix-train: error: model.teacher {bundled}: alphabet ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.pt"]
