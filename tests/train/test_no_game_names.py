"""The tools reach the games only through the registry: no game's id or module name appears in the
code of ``train/`` or ``agents/*.py`` (docstrings may name games as examples)."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted([*(ROOT / "train").glob("*.py"), *(ROOT / "agents").glob("*.py")])
NAMES = ("airport-scramble", "flight-tycoon", "airport_scramble", "flight_tycoon")


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module and its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                found.add(id(first.value))
    return found


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_no_game_is_named_outside_the_registry_and_the_game_folders(path):
    tree = ast.parse(path.read_text())
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
    assert not hits, hits
