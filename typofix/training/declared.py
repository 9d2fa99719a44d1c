"""The signature of one of our own config targets, read from its module's source without importing the module.

Importing typofix.training.system or .data imports torch and Lightning, seconds before a bad `model.*` or `data.*`
value could be reported. So `declared_signature(target)` parses the module, finds the class (or function) and its
`__init__` (in a base class of ours if it has none), and evaluates the annotations, defaults and `agreements`
written there -- the same expressions an import would run -- in a namespace that supplies each name the way the
module would get it: a light module (one that imports only the standard library, numpy, yaml and other light
modules of ours) is imported; a name from a heavy module is read from that module's source the same way, where a
function is defined from its source and a class stands for itself by name only (what `OneOf(ATTENTION_KINDS)`
needs). None where the target is not ours or a name cannot be had without a heavy import: the full check, after
the import, covers those. The declarations stay where they are, in the code that takes the keys.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import inspect
import sys
from functools import lru_cache
from pathlib import Path

LIGHT_ROOTS = frozenset(sys.stdlib_module_names) | {"numpy", "yaml"}


class Unavailable(Exception):
    """A name that only importing a heavy module (torch, Lightning) would give."""


class Stand:
    """A class of a heavy module, standing for itself by name only."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


@lru_cache(maxsize=None)
def _tree(module: str) -> tuple[ast.Module, str] | None:
    spec = importlib.util.find_spec(module)
    if spec is None or not (spec.origin or "").endswith(".py"):
        return None
    return ast.parse(Path(spec.origin).read_text(encoding="utf-8"), spec.origin), spec.origin


def _absolute(node: ast.ImportFrom, module: str) -> str:
    if not node.level:
        return node.module or ""
    package = module.rsplit(".", node.level)[0]
    return f"{package}.{node.module}" if node.module else package


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a name inside a module, not a submodule
        return False


_checking: set[str] = set()


@lru_cache(maxsize=None)
def is_light(module: str) -> bool:
    """Whether importing `module` imports only the standard library, numpy, yaml and light modules of ours."""
    root = module.partition(".")[0]
    if root in LIGHT_ROOTS:
        return True
    if root != "typofix" or module in _checking:
        return root == "typofix"
    parts = module.split(".")
    if any(not is_light(".".join(parts[:i])) for i in range(1, len(parts))):
        return False
    found = _tree(module)
    if found is None:
        return False
    _checking.add(module)
    try:
        for node in found[0].body:
            if isinstance(node, ast.Import) and not all(is_light(a.name) for a in node.names):
                return False
            if isinstance(node, ast.ImportFrom):
                source = _absolute(node, module)
                if not is_light(source):
                    return False
                if source.startswith("typofix.") and any(_is_module(f"{source}.{a.name}") and
                                                         not is_light(f"{source}.{a.name}") for a in node.names):
                    return False
        return True
    finally:
        _checking.discard(module)


class Namespace(dict):
    """A module's globals as its source defines them, each made when first asked for (see the module docstring)."""

    def __init__(self, module: str):
        super().__init__()
        self.module = module
        self.tree, self.filename = _tree(module) or (None, module)
        self.bindings: dict[str, ast.AST] = {}
        for node in self.tree.body if self.tree else ():
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                self.bindings[node.name] = node
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    self.bindings[(alias.asname or alias.name).partition(".")[0]] = node
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.bindings[target.id] = node
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                self.bindings[node.target.id] = node

    def evaluate(self, node: ast.expr):
        return eval(compile(ast.Expression(node), self.filename, "eval"), self)

    def __missing__(self, name: str):
        node = self.bindings.get(name)
        if node is None:
            if hasattr(builtins, name):
                return getattr(builtins, name)
            raise Unavailable(f"{self.module}.{name}")
        if isinstance(node, ast.ImportFrom):
            alias = next(a for a in node.names if (a.asname or a.name) == name)
            source = _absolute(node, self.module)
            if is_light(source):
                module = importlib.import_module(source)
                value = getattr(module, alias.name) if hasattr(module, alias.name) else \
                    importlib.import_module(f"{source}.{alias.name}")
            elif source.startswith("typofix."):
                value = namespace(source)[alias.name]
            else:
                raise Unavailable(f"{source}.{alias.name}")
        elif isinstance(node, ast.Import):
            alias = next(a for a in node.names if (a.asname or a.name).partition(".")[0] == name)
            if not is_light(alias.name):
                raise Unavailable(alias.name)
            value = importlib.import_module(alias.name if alias.asname else name)
        elif isinstance(node, ast.ClassDef):
            value = Stand(f"{self.module}.{name}")
        elif isinstance(node, ast.FunctionDef):
            exec(compile(ast.Module([node], []), self.filename, "exec"), self)
            return dict.__getitem__(self, name)
        else:
            value = self.evaluate(node.value)
        self[name] = value
        return value


@lru_cache(maxsize=None)
def namespace(module: str) -> Namespace:
    return Namespace(module)


def _function(node: ast.FunctionDef, ns: Namespace, method: bool) -> inspect.Signature:
    a = node.args
    positional = a.posonlyargs + a.args
    defaults = [inspect.Parameter.empty] * (len(positional) - len(a.defaults)) + list(a.defaults)
    value = lambda d: d if d is inspect.Parameter.empty or d is None else ns.evaluate(d)  # noqa: E731
    note = lambda arg: inspect.Parameter.empty if arg.annotation is None else ns.evaluate(arg.annotation)  # noqa: E731
    params = [inspect.Parameter(arg.arg, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=value(d), annotation=note(arg))
              for arg, d in zip(positional, defaults)]
    if a.vararg:
        params.append(inspect.Parameter(a.vararg.arg, inspect.Parameter.VAR_POSITIONAL))
    params += [inspect.Parameter(arg.arg, inspect.Parameter.KEYWORD_ONLY, default=value(d), annotation=note(arg))
               for arg, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.kwarg:
        params.append(inspect.Parameter(a.kwarg.arg, inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(params[1:] if method else params)


def _declaration(module: str, name: str) -> tuple[inspect.Signature, tuple] | None:
    ns = namespace(module)
    node = ns.bindings.get(name)
    if isinstance(node, ast.FunctionDef):
        return _function(node, ns, method=False), ()
    if not isinstance(node, ast.ClassDef):
        return None
    agreements = next((ns.evaluate(s.value) for s in node.body if isinstance(s, ast.Assign)
                       and any(isinstance(t, ast.Name) and t.id == "agreements" for t in s.targets)), None)
    init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is not None:
        return _function(init, ns, method=True), tuple(agreements or ())
    for base in node.bases:  # the first base of ours that declares it (Pronouncer: TypoCorrector's)
        if not isinstance(base, ast.Name):
            continue
        binding = ns.bindings.get(base.id)
        if isinstance(binding, ast.ClassDef):
            found = _declaration(module, base.id)
        elif isinstance(binding, ast.ImportFrom) and _absolute(binding, module).startswith("typofix."):
            alias = next(a for a in binding.names if (a.asname or a.name) == base.id)
            found = _declaration(_absolute(binding, module), alias.name)
        else:
            return None  # a class of Lightning's: its __init__ is not ours to read
        if found is not None:
            return found[0], tuple(agreements) if agreements is not None else found[1]
    return None


def declared_signature(target: str) -> tuple[inspect.Signature, tuple] | None:
    """(signature, agreements) of a `_target_` of ours, read without importing it; None where that cannot be."""
    module, _, name = target.rpartition(".")
    if not module.startswith("typofix."):
        return None
    try:
        return _declaration(module, name)
    except Exception:  # Unavailable, or anything the source does that this reading does not follow
        return None
