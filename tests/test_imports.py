"""The import graph: data flows one way (``envs`` ← ``agents`` ← ``train``), and no module imports
itself back through others.

Read from the source with ``ast`` (nothing is imported): an edge A → B for every ``import`` of a
project module B in module A, at the top of the file or inside a function. A string entry point
(``"module:Name"`` in a GameSpec) is not an import.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

import envs

ROOT = Path(__file__).resolve().parents[1]


def game_packages() -> dict[str, Path]:
    """The packages of the games plugged in from elsewhere (their cores' top-level packages), and the
    folder each lives in."""
    found = {}
    for spec in envs.specs():
        core = spec.core if isinstance(spec.core, str) else spec.core.__module__
        root = core.partition(":")[0].split(".")[0]
        if root != "envs":
            found[root] = Path(importlib.util.find_spec(root).submodule_search_locations[0]).parent
    return found


PLUGGED = game_packages()
#: The project's packages, and the folder each lives in.
PACKAGES = {"envs": ROOT, "agents": ROOT, "train": ROOT, **PLUGGED}
#: Who may not import whom: package -> the packages above it (a plugged-in game sits beside ``agents``).
FORBIDDEN = {"envs": {"agents", "train", *PLUGGED}, "agents": {"train", *PLUGGED}, **{p: {"train"} for p in PLUGGED}}


def module_name(path: Path, folder: Path) -> str:
    parts = list(path.relative_to(folder).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    """Every module of the project packages: dotted name -> file."""
    found = {}
    for package, folder in PACKAGES.items():
        for path in sorted((folder / package).rglob("*.py")):
            found[module_name(path, folder)] = path
    return found


MODULES = modules()


def imported(name: str, path: Path) -> set[str]:
    """The project modules ``name`` (at ``path``) imports, anywhere in the file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # a relative import
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:  # ``import a.b.c`` of a name inside a.b: the module a.b
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


GRAPH = {name: imported(name, path) for name, path in MODULES.items()}


def test_the_graph_reads_the_packages():
    """The reader sees the edges it must (a broken reader would pass every other test)."""
    assert "envs.registry" in GRAPH["envs"]
    assert "envs.common.checks" in GRAPH["envs.common.batch"] or "envs.common.bits" in GRAPH["envs.common.batch"]
    assert "agents.base" in GRAPH["agents.random"]


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_a_package_never_imports_the_packages_above_it(package):
    bad = sorted(f"{a} imports {b}" for a, targets in GRAPH.items() if a.split(".")[0] == package
                 for b in targets if b.split(".")[0] in FORBIDDEN[package])
    assert not bad, bad


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_cycles_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_back():
    """No circle of imports among the project's modules (a package's ``__init__`` counts as a module)."""
    assert cycles(GRAPH) == []
