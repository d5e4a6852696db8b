"""Nothing outside a game's own folder, its docs page and its GameSpec names the game: the tools
(``train/``, the CLI included), the game-independent agents (``agents/*.py``), the contract check
(``aerodeck/testing/``) and the shared tests reach every game through the registry. Docstrings may
name games as examples.

The names are read from the registry (each game's id, its id as a module name, its title), so a
game plugged in from another package is covered too. A game's own tests are exempt: a test folder or
file named after the game (``tests/airport_scramble/``, ``tests/agents/test_flight_tycoon_agents.py``).
One narrow exemption: ``aerodeck/__init__.py`` re-exports each PettingZoo game's versioned module by its
name (PettingZoo's convention, the public API; see ``VERSIONED_MODULES``).
"""

from pathlib import Path

import ast

import pytest

from aerodeck import envs

ROOT = Path(__file__).resolve().parents[1]
#: Every spelling of every registered game's name, lowercase.
NAMES = sorted({n for s in envs.specs() for n in (s.id, s.id.replace("-", "_"), s.title.lower())})
MODULE_NAMES = sorted({s.id.replace("-", "_") for s in envs.specs()})
#: PettingZoo's versioned-module convention (``from pettingzoo.classic import chess_v6``): a PettingZoo game's
#: env is imported by its versioned name (its env's ``metadata["name"]``), and ``aerodeck/__init__.py``
#: re-exports it as the public API (``from aerodeck import <game>_v0``). That file may name exactly those
#: names (the import and its ``__all__`` entry) and nothing else of a game.
VERSIONED_MODULES = frozenset(s.make_env().metadata["name"] for s in envs.specs() if s.gym_id is None)
ALLOWED = {"aerodeck/__init__.py": VERSIONED_MODULES}


def game_owned(path: Path) -> bool:
    """A test folder or file named after a game (its own tests)."""
    parts = path.relative_to(ROOT / "tests").with_suffix("").parts
    return any(game in part for part in parts for game in MODULE_NAMES)


def checked_files() -> list[Path]:
    tests = [p for p in (ROOT / "tests").rglob("*.py") if not game_owned(p)]
    return sorted({*(ROOT / "train").rglob("*.py"), *(ROOT / "agents").glob("*.py"), *(ROOT / "aerodeck").rglob("*.py"), *tests})


FILES = checked_files()


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module and its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                found.add(id(first.value))
    return found


def game_names(source: str, allowed: frozenset[str] = frozenset()) -> list[str]:
    """Where ``source`` names a game outside docstrings: ``line N: 'text'`` per string, import or name;
    a string, an imported name or a name that is exactly one of ``allowed`` is not counted."""
    tree = ast.parse(source)
    skip = docstrings(tree)
    hits = []
    for node in ast.walk(tree):
        text = None
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            text = node.value if node.value not in allowed else None
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            text = " ".join([getattr(node, "module", None) or "", *(a.name for a in node.names if a.name not in allowed)])
        elif isinstance(node, ast.Name):
            text = node.id if node.id not in allowed else None
        if text and any(name in text.lower() for name in NAMES):
            hits.append(f"line {node.lineno}: {text[:80]!r}")
    return hits


def test_the_check_sees_a_game_name_but_not_a_docstring():
    game = envs.specs()[0]
    assert game_names(f'"""About {game.title}."""\nGAME = "{game.id}"\n') == [f"line 2: {game.id!r}"]
    assert game_names(f"from envs.{game.id.replace('-', '_')} import core\n")
    assert game_owned(ROOT / "tests" / MODULE_NAMES[0] / "test_core.py")
    assert not game_owned(ROOT / "tests" / "test_contract.py")


def test_the_versioned_module_exemption_allows_exactly_those_names():
    versioned = f"{MODULE_NAMES[0]}_v0"
    assert not game_names(f"from aerodeck.envs import {versioned}\n__all__ = [{versioned!r}]\n", frozenset({versioned}))
    assert game_names(f"from aerodeck.envs import {versioned}\n", frozenset())
    assert game_names(f"from aerodeck.envs.{MODULE_NAMES[0]} import {versioned}\n", frozenset({versioned}))
    assert game_names(f"x = {versioned + '_env'!r}\n", frozenset({versioned}))


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_no_game_is_named_outside_the_registry_and_the_game_folders(path):
    where = str(path.relative_to(ROOT))
    hits = game_names(path.read_text(encoding="utf-8"), ALLOWED.get(where, frozenset()))
    assert not hits, f"{where} names games: reach them through envs.spec(...) / envs.games(); {hits}"
