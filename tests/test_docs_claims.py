"""Claims of the user's guide that the code can check: which agents there are, the knobs' defaults, and
where replays are written.

- docs/index.md's line for the agents page and docs/agents.md name every agent kind a game accepts
  (``aerodeck.agents.registry.agent_kinds``).
- Every ``knob=value`` default in docs/agents.md's knob cells is the agent class's default (``__init__``'s
  signature): ``on``/``off`` for booleans, nothing after ``=`` for ``None``.
- docs/getting-started.md's table of extras has a row for every extra of pyproject.toml, and the
  ``dev`` extra, which it says brings every other, does.
- docs/play.md says where ``bench --save-games`` and ``compare --save-games`` write their replays, and
  those are the files the commands write.
"""

from __future__ import annotations

import inspect
import re
import tomllib
from pathlib import Path

import pytest

from aerodeck import envs
from aerodeck.agents import registry
from aerodeck.bench import bench
from aerodeck.cli import main as cli
from tests.games import MULTI, SOLO

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: the built-in games (their pages in docs/; a plugged-in game documents its own agents)
BUILT_IN = [g for g in envs.games() if envs.spec(g).docs_path() is not None
            and envs.spec(g).docs_path().resolve().is_relative_to(DOCS)]
GAMES = {envs.spec(g).title: g for g in BUILT_IN}
#: a regex alternative of the built-in games' titles (the first column of docs/agents.md's tables)
TITLES = "|".join(re.escape(title) for title in GAMES)
#: a knob cell's defaults: ``name=value`` (value up to the next space or backquote; empty for None)
DEFAULT = re.compile(r"(?<![\w:=])([a-z_]+)=([^\s`;,)]*)")


def agents_row_of_index() -> str:
    return next(line for line in (DOCS / "index.md").read_text(encoding="utf-8").splitlines()
                if line.startswith("| [Agents](agents.md)"))


@pytest.mark.parametrize("game", BUILT_IN)
def test_the_index_and_the_agents_page_name_every_agent_kind(game):
    index, page = agents_row_of_index(), (DOCS / "agents.md").read_text(encoding="utf-8")
    kinds = registry.agent_kinds(game)
    listed = {k.strip() for k in re.search(r"an agent \(([^)]*)\)", index).group(1).split(",")}
    assert not set(kinds) - listed, f"docs/index.md's agents line omits {sorted(set(kinds) - listed)} ({game})"
    unnamed = [k for k in kinds if f"`{k}`" not in page]
    assert not unnamed, f"docs/agents.md never names the agent kind(s) {unnamed} ({game})"


def knob_cells() -> list[tuple[str, str, str]]:
    """(game id, agent kind, the defaults written for it) from docs/agents.md's tables: the ladder's rows
    (``| game | `kind` | how | knobs |``, ``both`` for each game, split by game where the cell names
    them) and the expert's table (``| game | how | knobs |`` under the expert's heading)."""
    cells = []
    text = (DOCS / "agents.md").read_text(encoding="utf-8")
    for line in text.splitlines():
        ladder = re.match(rf"^\| ({TITLES}|both) \| `([\w:-]+)` \|.*\| (.*) \|$", line)
        if ladder:
            where, kind, knobs = ladder.groups()
            for title, game in GAMES.items():
                if where in (title, "both"):
                    part = re.search(rf"{title} `([^`]*)`", knobs)
                    cells.append((game, kind, part.group(1) if part else knobs))
    expert = text[text.index("**`expert`** (both games)"):]
    for line in expert.splitlines():
        row = re.match(rf"^\| ({TITLES}) \| .* \| `([^`]*)`.*\|$", line)
        if row:
            cells.append((GAMES[row.group(1)], "expert", row.group(2)))
        elif cells and line.startswith("## "):
            break
    return cells


def spelled(value) -> str:
    """A default as the docs write it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def same(written: str, default) -> bool:
    if isinstance(default, (int, float)) and not isinstance(default, bool):
        try:
            return float(written) == float(default)
        except ValueError:
            return False
    return written == spelled(default)


@pytest.mark.parametrize("game, kind, knobs", [(g, k, c) for g, k, c in knob_cells()
                                               if k.split(":")[0] in registry.agent_names(g)], ids=lambda v: v if isinstance(v, str) and len(v) < 20 else "")
def test_the_agents_page_gives_each_knobs_default(game, kind, knobs):
    name = kind.split(":")[0]
    parameters = inspect.signature(registry.agent_class(game, name).__init__).parameters
    wrong = [f"{knob}={value} (the class: {spelled(parameters[knob].default)!r})"
             for knob, value in DEFAULT.findall(knobs)
             if knob in parameters and not same(value, parameters[knob].default)]
    assert not wrong, f"docs/agents.md gives {kind}'s defaults for {game} wrongly: {wrong}"


def test_the_knob_check_catches_a_wrong_default():
    """A planted cell that gives the Flight Tycoon expert's ``lead`` as ``network`` is refused: the class
    leaves it to the rules (``None``)."""
    parameters = inspect.signature(registry.agent_class(MULTI.id, "expert").__init__).parameters
    (knob, value), = DEFAULT.findall("`lead=network`")
    assert not same(value, parameters[knob].default)
    (knob, value), = DEFAULT.findall("`lead= (by the rules)`")
    assert same(value, parameters[knob].default)


def test_the_play_page_names_the_files_replays_are_written_to(tmp_path, capsys):
    page = (DOCS / "play.md").read_text(encoding="utf-8")
    assert f"`aerodeck bench ... --save-games K` writes" in page and f"`{bench.REPLAYS}`" in page
    assert "`aerodeck compare ... --save-games K` writes" in page and "`replays/<variant>--<table>.jsonl`" in page
    game = SOLO
    out = tmp_path / "cmp"
    status = cli.main(["compare", game.id, "--variant", "cheap:replace_cost=1", "--agent", "random",
                       "--judges", "random", "--metric", "score", "--games", "4", "--save-games", "1",
                       "--no-progress", "--out", str(out)])
    capsys.readouterr()
    assert status == 0
    assert sorted(p.name for p in (out / "replays").iterdir()) == ["base--random.jsonl", "cheap--random.jsonl"]


def test_the_extras_table_lists_every_extra_and_dev_brings_them_all():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    page = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z0-9-]+)` \| (.*)$", page, flags=re.MULTILINE)
    assert {name for name, _ in rows} == set(extras), \
        f"docs/getting-started.md's extras {sorted(n for n, _ in rows)} are not pyproject.toml's {sorted(extras)}"
    assert "every extra above" in dict(rows)["dev"]
    pulled = set()
    for spec in extras["dev"]:
        match = re.match(r"aerodeck\[([^\]]*)\]", spec)
        pulled |= set(match.group(1).split(",")) if match else set()
    assert pulled == set(extras) - {"dev"}, f"the dev extra brings {sorted(pulled)}, not every other extra"
