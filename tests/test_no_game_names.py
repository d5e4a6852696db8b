"""Nothing outside a game's own folder, its docs page and its GameSpec names the game: the tools
(``train/``, the CLI included), the game-independent agents (``agents/*.py``), the contract check
(``aerodeck/testing/``) and the shared tests reach every game through the registry. Docstrings may
name games as examples.

The names are read from the registry (each game's id, its id as a module name, its title), so a
game plugged in from another package is covered too. A game's own tests are exempt: a test folder or
file named after the game (``tests/airport_scramble/``, ``tests/agents/test_flight_tycoon_agents.py``).
"""

from pathlib import Path

import ast

import pytest

from aerodeck import envs

ROOT = Path(__file__).resolve().parents[1]
#: Every spelling of every registered game's name, lowercase.
NAMES = sorted({n for s in envs.specs() for n in (s.id, s.id.replace("-", "_"), s.title.lower())})
MODULE_NAMES = sorted({s.id.replace("-", "_") for s in envs.specs()})


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


def game_names(source: str) -> list[str]:
    """Where ``source`` names a game outside docstrings: ``line N: 'text'`` per string, import or name."""
    tree = ast.parse(source)
    skip = docstrings(tree)
    hits = []
    for node in ast.walk(tree):
        text = None
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            text = node.value
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            text = " ".join([getattr(node, "module", None) or "", *(a.name for a in node.names)])
        elif isinstance(node, ast.Name):
            text = node.id
        if text and any(name in text.lower() for name in NAMES):
            hits.append(f"line {node.lineno}: {text[:80]!r}")
    return hits


def test_the_check_sees_a_game_name_but_not_a_docstring():
    game = envs.specs()[0]
    assert game_names(f'"""About {game.title}."""\nGAME = "{game.id}"\n') == [f"line 2: {game.id!r}"]
    assert game_names(f"from envs.{game.id.replace('-', '_')} import core\n")
    assert game_owned(ROOT / "tests" / MODULE_NAMES[0] / "test_core.py")
    assert not game_owned(ROOT / "tests" / "test_contract.py")


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_no_game_is_named_outside_the_registry_and_the_game_folders(path):
    where = str(path.relative_to(ROOT))
    hits = game_names(path.read_text(encoding="utf-8"))
    assert not hits, f"{where} names games: reach them through envs.spec(...) / envs.games(); {hits}"
