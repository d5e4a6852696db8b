"""research/teacher_agreement.py: a deterministic teacher agrees with itself and never departs from
itself; a random one does not; the counts add up and are written under --out."""

import importlib.util
import json
from pathlib import Path

import pytest

from aerodeck import envs
from aerodeck.agents.registry import make_agent
from aerodeck.envs.common.rng import game_seeds
from tests.games import MULTI, SOLO
from aerodeck.arena.loop import play_games

SCRIPT = Path(__file__).resolve().parents[2] / "research" / "teacher_agreement.py"
spec = importlib.util.spec_from_file_location("teacher_agreement", SCRIPT)
script = importlib.util.module_from_spec(spec)
spec.loader.exec_module(script)


def test_the_heuristic_as_teacher_agrees_with_itself_and_departs_nowhere():
    result = script.measure(SOLO.id, "heuristic", "heuristic", games=3, seed=5)
    c = result["counts"]
    assert c["decisions"] > 0 and c["teacher_same"] == c["decisions"] and c["departures"] == 0
    assert result["proportions"]["teacher_self_agreement"] == 1.0


def test_a_random_teacher_disagrees_with_itself_in_every_seat(tmp_path, capsys):
    assert script.main([MULTI.id, "--players", "3", "--teacher", "random", "--games", "2", "--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / f"teacher_agreement-{MULTI.id}.json").read_text())
    c, p = result["counts"], result["proportions"]
    assert result["players"] == 3 and 0 < c["teacher_same"] < c["decisions"]
    assert c["departures_again"] <= min(c["departures"], c["teacher_same"])
    assert p["teacher_self_agreement"] == c["teacher_same"] / c["decisions"]
    assert "teacher self agreement" in capsys.readouterr().out


@pytest.mark.parametrize("argv, named", [(["--teacher", "serch"], "serch"), (["--games", "0"], "--games must be at least 1")])
def test_a_bad_teacher_or_game_count_is_one_line_naming_it(capsys, argv, named):
    with pytest.raises(SystemExit) as stop:
        script.main([SOLO.id, *argv])
    assert stop.value.code == 2 and named in capsys.readouterr().err


def test_a_student_is_compared_with_the_teachers_first_run_on_the_along_agents_positions():
    # the heuristic as student of a random teacher: it agrees exactly where the teacher did not depart
    # from the heuristic, and never makes a departure
    result = script.measure(SOLO.id, "random", "heuristic", games=3, seed=5, student="heuristic")
    c, p = result["counts"], result["proportions"]
    assert c["departures"] > 0 and c["student_same"] == c["decisions"] - c["departures"]
    assert c["student_departures"] == 0 and c["departures_student_makes"] == 0
    assert p["student_teacher_agreement"] == c["student_same"] / c["decisions"]
    # a random student played along: the positions are its own, and it departs from the heuristic
    own = script.measure(SOLO.id, "heuristic", "random", games=3, seed=5, student="random")["counts"]
    assert own["departures"] == 0 and own["student_departures"] > 0
    assert own["student_same"] == own["decisions"] - own["student_departures"]


def test_the_decisions_counted_are_those_of_the_games_played():
    # Before: the play loop hands a lone agent its finished games too (until a quarter of the batch has
    # ended), and they were counted as decisions (a tenth more in Airport Scramble)
    result = script.measure(SOLO.id, "heuristic", "heuristic", games=40, seed=5)
    game = envs.spec(SOLO.id)
    rules = game.rules_class()()
    played = play_games(game.make_core(rules), [make_agent(SOLO.id, "heuristic", rules)], game_seeds(5, 40),
                        progress=False)
    assert result["counts"]["decisions"] == played["length"].sum()
