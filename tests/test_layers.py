"""The folder tree is the import table: each subpackage of typofix is a layer, and a module imports only from
its own layer and the layers before it in `LAYERS` (lazy imports inside functions included). No import circle
between modules; bench/ and each module use no other module's `_private` names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "typofix"
# In import order: a layer may import the layers before it, never those after it.
LAYERS = ("files", "words", "nn", "engine", "insight", "training", "apps")
# The public surface (lazy), `python -m typofix`, and `typofix.spark`: the short public name of the Spark front
# door, typofix.apps.spark, and so part of apps.
TOP_LEVEL = {"typofix": None, "typofix.__main__": "apps", "typofix.spark": "apps"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imported(path: Path, name: str) -> list[tuple[str, list[str], int]]:
    """Every typofix module `path` imports, with the names taken from it and the line."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, [], node.lineno) for alias in node.names if alias.name.startswith("typofix")]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            if base.startswith("typofix"):
                names = [alias.name for alias in node.names]
                known = modules()
                # `from typofix.engine import evaluate` imports the module typofix.engine.evaluate
                subs = [f"{base}.{n}" for n in names if f"{base}.{n}" in known]
                found += [(sub, [], node.lineno) for sub in subs]
                rest = [n for n in names if f"{base}.{n}" not in known]
                if rest or not subs:
                    found.append((base, rest, node.lineno))
    return found


def layer_of(name: str) -> str | None:
    if name in TOP_LEVEL:
        return TOP_LEVEL[name]
    parts = name.split(".")
    if len(parts) >= 2 and parts[1] in LAYERS:
        return parts[1]
    if len(parts) >= 2 and parts[1] == "models":
        return "files"
    raise AssertionError(f"{name} is in no layer: put it in one of {LAYERS}")


def test_every_module_is_in_a_layer():
    loose = [name for name, path in modules().items()
             if name.count(".") == 1 and path.name != "__init__.py" and name not in TOP_LEVEL]
    assert loose == [], f"modules directly in typofix/ outside the surface: {loose}"
    assert len([p for p in PACKAGE.glob("*.py")]) <= 6
    assert {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()} >= set(LAYERS)


def test_imports_follow_the_layer_order():
    wrong = []
    for name, path in modules().items():
        mine = layer_of(name)
        for target, _, line in imported(path, name):
            theirs = layer_of(target)
            if mine is None or theirs is None:
                continue  # the package surface re-exports lazily from any layer
            if LAYERS.index(theirs) > LAYERS.index(mine):
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {mine} imports {target} ({theirs})")
    assert wrong == [], "imports against the layer order:\n" + "\n".join(wrong)


def test_no_import_circle():
    graph = {name: {t for t, _, _ in imported(path, name) if t in modules() and t != name}
             for name, path in modules().items() if name != "typofix"}
    graph = {k: {t for t in v if t != "typofix"} for k, v in graph.items()}
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                raise AssertionError("import circle: " + " -> ".join(trail[trail.index(nxt):] + [node, nxt])
                                     if nxt in trail else f"import circle through {node} -> {nxt}")
            if nxt not in state:
                visit(nxt, trail + [node])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])


def private_uses(path: Path, name: str | None) -> list[str]:
    """`_private` names of typofix modules that `path` takes: imported by name, or read as attributes of
    anything but `self`/`cls` (the module's own objects use their own privates freely)."""
    tree = ast.parse(path.read_text(), str(path))
    own = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))}
    own |= {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    # attributes this module sets itself (`self._x = ...`, `made._x = ...` in its own constructors)
    own |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
    outside = {alias.asname or alias.name for n in ast.walk(tree) if isinstance(n, ast.Import)
               for alias in n.names if not alias.name.startswith("typofix")}  # os._exit is os's business
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("typofix") and node.module != name:
            found += [f"{path.name}:{node.lineno}: imports {a.name}" for a in node.names if _private(a.name)]
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
                continue
            if isinstance(owner, ast.Name) and owner.id in outside:
                continue
            if node.attr in own:
                continue  # one of this module's own names, reached through an object of its own
            found.append(f"{path.name}:{node.lineno}: .{node.attr}")
    return found


def _private(attr: str) -> bool:
    return attr.startswith("_") and not attr.startswith("__")


@pytest.mark.parametrize("folder", ["bench", "typofix"])
def test_no_private_name_used_outside_its_module(folder):
    found = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        name = module_name(path) if folder == "typofix" else None
        found += private_uses(path, name)
    assert found == [], f"{folder}/ reaches into other modules' private names:\n" + "\n".join(found)
