"""``aerodeck run`` under Airport Scramble's rule options (the game it plays): rule flags and rules
files, a bad option refused naming it, the ladder skipping the shipped model on a grid it was not
trained for, a rung's knobs before its game count, and the closing comparison against the tuned
options. (The run itself, through the registry: ``tests/cli/test_run.py``.)"""

import dataclasses

from aerodeck import envs
from aerodeck.cli import main as cli
from aerodeck.cli import run

GAME = envs.spec("airport-scramble")


def test_airport_scramble_is_the_game_aerodeck_run_plays():
    assert run.main_game() == GAME


def test_run_takes_rule_flags_and_variant_files(tmp_path, capsys):
    path = tmp_path / "v.toml"
    path.write_text("[rules]\ngrid_size = 5\nface_up = 2\nmax_replace = 2\n")
    assert cli.main(["run", "--games", "50", "--no-progress", "--no-ladder", "--rules", str(path), "--rule", "allow_wait=off"]) == 0
    assert "grid_size=5 face_up=2 max_replace=2 allow_wait=False" in capsys.readouterr().out


def test_run_reports_bad_rules_clearly(capsys):
    assert cli.main(["run", "--rule", "grid_size=99"]) == 2
    assert "'grid_size'" in capsys.readouterr().err


def test_the_ladder_skips_the_shipped_model_on_a_grid_it_was_not_trained_for(capsys):
    plans = dict(run.ladder_plans(GAME, GAME.make_rules(grid_size=7), 0))
    assert "the Airport Scramble ladder skips ppo: the shipped model airport-scramble.zip was trained for another layout" \
        in capsys.readouterr().err
    assert plans[GAME.id].names == ["random", "heuristic:games=2000", "search:games=50"]
    assert plans[GAME.id].rules.grid_size == 7


def test_a_rung_with_knobs_takes_its_games_after_them():
    small = dataclasses.replace(GAME, ladder=((("random",), 40), (("heuristic",), 12),
                                              (("search:rollouts=2,candidates=2",), 2)))
    plans = dict(run.ladder_plans(small, None, 0))
    assert plans[GAME.id].names == ["random", "heuristic:games=12", "search:rollouts=2,candidates=2,games=2"]


def test_the_closing_comparison_sets_the_rules_in_use_against_them_with_the_tuned_options():
    # issue 10 item 11
    question = run.closing_question(GAME, GAME.make_rules(grid_size=7), 0)
    assert {name: rules.changes() for name, rules in question.variants.items()} == {
        "base": {"grid_size": 7},
        "showcase": {"grid_size": 7, "action_points": 4, "face_up": 6, "max_replace": 3, "ticket_turn_bonus": 3},
    }
    assert [t.name for t in question.tables] == ["heuristic"] and question.games == run.COMPARE_GAMES
