"""The import graph: data flows one way (``aerodeck.envs`` ← ``aerodeck.agents`` ← ``aerodeck.train``), no
module imports itself back through others, and nothing imports the bare folder names (``envs``, ``agents``,
``train``) — the installed package is ``aerodeck`` alone.

Read from the source with ``ast`` (nothing is imported): an edge A → B for every ``import`` of a
project module B in module A, at the top of the file or inside a function. A string entry point
(``"module:Name"`` in a GameSpec) is not an import.
"""

from __future__ import annotations

import ast
import importlib.util
import json
from pathlib import Path

import pytest

from aerodeck import envs

ROOT = Path(__file__).resolve().parents[1]
#: The folders of the repository that are not importable project code.
NOT_CODE = {".venv", ".git", "build", "dist", "__pycache__", ".ipynb_checkpoints"}


def game_packages() -> dict[str, Path]:
    """The packages of the games plugged in from elsewhere (their cores' top-level packages), and the
    folder each lives in."""
    found = {}
    for spec in envs.specs():
        core = spec.core if isinstance(spec.core, str) else spec.core.__module__
        root = core.partition(":")[0].split(".")[0]
        if root != "aerodeck":
            found[root] = Path(importlib.util.find_spec(root).submodule_search_locations[0])
    return found


PLUGGED = game_packages()
#: The project's packages (dotted name), and the folder each lives in.
PACKAGES = {"aerodeck": ROOT / "aerodeck", "aerodeck.envs": ROOT / "envs", "aerodeck.agents": ROOT / "agents",
            "aerodeck.train": ROOT / "train", **{p: folder for p, folder in PLUGGED.items()}}


def layer(module: str) -> str:
    """The layer a module belongs to: ``envs``, ``agents``, ``train``, a plugged-in game's package, or
    ``top`` (``aerodeck`` itself and ``aerodeck.testing``, which may import every layer)."""
    parts = module.split(".")
    if parts[0] != "aerodeck":
        return parts[0]
    return parts[1] if len(parts) > 1 and parts[1] in ("envs", "agents", "train") else "top"


#: Who may not import whom: layer -> the layers above it (a plugged-in game sits beside ``agents``).
FORBIDDEN = {"envs": {"agents", "train", "top", *PLUGGED}, "agents": {"train", "top", *PLUGGED},
             **{p: {"train", "top"} for p in PLUGGED}}


def module_name(path: Path, package: str, folder: Path) -> str:
    parts = [*package.split("."), *path.relative_to(folder).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    """Every module of the project packages: dotted name -> file."""
    found = {}
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            if package == "aerodeck" or not path.is_relative_to(ROOT / "aerodeck"):
                found[module_name(path, package, folder)] = path
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
    assert "aerodeck.envs.registry" in GRAPH["aerodeck.envs"]
    assert {"aerodeck.envs.common.checks", "aerodeck.envs.common.bits"} & GRAPH["aerodeck.envs.common.batch"]
    assert "aerodeck.agents.base" in GRAPH["aerodeck.agents.random"]
    assert "aerodeck.envs" in GRAPH["aerodeck"]


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_a_package_never_imports_the_packages_above_it(package):
    bad = sorted(f"{a} imports {b}" for a, targets in GRAPH.items() if layer(a) == package
                 for b in targets if layer(b) in FORBIDDEN[package])
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


#: The bare folder names no code may import, and ``tests`` (which only the tests may import).
BARE = {"envs", "agents", "train"}


def bare_imports(source: str, forbidden: set[str]) -> list[str]:
    """The import statements of ``source`` whose top-level name is in ``forbidden``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        found += [f"line {node.lineno}: {name}" for name in names if name.split(".")[0] in forbidden]
    return found


def test_bare_imports_finds_them():
    assert bare_imports("import envs\nfrom agents.ppo import x\nfrom aerodeck import train\n", BARE) == [
        "line 1: envs", "line 2: agents.ppo"]


def project_sources() -> list[tuple[Path, str]]:
    """Every Python source of the repository, notebooks' code cells included, as (path, source)."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if not NOT_CODE & set(path.relative_to(ROOT).parts):
            found.append((path, path.read_text(encoding="utf-8")))
    for path in sorted(ROOT.rglob("*.ipynb")):
        if not NOT_CODE & set(path.relative_to(ROOT).parts):
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
            found.append((path, "\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!")))))
    return found


def test_nothing_imports_the_bare_folder_names():
    """The installed package is ``aerodeck`` alone: ``import envs`` would work in a checkout only (and load
    a second copy of every module beside ``aerodeck.envs``)."""
    bad = [f"{path.relative_to(ROOT)} {line}" for path, source in project_sources() for line in bare_imports(source, BARE)]
    assert not bad, bad


def test_only_the_tests_import_from_tests():
    bad = [f"{path.relative_to(ROOT)} {line}" for path, source in project_sources()
           if path.relative_to(ROOT).parts[0] != "tests" for line in bare_imports(source, {"tests"})]
    assert not bad, bad
