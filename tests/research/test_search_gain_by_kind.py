"""The search agent's ``only`` knob and research/search_gain_by_kind.py: a restricted search departs
from the heuristic only to its kinds, free to depart to every kind it is the search agent, and bad
knobs and arguments are one line."""

import importlib.util
import json
from pathlib import Path

import pytest

from aerodeck import envs
from aerodeck.agents.ppo import shipped_path
from aerodeck.agents.registry import make_agent
from aerodeck.envs.common.rng import game_seeds
from aerodeck.arena.loop import play_games

SCRIPT = Path(__file__).resolve().parents[2] / "research" / "search_gain_by_kind.py"
spec = importlib.util.spec_from_file_location("search_gain_by_kind", SCRIPT)
script = importlib.util.module_from_spec(spec)
spec.loader.exec_module(script)

SEEDS = game_seeds(4, 16)


def _play(agent):
    game = envs.spec(script.GAME)
    return play_games(game.make_core(agent.rules), [agent], SEEDS, make_view=game.make_view, progress=False)


def test_a_search_free_to_depart_to_every_kind_plays_the_search_agents_games():
    rules = envs.spec(script.GAME).rules_class()()
    free = script.Departures(make_agent(script.GAME, "search:only=" + "+".join(script.DEPARTURE_KINDS), rules, seed=7))
    plain = make_agent(script.GAME, "search", rules, seed=7)
    a, b = _play(free), _play(plain)
    assert (a["score"] == b["score"]).all() and (a["length"] == b["length"]).all()
    assert sum(free.departures.values()) > 0 and free.decisions == a["length"].sum()


def test_a_restricted_search_departs_only_to_its_kind_and_without_one_plays_the_heuristic():
    rules = envs.spec(script.GAME).rules_class()()
    plays = script.Departures(make_agent(script.GAME, "search:only=play", rules, seed=7))
    _play(plays)
    assert plays.departures and all(kinds.endswith("->play") for kinds in plays.departures)
    lines = make_agent(script.GAME, "search:only=remove_line", rules, seed=7)  # it departs to no line removal in these deals
    a, b = _play(lines), _play(make_agent(script.GAME, "heuristic", rules))
    assert (a["score"] == b["score"]).all() and (a["length"] == b["length"]).all()


@pytest.mark.parametrize("only", ["teleport", "play+", "fly+stop_early"])
def test_the_search_refuses_an_unknown_kind_naming_those_it_takes(only):
    with pytest.raises(ValueError, match="knob 'only' names .*: it takes kinds of action joined by '\\+', of fly, "
                                         "play, replace, wait, remove_line"):
        make_agent(script.GAME, f"search:only={only}", envs.spec(script.GAME).rules_class()())


def test_the_bench_writes_each_agents_figures(tmp_path, capsys):
    assert script.main(["--games", "6", "--kinds", "fly", "wait", "--agent", "random", "--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "search_gain_by_kind.json").read_text())
    assert set(result["agents"]) == {"heuristic", "search", "search:only=fly", "search:only=wait", "random"}
    assert result["agents"]["random"]["departures"] and result["agents"]["heuristic"]["departures"] == {}
    assert "the restricted gains add up to" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [(["--games", "0"], "--games must be at least 1, got 0"),
                                           (["--seed", "-1"], "--seed must be in 0..2**64-1, got -1"),
                                           (["--kinds", "teleport"], "invalid choice: 'teleport'"),
                                           (["--agent", "search:rollouts=0"], "knob 'rollouts' must be a positive")])
def test_bad_arguments_are_one_line(argv, message, capsys):
    with pytest.raises(SystemExit):
        script.main(argv)
    assert message in capsys.readouterr().err


def test_a_guided_search_restricted_to_replaces_departs_from_its_guide_only_to_replaces():
    rules = envs.spec(script.GAME).rules_class()()
    model = shipped_path(envs.spec(script.GAME), rules)
    search = make_agent(script.GAME, f"search:guide={model},only=replace,rollouts=8", rules, seed=3)
    guide, departed = search.guide, []

    class Watch(script.Departures):  # departures from the guide, not from the heuristic
        def act(self, observations, masks, view=None, keys=None):
            out = search.act(observations, masks, view, keys)
            live = masks.any(axis=1) & (out != guide.act(observations, masks))
            departed.extend(self.kind_of[out[live]].tolist())
            return out

    _play(Watch(search))
    assert departed and set(departed) == {"replace"}
