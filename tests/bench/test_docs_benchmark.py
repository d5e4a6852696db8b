"""docs/benchmark.md shows what the commands print: its tasks table is ``aerodeck tasks --markdown``'s,
its ``aerodeck`` commands parse, its Python examples run, and its split table names the shipped split's
options."""

import re
import shlex
from pathlib import Path

import pytest

from aerodeck.bench import tasks as T
from aerodeck.bench.tasks_cli import markdown
from aerodeck.cli import main as cli

PAGE = Path(__file__).resolve().parents[2] / "docs" / "benchmark.md"
TEXT = PAGE.read_text(encoding="utf-8")


def test_the_tasks_table_is_what_aerodeck_tasks_prints():
    table = re.search(r"<!-- tasks table: aerodeck tasks --markdown -->\n(.*?)<!-- end of the tasks table -->", TEXT, re.S)
    assert table, "the page keeps its tasks table between the two markers"
    assert table.group(1) == markdown(T.tasks()), "run `aerodeck tasks --markdown` and paste its table"


def commands():
    blocks = re.findall(r"```bash\n(.*?)```", TEXT, re.S)
    return [shlex.split(line.split(" #")[0])[1:] for block in blocks for line in block.splitlines()
            if line.strip().startswith("aerodeck ")]


@pytest.mark.parametrize("argv", commands(), ids=lambda a: " ".join(a)[:50])
def test_every_command_of_the_page_parses(argv):
    args = cli.build_parser().parse_args(argv)
    assert args.command in ("tasks", "bench")
    if getattr(args, "task", None):
        T.task(args.task)


@pytest.mark.parametrize("index", range(len(re.findall(r"```python\n", TEXT))))
def test_the_python_examples_run(index, capsys):
    block = re.findall(r"```python\n(.*?)```", TEXT, re.S)[index]
    exec(compile(block, f"docs/benchmark.md python block {index}", "exec"), {})


def test_the_split_table_names_each_tasks_varied_options():
    for name in T.GENERAL:
        task = T.task(name)
        row = next(line for line in TEXT.splitlines() if line.startswith(f"| `{name}` |") and "/" in line
                   and "16 / 8" in line)
        assert row.split("|")[2].strip().startswith(", ".join(v.name for v in task.space.varied))
        assert f"{len(task.train_variants)} / {len(task.test_variants)}" in row


def test_the_baselines_section_is_there():
    assert "\n## Baselines\n" in TEXT
