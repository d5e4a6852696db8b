"""docs/research/README.md indexes every research note, and the training guide links that index.

The research notes keep how each result was found (question, method, result, commands); the user's
guide links them once, from docs/training.md. A note that is not in the index cannot be found from the
guide, so every ``docs/research/*.md`` must be linked from the index, and the index must name only
notes that exist.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESEARCH = ROOT / "docs" / "research"
INDEX = RESEARCH / "README.md"
LINK = re.compile(r"\[[^\]]*\]\(([^)\s#]+)(?:#[^)\s]*)?\)")


def notes() -> list[Path]:
    return sorted(p for p in RESEARCH.glob("*.md") if p.name != INDEX.name)


def linked(page: Path) -> set[Path]:
    """The files ``page`` links to, resolved (URLs left out)."""
    targets = LINK.findall(page.read_text(encoding="utf-8"))
    return {(page.parent / t).resolve() for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t)}


def test_there_are_notes_and_an_index():
    assert INDEX.exists(), "docs/research/README.md, the index of the research notes, is missing"
    assert len(notes()) >= 10


@pytest.mark.parametrize("note", notes(), ids=lambda p: p.name)
def test_every_note_is_in_the_index(note):
    assert note.resolve() in linked(INDEX), (
        f"docs/research/{note.name} is not linked from docs/research/README.md: add a line for it")


def test_the_index_names_only_notes_that_exist():
    missing = [str(p.relative_to(ROOT)) for p in linked(INDEX) if p.parent == RESEARCH.resolve() and not p.exists()]
    assert not missing, f"docs/research/README.md links notes that do not exist: {missing}"


def test_the_training_guide_links_the_index():
    assert (RESEARCH / "README.md").resolve() in linked(ROOT / "docs" / "training.md"), \
        "docs/training.md does not link the research notes' index, docs/research/README.md"


@pytest.mark.parametrize("note", notes(), ids=lambda p: p.name)
def test_every_note_states_its_question_method_and_result(note):
    text = note.read_text(encoding="utf-8")
    absent = [part for part in ("Question", "Method", "Result")
              if not re.search(rf"\*\*{part}s?[.:]?\*\*|^#+ {part}", text, re.MULTILINE)]
    assert not absent, f"docs/research/{note.name} has no {', '.join(absent)} (a note says what it asked, how, and what it found)"
