"""The user's guide shows what runs: every ``aerodeck`` command of its bash blocks parses, and the
Python examples of the README and of docs/getting-started.md run (a training example on a tiny budget).

(tests/cli/test_readme.py runs the README's commands that read a rules file; the commands that need
the example game installed run in tests/test_plugin_install.py.)
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from aerodeck import envs
from aerodeck.cli import main as cli

ROOT = Path(__file__).resolve().parents[1]
#: the pages whose commands are checked here (the guide pages; the research notes keep the commands
#: of their dated runs, some with files only those runs had)
PAGES = ["README.md", "docs/getting-started.md", "docs/agents.md", "docs/play.md", "docs/performance.md",
         "docs/designers.md",
         *sorted(str(path.relative_to(ROOT)) for path in (envs.spec(game).docs_path() for game in envs.games())
                 if path is not None and path.is_relative_to(ROOT / "docs"))]  # the built-in games' pages
#: pages whose Python blocks are whole programs, run here
PROGRAMS = ["README.md", "docs/getting-started.md"]


def commands(page: str) -> list[list[str]]:
    """The ``aerodeck`` command lines of ``page``'s bash blocks, as argv lists without ``aerodeck``;
    those on a line that first installs another package (the example game) are left out."""
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / page).read_text(encoding="utf-8"), re.S)
    found = []
    for line in (line.split(" #")[0].strip() for block in blocks for line in block.splitlines()):
        installs = False
        for part in re.split(r"&&|\|", line):
            words = shlex.split(part)
            installs |= len(words) > 3 and Path(words[0]).name == "pip" and words[1:3] == ["install", "-e"] \
                and words[3].partition("[")[0] != "."  # another package, not this checkout's extras
            if words and Path(words[0]).name == "aerodeck" and not installs:
                found.append(words[1:])
    return found


def programs(page: str) -> list[str]:
    """The Python blocks of ``page``, training budgets cut to one rollout."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / page).read_text(encoding="utf-8"), re.S)
    return [re.sub(r"\.learn\([\d_]+\)", ".learn(1)", block) for block in blocks]


CASES = [(page, argv) for page in PAGES for argv in commands(page)]


def test_the_guide_has_commands_to_check():
    assert len(CASES) >= 20 and {page for page, _ in CASES} >= {"README.md", "docs/getting-started.md", "docs/agents.md"}


@pytest.mark.parametrize(("page", "argv"), CASES, ids=[f"{p}: {' '.join(a)[:60]}" for p, a in CASES])
def test_every_command_of_the_guide_parses(page, argv):
    try:
        cli.build_parser().parse_args(argv)
    except SystemExit as exit_:  # argparse's way of refusing an unknown flag or a bad value
        pytest.fail(f"{page}: `aerodeck {' '.join(argv)}` does not parse (exit {exit_.code})")


@pytest.mark.parametrize(("page", "index"), [(p, i) for p in PROGRAMS for i in range(len(programs(p)))])
def test_the_python_examples_run(page, index, tmp_path, monkeypatch, capsys):
    pytest.importorskip("sb3_contrib")
    monkeypatch.chdir(tmp_path)
    exec(compile(programs(page)[index], f"{page} example {index + 1}", "exec"), {"__name__": "__example__"})
