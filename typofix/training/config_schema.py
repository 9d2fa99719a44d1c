"""The training config's checks, derived from the code that takes the keys: a bad value or an unknown key is one
line naming the key, the value and what is expected (with "did you mean" for a near miss), said before any data
or model is built.

Each key is declared once, in the signature of the code that takes it: the annotation gives the type, and its
`typing.Annotated` metadata the range (`emb_size: Positive = 64`, `channel: Annotated[str, OneOf(CHANNELS)]`).
A node with a `_target_` is checked against that target's signature: its keys are the parameters, each value
against the parameter's annotation. So our own classes (TypoDataModule, TypoCorrector, the callbacks) say their
ranges where they take them, and Lightning's classes (Trainer, ModelCheckpoint, the loggers, ...) are checked by
their own annotations where those are simple (int, float, bool, str, Optional, Union, Literal, lists, dicts);
their deeper rules are Lightning's to check (`train.check_config` builds them once to let it). Keys of one target
that must agree with each other are declared beside its signature too (`Agree`, the class's `agreements`).

Plain Python: no torch, Hydra or OmegaConf at import (the training system imports the declarations, and a
checkpoint must load without Hydra).
"""

from __future__ import annotations

import collections.abc as abc
import contextvars
import difflib
import importlib
import inspect
import math
import os
import types
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePath
from typing import Annotated, Any, Callable, Literal, Union, get_args, get_origin


class ConfigError(ValueError):
    """A config key with a bad value, or an unknown key; the message is one line that names it."""


# --- what a signature declares ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Range:
    """The bounds of a number (`Annotated[int, Range(1)]`: an integer >= 1); open bounds exclude the bound."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def __str__(self) -> str:
        parts = [f"{'>' if self.low_open else '>='} {self.low}"] if self.low is not None else []
        parts += [f"{'<' if self.high_open else '<='} {self.high}"] if self.high is not None else []
        return " and ".join(parts)

    def holds(self, value) -> bool:
        low_ok = self.low is None or (value > self.low if self.low_open else value >= self.low)
        return low_ok and (self.high is None or (value < self.high if self.high_open else value <= self.high))


@dataclass(frozen=True, init=False)
class OneOf:
    """The values a string (or integer) may take, from the collection the code itself picks from."""

    choices: tuple

    def __init__(self, choices: abc.Iterable):
        object.__setattr__(self, "choices", tuple(choices))


@dataclass(frozen=True, init=False)
class Names:
    """The names a mapping's keys may be."""

    names: tuple[str, ...]

    def __init__(self, names: abc.Iterable[str]):
        object.__setattr__(self, "names", tuple(names))


@dataclass(frozen=True)
class Rule:
    """A condition on a whole value (a list, a mapping, a string) beyond its type; `expected` reads after the
    type in an error ("a list of numbers >= 0, summing to 1"), `detail` adds what the value did instead."""

    expected: str
    holds: Callable[[Any], bool]
    detail: Callable[[Any], str] | None = None


class NonEmpty:
    """A string or list that may not be empty (`NON_EMPTY`)."""


NON_EMPTY = NonEmpty()


@dataclass(frozen=True)
class Given:
    """A parameter the code passes itself, never the config (`why` says who sets it)."""

    why: str


@dataclass(frozen=True)
class Agree:
    """Keys of one target that must agree with each other: `holds` takes their values in the order of `keys`.
    Declared in the target's `agreements`, beside its signature."""

    keys: tuple[str, ...]
    holds: Callable[..., bool]
    expected: str


SUMS_TO_ONE = Rule("summing to 1", lambda v: math.isclose(math.fsum(v), 1.0, abs_tol=1e-6),
                   lambda v: f"these sum to {math.fsum(v):g}")
SOME_POSITIVE = Rule("at least one > 0", lambda v: any(x > 0 for x in v.values()))

Positive = Annotated[int, Range(1)]
Count = Annotated[int, Range(0)]
NonNegative = Annotated[float, Range(0)]
Fraction = Annotated[float, Range(0, 1, high_open=True)]  # a share that must leave something over
Share = Annotated[float, Range(0, 1)]
Seed = Annotated[int, Range(0, 2**32 - 1)]  # what numpy's and Lightning's seeding accept
Text = Annotated[str, NON_EMPTY]
OptionalPath = Annotated[str | None, NON_EMPTY]
# A file the run reads, or null for the bundled one: checked before anything starts, so a typo in a path is one line.
ExistingFile = Annotated[str | None, NON_EMPTY, Rule("an existing file", lambda v: os.path.isfile(v),
                                                     lambda v: "no such file")]
# A distribution over 1, 2, 3, ... edits (or any outcomes): non-negative, summing to 1.
Probabilities = Annotated[abc.Sequence[NonNegative], NON_EMPTY, SUMS_TO_ONE]


class Node:
    """A config node with a `_target_` (Hydra builds it): checked against that target's signature."""


@dataclass(frozen=True)
class Run:
    """The root of conf/train.yaml: its own keys (read by typofix.training.train and .resume) and the nodes
    that name what a run builds."""

    seed: Seed
    alphabet: Text
    resume: OptionalPath
    ckpt_path: OptionalPath
    init_weights: OptionalPath
    run_dir: Text
    threads: Annotated[int | None, Range(1)]
    test_after_fit: bool
    data: Node
    model: Node
    trainer: Node
    callbacks: dict[str, Node | None] | None
    logger: Node | None


# --- checks derived from annotations ------------------------------------------------------------------------

def show(value) -> str:
    """A value as the user would type it in an override."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(show, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {show(v)}" for k, v in value.items()) + "}"
    return str(value)


def nearest(name: str, known) -> str | None:
    """The closest of `known` to a misspelt `name`, if any is close."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(name: str, known) -> str:
    """' (did you mean X?)' for the closest of `known`, or ''."""
    close = nearest(name, known)
    return f" (did you mean {close}?)" if close else ""


def _expected(key: str, value, expected: str, detail: str = "") -> str:
    return f"{key}={show(value)}: expected {expected}" + (f" ({detail})" if detail else "")


def _about_part(problem: str, key: str) -> bool:
    """Whether an error is about a key inside `key` (a mapping's item, a node's argument): it says more than
    "expected <the whole type>" would."""
    return problem.startswith(f"{key}.")


class Check:
    """What one key accepts. `expected` reads after "expected" in an error, `many` in a list's ("integers");
    `problem` is the one-line error for `key=value`, or None."""

    expected: str
    many: str

    def problem(self, key: str, value) -> str | None:
        raise NotImplementedError


@dataclass(frozen=True)
class Leaf(Check):
    expected: str
    many: str
    test: Callable[[Any], bool]

    def problem(self, key, value):
        return None if self.test(value) else _expected(key, value, self.expected)


def _or(texts) -> str:
    texts = list(dict.fromkeys(texts))
    return (", or " if any(" or " in t for t in texts[:-1]) else " or ").join(texts)


@dataclass(frozen=True)
class Either(Check):
    options: tuple[Check, ...]

    @property
    def expected(self) -> str:
        return _or(o.expected for o in self.options)

    @property
    def many(self) -> str:
        return _or(o.many for o in self.options)

    def problem(self, key, value):
        problems = [o.problem(key, value) for o in self.options]
        if None in problems:
            return None
        # An option of the value's own type that a rule refuses ("no such file") says more than the list of types.
        ruled = [p for o, p in zip(self.options, problems) if isinstance(o, WithRules) and o.base.problem(key, value) is None]
        return next((p for p in problems if _about_part(p, key)), None) or (ruled[0] if ruled else None) or \
            _expected(key, value, self.expected)


@dataclass(frozen=True)
class ListOf(Check):
    item: Check
    non_empty: bool = False

    @property
    def expected(self) -> str:
        return f"a {'non-empty ' if self.non_empty else ''}list of {self.item.many}"

    @property
    def many(self) -> str:
        return f"{'non-empty ' if self.non_empty else ''}lists of {self.item.many}"

    def problem(self, key, value):
        ok = isinstance(value, (list, tuple)) and all(self.item.problem(key, v) is None for v in value) \
            and (bool(value) or not self.non_empty)
        return None if ok else _expected(key, value, self.expected)


@dataclass(frozen=True)
class MappingOf(Check):
    value: Check
    names: tuple[str, ...] | None = None

    @property
    def expected(self) -> str:
        return f"a mapping of names to {self.value.many}"

    @property
    def many(self) -> str:
        return f"mappings of names to {self.value.many}"

    def problem(self, key, value):
        if not isinstance(value, dict):
            return _expected(key, value, self.expected)
        for name, item in value.items():
            if self.names is not None and name not in self.names:
                return (f"{key}.{name}={show(item)}: unknown key{did_you_mean(name, self.names)}; "
                        f"known: {', '.join(self.names)}")
            if problem := self.value.problem(f"{key}.{name}", item):
                return problem
        return None


@dataclass(frozen=True)
class WithRules(Check):
    base: Check
    rules: tuple[Rule, ...]

    @property
    def expected(self) -> str:
        return ", ".join([self.base.expected, *(r.expected for r in self.rules)])

    @property
    def many(self) -> str:
        return ", ".join([self.base.many, *(r.expected for r in self.rules)])

    def problem(self, key, value):
        if problem := self.base.problem(key, value):
            return problem if _about_part(problem, key) else _expected(key, value, self.expected)
        for rule in self.rules if value is not None else ():  # a rule is about a value, not its absence
            if not rule.holds(value):
                return _expected(key, value, self.expected, rule.detail(value) if rule.detail else "")
        return None


@dataclass(frozen=True)
class NodeCheck(Check):
    expected: str = "a node with a _target_"
    many: str = "nodes with a _target_"

    def problem(self, key, value):
        return node_problem(key, value)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v  # v == v: not NaN


def _bounded(kind: str, kinds: str, test: Callable[[Any], bool], bounds: Range | None) -> Leaf:
    if bounds is None:
        return Leaf(kind, kinds, test)
    return Leaf(f"{kind} {bounds}", f"{kinds} {bounds}", lambda v: test(v) and bounds.holds(v))


def _one_of(choices: tuple) -> Leaf:
    shown = list(dict.fromkeys(map(show, choices)))  # 16 and "16" are typed alike
    text = "one of " + ", ".join(shown) if len(shown) > 1 else shown[0]
    # The value's type must match too: true is not 1, "16" is not 16.
    return Leaf(text, text, lambda v: any(type(v) is type(c) and v == c for c in choices))


ANYTHING = Leaf("anything", "anything", lambda v: True)
NULL = Leaf("null", "null", lambda v: v is None)
BOOL = Leaf("true or false", "true or false", lambda v: isinstance(v, bool))
STRING = Leaf("a string", "strings", lambda v: isinstance(v, str))
TEXT = Leaf("a non-empty string", "non-empty strings", lambda v: isinstance(v, str) and v != "")
LISTS = (list, tuple, set, frozenset, abc.Sequence, abc.MutableSequence, abc.Iterable, abc.Collection, abc.Set)
MAPPINGS = (dict, abc.Mapping, abc.MutableMapping)


def check_for(annotation, meta: tuple = ()) -> Check:
    """The check of a value for a parameter's annotation: its type, and its `Annotated` metadata (a `Range` for
    numbers, `OneOf` for a string, `Names` for a mapping, `NON_EMPTY` for a string or list, `Rule`s for the whole
    value). A class that a YAML value cannot be (an Accelerator, a timedelta) accepts a node with a `_target_`;
    anything not understood, anything."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        extra = annotation.__metadata__
        rules = tuple(m for m in extra if isinstance(m, Rule))
        check = check_for(args[0], meta + tuple(m for m in extra if not isinstance(m, Rule)))
        return WithRules(check, rules) if rules else check
    if annotation is None or annotation is type(None):
        return NULL
    if origin in (Union, types.UnionType):
        # Literal members read as one list of choices: "one of 64, 32, 16-mixed, ... or null"
        literals = tuple(c for a in args if get_origin(a) is Literal for c in get_args(a))
        options = [_one_of(literals)] if literals else []
        options += [check_for(a, meta) for a in args if get_origin(a) is not Literal]
        if any(o.expected.startswith("a number") for o in options):  # an integer is a number
            options = [o for o in options if not o.expected.startswith("an integer")]
        return Either(tuple(options)) if len(options) > 1 else options[0]
    if origin is Literal:
        return _one_of(args)
    choices = next((m.choices for m in meta if isinstance(m, OneOf)), None)
    if choices is not None:
        return _one_of(choices)
    bounds = next((m for m in meta if isinstance(m, Range)), None)
    non_empty = NON_EMPTY in meta
    if annotation is bool:
        return BOOL
    if annotation is int:
        return _bounded("an integer", "integers", _is_int, bounds)
    if annotation is float:
        return _bounded("a number", "numbers", _is_number, bounds)
    if annotation is str:
        return TEXT if non_empty else STRING
    if annotation in LISTS or origin in LISTS:
        item = args[0] if args and (len(args) == 1 or args[1:] == (Ellipsis,)) else Any
        return ListOf(check_for(item), non_empty)
    if annotation in MAPPINGS or origin in MAPPINGS:
        names = next((m.names for m in meta if isinstance(m, Names)), None)
        return MappingOf(check_for(args[1] if len(args) == 2 else Any), names)
    if isinstance(annotation, type) and issubclass(annotation, (os.PathLike, PurePath)):
        return STRING  # a path: Hydra passes the string
    if isinstance(annotation, type) and annotation is not object:
        return NodeCheck()
    return ANYTHING  # Any, a type variable, a string annotation that did not resolve, a callable


# --- a target's settings ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Setting:
    """One parameter of a target as the config sees it."""

    check: Check
    required: bool
    given: str | None  # why the config may not set it (`Given`), or None


@dataclass(frozen=True)
class Settings:
    """What a target takes: its keyword parameters, whether it takes any other key (**kwargs), what must agree."""

    params: dict[str, Setting]
    open: bool
    agreements: tuple[Agree, ...]
    defaults: dict[str, Any]


def resolve(target: str):
    """The class or function a `_target_` names (ImportError, AttributeError or ValueError if none)."""
    module, _, name = target.rpartition(".")
    if not module:
        raise ValueError(target)
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):  # a nested class: module.Class.Inner
        parent, _, inner = module.rpartition(".")
        if not parent:
            raise
        return getattr(getattr(importlib.import_module(parent), inner), name)


@lru_cache(maxsize=None)
def settings_of(obj) -> Settings:
    """The settings of a class or function, from its signature (string annotations evaluated)."""
    try:
        signature = inspect.signature(obj, eval_str=True)
    except (NameError, TypeError, SyntaxError):  # an annotation that does not resolve here: types unchecked
        signature = inspect.signature(obj)
    return settings_from(signature, tuple(getattr(obj, "agreements", ())))


@lru_cache(maxsize=None)
def declared_settings(target: str) -> Settings | None:
    """The settings of a `_target_` of ours read from its source, without importing it (typofix.training.declared);
    None where they cannot be read so."""
    from typofix.training.declared import declared_signature

    found = declared_signature(target)
    return settings_from(*found) if found is not None else None


def settings_from(signature: inspect.Signature, agreements: tuple) -> Settings:
    """The settings a signature declares (its annotations evaluated), with the agreements of its keys."""
    params, open_ = {}, False
    for name, p in signature.parameters.items():
        if p.kind == p.VAR_KEYWORD:
            open_ = True
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            continue
        annotation = Any if p.annotation is p.empty else p.annotation
        extra = annotation.__metadata__ if get_origin(annotation) is Annotated else ()
        given = next((m.why for m in extra if isinstance(m, Given)), None)
        params[name] = Setting(check_for(annotation), p.default is p.empty, given)
    defaults = {n: p.default for n, p in signature.parameters.items() if p.default is not p.empty}
    return Settings(params, open_, agreements, defaults)


def arguments(target: str) -> dict[str, str | None]:
    """The parameters of a `_target_`, each with why the config may not set it (None: it may); empty if the
    target names nothing importable. Our own targets are read from their source (an unknown key of ours is
    answered without importing torch or Lightning); others are imported."""
    settings = declared_settings(target)
    if settings is None:
        try:
            settings = settings_of(resolve(target))
        except (ImportError, AttributeError, ValueError):
            return {}
    return {n: s.given for n, s in settings.params.items()}


def _settings_problem(prefix: str, settings: Settings, values: dict, where: str) -> str | None:
    """The first bad, unknown or missing key of `values` (a node's keys, or a call's arguments), then the first
    agreement they break; keys are shown as `prefix + name`."""
    for name, value in values.items():
        if name.startswith("_") and name.endswith("_"):  # _target_, _partial_, ...
            continue
        setting = settings.params.get(name)
        if setting is None:
            if settings.open:
                continue
            return f"{prefix}{name}={show(value)}: unknown key{did_you_mean(name, settings.params)}"
        if setting.given is not None:
            return f"{prefix}{name}={show(value)}: not a config key ({setting.given})"
        if problem := setting.check.problem(f"{prefix}{name}", value):
            return problem
    for name, setting in settings.params.items():
        if setting.required and setting.given is None and name not in values:
            return f"{prefix}{name}: missing ({where} needs it)"
    every = {**settings.defaults, **values}
    for rule in settings.agreements:
        if not rule.holds(*(every[k] for k in rule.keys)):
            shown = ", ".join(f"{prefix}{k}={show(every[k])}" for k in rule.keys)
            return f"{shown}: expected {rule.expected}"
    return None


def node_problem(key: str, node) -> str | None:
    """The first problem of a config node with a `_target_`, checked against that target's signature."""
    if not isinstance(node, dict) or not isinstance(node.get("_target_"), str):
        return _expected(key, node, "a node with a _target_")
    target = node["_target_"]
    if _declared_only.get():  # the first pass: our own targets, read from their source (no torch, no Lightning)
        settings = declared_settings(target)
        return None if settings is None else _settings_problem(f"{key}.", settings, node, target)
    try:
        obj = resolve(target)
    except (ImportError, AttributeError, ValueError):
        return f"{key}._target_={target}: no such class or function"
    return _settings_problem(f"{key}.", settings_of(obj), node, target)


# Set while `validate(..., declared_only=True)` runs: nodes are checked only where their target's declaration can
# be read without importing it, and skipped otherwise (the full pass checks them).
_declared_only: contextvars.ContextVar[bool] = contextvars.ContextVar("declared_only", default=False)


def validate(cfg: dict, declared_only: bool = False) -> None:
    """Raise ConfigError for the first bad value, unknown or missing key, or disagreement of a resolved training
    config (a plain dict, the `hydra` node left out). `declared_only`: check the root keys and the nodes of our own
    targets only, from their source, so that nothing heavy is imported (a first pass, answered in a second)."""
    token = _declared_only.set(declared_only)
    try:
        if problem := _settings_problem("", settings_of(Run), cfg, "the config"):
            raise ConfigError(problem)
    finally:
        _declared_only.reset(token)


def check_arguments(target, arguments: dict) -> None:
    """Raise ConfigError if a call's `arguments` (a constructor's `locals()`) break what `target` declares:
    the code's own check of the rules the config is checked by."""
    settings = settings_of(target)
    taken = {k: v for k, v in arguments.items() if k in settings.params and settings.params[k].given is None}
    if problem := _settings_problem("", settings, taken, target.__name__):
        raise ConfigError(problem)
