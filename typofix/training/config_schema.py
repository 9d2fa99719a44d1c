"""The training config's schema: the type and range of every key, checked on the composed config before any
data or model is built, so a bad value or an unknown key is one line naming the key, the value and what is
expected (with "did you mean" for a near miss) instead of a traceback from deep inside Lightning.

Nodes with a `_target_` are checked by their target: a known target (the schema below) has every key typed; any
other target (a callback added with `+callbacks.x._target_=...`) has its keys checked against the target's
signature. Plain Python and OmegaConf only; no Hydra state.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import re
from dataclasses import dataclass
from typing import Any, Callable

from typofix.training.noise import CHANNELS, CONFUSION_GROUPS, KEYBOARD_KINDS


# typofix.nn.model.ATTENTION_KINDS' names (a test checks), spelled out here: checking a config must not import torch.
ATTENTION = ("additive", "dot", "general", "scaled_dot", "multihead", "none")


class ConfigError(ValueError):
    """A config key with a bad value, or an unknown key; the message is one line that names it."""


@dataclass(frozen=True)
class Spec:
    """What a key accepts: `expected` reads after "expected" in the error; `accepts` decides."""

    expected: str
    accepts: Callable[[Any], bool]

    def __or__(self, other: Spec) -> Spec:
        return Spec(f"{self.expected} or {other.expected}", lambda v: self.accepts(v) or other.accepts(v))


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _bounds(low, high, low_open: bool, high_open: bool) -> tuple[str, Callable[[Any], bool]]:
    parts, tests = [], []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {low}")
        tests.append((lambda v: v > low) if low_open else (lambda v: v >= low))
    if high is not None:
        parts.append(f"{'<' if high_open else '<='} {high}")
        tests.append((lambda v: v < high) if high_open else (lambda v: v <= high))
    return (" " + " and ".join(parts) if parts else ""), (lambda v: all(t(v) for t in tests))


def integer(low=None, high=None, note: str = "") -> Spec:
    text, within = _bounds(low, high, False, False)
    return Spec(f"an integer{text}{note}", lambda v: _is_int(v) and within(v))


def number(low=None, high=None, low_open: bool = False, high_open: bool = False) -> Spec:
    text, within = _bounds(low, high, low_open, high_open)
    return Spec(f"a number{text}", lambda v: _is_number(v) and within(v) and v == v)  # v == v: not NaN


def one_of(*choices) -> Spec:
    return Spec("one of " + ", ".join(map(str, choices)), lambda v: isinstance(v, (str, int)) and v in choices)


def text(pattern: str | None = None, described: str = "a non-empty string") -> Spec:
    return Spec(described, lambda v: isinstance(v, str) and bool(v) and (pattern is None or re.fullmatch(pattern, v)))


def list_of(item: Spec, min_len: int = 1) -> Spec:
    return Spec(f"a list of {min_len}+ items, each {item.expected}",
                lambda v: isinstance(v, list) and len(v) >= min_len and all(item.accepts(x) for x in v))


NULL = Spec("null", lambda v: v is None)
BOOL = Spec("true or false", lambda v: isinstance(v, bool))
STRING = text()
PATH = text(described="a path")
OPTIONAL_PATH = PATH | NULL
POSITIVE = integer(1)
FRACTION = number(0, 1, high_open=True)


@dataclass(frozen=True)
class Mapping:
    """A node whose keys are names (`keys` lists the allowed ones, or None for any name), each with `value`."""

    value: Spec
    keys: tuple[str, ...] | None = None


TOP = {
    "seed": integer(0, 2**32 - 1),
    "alphabet": STRING,
    "ckpt_path": OPTIONAL_PATH,
    "init_weights": OPTIONAL_PATH,
    "resume": OPTIONAL_PATH,
    "run_dir": PATH,
    "threads": POSITIVE | NULL,
    "test_after_fit": BOOL,
    "data": "node", "model": "node", "trainer": "node", "callbacks": "callbacks", "logger": "node",
}

CHECKPOINT = {
    "dirpath": OPTIONAL_PATH, "filename": STRING | NULL, "auto_insert_metric_name": BOOL, "monitor": STRING | NULL,
    "mode": one_of("min", "max"), "save_top_k": integer(-1, note=" (-1: all)"), "save_last": BOOL | NULL,
    "enable_version_counter": BOOL, "every_n_train_steps": integer(0) | NULL, "every_n_epochs": integer(0) | NULL,
    "save_weights_only": BOOL, "verbose": BOOL,
}
LOGGER = {"save_dir": PATH, "name": STRING | NULL | Spec("''", lambda v: v == ""),
          "version": STRING | integer(0) | NULL | Spec("''", lambda v: v == "")}

# Target -> key -> spec. Every key of conf/ is here (a test checks), each with its type and, where it matters,
# its range: the same rules the code enforces, said before anything is built.
TARGETS: dict[str, dict[str, Spec | Mapping]] = {
    "typofix.training.data.TypoDataModule": {
        "words_path": OPTIONAL_PATH, "alphabet": STRING, "seed": integer(0, 2**32 - 1),
        "min_count": integer(0), "min_word_len": POSITIVE, "max_word_len": POSITIVE,
        "val_fraction": FRACTION, "test_fraction": FRACTION, "smoothing": number(0),
        "epoch_size": POSITIVE, "val_size": POSITIVE, "batch_size": POSITIVE, "eval_batch_size": POSITIVE,
        "num_workers": integer(0),
        "channel": one_of(*CHANNELS), "fitted_share": number(0, 1),
        "typo_weights": Mapping(number(0), KEYBOARD_KINDS + CONFUSION_GROUPS),
        "edit_count_probs": list_of(number(0)),
        "identity_rate": FRACTION,
        "dev_sets": Mapping(PATH | NULL),
    },
    "typofix.training.system.TypoCorrector": {
        "alphabet": STRING, "emb_size": POSITIVE, "enc_hidden_size": POSITIVE, "enc_layers": POSITIVE,
        "dec_hidden_size": POSITIVE, "attn_size": POSITIVE, "attention": one_of(*ATTENTION), "heads": POSITIVE,
        "dropout": FRACTION, "lr": number(0, low_open=True), "weight_decay": number(0), "warmup_steps": integer(0),
        "min_lr_ratio": number(0, 1),
    },
    "lightning.pytorch.Trainer": {
        "accelerator": one_of("auto", "cpu", "gpu", "cuda", "mps", "tpu"),
        "strategy": STRING,
        "devices": integer(1) | Spec("-1", lambda v: v == -1) | STRING | list_of(integer(0)),
        "num_nodes": POSITIVE,
        "precision": one_of("32-true", "32", "16-mixed", "bf16-mixed", "16-true", "bf16-true", "64-true", "64",
                            "transformer-engine", 16, 32, 64),
        "max_epochs": integer(-1, note=" (-1: no limit)") | NULL,
        "max_steps": integer(-1, note=" (-1: no limit)"),
        "max_time": text(r"(\d+:)?\d+:\d+:\d+", "a duration DD:HH:MM:SS") | NULL,
        "gradient_clip_val": number(0) | NULL,
        "val_check_interval": number(0, 1, low_open=True) | POSITIVE,
        "check_val_every_n_epoch": POSITIVE | NULL,
        "limit_val_batches": number(0, 1) | integer(0),
        "log_every_n_steps": POSITIVE,
        "num_sanity_val_steps": integer(-1, note=" (-1: all)"),
        "use_distributed_sampler": BOOL,
        "default_root_dir": PATH,
        "enable_progress_bar": BOOL,
        "deterministic": BOOL | one_of("warn"),
    },
    "lightning.pytorch.callbacks.ModelCheckpoint": CHECKPOINT,
    "lightning.pytorch.callbacks.EarlyStopping": {
        "monitor": STRING, "mode": one_of("min", "max"), "patience": integer(0), "min_delta": number(0),
    },
    "lightning.pytorch.callbacks.LearningRateMonitor": {"logging_interval": one_of("step", "epoch") | NULL},
    "lightning.pytorch.callbacks.TQDMProgressBar": {"refresh_rate": integer(0)},
    "typofix.training.callbacks.AttentionSamples": {
        "words": list_of(STRING), "dirpath": OPTIONAL_PATH, "every_n_epochs": POSITIVE,
    },
    "typofix.training.callbacks.EmbeddingSnapshots": {
        "embedding": one_of("encoder", "decoder"), "dirpath": OPTIONAL_PATH, "gif_path": OPTIONAL_PATH,
    },
    "typofix.training.callbacks.WordsPerSecond": {},
    "lightning.pytorch.loggers.CSVLogger": LOGGER,
    "lightning.pytorch.loggers.TensorBoardLogger": LOGGER,
    "typofix.training.callbacks.AppendingCSVLogger": LOGGER,
}


def did_you_mean(name: str, known) -> str:
    """' (did you mean X?)' for the closest of `known`, or ''."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def show(value) -> str:
    """A value as the user would type it in an override."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def validate(cfg: dict) -> None:
    """Raise ConfigError for the first bad value or unknown key of a resolved training config (a plain dict, the
    `hydra` node left out)."""
    for key, value in cfg.items():
        spec = TOP.get(key)
        if spec is None:
            raise ConfigError(f"{key}={show(value)}: unknown key{did_you_mean(key, TOP)}")
        if spec == "callbacks":
            _check_callbacks(value)
        elif spec == "node":
            if value is not None or key != "logger":  # logger=null: no logger
                _check_target_node(key, value)
        else:
            _check(key, value, spec)
    _check_across(cfg)


def _check(key: str, value, spec: Spec | Mapping) -> None:
    if isinstance(spec, Mapping):
        if not isinstance(value, dict):
            raise ConfigError(f"{key}={show(value)}: expected a mapping of names to values")
        for name, item in value.items():
            if spec.keys is not None and name not in spec.keys:
                raise ConfigError(f"{key}.{name}={show(item)}: unknown key{did_you_mean(name, spec.keys)}; "
                                  f"known: {', '.join(spec.keys)}")
            _check(f"{key}.{name}", item, spec.value)
    elif not spec.accepts(value):
        raise ConfigError(f"{key}={show(value)}: expected {spec.expected}")


def _check_callbacks(callbacks) -> None:
    if callbacks is None:
        return
    if not isinstance(callbacks, dict):
        raise ConfigError(f"callbacks={show(callbacks)}: expected a mapping of names to callbacks")
    for name, node in callbacks.items():
        if node is not None:  # a callback set to null is switched off
            _check_target_node(f"callbacks.{name}", node)


def _check_target_node(key: str, node) -> None:
    if not isinstance(node, dict) or not isinstance(node.get("_target_"), str):
        raise ConfigError(f"{key}={show(node)}: expected a node with a _target_")
    target = node["_target_"]
    specs = TARGETS.get(target)
    params = None if specs is not None else _parameters(key, target)
    for name, value in node.items():
        if name.startswith("_") and name.endswith("_"):  # _target_, _partial_, ...
            continue
        spec = specs.get(name) if specs is not None else None
        if spec is not None:
            _check(f"{key}.{name}", value, spec)
        elif specs is not None or name not in params:
            known = specs if specs is not None else params
            raise ConfigError(f"{key}.{name}={show(value)}: unknown key{did_you_mean(name, known)}")


def _parameters(key: str, target: str) -> set[str]:
    """The keyword parameters of a target not in the schema (a callable's signature)."""
    module, _, attr = target.rpartition(".")
    try:
        obj = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError):
        raise ConfigError(f"{key}._target_={target}: no such class or function") from None
    params = inspect.signature(obj).parameters
    return {n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def _check_across(cfg: dict) -> None:
    """Rules that tie two keys together."""
    data, model = cfg.get("data") or {}, cfg.get("model") or {}
    if data.get("val_fraction", 0) + data.get("test_fraction", 0) >= 1:
        raise ConfigError(f"data.val_fraction={data['val_fraction']} + data.test_fraction={data['test_fraction']}: "
                          "expected a sum below 1")
    if data.get("min_word_len", 0) > data.get("max_word_len", float("inf")):
        raise ConfigError(f"data.min_word_len={data['min_word_len']}: expected at most data.max_word_len="
                          f"{data['max_word_len']}")
    if sum(data.get("edit_count_probs") or [1]) <= 0:
        raise ConfigError(f"data.edit_count_probs={data['edit_count_probs']}: expected a positive sum")
    if data.get("typo_weights") and not any(w > 0 for w in data["typo_weights"].values()):
        raise ConfigError("data.typo_weights: expected at least one weight > 0")
    if model.get("attention") in ("dot", "scaled_dot") and model["dec_hidden_size"] != 2 * model["enc_hidden_size"]:
        raise ConfigError(f"model.dec_hidden_size={model['dec_hidden_size']}: expected 2 x model.enc_hidden_size "
                          f"({2 * model['enc_hidden_size']}) for {model['attention']} attention")
    if model.get("attention") == "multihead" and model["dec_hidden_size"] % model["heads"]:
        raise ConfigError(f"model.heads={model['heads']}: expected a divisor of model.dec_hidden_size "
                          f"({model['dec_hidden_size']}) for multihead attention")
