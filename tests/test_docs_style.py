"""The user's documentation reads as a guide, not a lab notebook.

README.md and every page under docs/ outside docs/research/ (the research notes, where the story of
how a result was found belongs) must not mention a sitting of the work ("this session", "the ninth
session"), a date of the work (``2026-12-03``), an issue number ("issue 21", "#21"), or the machine the
work ran on (that is stated once, on docs/performance.md), nor keep a lab's residue: how loaded the
machine was ("load average", "run right after"), paths outside the repository (``../shared/…``), the
folders of past runs (``runs/as-finetune``: a ``runs/`` path must be one a command on the page writes
with ``--out``, or a placeholder such as ``runs/x``), "the notebook" where no notebook is linked,
"before the export", and date-like numbers (``2026120301``, ``20,261,208``). A date-like number is allowed
only as the true seed of a shipped or kept model's run: on a model card (docs/models/*.md) as the value
of a ``--seed`` / ``--draw-seed`` of a command on that card (and that number again elsewhere on the
card), or as a ``--seed`` on a line that names the kept model file (``research/models/….zip``) it made —
those seeds cannot change without retraining the model or re-measuring its figures; an example command
uses a plain seed. The README fits in about three screens
(≤ 15,000 bytes, ≤ 250 lines) and indexes every user page in its first 60 lines; a model card
(docs/models/*.md) fits on one page (≤ 8,000 bytes). Every relative link of the README and the docs
names a file that exists.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.games import MULTI, SOLO

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
#: how busy the machine was when a figure was taken (a research note's matter, not a guide's)
LOAD = re.compile(r"\bload average\b|\brun right after\b|\bother work sharing the CPUs\b|\bunder other load\b",
                  re.IGNORECASE)
#: a path outside the repository, which a user's checkout does not have
OUTSIDE = re.compile(r"\.\./shared\b")
#: a step of the lab's own process, not of the user's
EXPORT = re.compile(r"\b(?:before|after) the export\b", re.IGNORECASE)
#: "the notebook" (singular): allowed only on a page that names a notebook file (``….ipynb``)
NOTEBOOK = re.compile(r"\bthe notebook\b(?!s)", re.IGNORECASE)
#: a runs/ folder named on a page; ``--out runs/NAME`` on the page writes it
RUNS = re.compile(r"(?<![\w/.-])runs/([^\s/`'\")\],;:]+)")
WRITES = re.compile(r"--out[ =]runs/([^\s/`'\")\],;:]+)")
#: a number of 8 to 10 digits (plain or grouped by commas) that reads as a date: 20YY, a month 01–13, more
NUMBER = re.compile(r"(?<![\w.,-])\d{1,3}(?:,\d{3}){2,3}(?![\d,]*\d)|(?<![\w.-])\d{8,10}(?!\d)")
DATE_DIGITS = re.compile(r"20[2-3]\d(?:0[1-9]|1[0-3])\d{2,4}")
SEED = re.compile(r"--(?:draw-)?seed[ =](\d+)")


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


def date_like(text: str) -> list[tuple[int, str, str]]:
    """(line number, the digits, the line) of each date-like number of ``text``."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for match in NUMBER.finditer(line):
            digits = match.group(0).replace(",", "")
            if DATE_DIGITS.fullmatch(digits):
                found.append((number, digits, line))
    return found


def residue(page: Path, text: str | None = None) -> list[str]:
    """The lab residue of one user page (``text`` stands in for the page's text in the tests of the checks)."""
    text = page.read_text(encoding="utf-8") if text is None else text
    found = [f"{what}: {hit}" for what, pattern in (("machine load", LOAD), ("outside the repository", OUTSIDE),
                                                   ("the lab's export", EXPORT)) for hit in hits(pattern, text)]
    if not re.search(r"\.ipynb\b", text):
        found += [f"'the notebook' with no notebook linked: {hit}" for hit in hits(NOTEBOOK, text)]
    written = set(WRITES.findall(text))
    for number, line in enumerate(text.splitlines(), 1):
        for name in RUNS.findall(line):
            if not (len(name) == 1 or "<" in name or name.isupper() or name in written):
                found.append(f"line {number}: runs/{name} (a past run's folder; no command on the page writes it)")
    is_card = page.parent.name == "models" and page.parent.parent.name == "docs"
    card_seeds = set(SEED.findall(text)) if is_card else set()
    for number, digits, line in date_like(text):
        kept_model_seed = "research/models/" in line and digits in SEED.findall(line)
        if digits not in card_seeds and not kept_model_seed:
            found.append(f"line {number}: date-like number {digits} ({line.strip()[:80]!r}; use a plain seed)")
    return found


def test_the_patterns_catch_what_they_should_and_spare_the_rest():
    assert hits(SITTING, "measured in the ninth session") and hits(SITTING, "This session's run")
    assert hits(SITTING, "as in session 4") and not hits(SITTING, "train longer in sessions with --resume")
    assert hits(DATE, "since 2026-12-03") and hits(DATE, "on Dec 3, 2026") and not hits(DATE, "--seed 20261211")
    assert hits(ISSUE, "see issue 21") and hits(ISSUE, "(#21)") and not hits(ISSUE, "[rules](#rule-options)")
    assert not hits(ISSUE, "[AS-19](some-game.md#as-19)")
    assert hits(MACHINE, "on the 2-core machine") and hits(MACHINE, "on this machine") and not hits(MACHINE, "a machine learning model")


def test_the_residue_checks_catch_planted_examples():
    page, card = DOCS / "planted.md", DOCS / "models" / "planted.md"
    solo, multi = SOLO.id, MULTI.id  # the examples name registered games, as the docs do
    planted = {
        "with other work sharing the CPUs (load average 1.8 when it started)": "machine load",
        "the 1,000-game compare, run right after, printed 75.4 s": "machine load",
        "kept in `../shared/rules/` beside the repository": "outside the repository",
        "measured with the run's own file before the export": "the lab's export",
        "The notebook reasons that the last card is safe": "the notebook",
        "measured with `runs/as-finetune/best.zip`": "runs/as-finetune",
        f"aerodeck train {solo} --seed 2026120301": "2026120301",
        "| 20,000, seed 20,261,208 | 1.158 |": "20261208",
        f"runs/{solo}-20261201-161832": "20261201",
    }
    for text, caught in planted.items():
        found = residue(page, text)
        assert any(caught in f for f in found), f"{text!r} is not caught: {found}"
    spared = [
        "Its speed varies with its load, so the tables give ratios.",
        "The quick-start notebooks in `notebooks/`; the notebook `notebooks/training.ipynb` trains.",
        "the notebooks in notebooks/",
        f"aerodeck train {multi} --players 4 --out runs/ft4\naerodeck bench --agent ppo:path=runs/ft4/best.zip",
        "`--agent ppo:path=runs/x/best.zip`, the default folder runs/<game>-<date>-<time>/",
        f"aerodeck bench {solo} --games 20000 --seed 12345; 2,000,000 steps; 20,480,000 steps",
        f"| `research/models/{multi}-4p-mlp.zip` | `aerodeck train {multi} --seed 20261204` |",
    ]
    for text in spared:
        assert not residue(page, text), f"{text!r} is caught: {residue(page, text)}"
    # a card may state its runs' true seeds (those of its commands), and nothing else date-like
    assert not residue(card, "aerodeck bench --seed 20261208\n| 20,000, seed 20,261,208 | 1.158 |")
    assert residue(card, "| 20,000, seed 20,261,209 | 1.158 |")
    assert residue(page, "aerodeck bench --seed 20261208"), "outside a card, a dated seed is an example's"


@pytest.mark.parametrize("page", user_pages(), ids=ident)
def test_no_lab_residue_is_left(page):
    found = residue(page)
    assert not found, f"{ident(page)} keeps the lab's residue (move the story to docs/research/): {found[:8]}"


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
