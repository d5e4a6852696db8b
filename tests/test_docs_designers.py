"""docs/designers.md's worked example quotes what its command prints.

The guide reads one report line by line: the command in "Reading one report", the opening lines of its
first screen and a row of its ``report.md``. This long test runs that command (300 games a variant, the
default judges: a minute or two) and checks that the quoted summary is in its output (spaces and line
breaks aside: the terminal's width wraps it) and the quoted row is in the report.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from aerodeck.cli import main as cli

PAGE = Path(__file__).resolve().parents[1] / "docs" / "designers.md"


def worked_example() -> tuple[list[str], str, str]:
    """(the command's arguments after ``aerodeck``, the quoted first screen, the quoted report row)."""
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## Reading one report"):]
    section = section[:section.index("\n## ", 1)]
    command = re.search(r"```bash\n(aerodeck [^\n]*)\n```", section).group(1)
    screen, row = re.findall(r"```text\n(.*?)\n```", section, flags=re.S)
    summary = screen.split("\n…")[0]
    return shlex.split(command)[1:], summary, row.splitlines()[-1]


def flat(text: str) -> str:
    return " ".join(text.split())


def test_the_worked_example_is_read_from_the_page():
    argv, summary, row = worked_example()
    assert argv[0] == "compare" and "--out" in argv
    assert summary.startswith("cheap (replace_cost=1), measured by") and row.startswith("| score |")


@pytest.mark.long
def test_the_worked_example_quotes_what_its_command_prints(tmp_path, capsys):
    argv, summary, row = worked_example()
    out = tmp_path / "example"
    argv[argv.index("--out") + 1] = str(out)
    assert cli.main([*argv, "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert flat(summary) in flat(printed), f"the command no longer prints the quoted summary:\n{printed[:2000]}"
    assert row in (out / "report.md").read_text(encoding="utf-8").splitlines(), \
        "report.md no longer has the quoted row"
