"""The Hydra entry point: `typofix-train key=value ...` composes conf/train.yaml, checks it, builds and fits.

`check_config(cfg)`, `build(cfg)` and `train(cfg)` take a composed config and never touch Hydra's global state, so
tests call them directly with a config from `hydra.compose`. `main()` checks the command line before Hydra starts
a run (a config error leaves no run folder) and turns a resume into the run's own overrides (typofix.training.resume).
"""

from __future__ import annotations

import logging
import os
import re
import shlex
import shutil
import signal
import sys
import warnings
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import OverrideType
from hydra.errors import HydraException
from hydra.types import RunMode
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf, open_dict, read_write
from omegaconf.errors import OmegaConfBaseException

from typofix.training.config_schema import ConfigError, arguments, did_you_mean, nearest, resolve, show, validate
from typofix.files import exits
from typofix.files.modelfile import ModelError
from typofix.training.resume import (RECORD, RunFinished, check_checkpoint, check_run_folder, quoted, record_run,
                                     resume_arguments)

# torch and Lightning are imported where a run is built, not at import: a bad command line is answered at once.

CONFIG_MODULE = "typofix.conf"
CONFIG_PATH = f"pkg://{CONFIG_MODULE}"

log = logging.getLogger(__name__)


class TrainingStopped(RuntimeError):
    """Training was stopped by a signal (SIGTERM, or Ctrl-C); the message says where, and how to go on."""

    def __init__(self, message: str, signum: int):
        super().__init__(message)
        self.signum = signum

    @property
    def status(self) -> int:
        return exits.signal_status(self.signum)


_began = False  # whether this process has started fitting: what a stop outside the training loop says
# Whether `main` (typofix-train's command line) runs in this process. Not in a sweep's job that a launcher runs in a
# process of its own (submitit): there errors go back to the launching command (typofix.training.sweep).
_command_line = False


def _interrupted(signum: int) -> str:
    return f"stopped by {exits.signal_name(signum)} " + ("after training" if _began else "before training began")


def load_initial_weights(system, path) -> None:
    """Copy the model weights of a checkpoint or export into `system` (nothing else: not the optimiser, the
    schedule or the data position, which is what sets a second stage apart from a resume)."""
    from typofix.nn.checkpoint import read_checkpoint

    checkpoint = read_checkpoint(path)
    if checkpoint.alphabet != system.vocab.alphabet:
        raise ModelError(f"init_weights {path}: alphabet {checkpoint.alphabet!r} differs from this run's "
                         f"{system.vocab.alphabet!r}")
    try:
        system.model.load_state_dict(checkpoint.state_dict)  # fp16 exports are copied into float32 parameters
    except RuntimeError as err:
        first = (str(err).strip().splitlines() or ["mismatch"])[0][:160]
        raise ModelError(f"init_weights {path} does not fit model.* of this run ({first})") from None


def check_config(cfg: DictConfig) -> None:
    """ConfigError or ModelError, one line, before any data or model is built: every key against the signature
    that takes it (typofix.training.config_schema), then Lightning's own checks of the trainer, callbacks and
    logger, then `ckpt_path` / `init_weights` against the configured model and schedule."""
    values = {}
    for key in cfg:
        if key != "hydra":  # Hydra's own node (present when composed with return_hydra_config)
            try:
                node = cfg[key]
                values[key] = OmegaConf.to_container(node, resolve=True) if OmegaConf.is_config(node) else node
            except OmegaConfBaseException as err:  # an interpolation that does not resolve, say
                raise ConfigError(f"{key}: {exits.one_line(err)}") from None
    validate(values, declared_only=True)  # our own keys first, before torch or Lightning is imported
    validate(values)
    check_with_lightning(values)
    check_checkpoint(cfg)


def check_with_lightning(values: dict) -> None:
    """Lightning's own checks of its arguments (max_epochs -1 or more, a checkpoint's or early stop's mode, an
    accelerator this machine has, a callback the trainer's flags allow, ...): the callbacks, the logger and a
    trainer with them are built as `build` builds them, then dropped. The schema checks only the types Lightning
    annotates; the rules are Lightning's, so Lightning says them. A refusal is a ConfigError naming the node, and
    the key where its message names one of the node's keys."""

    def built(key: str, node, **extra):
        quiet = logging.root.manager.disable
        logging.disable(logging.INFO)  # "GPU available: ..." is said once, when the run's trainer is built
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return instantiate(node, **extra)
        except Exception as err:
            raise ConfigError(_refusal(key, node, err.__cause__ or err)) from None
        finally:
            logging.disable(quiet)

    callbacks = [built(f"callbacks.{name}", node) for name, node in (values.get("callbacks") or {}).items()
                 if node is not None]
    logger = built("logger", values["logger"]) if values.get("logger") else False
    built("trainer", values["trainer"], callbacks=callbacks, logger=logger)
    check_monitors(values, callbacks, val_set_names=built("data", values["data"], _convert_="all").val_set_names)


def check_monitors(values: dict, callbacks: list, val_set_names: list[str]) -> None:
    """ConfigError if a callback monitors a metric that this run never logs (a dev set removed from data.dev_sets,
    a misspelt name): Lightning would train an epoch and then fail. What is logged is declared by the system
    (`logged_metrics`) and by our callbacks (their `logged_metrics`); Lightning's LearningRateMonitor logs lr-*."""
    from lightning.pytorch.callbacks import LearningRateMonitor

    system = resolve(values["model"]["_target_"])
    logged = set(system.logged_metrics(val_set_names))
    logged |= {name for c in callbacks for name in getattr(c, "logged_metrics", ())}
    rates = any(isinstance(c, LearningRateMonitor) for c in callbacks)
    for name, node in (values.get("callbacks") or {}).items():
        monitor = (node or {}).get("monitor")
        if monitor is None or monitor in logged or (rates and str(monitor).startswith("lr-")):
            continue
        prefix = str(monitor).partition("/")[0]
        why = f"; no data.dev_sets.{prefix[4:]}" if prefix.startswith("val_") and prefix not in val_set_names else ""
        raise ConfigError(f"callbacks.{name}.monitor={show(monitor)}: not a metric this run logs{why}"
                          f"{did_you_mean(str(monitor), sorted(logged))}; it logs {', '.join(sorted(logged))}")


def _refusal(key: str, node: dict, err: BaseException) -> str:
    """`key.name=value: <Lightning's message>` for the one key of the node that the message names (as `name` or
    name=, else as a word, else by its value), else `key: <message>`."""
    message = exits.one_line(err)
    keys = [k for k in node if not (k.startswith("_") and k.endswith("_"))]
    word = lambda text: rf"(?<![\w.]){re.escape(text)}(?!\w)"  # noqa: E731
    ways = (lambda k: rf"`{re.escape(k)}`|{word(k)}=", lambda k: word(k),
            lambda k: word(node[k]) if isinstance(node[k], str) and node[k] else None)
    for way in ways:
        named = [k for k in keys if (pattern := way(k)) and re.search(pattern, message)]
        if len(named) == 1:
            return f"{key}.{named[0]}={show(node[named[0]])}: {message}"
    return f"{key}: {message}"


def build(cfg: DictConfig):
    """(datamodule, system, trainer) from a composed config; the datamodule is set up first so the system
    knows the names of its validation sets."""
    import lightning as L
    import torch

    from typofix.training.faults import AtomicCheckpointIO, FaultInjection, RngState, SigtermCheckpoint, StopSignals

    faults = FaultInjection.from_environment()  # signals on purpose, for tests: nothing unless TYPOFIX_FAULT is set
    if faults is not None:
        faults.point("build", 0)
    L.seed_everything(cfg.seed, workers=True, verbose=False)
    if cfg.threads:
        torch.set_num_threads(int(cfg.threads))
    datamodule = instantiate(cfg.data, _convert_="all")
    datamodule.setup("fit")
    system = instantiate(cfg.model, _convert_="all", val_set_names=datamodule.val_set_names)
    if cfg.get("init_weights"):
        load_initial_weights(system, cfg.init_weights)
    callbacks = [instantiate(c) for c in (cfg.get("callbacks") or {}).values() if c is not None]
    # Fault tolerance is not a tunable, so not config: exact resume, a stop and a checkpoint on SIGTERM or Ctrl-C,
    # atomic files.
    callbacks += [RngState(), SigtermCheckpoint(), StopSignals()] + ([faults] if faults is not None else [])
    logger = instantiate(cfg.logger) if cfg.get("logger") else False
    trainer = instantiate(cfg.trainer, callbacks=callbacks, logger=logger, plugins=[AtomicCheckpointIO(faults)])
    return datamodule, system, trainer


def fit(cfg: DictConfig, datamodule, system, trainer) -> dict[str, float]:
    """Fit (resuming from `ckpt_path` if set), optionally test, and return the final logged metrics. SIGTERM or
    Ctrl-C stops at the loop's next safe point with a checkpoint (faults.StopSignals) and raises TrainingStopped,
    whose message is the command that resumes."""
    from lightning.pytorch.utilities.exceptions import SIGTERMException

    from typofix.training.faults import StopSignals, last_checkpoint_path

    global _began
    if cfg.ckpt_path:  # a resume writes into the folder of its checkpoints on purpose
        warnings.filterwarnings("ignore", message=r"Checkpoint directory .* exists and is not empty")
    _began = True
    stop = next((c for c in trainer.callbacks if isinstance(c, StopSignals)), StopSignals())
    with stop.installed():
        try:
            trainer.fit(system, datamodule=datamodule, ckpt_path=cfg.ckpt_path)
            metrics = {k: float(v) for k, v in trainer.callback_metrics.items()}
            if stop.signum is not None:  # after the loop's last check: training is complete, the test is not run
                raise SIGTERMException
            if cfg.test_after_fit and not trainer.interrupted:
                for result in trainer.test(system, datamodule=datamodule, verbose=False):
                    metrics.update(result)
                if stop.signum is not None:  # during the test's last batch: it is complete too
                    raise TrainingStopped(f"stopped by {exits.signal_name(stop.signum)} after training and its test "
                                          f"had finished: the run is complete ({last_checkpoint_path(trainer)})",
                                          stop.signum)
        except SIGTERMException:  # a SystemExit with status 0: turn it into an error that says how to go on
            raise _stopped(trainer, stop.signum or signal.SIGTERM, saved=trainer.state.fn == "fit",
                           test_after_fit=bool(cfg.test_after_fit)) from None
        except SystemExit:  # Lightning's exit(1) after a KeyboardInterrupt: the second Ctrl-C
            if stop.forced:
                raise _stopped(trainer, signal.SIGINT, saved=False) from None
            raise
    if trainer.checkpoint_callback is not None and trainer.is_global_zero:
        log.info(f"best checkpoint: {trainer.checkpoint_callback.best_model_path or '-'}")
        log.info(f"last checkpoint: {last if (last := last_checkpoint_path(trainer)).is_file() else '-'}")
    return metrics


def _stopped(trainer, signum: int, saved: bool, test_after_fit: bool = False) -> TrainingStopped:
    """The stop as one line: where, and the command that continues (from the checkpoint just saved, or else from
    the last one there is)."""
    from typofix.training.faults import last_checkpoint_path

    how = f"stopped by {exits.signal_name(signum)}"
    if trainer.state.fn != "fit":
        return TrainingStopped(f"{how} while testing, after training had finished at step {trainer.global_step}: "
                               f"the run is complete but for its test ({last_checkpoint_path(trainer)})", signum)
    if saved and trainer.fit_loop.done:  # the stop came after the last epoch's end: nothing is left to resume
        return TrainingStopped(f"{how} at step {trainer.global_step}, after the last epoch: training is complete "
                               f"({last_checkpoint_path(trainer)})"
                               + ("; the test after it was not run" if test_after_fit else ""), signum)
    if saved:
        return TrainingStopped(f"{how} at step {trainer.global_step}; resume with: {resume_command(trainer)}", signum)
    last = last_checkpoint_path(trainer)
    if not last.is_file():
        return TrainingStopped(f"{how} twice at step {trainer.global_step}, before any checkpoint: nothing to "
                               "resume", signum)
    from typofix.nn.checkpoint import read_checkpoint

    step = read_checkpoint(last).trained.get("global_step", "?")
    return TrainingStopped(f"{how} twice at step {trainer.global_step}, saving nothing; resume from step {step} "
                           f"with: {resume_command(trainer)}", signum)


def train(cfg: DictConfig) -> dict[str, float]:
    """Check the config, build, fit: what `typofix-train` does, for a config composed elsewhere."""
    check_config(cfg)
    return fit(cfg, *build(cfg))


def resume_command(trainer) -> str:
    """The command that continues this run, exactly as it can be typed: `resume=<run folder>` where the run has a
    Hydra record (its overrides come back with it), else `ckpt_path=<last.ckpt>`."""
    from typofix.training.faults import last_checkpoint_path

    run = Path(trainer.default_root_dir)
    last = last_checkpoint_path(trainer)
    argument = f"resume={quoted(str(run))}" if (run / RECORD / "overrides.yaml").is_file() and \
        last.parent.parent == run else f"ckpt_path={quoted(str(last))}"
    return f"typofix-train {shlex.quote(argument)}"


# --- the command line -------------------------------------------------------------------------------------------

@hydra.main(version_base="1.3", config_path=CONFIG_PATH, config_name="train")
def _hydra_main(cfg: DictConfig) -> None:
    # Only a call: a launcher that runs jobs in processes of their own (submitit) pickles this function by value
    # (its module-level name is hydra.main's wrapper), with this module's globals as they were when it was sent.
    _task(cfg)


def _task(cfg: DictConfig) -> None:
    """One run: of the command line, or a job of a sweep."""
    if not _command_line:  # a sweep's job in a process of its own, where main() did not run: as main() does
        _quiet_third_party()
        if hasattr(signal, "SIGUSR2"):
            # submitit has SLURM send SIGUSR2 hydra.launcher.signal_delay_s before the time limit (and on
            # preemption) to requeue the job from its start, over its own run folder; a run resumes from its
            # checkpoint instead, so SIGUSR2 stops it as SIGTERM does.
            signal.signal(signal.SIGUSR2, lambda signum, frame: signal.raise_signal(signal.SIGTERM))
        with exits.stop_on(signal.SIGINT, signal.SIGTERM):  # submitit's own handler would ignore SIGTERM
            return _run(cfg)  # (a stop is reported there, as any error)
    _run(cfg)


def _run(cfg: DictConfig) -> None:
    _route_logs()
    hydra_cfg = HydraConfig.get()
    run_dir = Path(hydra_cfg.runtime.output_dir)
    if _folder_before is not None:  # the command line's run: as main() found the folder, before Hydra started
        fresh = not _folder_before.existed
    else:
        fresh = hydra_cfg.mode == RunMode.RUN and {p.name for p in run_dir.iterdir()} <= {RECORD, "train.log"}
    try:
        check_config(cfg)  # again: a sweep's jobs were not checked one by one before Hydra started
        parts = build(cfg)
        if _launching_process():
            record_run(run_dir, cfg, hydra_cfg)
    except BaseException as err:  # nothing trained: the folder is left as it was
        if fresh:  # a fresh run folder would only record the failure
            _discard(run_dir, own_dir="hydra.run.dir" not in " ".join(hydra_cfg.overrides.hydra))
        elif _folder_before is not None:
            _folder_before.restore_logs(run_dir)
        _report(err)
        raise
    try:
        fit(cfg, *parts)
    except BaseException as err:
        _report(err)
        raise


def _report(err: BaseException) -> None:
    """Exit with one line for the errors that explain themselves; return (the caller re-raises) otherwise."""
    from hydra.errors import InstantiationException
    from lightning.fabric.utilities.exceptions import MisconfigurationException

    from typofix.training.data import DataError
    from typofix.words.lexicon import LexiconError
    from typofix.files.misspellings import MisspellingsError
    from typofix.training.system import NonFiniteLossError

    if isinstance(err, TrainingStopped):
        _fail(err, err.status, label="")  # not an error: a stop with a way back
    if isinstance(err, (exits.Stopped, KeyboardInterrupt)):
        signum = err.signum if isinstance(err, exits.Stopped) else signal.SIGINT
        _fail(_interrupted(signum), exits.signal_status(signum), label="")
    if isinstance(err, RunFinished):
        _fail(err, exits.OK, label="")
    # Errors that already say what is wrong and where (a bad value in a target's arguments: which key).
    if isinstance(err, (ConfigError, DataError, LexiconError, MisspellingsError, ModelError, NonFiniteLossError,
                        FileNotFoundError, InstantiationException, MisconfigurationException)):
        # A bad key or value, or a data file the config names that is missing or malformed: bad input.
        bad_input = isinstance(err, (ConfigError, DataError, LexiconError, MisspellingsError))
        _fail(err, exits.USAGE if bad_input else exits.MODEL_ERROR)


@dataclass(frozen=True)
class FolderBefore:
    """The run folder as the command line found it, before Hydra started the run in it."""

    existed: bool  # there, with something in it
    logs: dict[str, int]  # the size of each of its *.log files

    @classmethod
    def of(cls, run_dir: Path) -> "FolderBefore":
        if not run_dir.is_dir():
            return cls(False, {})
        return cls(any(run_dir.iterdir()), {p.name: p.stat().st_size for p in run_dir.glob("*.log")})

    def restore_logs(self, run_dir: Path) -> None:
        """Cut the folder's log files back to their sizes before a start that failed (Hydra's logging appended
        its lines) and remove the ones it made: an existing run's files stay as they were."""
        for path in run_dir.glob("*.log"):
            if path.name not in self.logs:
                path.unlink(missing_ok=True)
            elif path.stat().st_size > self.logs[path.name]:
                with open(path, "r+b") as f:
                    f.truncate(self.logs[path.name])


_folder_before: FolderBefore | None = None  # None: not the command line's run (a sweep's job)


def _discard(run_dir: Path, own_dir: bool) -> None:
    """Remove a run folder that holds nothing but Hydra's record of a run that never started (and, when Hydra
    named it, the folders it made for it below the working directory, outputs/<date>/, once empty)."""
    shutil.rmtree(run_dir, ignore_errors=True)
    here = Path.cwd()
    for parent in run_dir.parents if own_dir else ():
        if parent == here or here not in parent.parents:
            break
        try:
            parent.rmdir()  # only if empty
        except OSError:
            break


def _launching_process() -> bool:
    """False in the other processes of a multi-process job (DDP ranks started by Lightning, torchrun or SLURM),
    which must not move the run's record while the first one writes it."""
    ranks = [os.environ[k] for k in ("RANK", "LOCAL_RANK", "SLURM_PROCID") if os.environ.get(k, "").isdigit()]
    return all(int(r) == 0 for r in ranks)


def _fail(err: BaseException, status: int, label: str = "error") -> None:
    """Exit with the one-line error of the exit policy (`typofix.files.exits`), said once under DDP."""
    rank = 0
    if "lightning" in sys.modules:  # set by the strategy once processes are launched
        from lightning.pytorch.utilities.rank_zero import rank_zero_only

        rank = rank_zero_only.rank
    if rank == 0:  # under DDP every process gets the error; say it once
        exits.fail("typofix-train", err, status, label)
    if not _command_line:  # a sweep's job in a process of its own: the launching command says it and exits
        from typofix.training.sweep import JobFailed

        raise JobFailed(exits.message("typofix-train", err, label)) from None
    sys.exit(status)


class _NoTips(logging.Filter):
    """Drops Lightning's advertising ("💡 Tip: ... try installing litlogger / litmodels")."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("💡 Tip")


def _route_logs() -> None:
    """Lightning's messages go through Hydra's handlers (the console and the run's train.log), not Lightning's own
    stderr handlers (which it adds when imported before logging is configured)."""
    import lightning.pytorch  # noqa: F401  (adds its handlers now, to be removed here)

    for name in ("lightning", "lightning.pytorch", "lightning.fabric"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
    for handler in logging.getLogger().handlers:
        handler.addFilter(_NoTips())


def _quiet_third_party() -> None:
    # torch deprecates the LeafSpec that Lightning 2.6 still builds on every fit: not ours to fix, not news to a user.
    warnings.filterwarnings("ignore", message=r"`isinstance\(treespec, LeafSpec\)` is deprecated",
                            category=FutureWarning)


def _groups() -> dict[str, list[str]]:
    """The config groups of conf/ and their options: {'experiment': ['ablation', 'default', ...], ...}."""
    root = resources.files(CONFIG_MODULE)
    return {d.name: sorted(f.name[:-5] for f in d.iterdir() if f.name.endswith(".yaml"))
            for d in root.iterdir() if d.is_dir() and not d.name.startswith("_")}


def _paths(node, prefix: str = ""):
    """Every dotted key of a config, nodes and leaves."""
    for key, value in node.items():
        path = f"{prefix}{key}"
        yield path
        if isinstance(value, dict):
            yield from _paths(value, path + ".")


def _unknown_key(line: str, key: str, base: dict, known: list[str]) -> ConfigError:
    """The error for `key=value` where the composed config has no `key`. Hydra takes `+key=value` for such a key,
    and the check then accepts it only as an argument of the `_target_` of the node it goes in (or as a new
    callback): so `+` is suggested for exactly those (trainer.min_epochs: an argument of Lightning's Trainer that
    conf/ leaves out), and otherwise the nearest key that exists."""
    parent, _, name = key.rpartition(".")
    node = base
    for part in parent.split(".") if parent else ():
        node = node.get(part) if isinstance(node, dict) else None
    value = line.partition("=")[2]
    if node is None and parent.count(".") == 1 and parent.startswith("callbacks."):  # a callback not in conf/
        if name == "_target_":
            return ConfigError(f"{line}: not in the config; +{line} adds a callback")
        return ConfigError(f"{line}: unknown key (a new callback starts with +{parent}._target_=<class>)")
    target = node.get("_target_") if isinstance(node, dict) else None
    params = arguments(target) if isinstance(target, str) else {}
    if name in params and name not in node:
        if params[name] is not None:
            return ConfigError(f"{line}: not a config key ({params[name]})")
        return ConfigError(f"{line}: not in the config; +{line} adds it (an argument of {target})")
    addable = [f"{parent}.{n}" for n, why in params.items() if why is None and n not in node]
    # A near miss among the node's own keys first, by name (their shared prefix would make any two look alike),
    # then among the keys as deep as this one, by path (a misspelt node).
    siblings = [k for k in known + addable if k.rpartition(".")[0] == parent]
    near = nearest(name, [k.rpartition(".")[2] for k in siblings])
    near = f"{parent}.{near}" if near and parent else near
    near = near or nearest(key, [k for k in known if k.count(".") == key.count(".") and k not in siblings])
    if near is not None:
        hint = f" (did you mean {'+' if near in addable else ''}{near}={value}?)"
    else:
        hint = f" ({target} has no argument {name})" if isinstance(target, str) else ""
    return ConfigError(f"{line}: unknown key{hint}")


def compose_checked(overrides: list[str], multirun: bool = False) -> DictConfig:
    """Compose the config as `typofix-train` would and check it (raises ConfigError / ModelError): an unknown group
    option or key gets "did you mean"; a sweep's values are left to its jobs."""
    from hydra import compose, initialize_config_module

    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except HydraException as err:
        raise ConfigError(exits.one_line(err)) from None
    if multirun:
        parsed = [o for o in parsed if not o.is_sweep_override()]
    groups = _groups()
    is_group = [o.key_or_group in groups or "/" in o.key_or_group for o in parsed]
    for override, group in zip(parsed, is_group):
        options = groups.get(override.key_or_group)
        value = override.value() if override.type != OverrideType.DEL else None
        if group and options is not None and isinstance(value, str) and value not in options:
            raise ConfigError(f"{override.input_line}: no such option{did_you_mean(value, options)}; "
                              f"{override.key_or_group} options: {', '.join(options)}")
    with initialize_config_module(config_module=CONFIG_MODULE, version_base="1.3"):
        try:
            base = OmegaConf.to_container(compose("train", [o.input_line for o, g in zip(parsed, is_group) if g]))
            known = list(_paths(base))
            for override, group in zip(parsed, is_group):
                key = override.key_or_group
                if not group and override.type == OverrideType.CHANGE and not key.startswith("hydra.") \
                        and key not in known:
                    raise _unknown_key(override.input_line, key, base, known)
            cfg = compose("train", [o.input_line for o in parsed], return_hydra_config=True)
        except HydraException as err:
            raise ConfigError(exits.one_line(err)) from None
        # What Hydra does before the job: the run folder is the output dir that ${run_dir} reads.
        with read_write(cfg.hydra.runtime), open_dict(cfg.hydra.runtime):
            cfg.hydra.runtime.output_dir = str(Path(cfg.hydra.run.dir).absolute())
        HydraConfig.instance().set_config(cfg)
        check_config(cfg)
    return cfg


def main() -> None:
    """Console script `typofix-train`. SIGINT and SIGTERM stop it at once with one line and the signal's status,
    until training takes over (`fit`: a stop at a safe point, with a checkpoint)."""
    global _command_line
    _command_line = True
    _quiet_third_party()
    with exits.stop_on(signal.SIGINT, signal.SIGTERM):
        try:
            _main()
        except exits.Stopped as stop:
            from typofix.training.sweep import stop_jobs

            jobs = stop_jobs()  # a sweep whose jobs run elsewhere: they never began training in this process
            _fail(f"stopped by {exits.signal_name(stop.signum)}; {jobs}" if jobs else _interrupted(stop.signum),
                  exits.signal_status(stop.signum), label="")


def _main() -> None:
    from hydra._internal.utils import get_args_parser  # Hydra's own command line, to find the overrides in it

    global _folder_before
    args = get_args_parser().parse_args()
    informational = args.help or args.hydra_help or args.cfg or args.info or args.shell_completion
    if not informational:
        try:
            overrides, _ = resume_arguments(args.overrides)
            cfg = compose_checked(overrides, multirun=args.multirun)
            if not args.multirun and _launching_process():
                run_dir = Path(cfg.hydra.runtime.output_dir)
                check_run_folder(run_dir, cfg.get("ckpt_path"))
                _folder_before = FolderBefore.of(run_dir)
        except ConfigError as err:
            _fail(err, exits.USAGE)
        except (ModelError, FileNotFoundError) as err:
            _fail(err, exits.MODEL_ERROR)
        except RunFinished as err:
            _fail(err, exits.OK, label="")
        sys.argv = [sys.argv[0], *(a for a in sys.argv[1:] if a not in args.overrides), *overrides]
    if args.multirun and not informational:
        _sweep()
    else:
        _hydra_main()


def _sweep() -> None:
    """Run a sweep (-m), its errors in one line: a job's, raised in its own process where a launcher runs it
    elsewhere (typofix.training.sweep.JobFailed), or the launcher's own (no SLURM on this machine, say)."""
    from typofix.training.sweep import JobFailed

    os.environ["HYDRA_FULL_ERROR"] = "1"  # Hydra raises them up to here rather than printing their tracebacks
    try:
        _hydra_main()
    except JobFailed as err:  # already the line; Hydra has said which job's overrides
        print(err, file=sys.stderr)
        sys.exit(exits.MODEL_ERROR)
    except Exception as err:
        if os.environ.get("TYPOFIX_DEBUG"):
            raise
        _fail(err, exits.MODEL_ERROR)


if __name__ == "__main__":
    # `python -m typofix.training.train` (torchrun) runs the importable module's main, not this __main__ copy's: a
    # sweep's launcher sends the task to its jobs by reference to typofix.training.train, whose state must be this run's.
    from typofix.training.train import main as command

    command()
