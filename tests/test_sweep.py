"""Training sweeps through Hydra's submitit launcher (the `slurm` extra): `hydra/launcher=submitit_local` runs a
sweep's jobs in processes of their own, as `submitit_slurm` runs them as SLURM jobs. Each job trains its run into
the sweep dir; a job's error comes back to the launching command as one line; a signal that stops the launching
command stops its local jobs, each at a safe point with a checkpoint. Skipped without the extra."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

pytest.importorskip("hydra_plugins.hydra_submitit_launcher", reason="needs the slurm extra: pip install 'typofix[slurm]'")

TRAIN = str(Path(sys.executable).parent / "typofix-train")
QUIET = ("trainer.enable_progress_bar=false", "callbacks.progress_bar=null", "threads=1",
         "callbacks.attention_samples=null", "callbacks.embedding_snapshots=null")
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


def sweep(folder: Path, *overrides: str) -> list[str]:
    return [TRAIN, "-m", "hydra/launcher=submitit_local", "experiment=tiny", f"hydra.sweep.dir='{folder}'", *QUIET,
            *overrides]


def weights(path: Path) -> dict:
    return torch.load(path, map_location="cpu", weights_only=True)


@pytest.mark.slow
def test_a_local_sweep_trains_each_run_into_the_sweep_dir(tmp_path):
    done = subprocess.run(sweep(tmp_path, "trainer.max_steps=5", "seed=1,2"), capture_output=True, text=True,
                          env=ENV, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    runs = {}
    for job, seed in ((0, 1), (1, 2)):
        last = tmp_path / str(job) / "checkpoints" / "last.ckpt"
        assert last.is_file()
        assert f"- seed={seed}" in (tmp_path / str(job) / ".hydra" / "overrides.yaml").read_text()
        runs[seed] = weights(last)
        assert runs[seed]["global_step"] == 5
    first, second = (runs[s]["state_dict"] for s in (1, 2))
    assert any(not torch.equal(first[k], second[k]) for k in first)  # two seeds, two runs


@pytest.mark.slow
def test_a_failing_job_is_one_line_from_the_launching_command(tmp_path):
    # A sweep's values are checked by its jobs; job 0 fails, job 1 trains.
    done = subprocess.run(sweep(tmp_path, "trainer.max_steps=5", "data.batch_size=abc,64"), capture_output=True,
                          text=True, env=ENV, timeout=600)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if not line.startswith("[")]  # Hydra's log lines aside
    assert len(errors) == 2, done.stderr
    assert errors[0].startswith("Error executing job with overrides: [") and "'data.batch_size=abc'" in errors[0]
    assert errors[1] == "typofix-train: error: data.batch_size=abc: expected an integer >= 1"
    assert (tmp_path / "1" / "checkpoints" / "last.ckpt").is_file()


@pytest.mark.slow
def test_sigterm_to_the_launching_command_stops_its_local_jobs_with_checkpoints(tmp_path):
    launcher = subprocess.Popen(sweep(tmp_path, "trainer.max_epochs=1000", "seed=1,2"), stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, env=ENV)
    firsts = [tmp_path / str(job) / "checkpoints" / "epoch00-step8.ckpt" for job in (0, 1)]
    deadline = time.monotonic() + 300
    while not all(p.is_file() for p in firsts) and time.monotonic() < deadline:  # both jobs are training
        time.sleep(0.2)
    assert all(p.is_file() for p in firsts), "the jobs did not reach their first validation"
    launcher.send_signal(signal.SIGTERM)
    _, stderr = launcher.communicate(timeout=300)
    assert launcher.returncode == 128 + signal.SIGTERM
    assert stderr.splitlines()[-1] == ("typofix-train: stopped by SIGTERM; its 2 local job(s) stopped with it; each "
                                       "job's log (.submitit/ in the sweep dir) says how to resume it")
    logs = [p.read_text() for p in tmp_path.glob(".submitit/*/*_log.err")]
    for job in (0, 1):
        said = [line for log in logs for line in log.splitlines() if f"resume={tmp_path}/{job}" in line]
        assert len(said) == 1 and said[0].startswith("typofix-train: stopped by SIGTERM at step "), logs
        step = int(said[0].split(" at step ")[1].split(";")[0])
        assert weights(tmp_path / str(job) / "checkpoints" / "last.ckpt")["global_step"] == step
