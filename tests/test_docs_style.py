"""The user's documentation reads as a guide, not a lab notebook.

README.md and every page under docs/ outside docs/research/ (the research notes, where the story of
how a result was found belongs) must not mention a sitting of the work ("this session", "the ninth
session"), a date of the work (``2026-12-03``), an issue number ("issue 21", "#21"), or the machine the
work ran on (that is stated once, on docs/performance.md). The README fits in about three screens
(≤ 15,000 bytes, ≤ 250 lines) and indexes every user page in its first 60 lines; a model card
(docs/models/*.md) fits on one page (≤ 8,000 bytes). Every relative link of the README and the docs
names a file that exists.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
README_MAX_BYTES, README_MAX_LINES, INDEX_WITHIN = 15_000, 250, 60
MODEL_CARD_MAX_BYTES = 8_000
#: the one page that states the machine the single-machine figures were measured on
MACHINE_PAGE = DOCS / "performance.md"

ORDINALS = ("first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|"
            "fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|\\d+(?:st|nd|rd|th)")
SITTING = re.compile(
    rf"\b(?:this|that|these|the|same|next|previous|last|earlier|later|current|one|each|every|{ORDINALS})"
    rf"\s+(?:work\s+)?(?:session|sitting)s?\b|\b(?:session|sitting)\s+\d+\b", re.IGNORECASE)
DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? \d{1,2}, 20\d\d\b")
ISSUE = re.compile(r"\b(?:issue|ticket|PR|pull request)s?\s+#?\d+\b|(?<![\w&/#\]])#\d+\b", re.IGNORECASE)
MACHINE = re.compile(r"\bthis machine\b|\b(?:2|two)-core\b|\bborrowed GPU\b|\bGPU machine\b|\bdevelopment machine\b"
                     r"|\bthe shared machine\b|\bthe machine's (?:speed|load)\b", re.IGNORECASE)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def user_pages() -> list[Path]:
    """README.md and every docs page outside docs/research/."""
    pages = [README, *sorted(DOCS.rglob("*.md"))]
    return [p for p in pages if p.exists() and "research" not in p.relative_to(ROOT).parts[1:2]]


def all_pages() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def ident(path: Path) -> str:
    return str(path.relative_to(ROOT))


def hits(pattern: re.Pattern, text: str) -> list[str]:
    """``line N: '…match in context…'`` for each match of ``pattern`` in ``text``."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for match in pattern.finditer(line):
            found.append(f"line {number}: {line[max(0, match.start() - 30):match.end() + 30].strip()!r}")
    return found


def test_the_patterns_catch_what_they_should_and_spare_the_rest():
    assert hits(SITTING, "measured in the ninth session") and hits(SITTING, "This session's run")
    assert hits(SITTING, "as in session 4") and not hits(SITTING, "train longer in sessions with --resume")
    assert hits(DATE, "since 2026-12-03") and hits(DATE, "on Dec 3, 2026") and not hits(DATE, "--seed 20261211")
    assert hits(ISSUE, "see issue 21") and hits(ISSUE, "(#21)") and not hits(ISSUE, "[rules](#rule-options)")
    assert not hits(ISSUE, "[AS-19](some-game.md#as-19)")
    assert hits(MACHINE, "on the 2-core machine") and hits(MACHINE, "on this machine") and not hits(MACHINE, "a machine learning model")


@pytest.mark.parametrize("page", user_pages(), ids=ident)
def test_no_sitting_of_the_work_is_mentioned(page):
    found = hits(SITTING, page.read_text(encoding="utf-8"))
    assert not found, f"{ident(page)} talks of sittings of the work (move the story to docs/research/): {found[:8]}"


@pytest.mark.parametrize("page", user_pages(), ids=ident)
def test_no_date_of_the_work_is_given(page):
    found = hits(DATE, page.read_text(encoding="utf-8"))
    assert not found, f"{ident(page)} gives dates of the work (dated notes belong in docs/research/): {found[:8]}"


@pytest.mark.parametrize("page", user_pages(), ids=ident)
def test_no_issue_number_is_cited(page):
    found = hits(ISSUE, page.read_text(encoding="utf-8"))
    assert not found, f"{ident(page)} cites issue numbers (say what the change does instead): {found[:8]}"


@pytest.mark.parametrize("page", [p for p in user_pages() if p != MACHINE_PAGE], ids=ident)
def test_the_machine_is_stated_only_on_the_performance_page(page):
    found = hits(MACHINE, page.read_text(encoding="utf-8"))
    assert not found, (f"{ident(page)} remarks on the machine the work ran on (give ratios, or refer to "
                       f"docs/performance.md, which states it once): {found[:8]}")


def test_the_readme_fits_in_three_screens():
    text = README.read_text(encoding="utf-8")
    size, lines = len(text.encode("utf-8")), len(text.splitlines())
    assert size <= README_MAX_BYTES, f"README.md is {size:,} bytes; at most {README_MAX_BYTES:,} (move detail into docs/)"
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; at most {README_MAX_LINES}"


def test_the_readme_indexes_the_docs_in_its_first_lines():
    """A docs heading and a link to every top-level docs page (the user's guide) in the first 60 lines."""
    head = "\n".join(README.read_text(encoding="utf-8").splitlines()[:INDEX_WITHIN])
    assert re.search(r"^#+ .*\bdoc", head, re.IGNORECASE | re.MULTILINE), \
        f"README.md has no documentation heading in its first {INDEX_WITHIN} lines"
    linked = {target.split("#")[0] for target in LINK.findall(head)}
    missing = [f"docs/{p.name}" for p in sorted(DOCS.glob("*.md")) if f"docs/{p.name}" not in linked]
    assert not missing, f"README.md's first {INDEX_WITHIN} lines do not link {', '.join(missing)}"


@pytest.mark.parametrize("card", sorted((DOCS / "models").glob("*.md")), ids=ident)
def test_a_model_card_fits_on_one_page(card):
    size = len(card.read_bytes())
    assert size <= MODEL_CARD_MAX_BYTES, (f"{ident(card)} is {size:,} bytes; a model card is at most "
                                          f"{MODEL_CARD_MAX_BYTES:,} (its history belongs in docs/research/)")


@pytest.mark.parametrize("page", all_pages(), ids=ident)
def test_every_relative_link_names_a_file_that_exists(page):
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        path = target.split("#")[0]
        if not path or re.match(r"^[a-z][a-z0-9+.-]*:", path):  # an anchor on the page, or a URL
            continue
        if not (page.parent / path).exists():
            broken.append(target)
    assert not broken, f"{ident(page)} links to files that do not exist: {broken}"


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives ``page``'s headings: lowercase, punctuation dropped, spaces as hyphens
    (a repeated heading's later anchors get ``-1``, ``-2``, …)."""
    seen: dict[str, int] = {}
    found = set()
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    for heading in re.findall(r"^#+\s+(.*?)\s*#*\s*$", text, flags=re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


@pytest.mark.parametrize("page", all_pages(), ids=ident)
def test_every_link_to_a_heading_finds_it(page):
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        path, _, anchor = target.partition("#")
        if not anchor or re.match(r"^[a-z][a-z0-9+.-]*:", path):
            continue
        linked = (page.parent / path) if path else page
        if linked.suffix == ".md" and linked.is_file() and anchor not in anchors(linked):
            broken.append(target)
    assert not broken, f"{ident(page)} links to headings that do not exist: {broken}"
