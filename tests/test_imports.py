"""The import graph: each folder of the package stands on a floor and imports only the folders below it
(:data:`FLOORS`: ``envs`` at the bottom, the command line at the top), no folder imports itself back
through others, no module does, and nothing imports the bare folder names (``envs``, ``agents``,
``train``) — the installed package is ``aerodeck`` alone.

Read from the source with ``ast`` (nothing is imported): an edge A → B for every ``import`` of a
project module B in module A, at the top of the file or inside a function, and for every string in A
that names B (``"aerodeck.agents.ppo:PPOAgent"`` handed to ``load``, ``"aerodeck.train.cli"`` handed to
``importlib.import_module``): a module loaded by name is imported all the same. The one exception is a
``GameSpec(...)`` declaration's strings (the game's core, env, agents, …): they are data that the
registries load when a user asks for them (``aerodeck.agents.registry`` the agents), not imports of
the module that declares the game.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
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


#: The folders of the package, bottom first: a folder imports only folders on lower floors. The games
#: (``envs``) stand on nothing of the project; the agents on the games; ``stats`` (estimates and tests)
#: on nothing; the arena (the play loop, backends, output folders, the replay format, the run options
#: every tool shares) on the agents; the bench on the arena and stats; training on the bench (its
#: evaluations); judging rules (compare, sweep, tune) on training (a variant's trained agent); watching
#: (play, replay, a compare's changed games side by side) on the judges; the web front end, the contract
#: check and the command line on top; the package root (``aerodeck`` itself, ``python -m aerodeck``)
#: above all. A game plugged in from elsewhere sits beside the agents (it may import ``envs`` and ``agents``).
FLOORS = {"envs": 0, "agents": 1, **{p: 1.5 for p in PLUGGED}, "stats": 2, "arena": 3, "bench": 4, "train": 5,
          "judge": 6, "watch": 7, "serve": 8, "testing": 9, "cli": 10, "aerodeck": 11}


def folder(module: str) -> str:
    """The folder a module lives in: ``aerodeck.judge.compare`` → ``judge``, ``aerodeck.envs.common.core``
    → ``envs``, ``aerodeck`` and ``aerodeck.__main__`` → ``aerodeck`` (the package root), a plugged-in
    game's module → its package."""
    parts = module.split(".")
    if parts[0] != "aerodeck":
        return parts[0]
    return parts[1] if len(parts) > 1 and parts[1] != "__main__" else "aerodeck"


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


def declared(tree: ast.AST) -> set[int]:
    """The ids of the string nodes inside ``GameSpec(...)`` calls of ``tree`` (declarations, not imports)."""
    return {id(inner) for node in ast.walk(tree) if isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) == "GameSpec"
            for inner in ast.walk(node) if isinstance(inner, ast.Constant)}


def named(text: str) -> str | None:
    """The project module a string names, if it is one: ``"aerodeck.agents.ppo:PPOAgent"`` →
    ``aerodeck.agents.ppo``, ``"aerodeck.train.cli"`` → itself; ``None`` for any other string."""
    module = text.partition(":")[0]
    return module if "." in module and module in MODULES and module.replace(".", "").replace("_", "").isalnum() else None


def imported(name: str, path: Path, source: str | None = None) -> set[str]:
    """The project modules ``name`` (at ``path``, or of ``source`` when given) imports or names in a
    string, anywhere in the file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    tree = ast.parse(source if source is not None else path.read_text(encoding="utf-8"))
    data = declared(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in data:
            targets = [named(node.value) or ""]
        elif isinstance(node, ast.Import):
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


def test_a_module_loaded_by_name_is_an_edge():
    """``load("module:Class")`` and ``import_module("module")`` of a project module are imports all the
    same; a GameSpec's declared strings are not."""
    assert "aerodeck.agents.ppo" in GRAPH["aerodeck.agents.registry"]  # load("aerodeck.agents.ppo:PPOAgent")
    assert "aerodeck.judge.compare" in GRAPH["aerodeck.cli.main"]  # COMMANDS, via importlib.import_module
    planted = 'from x import load\nAgent = load("aerodeck.agents.registry:make_agent")\n'
    assert imported("aerodeck.agents.planted", ROOT / "agents" / "planted.py", planted) == {"aerodeck.agents.registry"}
    spec = 'SPEC = GameSpec(id="g", agents={"search": "aerodeck.agents.registry:X"})\n'
    assert imported("aerodeck.envs.planted", ROOT / "envs" / "planted.py", spec) == set()


def test_every_folder_has_a_floor():
    assert {folder(m) for m in MODULES} <= set(FLOORS), sorted({folder(m) for m in MODULES} - set(FLOORS))
    assert folder("aerodeck.judge.compare") == "judge" and folder("aerodeck.envs.common.core") == "envs"
    assert folder("aerodeck") == folder("aerodeck.__main__") == "aerodeck"
    assert folder("aerodeck.agents") == "agents" and folder("aerodeck.cli") == "cli"


def folder_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The import graph at the folder level: folder -> the other folders its modules import."""
    out: dict[str, set[str]] = {}
    for a, targets in graph.items():
        out.setdefault(folder(a), set()).update(folder(b) for b in targets if folder(b) != folder(a))
    return out


def upward(graph: dict[str, set[str]]) -> list[str]:
    """The imports of ``graph`` (module level) that go to a folder on the same or a higher floor."""
    return sorted(f"{a} ({folder(a)}, floor {FLOORS[folder(a)]}) imports {b} ({folder(b)}, floor {FLOORS[folder(b)]})"
                  for a, targets in graph.items() for b in targets
                  if folder(a) != folder(b) and FLOORS[folder(b)] >= FLOORS[folder(a)])


def test_a_folder_imports_only_the_folders_below_it():
    assert upward(GRAPH) == []


def test_no_folder_imports_itself_back():
    assert cycles(folder_graph(GRAPH)) == []


def test_the_checks_catch_a_planted_circle():
    """An import from the arena up to the command line (``arena.loop`` → ``cli.run`` → … → ``arena``)
    is refused by the floors and shows as a circle of folders."""
    planted = {**GRAPH, "aerodeck.arena.loop": GRAPH["aerodeck.arena.loop"] | {"aerodeck.cli.run"}}
    assert upward(planted) == ["aerodeck.arena.loop (arena, floor 3) imports aerodeck.cli.run (cli, floor 10)"]
    circles = cycles(folder_graph(planted))
    assert len(circles) == 1 and {"arena", "cli"} <= set(circles[0])


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


#: A dotted name of the project in a string: ``aerodeck.arena.loop.play_games``, or a folder's bare name
#: (``train.evaluate.loop``, as error messages wrote it before the package had one name).
DOTTED = re.compile(r"(?<![\w/.-])((?:aerodeck\.\w+|envs|agents|train)(?:\.\w+)+)")


def stale_names(source: str) -> list[str]:
    """The dotted project names in the strings of ``source`` (messages, docstrings) that name no module,
    or an attribute its module does not define."""
    bad = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        for name in DOTTED.findall(node.value):
            parts = (name if name.startswith("aerodeck.") else f"aerodeck.{name}").split(".")
            k = next((k for k in range(len(parts), 1, -1) if ".".join(parts[:k]) in MODULES), 0)
            module, rest = ".".join(parts[:k]), parts[k:]
            if not k or rest and not re.search(rf"\b{re.escape(rest[0])}\b", MODULES[module].read_text(encoding="utf-8")):
                bad.append(name)
    return bad


def test_stale_names_finds_an_old_path():
    source = 'raise ValueError("train.evaluate.loop.play_games passes one; see aerodeck.arena.loop.play_games")'
    assert stale_names(source) == ["train.evaluate.loop.play_games"]
    assert stale_names('"""aerodeck.agents.ppo.NO_SUCH_NAME"""') == ["aerodeck.agents.ppo.NO_SUCH_NAME"]


def test_messages_and_docstrings_name_modules_that_exist():
    """An error message or a docstring that sends a user to a module names one that exists (and a name it
    defines) — not a path from before a move."""
    bad = [f"{path.relative_to(ROOT)}: {name}" for path in MODULES.values() if path.is_relative_to(ROOT)
           for name in stale_names(path.read_text(encoding="utf-8"))]
    assert not bad, bad


def test_the_architecture_page_draws_this_graph():
    """docs/architecture.md's import graph: each folder on its floor here, with an arrow to every folder it
    imports and to no other."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawn = {name: (int(floor), rest)
             for floor, name, rest in re.findall(r"^floor +(\d+) +(\w+) +(.*)$", page, re.MULTILINE)}
    assert drawn, "docs/architecture.md draws no floors"
    graph = folder_graph(GRAPH)
    folders = {f for f in FLOORS if f in graph and f != "aerodeck" and f not in PLUGGED}
    assert set(drawn) == folders
    ordered = sorted(folders, key=FLOORS.get)
    for name in folders:
        floor, rest = drawn[name]
        assert floor == ordered.index(name), f"{name} is drawn on floor {floor}"
        arrows = set(re.findall(r"\w+", rest.partition("→")[2])) if "→" in rest else set()
        assert arrows == graph[name] - {"aerodeck"}, f"{name}: drawn → {sorted(arrows)}, imports {sorted(graph[name])}"
