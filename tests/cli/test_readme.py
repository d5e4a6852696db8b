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
            # another package's install: not this checkout (``.`` or ``.[extra]``)
            installed |= (words[1:3] == ["install", "-e"] and Path(words[0]).name == "pip"
                          and not words[3:4][0].partition("[")[0] == ".")
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


def setup_commands() -> dict[str, str]:
    """The README's two setup commands by what they end with: ``run`` (the main job) and ``pytest``."""
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    lines = [line.strip() for block in blocks for line in block.splitlines() if "python3 -m venv" in line]
    return {("pytest" if line.endswith("-m pytest") else line.rsplit(" ", 1)[-1]): line for line in lines}


def test_ci_runs_the_readmes_test_command():
    """.ci/run (what CI runs on a fresh clone) runs the README's test command as written there."""
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.startswith("#")]
    assert setup_commands()["pytest"] in ci


def extra_packages(extra: str, seen: frozenset = frozenset()) -> set[str]:
    """The distributions an extra of pyproject.toml names, its ``aerodeck[...]`` extras followed."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    out = set()
    for req in project["optional-dependencies"][extra]:
        name = re.match(r"[A-Za-z0-9_.-]+", req)[0].lower()
        if name == "aerodeck":
            for inner in re.search(r"\[(.*)\]", req)[1].split(","):
                if inner.strip() not in seen:
                    out |= extra_packages(inner.strip(), seen | {extra})
        else:
            out.add(name)
    return out


def test_the_main_job_installs_its_extra_and_no_cluster_or_jax_stack():
    """The main job's command installs the ``train`` extra — torch, SB3 for the shipped models — and none of
    Ray, JAX or Arrow, which only the cluster backends, RLlib and the Pgx peer use; the tests install ``dev``."""
    commands = setup_commands()
    assert set(commands) == {"run", "pytest"}
    assert "pip install -e '.[train]'" in commands["run"] and "pip install torch==2.13.0" in commands["run"]
    main_job = extra_packages("train")
    assert {"torch", "stable-baselines3", "sb3-contrib"} <= main_job
    assert not main_job & {"ray", "jax", "jaxlib", "pgx", "pyarrow", "pandas"}, main_job
    assert "pip install -e '.[dev]'" in commands["pytest"]
    assert "apt-get install -y --no-install-recommends chromium" in commands["pytest"]
    assert {"ray", "jax", "playwright", "pytest"} <= extra_packages("dev")
