"""Every page of the user's guide is short enough to read: one topic a page.

Each docs/*.md and docs/models/*.md page is at most 32,000 bytes (a page that grows past it holds more
than one topic: split it into topic pages, or move the story of how a result was found to
docs/research/, which has no limit), and the designers' page, read first by a game designer, at most
15,000 bytes. The research notes (docs/research/) are logs and are not held to these sizes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGE_MAX_BYTES = 32_000
#: pages held to a smaller size than PAGE_MAX_BYTES
SMALLER = {"docs/designers.md": 15_000}


def guide_pages() -> list[Path]:
    """docs/*.md and docs/models/*.md: the user's guide and the model cards (not docs/research/)."""
    return sorted([*DOCS.glob("*.md"), *(DOCS / "models").glob("*.md")])


def ident(path: Path) -> str:
    return str(path.relative_to(ROOT))


def oversized(pages: list[Path]) -> list[str]:
    """``'PAGE is N bytes; at most M'`` for each page over its limit."""
    found = []
    for page in pages:
        limit = SMALLER.get(ident(page), PAGE_MAX_BYTES)
        size = len(page.read_bytes())
        if size > limit:
            found.append(f"{ident(page)} is {size:,} bytes; at most {limit:,}")
    return found


def test_the_guide_has_pages_and_the_smaller_limits_name_real_pages():
    names = {ident(p) for p in guide_pages()}
    assert {"docs/index.md", "docs/training.md"} <= names
    assert set(SMALLER) <= names, f"a size limit names a page that does not exist: {sorted(set(SMALLER) - names)}"


@pytest.mark.parametrize("page", guide_pages(), ids=ident)
def test_every_guide_page_fits_its_size(page):
    found = oversized([page])
    assert not found, (f"{found[0]}: split it into pages of one topic each, or move how a result was found "
                       f"to docs/research/")


def test_the_size_check_catches_an_oversized_page(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "docs").mkdir()
    long_page, designers, short = (tmp_path / "docs" / name for name in ("long.md", "designers.md", "short.md"))
    long_page.write_bytes(b"x" * (PAGE_MAX_BYTES + 1))
    designers.write_bytes(b"x" * 15_001)
    short.write_bytes(b"x" * 15_001)
    assert oversized([long_page, designers, short]) == [
        f"docs/long.md is {PAGE_MAX_BYTES + 1:,} bytes; at most {PAGE_MAX_BYTES:,}",
        "docs/designers.md is 15,001 bytes; at most 15,000"]
