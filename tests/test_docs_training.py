"""The training guide (docs/training.md and its topic pages, docs/training-*.md) and the model cards
(docs/models/*.md) show commands that run.

Every ``aerodeck`` command of their bash blocks parses with the real command line; every file such a
command or a card names from the repository (a ``--config`` file, a kept model under ``research/models``,
an ``examples/`` or ``envs/`` file) exists; and every ``benchmarks/*.py`` command names a script that
exists with only the options that script defines. (Commands that name a run's own output, ``runs/...``,
are checked for parsing only: those files are what the guide's earlier commands make.)
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from aerodeck.cli import main as cli

ROOT = Path(__file__).resolve().parents[1]
#: the training guide: its main page and its topic pages (docs/training-*.md)
GUIDE = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("training*.md"))
CARDS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs" / "models").glob("*.md"))
PAGES = [*GUIDE, *CARDS]
#: the pages that must show aerodeck commands: the main guide, the pages on distilling the search and on
#: rule-general models, and every model card (the other topic pages explain settings and show none)
WITH_COMMANDS = ["docs/training.md", "docs/training-distill.md", "docs/training-general.md", *CARDS]
#: repository paths a command may name that must exist (a run's outputs, runs/ and out/, are made by the commands)
REPO_PATH = re.compile(r"^(?:examples|envs|research/models|agents/models|benchmarks|research)/\S+\.(?:toml|zip|json|py)$")


def command_lines(page: str) -> list[list[str]]:
    """The command lines of ``page``'s bash blocks, as argv lists, comments cut."""
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / page).read_text(encoding="utf-8"), re.S)
    return [shlex.split(line.split(" #")[0]) for block in blocks for line in block.splitlines()
            if line.split(" #")[0].strip()]


def aerodeck_cases():
    return [(page, argv[1:]) for page in PAGES for argv in command_lines(page) if Path(argv[0]).name == "aerodeck"]


def script_cases():
    return [(page, argv[1:]) for page in PAGES for argv in command_lines(page)
            if len(argv) > 1 and Path(argv[0]).name.startswith("python") and argv[1].startswith("benchmarks/")]


def test_the_pages_have_commands():
    pages = {page for page, _ in aerodeck_cases()}
    assert {"docs/training.md", "docs/training-distill.md", "docs/training-general.md"} <= set(GUIDE)
    missing = sorted(set(WITH_COMMANDS) - pages)
    assert not missing, f"pages without an aerodeck command: {missing}"
    assert len(aerodeck_cases()) >= 25


@pytest.mark.parametrize(("page", "argv"), aerodeck_cases(), ids=[f"{p}: {' '.join(a)[:70]}" for p, a in aerodeck_cases()])
def test_every_aerodeck_command_parses_and_names_files_that_exist(page, argv):
    try:
        cli.build_parser().parse_args(argv)
    except SystemExit as exit_:
        pytest.fail(f"{page}: `aerodeck {' '.join(argv)}` does not parse (exit {exit_.code})")
    named = [word.split("=", 1)[-1] for word in argv]
    named += [part.split("=", 1)[1] for word in argv for part in word.split(",") if part.startswith("path=")]
    missing = [p for p in named if REPO_PATH.match(p) and not (ROOT / p).exists()]
    assert not missing, f"{page}: `aerodeck {' '.join(argv)}` names files that do not exist: {missing}"


@pytest.mark.parametrize(("page", "argv"), script_cases(), ids=[f"{p}: {' '.join(a)[:70]}" for p, a in script_cases()])
def test_every_benchmark_command_names_its_script_and_its_options(page, argv):
    script = ROOT / argv[0]
    assert script.exists(), f"{page}: {argv[0]} does not exist"
    defined = set(re.findall(r"add_argument\(\s*\"(--[\w-]+)\"", script.read_text(encoding="utf-8")))
    used = {word for word in argv[1:] if word.startswith("--")}
    assert used <= defined, f"{page}: {argv[0]} has no option {sorted(used - defined)} (it has {sorted(defined)})"
    missing = [w for w in argv[1:] if REPO_PATH.match(w) and not (ROOT / w).exists()]
    assert not missing, f"{page}: `{' '.join(argv)}` names files that do not exist: {missing}"


@pytest.mark.parametrize("page", PAGES)
def test_the_repository_files_a_page_names_exist(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:examples|envs|research/models|agents/models)/[\w./-]+\.(?:toml|zip|json))`", text))
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert not missing, f"{page} names files that do not exist: {missing}"
