"""Continuing a run in its own folder: `typofix-train resume=outputs/<run>` becomes the run's recorded overrides
plus the new ones, its folder and its last checkpoint; the checkpoint is checked against the configured model and
schedule first; the run's `.hydra` record of every earlier part is kept. (Its metrics.csv is appended to by
`callbacks.AppendingCSVLogger`, its embedding snapshots picked up by `callbacks.EmbeddingSnapshots`.)
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import yaml

from typofix.training.config_schema import ConfigError
from typofix.files.modelfile import ModelError

RECORD = ".hydra"
LAST = Path("checkpoints") / "last.ckpt"
METRICS = Path("logs") / "metrics.csv"
# The model keys that decide the shapes of the weights: a checkpoint resumes or seeds a model only if they agree.
ARCHITECTURE = ("alphabet", "emb_size", "enc_hidden_size", "enc_layers", "dec_hidden_size", "attn_size", "attention",
                "heads")


class RunFinished(Exception):
    """The checkpoint to resume is of a run that has finished: there is nothing to do (exit status 0)."""


def override_key(override: str) -> str:
    """The key an override sets: 'model.lr' for 'model.lr=1', '+a.b=2', '++a.b=2' or '~a.b'."""
    return override.lstrip("+~").split("=", 1)[0].strip()


def quoted(value: str) -> str:
    """A path as an override value: Hydra-quoted when it holds characters its grammar reads."""
    return value if re.fullmatch(r"[\w./:@-]+", value) else "'" + value.replace("'", r"\'") + "'"


def run_folder_of(path: Path) -> Path | None:
    """The run folder a path is, or holds a checkpoint of (`<run>/checkpoints/x.ckpt`); None if neither."""
    for folder in (path, path.parent.parent):
        if (folder / RECORD / "overrides.yaml").is_file():
            return folder
    return None


def recorded_overrides(run: Path) -> list[str]:
    with open(run / RECORD / "overrides.yaml") as f:
        return [str(o) for o in (yaml.safe_load(f) or [])]


def resume_arguments(overrides: list[str]) -> tuple[list[str], Path | None]:
    """Rewrite the command-line overrides of a resume: `resume=<run>`, `ckpt_path=<run>` or `ckpt_path=<a
    checkpoint in a run folder>` -> the run's recorded overrides, then the new ones (which win), the run's folder
    as hydra.run.dir (unless given) and the checkpoint as ckpt_path. Returns (overrides, run folder or None).
    `ckpt_path=last` means the last.ckpt of hydra.run.dir, and is an error where there is none."""
    given = {override_key(o): o.split("=", 1)[1] if "=" in o else None for o in overrides}
    run_dir = given.get("hydra.run.dir")
    resume, ckpt = given.get("resume"), given.get("ckpt_path")
    if ckpt == "last":
        where = Path(_unquote(run_dir)) if run_dir else None
        if where is None or not (where / LAST).is_file():
            raise ConfigError(f"ckpt_path=last: no checkpoint to resume in {where / LAST if where else 'a new run'} "
                              "(resume=outputs/<run> continues a run)")
        resume, ckpt = str(where), None
    if resume in (None, "null"):
        run = run_folder_of(Path(_unquote(ckpt))) if ckpt not in (None, "null") else None
        if run is None:
            return overrides, None
    else:
        run = Path(_unquote(resume))
        if not run.is_dir():
            raise ConfigError(f"resume={resume}: no such run folder")
        if run_folder_of(run) != run:
            raise ConfigError(f"resume={resume}: not a run folder (it has no {RECORD}/overrides.yaml)")
    checkpoint = Path(_unquote(ckpt)) if ckpt not in (None, "null", "last") else run / LAST
    if checkpoint.is_dir():
        checkpoint = checkpoint / LAST
    if not checkpoint.is_file():
        raise ConfigError(f"resume={run}: no checkpoint to resume ({checkpoint} does not exist)")
    new = [o for o in overrides if override_key(o) not in ("ckpt_path", "resume")]
    merged = _merge(recorded_overrides(run), new)
    merged += [f"resume={quoted(str(run))}", f"ckpt_path={quoted(str(checkpoint))}"]
    if run_dir is None:
        merged.append(f"hydra.run.dir={quoted(str(run))}")
    return merged, run


def _unquote(value: str) -> str:
    value = value.strip()
    return value[1:-1] if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"" else value


def _merge(earlier: list[str], later: list[str]) -> list[str]:
    """`earlier` then `later`, an earlier override dropped where a later one sets the same key."""
    keys = {override_key(o) for o in later}
    kept = [o for o in earlier if override_key(o) not in keys | {"ckpt_path", "resume"}]
    return kept + later


def check_run_folder(run: Path, ckpt_path: str | None) -> None:
    """ConfigError if a start would mix its files with another run's in `run`: a folder that holds a run's
    checkpoints or metrics belongs to that run, and only its resume (from a checkpoint in it) may write there."""
    run = run.absolute()
    if ckpt_path and run in Path(ckpt_path).absolute().parents:
        return
    checkpoints = sorted((run / LAST.parent).glob("*.ckpt"))
    if checkpoints:
        raise ConfigError(f"hydra.run.dir={quoted(str(run))} holds another run ({checkpoints[-1].relative_to(run)}): "
                          f"resume={quoted(str(run))} continues it; a new run needs a fresh hydra.run.dir")
    metrics = run / METRICS
    if metrics.is_file():
        raise ConfigError(f"hydra.run.dir={quoted(str(run))} holds another run ({METRICS}, no checkpoint to resume): "
                          "a new run needs a fresh hydra.run.dir")


def record_run(run: Path, config, hydra_config) -> None:
    """Write the run's record, `.hydra/{config,hydra,overrides}.yaml` as Hydra would, once the run is built and
    about to train (conf/hydra/default.yaml turns Hydra's own writing off): a start that fails before it leaves
    the folder's record as it was. An earlier part's record moves to `.hydra/partN/` first (keep_record)."""
    from omegaconf import OmegaConf

    from typofix.files.atomic import atomic_path

    keep_record(run)
    (run / RECORD).mkdir(parents=True, exist_ok=True)
    for name, node in (("config.yaml", config), ("hydra.yaml", OmegaConf.create({"hydra": hydra_config})),
                       ("overrides.yaml", hydra_config.overrides.task)):
        with atomic_path(run / RECORD / name) as tmp:
            OmegaConf.save(node, tmp)


def keep_record(run: Path) -> Path | None:
    """Move the run's current `.hydra` files into `.hydra/partN/` (N = 1, 2, ...) before the next part writes its
    own, so the record of every earlier part stays. Returns the folder they went to."""
    record = run / RECORD
    files = [p for p in record.glob("*.yaml")]
    if not files:
        return None
    n = 1 + max((int(p.name[4:]) for p in record.glob("part*") if p.name[4:].isdigit()), default=0)
    archive = record / f"part{n}"
    archive.mkdir()
    for p in files:
        shutil.move(str(p), archive / p.name)
    return archive


def check_checkpoint(cfg) -> None:
    """ModelError (one line) if `ckpt_path` or `init_weights` does not fit the configured model, or `model.teacher`
    is no model of its alphabet; ConfigError if the
    schedule contradicts the checkpoint (fewer `trainer.max_epochs` than it has already started); RunFinished if
    the checkpoint's run has nothing left to train."""
    for key in ("init_weights", "ckpt_path"):
        path = cfg.get(key)
        if not path:
            continue
        if Path(path).is_dir():
            raise ConfigError(f"{key}={path}: a folder, not a checkpoint file (resume=<run folder> continues a run)")
        if not Path(path).exists():
            raise ConfigError(f"{key}={path}: no such checkpoint file")
        from typofix.nn.checkpoint import read_checkpoint  # torch: only when there is a checkpoint to read

        checkpoint = read_checkpoint(path)
        theirs = {"alphabet": checkpoint.alphabet, **checkpoint.hparams}
        ours = {"alphabet": cfg.model.get("alphabet"), **cfg.model}
        differ = [k for k in ARCHITECTURE if k in theirs and k in ours and theirs[k] != ours[k]]
        if differ:
            hint = " (resume=<run folder> reuses the run's own config)" if key == "ckpt_path" else ""
            raise ModelError(f"{key} {path} does not fit model.* of this run: "
                             + ", ".join(f"{k}={theirs[k]} (this run: {ours[k]})" for k in differ) + hint)
        if key == "ckpt_path":
            check_schedule(path, cfg)
    check_teacher(cfg)


def check_teacher(cfg) -> None:
    """ModelError (one line) if `model.teacher` is not a model file of this run's alphabet: said before the data
    and the model are built (the schema has checked that the file exists)."""
    path = cfg.model.get("teacher")
    if not path:
        return
    from typofix.nn.checkpoint import read_checkpoint

    checkpoint = read_checkpoint(path)
    if checkpoint.alphabet != cfg.model.get("alphabet"):
        raise ModelError(f"model.teacher {path}: alphabet {checkpoint.alphabet!r} differs from this run's "
                         f"{cfg.model.get('alphabet')!r}")


def check_schedule(path, cfg) -> None:
    """ConfigError if `trainer.max_epochs` is below the epochs the checkpoint at `path` has begun; RunFinished if
    it has nothing left to train: every epoch of trainer.max_epochs trained and validated, trainer.max_steps
    reached, or early stopping's verdict given."""
    import torch

    blob = torch.load(path, map_location="cpu", weights_only=True)
    step, epoch = blob.get("global_step", 0), blob.get("epoch", 0)
    try:
        loop = blob["loops"]["fit_loop"]
        progress = loop["epoch_progress"]["current"]
        epochs = progress["processed"]  # epochs whose batches and validation are done
        # Saved after an epoch's end hooks (a stop there), before the next epoch began: `epoch` is the next one.
        ended = progress["completed"] == progress["processed"] == epoch and \
            loop["epoch_loop.batch_progress"]["is_last_batch"]
    except (KeyError, TypeError):  # not a Lightning training checkpoint: Lightning will say so
        return
    begun = epoch if ended else epoch + 1
    max_epochs, max_steps = cfg.trainer.get("max_epochs"), cfg.trainer.get("max_steps")
    if max_epochs not in (None, -1) and begun > max_epochs:
        raise ConfigError(f"trainer.max_epochs={max_epochs}: expected at least {begun}, as {path} has already "
                          f"run into epoch {begun} (step {step})")
    where = f"{_run_or_file(Path(path))} has finished"
    if max_steps not in (None, -1) and step >= max_steps:
        raise RunFinished(f"{where} (step {step} of trainer.max_steps={max_steps}): nothing to do "
                          f"(trainer.max_steps=<more> continues it)")
    if max_epochs not in (None, -1) and epochs >= max_epochs:
        raise RunFinished(f"{where} ({epochs} of trainer.max_epochs={max_epochs} epochs, step {step}): nothing to "
                          "do (trainer.max_epochs=<more> continues it)")
    for name, state in (blob.get("callbacks") or {}).items():
        if name.startswith("EarlyStopping") and isinstance(state, dict) and state.get("stopping_reason"):
            why = " ".join(str(state.get("stopping_reason_message") or "early stopping").split())
            raise RunFinished(f"{where}: stopped early in epoch {epoch + 1} ({why}): nothing to do")


def _run_or_file(path: Path) -> str:
    run = run_folder_of(path)
    return f"the run in {run}" if run is not None else f"the run of {path}"
