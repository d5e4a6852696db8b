"""research/consequence_probe.py: the teacher's decisions are kept with what each candidate leads to,
the networks are fitted and scored, the local reader sees each candidate's cell, bad input is one line."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from aerodeck import envs

SCRIPT = Path(__file__).resolve().parents[2] / "research" / "consequence_probe.py"
spec = importlib.util.spec_from_file_location("consequence_probe", SCRIPT)
script = importlib.util.module_from_spec(spec)
spec.loader.exec_module(script)

TEACHER = "search:candidates=3,rollouts=2"


def test_each_kept_decision_holds_the_position_after_each_of_its_candidates():
    data = script.record(6, seed=3, teacher=TEACHER)
    n = len(data["chosen"])
    assert n > 0 and data["after"].shape[:2] == (n, 3) and data["before"].shape == (n, data["after"].shape[2])
    assert (data["valid"].sum(axis=1) >= 2).all() and data["valid"][np.arange(n), data["chosen"]].all()
    # two legal candidates lead to two different positions, and neither is the position before
    legal = data["valid"][:, 0] & data["valid"][:, 1]
    assert (data["after"][legal, 0] != data["after"][legal, 1]).any(axis=1).all()
    assert (data["after"][:, 0] != data["before"]).any(axis=1).all()


def test_both_networks_are_fitted_and_scored_on_held_out_games(tmp_path, capsys):
    assert script.main(["--games", "10", "--epochs", "1", "--width", "16", "--teacher", TEACHER, "--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "consequence_probe.json").read_text())
    assert result["decisions"]["fitted"] > result["decisions"]["held_out"] > 0
    assert result["first"]["agreement"] == pytest.approx(1 - result["teacher_departs"])
    for kind in ("position", "consequence"):
        assert 0 <= result[kind]["agreement"] <= 1 and 0 <= result[kind]["departures_made"] <= 1
    assert "consequence: agreement" in capsys.readouterr().out


def test_the_local_reader_sees_each_candidates_cell_its_card_and_its_kind():
    data = script.record(8, seed=4, teacher=TEACHER)
    local = script.LocalFeatures(envs.spec(script.GAME).rules_class()(), radius=2)
    inputs = local(data["before"], data["actions"])
    n, k = data["actions"].shape
    assert inputs.shape == (n, k, local.size) and inputs.dtype == np.float32
    lay, C, side = local.geo.actions, local.channels, 5
    centre = (2 * side + 2) * C
    beside = [((2 + dr) * side + 2 + dc) * C + 1 for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))]
    actions, valid = data["actions"], data["valid"]
    play = valid & (actions >= lay.play_offset) & (actions < lay.replace_offset)
    fly = valid & (actions < lay.n_fly)
    assert play.any() and fly.any()
    # AS-9: a card is played on an empty cell beside a card; AS-8: a flight lands on a card
    assert (inputs[..., centre + 1][play] == 0).all() and (inputs[..., beside].max(axis=-1)[play] == 1).all()
    assert (inputs[..., centre + 1][fly] == 1).all()
    # the played card's colours are one-hot (H, V), other kinds have none; the kind is one-hot
    patch = side * side * C
    card = inputs[..., patch:patch + 2 * (local.geo.n_colors + 1)]
    assert (card[play][:, 0] == 0).all() and (card[play].sum(axis=-1) == 2).all() and (card[fly][:, 0] == 1).all()
    assert (inputs[..., -len(local.kinds[0]):].sum(axis=-1) == 1).all()


def test_the_local_reader_is_fitted_when_asked(tmp_path, capsys):
    assert script.main(["--games", "10", "--epochs", "1", "--width", "16", "--teacher", TEACHER, "--readers",
                        "local", "--radius", "1", "--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "consequence_probe.json").read_text())
    assert 0 <= result["local"]["agreement"] <= 1 and "position" not in result
    assert "local: agreement" in capsys.readouterr().out


def test_the_fitted_readers_that_read_the_position_play_fresh_deals(tmp_path, capsys):
    assert script.main(["--games", "10", "--epochs", "1", "--width", "16", "--teacher", TEACHER, "--readers",
                        "local", "consequence", "--bench", "20", "--out", str(tmp_path)]) == 0
    bench = json.loads((tmp_path / "consequence_probe.json").read_text())["bench"]
    assert bench["games"] == 20 and set(bench) == {"games", "seed", "heuristic", "local"}
    assert bench["local"]["minus_heuristic"][1] <= bench["local"]["minus_heuristic"][0]


def test_a_chooser_that_keeps_the_first_candidate_plays_the_heuristic_and_one_that_departs_does_not():
    from aerodeck.agents.registry import make_agent
    from aerodeck.envs.common.rng import game_seeds
    from aerodeck.arena.loop import play_games

    game = envs.spec(script.GAME)
    rules = game.rules_class()()
    core, seeds = game.make_core(rules), game_seeds(6, 12)
    heuristic = play_games(core, [make_agent(script.GAME, "heuristic", rules)], seeds, progress=False)
    first = script.Chooser(lambda data: np.zeros(len(data["valid"]), np.int64), 4, rules=rules)
    kept = play_games(core, [first], seeds, progress=False)
    assert (kept["score"] == heuristic["score"]).all() and (kept["length"] == heuristic["length"]).all()
    last = script.Chooser(lambda data: data["valid"].sum(axis=1) - 1, 4, rules=rules)  # the last legal one
    moved = play_games(core, [last], seeds, progress=False)
    assert (moved["length"] != heuristic["length"]).any() or (moved["score"] != heuristic["score"]).any()


@pytest.mark.parametrize("teacher, named", [("serch", "serch"), ("heuristic", "give a search agent")])
def test_a_bad_teacher_is_one_line_naming_it(capsys, teacher, named):
    with pytest.raises(SystemExit) as stop:
        script.main(["--teacher", teacher, "--games", "5"])
    assert stop.value.code == 2 and named in capsys.readouterr().err


def test_a_radius_out_of_range_is_one_line(capsys):
    with pytest.raises(SystemExit) as stop:
        script.main(["--radius", "0", "--games", "5"])
    assert stop.value.code == 2 and "--radius must be in 1..8, got 0" in capsys.readouterr().err


def test_a_negative_bench_is_one_line(capsys):
    with pytest.raises(SystemExit) as stop:
        script.main(["--bench", "-1", "--games", "5"])
    assert stop.value.code == 2 and "--bench must be at least 0, got -1" in capsys.readouterr().err
