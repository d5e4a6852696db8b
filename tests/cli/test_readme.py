"""The README's ``aerodeck`` commands: every one parses, and those reading a rules file run (tiny budgets)."""

import re
import shlex
from pathlib import Path

import pytest

from aerodeck import envs
from aerodeck.cli import main as cli
from aerodeck.cli import run

ROOT = Path(__file__).resolve().parents[2]


def readme_commands(after_install: bool = False) -> list[list[str]]:
    """The ``aerodeck`` command lines of the README's bash blocks, as argv lists (without ``aerodeck``):
    those that need nothing more than the setup, or (``after_install``) those that follow a ``pip
    install`` of another package on their line (the example game's: tests/test_plugin_install.py runs them
    where that package is installed)."""
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    lines = [line.strip() for block in blocks for line in block.splitlines()]
    commands = []
    for line in lines:
        installed = False
        for part in line.split("&&"):
            words = shlex.split(part)
            installed |= words[1:3] == ["install", "-e"] and words[3:4] != [".[dev]"] and Path(words[0]).name == "pip"
            if words and Path(words[0]).name == "aerodeck" and installed == after_install:
                commands.append(words[1:])
    return commands


def tiny(argv: list[str], out: Path) -> list[str]:
    """``argv`` on a tiny budget, writing under ``out`` (``run --no-ladder`` writes no folder: no ``--out``)."""
    argv = [re.sub(r"games=\d+", "games=2", a) for a in argv]
    argv = ["4" if i and argv[i - 1] == "--games" else a for i, a in enumerate(argv)]
    where = [] if "--no-ladder" in argv else ["--out", str(out)]
    return [*argv, *([] if "--games" in argv else ["--games", "4"]), "--no-progress", *where]


def test_the_readme_has_aerodeck_commands_and_each_parses():
    commands = readme_commands()
    assert len(commands) >= 5
    parser = cli.build_parser()
    for argv in commands:
        parser.parse_args(argv)  # argparse exits on an unknown flag or a bad value


RULES_COMMANDS = [argv for argv in readme_commands() if "--rules" in argv]


def test_the_readme_runs_the_example_variants_file():
    assert RULES_COMMANDS, "the README should show a command with --rules"
    for argv in RULES_COMMANDS:
        assert (ROOT / argv[argv.index("--rules") + 1]).is_file(), argv


@pytest.mark.parametrize("argv", RULES_COMMANDS, ids=[" ".join(a[:1] + a[a.index("--rules"):][:4]) for a in RULES_COMMANDS])
def test_the_readme_commands_with_a_rules_file_run(argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert cli.main(tiny(argv, tmp_path / "out")) == 0, capsys.readouterr().err
    game = argv[1] if argv[0] == "bench" else run.main_game().id
    rules = envs.spec(game).rules_class().from_toml(ROOT / argv[argv.index("--rules") + 1], argv[argv.index("--table") + 1])
    assert rules.label().split()[0] in capsys.readouterr().out  # the variant's options are in force
