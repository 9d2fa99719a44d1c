"""Resuming a run from its folder: the command line it becomes, the record it keeps, the metrics it appends to."""

from __future__ import annotations

import csv

import pytest
import yaml

from typofix.training.callbacks import AppendingCSVLogger
from typofix.training.config_schema import ConfigError
from typofix.training.resume import keep_record, quoted, resume_arguments


@pytest.fixture
def run(tmp_path):
    """A run folder as typofix-train leaves it: a Hydra record and a last.ckpt (contents not read here)."""
    folder = tmp_path / "run"
    (folder / ".hydra").mkdir(parents=True)
    (folder / ".hydra" / "overrides.yaml").write_text(yaml.safe_dump(["experiment=tiny", "model.lr=0.01",
                                                                      "threads=1"]))
    (folder / "checkpoints").mkdir()
    (folder / "checkpoints" / "last.ckpt").write_bytes(b"")
    return folder


def test_resume_takes_the_runs_overrides_then_the_new_ones(run):
    overrides, folder = resume_arguments([f"resume={run}", "model.lr=0.02", "trainer.max_epochs=5"])
    assert folder == run
    assert overrides == ["experiment=tiny", "threads=1", "model.lr=0.02", "trainer.max_epochs=5", f"resume={run}",
                         f"ckpt_path={run}/checkpoints/last.ckpt", f"hydra.run.dir={run}"]


@pytest.mark.parametrize("how", ["ckpt_path={run}/checkpoints/last.ckpt", "ckpt_path={run}",
                                 "ckpt_path=last hydra.run.dir={run}"])
def test_a_checkpoint_in_a_run_folder_resumes_that_run(run, how):
    overrides, folder = resume_arguments(how.format(run=run).split())
    assert folder == run
    assert overrides[0] == "experiment=tiny" and f"ckpt_path={run}/checkpoints/last.ckpt" in overrides


def test_a_checkpoint_outside_a_run_folder_is_left_alone(tmp_path):
    given = [f"ckpt_path={tmp_path}/x.ckpt", "experiment=tiny"]
    assert resume_arguments(given) == (given, None)
    assert resume_arguments(["experiment=tiny"]) == (["experiment=tiny"], None)


def test_nothing_to_resume_is_an_error(tmp_path, run):
    (run / "checkpoints" / "last.ckpt").unlink()
    with pytest.raises(ConfigError, match="no checkpoint to resume"):
        resume_arguments([f"resume={run}"])
    with pytest.raises(ConfigError, match="ckpt_path=last: no checkpoint to resume in"):
        resume_arguments(["ckpt_path=last", f"hydra.run.dir={run}"])
    with pytest.raises(ConfigError, match="not a run folder"):
        resume_arguments([f"resume={tmp_path}"])


def test_paths_with_odd_characters_are_quoted_for_hydra():
    assert quoted("/tmp/run-1/x_2.ckpt") == "/tmp/run-1/x_2.ckpt"
    assert quoted("/tmp/a b=[1]") == "'/tmp/a b=[1]'"


def test_the_record_of_every_part_is_kept(run):
    keep_record(run)
    (run / ".hydra" / "overrides.yaml").write_text("[]")
    keep_record(run)
    assert sorted(p.name for p in (run / ".hydra").iterdir()) == ["part1", "part2"]
    assert yaml.safe_load((run / ".hydra" / "part1" / "overrides.yaml").read_text())[0] == "experiment=tiny"


def test_the_csv_logger_appends_to_an_existing_metrics_file(tmp_path):
    for step in (0, 1):
        logger = AppendingCSVLogger(save_dir=tmp_path, name="logs", version="")
        logger.log_metrics({"train/loss": 1.0 + step}, step=step)
        if step:
            logger.log_metrics({"val/loss": 3.0}, step=step)  # a new column: the header grows, rows stay
        logger.save()
    with open(tmp_path / "logs" / "metrics.csv") as f:
        rows = list(csv.DictReader(f))
    assert [(r["step"], r["train/loss"], r["val/loss"]) for r in rows] == [("0", "1.0", ""), ("1", "2.0", ""),
                                                                           ("1", "", "3.0")]
