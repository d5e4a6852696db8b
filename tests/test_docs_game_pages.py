"""Each game's page (``GameSpec.docs``) opens as a PettingZoo / Gymnasium env page does, and says true things.

The built-in games' pages (docs/<game>.md) are held to this; a plugged-in game keeps its own page.
The page opens with a summary table — import, players or agents, action space, observation space,
reward, termination, truncation, rule options, version — whose spaces are the env's own: for every
player count the game allows, the action and observation spaces its standard env (``GameSpec.make_env``)
reports, written as ``str(space)`` (followed by "(n players)" in a multi-player game). Every game page
has the same sections in the same order, and ends with its version history.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aerodeck import envs

ROOT = Path(__file__).resolve().parents[1]
#: the built-in games: those whose page is in this repository's docs/ (a plugged-in game keeps its own)
GAMES = [g for g in envs.games() if envs.spec(g).docs_path() is not None
         and envs.spec(g).docs_path().resolve().is_relative_to(ROOT / "docs")]
ROWS = ("Import", "Action space", "Observation space", "Reward", "Termination", "Truncation", "Rule options",
        "Version")
SECTIONS = ["Rules", "Actions", "Observation", "Rule options", "Readings we chose", "Interfaces", "Engines",
            "Tests and code", "Speed", "Version history"]
OPENS_WITHIN = 20  # lines


def page(game: str) -> str:
    return envs.spec(game).docs_path().read_text(encoding="utf-8")


def summary(text: str) -> dict[str, str]:
    """The first table of a page (within its first lines) as {row name: the rest of the row}."""
    lines = text.splitlines()[:OPENS_WITHIN]
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("|---")]
    return {m.group(1): m.group(2) for m in (re.match(r"^\| ([^|]+?) \| (.*) \|$", r) for r in rows) if m}


def spaces(game: str, n: int):
    """(action space, observation space) of the game's standard env at ``n`` players: one agent's, all equal."""
    spec = envs.spec(game)
    env = spec.make_env(**({spec.players_option: n} if spec.players_option else {}))
    if hasattr(env, "possible_agents"):
        found = {(str(env.action_space(a)), str(env.observation_space(a))) for a in env.possible_agents}
        assert len(found) == 1, f"{game}: the agents' spaces differ at {n} players: {found}"
        return found.pop()
    return str(env.action_space), str(env.observation_space)


def written(space: str, n: int, multi: bool) -> str:
    return f"`{space}`" + (f" ({n} players)" if multi else "")


@pytest.mark.parametrize("game", GAMES)
def test_the_page_opens_with_the_summary_table(game):
    table = summary(page(game))
    players = "Agents" if len(envs.spec(game).player_counts) > 1 else "Players"
    missing = [row for row in (players, *ROWS) if row not in table]
    assert not missing, f"the page of {game} opens with no summary row {missing} (in its first {OPENS_WITHIN} lines)"


@pytest.mark.parametrize("game", GAMES)
def test_the_summary_states_the_envs_spaces_for_every_player_count(game):
    spec, table = envs.spec(game), summary(page(game))
    multi = len(spec.player_counts) > 1
    for n in spec.player_counts:
        action, observation = spaces(game, n)
        assert written(action, n, multi) in table["Action space"], \
            f"{game}: the summary's action space does not say {written(action, n, multi)}"
        assert written(observation, n, multi) in table["Observation space"], \
            f"{game}: the summary's observation space does not say {written(observation, n, multi)}"


def test_the_space_check_catches_a_wrong_shape():
    """A planted summary whose observation shape is off by one is refused."""
    game = next(g for g in GAMES if len(envs.spec(g).player_counts) == 1)
    action, observation = spaces(game, 1)
    wrong = re.sub(r"\((\d+),\)", lambda m: f"({int(m.group(1)) + 1},)", observation)
    assert wrong != observation and written(wrong, 1, False) != written(observation, 1, False)
    planted = summary(f"| Observation space | `{wrong}` at the default rules |")
    assert written(observation, 1, False) not in planted["Observation space"]


@pytest.mark.parametrize("game", GAMES)
def test_every_game_page_has_the_same_sections_in_the_same_order(game):
    text = re.sub(r"```.*?```", "", page(game), flags=re.S)
    sections = re.findall(r"^## (.+?)\s*$", text, flags=re.MULTILINE)
    assert sections == SECTIONS, f"the page of {game} has the sections {sections}; every game page has {SECTIONS}"


@pytest.mark.parametrize("game", GAMES)
def test_the_version_history_names_the_envs_version(game):
    """The env's version — the Gymnasium id's ``-vN``, or a PettingZoo env's ``metadata["name"]``'s
    ``_vN`` — is in the summary and has a row in the version history."""
    spec, text = envs.spec(game), page(game)
    name = spec.gym_id or spec.make_env().metadata["name"]
    version = re.search(r"[-_](v\d+)$", name).group(1)
    assert name.split("/")[-1] in summary(text)["Version"] + summary(text)["Import"], \
        f"the summary of {game} does not name its env {name}"
    history = text[text.index("## Version history"):]
    assert re.search(rf"^\| `{version}` \|", history, flags=re.MULTILINE), \
        f"the version history of {game} has no row for {version}"

