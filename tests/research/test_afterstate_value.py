"""research/afterstate_value.py: afterstates are kept with their rollout values or paired gains, the
networks are fitted, the lookahead agent plays them (and the heuristic when told to keep to it)."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from aerodeck import envs
from aerodeck.agents.registry import make_agent
from aerodeck.envs.common.rng import game_seeds
from aerodeck.arena.loop import play_games

SCRIPT = Path(__file__).resolve().parents[2] / "research" / "afterstate_value.py"
spec = importlib.util.spec_from_file_location("afterstate_value", SCRIPT)
script = importlib.util.module_from_spec(spec)
spec.loader.exec_module(script)


def test_values_are_those_of_open_afterstates_and_gains_are_paired_with_the_first_candidate():
    value = script.collect(4, seed=3, samples=1)
    assert value["after"].shape == (len(value["value"]), 528) and len(value["value"]) > 0
    # one more ticket at most, plus the share of cards in play (at most 1); an open afterstate's rollout
    # completes a ticket or ends the game with none
    assert (value["value"] >= 0).all() and (value["value"] <= 2).all() and (value["value"] == 0).any()
    gain = script.collect(4, seed=3, samples=2, target="gain")
    n = len(gain["value"])
    assert gain["after"].shape == (n, 4, 528) and gain["valid"].shape == (n, 4)
    assert (gain["value"][:, 0] == 0).all() and (gain["valid"].sum(axis=1) >= 2).all()
    assert (gain["value"][gain["valid"]] != 0).any()


def test_the_kept_afterstates_of_one_sample_do_not_hold_the_others_in_memory():
    game = envs.spec(script.GAME)
    rules = game.rules_class()()
    collector = script.Collector(rules=rules, samples=3, target="gain")
    play_games(game.make_core(rules), [collector], game_seeds(2, 3), make_view=game.make_view, progress=False)
    assert collector.kept["after"] and all(after.base is None for after in collector.kept["after"])


@pytest.mark.parametrize("target", ["value", "gain"])
def test_a_lookahead_that_must_beat_the_heuristic_by_more_than_anything_plays_the_heuristic(target):
    data = script.collect(6, seed=5, samples=2, target=target)
    net, fitted = script.fit(data, width=16, epochs=1, seed=0)
    assert fitted["held_out_mse"] >= 0 and fitted["rows"] == len(data["value"])
    game = envs.spec(script.GAME)
    rules = game.rules_class()()
    core = game.make_core(rules)
    seeds = game_seeds(11, 12)
    kept = play_games(core, [script.Lookahead(net, rules=rules, margin=np.inf)], seeds, make_view=game.make_view,
                      progress=False)
    heuristic = play_games(core, [make_agent(script.GAME, "heuristic", rules)], seeds, progress=False)
    assert (kept["score"] == heuristic["score"]).all() and (kept["length"] == heuristic["length"]).all()
    free = play_games(core, [script.Lookahead(net, rules=rules, margin=-np.inf)], seeds, make_view=game.make_view,
                      progress=False)  # always departs where it can: not the heuristic's games
    assert (free["length"] != heuristic["length"]).any() or (free["score"] != heuristic["score"]).any()


def test_a_run_writes_its_figures_and_its_network(tmp_path, capsys):
    assert script.main(["--games", "6", "--epochs", "1", "--width", "16", "--bench", "4", "--margin", "0", "0.1",
                        "--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "afterstate_value.json").read_text())
    assert set(result["agents"]) == {"heuristic", "lookahead:0", "lookahead:0.1", "search"}
    assert (tmp_path / "value.pt").exists() and "lookahead:0.1" in capsys.readouterr().out
    assert script.main(["--load", str(tmp_path / "value.pt"), "--bench", "4", "--no-search", "--out", str(tmp_path)]) == 0
    again = json.loads((tmp_path / "afterstate_value.json").read_text())
    assert again["agents"]["lookahead:0"]["mean"] == result["agents"]["lookahead:0"]["mean"]


@pytest.mark.parametrize("argv, named", [(["--games", "0"], "--games"), (["--looks", "0"], "--looks"),
                                         (["--target", "q"], "--target"),
                                         (["--bench-seed", "-1"], "--bench-seed must be in 0..2**64-1")])
def test_bad_arguments_are_one_line_naming_them(capsys, argv, named):
    with pytest.raises(SystemExit) as stop:
        script.main(argv)
    assert stop.value.code == 2 and named in capsys.readouterr().err


def test_a_missing_or_foreign_network_file_is_one_line_naming_it(tmp_path, capsys):
    (tmp_path / "junk.pt").write_bytes(b"not a network")
    for path in (tmp_path / "none.pt", tmp_path / "junk.pt"):
        with pytest.raises(SystemExit) as stop:
            script.main(["--load", str(path), "--out", str(tmp_path)])
        assert stop.value.code == 2 and f"--load {path}: not a network saved by this script" in capsys.readouterr().err
