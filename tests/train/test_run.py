"""``aerodeck run``: random games of the main solo game summarised, then the ladder of every game."""

import dataclasses
import json
import re

import pytest

import envs
from envs import registry
from train import cli, run
from train.evaluate.loop import agent_seed, game_seeds, play_solo
from train.evaluate.stats import mean_ci


def test_run_prints_a_summary_and_writes_json(tmp_path, capsys):
    out = tmp_path / "summary.json"
    assert cli.main(["run", "--games", "300", "--batch", "64", "--no-progress", "--no-ladder", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "300 games" in text and "mean score" in text and "95% CI" in text and "games/s" in text
    summary = json.loads(out.read_text())
    assert summary["games"] == 300 and sum(summary["score_distribution"].values()) == 300
    m = summary["mean_score"]
    assert m["low"] <= m["value"] <= m["high"] and m["n"] == 300
    assert summary["mean_length"] > 1 and summary["median_score"] == run.median(summary["score_distribution"])


def test_run_plays_the_shared_loop_and_its_student_t_interval(tmp_path):
    # Before: its own play loop, seeds seed * 2**32 + i and a normal-approximation interval.
    from agents.random import RandomAgent

    out = tmp_path / "summary.json"
    assert cli.main(["run", "--games", "200", "--seed", "5", "--no-progress", "--no-ladder", "--json", str(out)]) == 0
    spec = run.main_game()
    scores = play_solo(spec.make_core(), RandomAgent(agent_seed(5, 0)), game_seeds(5, 200), progress=False)
    assert json.loads(out.read_text())["mean_score"] == pytest.approx(mean_ci(scores).to_dict())


def test_run_takes_the_largest_seed_and_refuses_a_negative_one(tmp_path, capsys):
    # Before: --seed 9223372036854775800 ended in an OverflowError traceback.
    assert cli.main(["run", "--games", "20", "--seed", "9223372036854775800", "--no-progress", "--no-ladder"]) == 0
    assert cli.main(["run", "--games", "20", "--seed", "-1", "--no-progress", "--no-ladder"]) == 2
    assert "--seed must be an integer in 0..2**64-1, got '-1'" in capsys.readouterr().err


def test_run_takes_rule_flags_and_variant_files(tmp_path, capsys):
    path = tmp_path / "v.toml"
    path.write_text("[rules]\ngrid_size = 5\nface_up = 2\nmax_replace = 2\n")
    assert cli.main(["run", "--games", "50", "--no-progress", "--no-ladder", "--rules", str(path), "--rule", "allow_wait=off"]) == 0
    assert "grid_size=5 face_up=2 max_replace=2 allow_wait=False" in capsys.readouterr().out


def test_run_reports_bad_rules_clearly(capsys):
    assert cli.main(["run", "--rule", "grid_size=99"]) == 2
    assert "'grid_size'" in capsys.readouterr().err


def test_the_median_of_a_score_distribution():
    assert run.median({"0": 3, "1": 1}) == 0
    assert run.median({"0": 2, "1": 2}) == 0.5
    assert run.median({"2": 1, "0": 1, "5": 1}) == 2


@pytest.fixture
def small_ladders(monkeypatch):
    """Every game's ladder on tiny budgets."""
    small = {
        "airport-scramble": ((("random",), 40), (("heuristic",), 12), (("ppo",), 8),
                             (("search:rollouts=2,candidates=2",), 2)),
        "flight-tycoon": ((("heuristic", "random", "random", "random"), 8), (("ppo", "heuristic", "heuristic", "heuristic"), 4),
                          (("search:samples=2,candidates=2,horizon=4", "heuristic", "heuristic", "heuristic"), 4)),
    }
    games = {g: dataclasses.replace(s, ladder=small.get(g, s.ladder)) for g, s in registry.GAMES.items()}
    monkeypatch.setattr(registry, "GAMES", games)
    monkeypatch.setattr(run, "COMPARE_GAMES", 6)  # the closing comparison on a tiny budget too
    return small


def test_run_benches_the_ladder_of_every_game_from_the_registry(tmp_path, capsys, small_ladders):
    # Before: the ladder was argv strings handed back to the command line, game names in train/run.py.
    assert cli.main(["run", "--games", "50", "--no-progress", "--rule", "grid_size=7", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    text = captured.out
    assert "Airport Scramble — rules: grid_size=7" in text and text.count("Flight Tycoon — 4 players") == 3
    # the shipped model cannot play a 7×7 grid: that rung is skipped, saying why
    assert "the Airport Scramble ladder skips ppo: the shipped model airport-scramble.zip was trained for another layout" \
        in captured.err
    folders = ["airport-scramble", "flight-tycoon-heuristic-vs-random", "flight-tycoon-ppo-vs-heuristic",
               "flight-tycoon-search:samples=2,candidates=2,horizon=4-vs-heuristic", "compare-airport-scramble"]
    folders += [name for g in envs.games() if g not in small_ladders  # games joining through plugins
                for name, _ in run.ladder_plans(envs.spec(g), None, 0)]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*folders, "aerodeck-output.json"])
    assert f"wrote {', '.join(sorted(folders))} to {tmp_path}/" in text
    ladder = json.loads((tmp_path / "airport-scramble" / "results.json").read_text())
    assert ladder["rules"]["grid_size"] == 7
    assert list(ladder["agents"]) == ["random", "heuristic:games=12", "search:rollouts=2,candidates=2,games=2"]
    tycoon = json.loads((tmp_path / folders[3] / "results.json").read_text())
    assert tycoon["games"] == 4 and tycoon["lineup"][1:] == ["heuristic"] * 3
    # the closing comparison: the rules in use against them with the tuned options (issue 10 item 11)
    closing = json.loads((tmp_path / folders[4] / "results.json").read_text())
    assert closing["variants"]["showcase"]["options"] == {"grid_size": 7, "action_points": 4, "face_up": 6,
                                                          "max_replace": 3, "ticket_turn_bonus": 3}
    assert closing["games"] == 6 and [t["name"] for t in closing["tables"]] == ["heuristic"]
    assert f"the designer's report: {tmp_path / folders[4] / 'report.md'}" in text


def test_the_ladder_plays_the_shipped_models_under_rules_of_their_layout(capsys):
    solo = dict(run.ladder_plans(envs.spec("airport-scramble"), None, 0))["airport-scramble"]
    assert "ppo:games=2000" in solo.names and capsys.readouterr().err == ""
    names = [name for name, _ in run.ladder_plans(envs.spec("flight-tycoon"), None, 0)]
    assert "flight-tycoon-ppo-vs-heuristic" in names


def test_every_registered_ladder_is_a_valid_bench():
    for game in envs.games():
        for name, plan in run.ladder_plans(envs.spec(game), None, 0):
            assert plan.agents and name.startswith(game)


def test_run_shows_a_progress_bar_per_agent_of_the_ladder_named_after_it(tmp_path, capsys, small_ladders):
    # Before: one bar "games" over the whole ladder, sitting at the sum of the fast agents' games
    # while the search agent played.
    assert cli.main(["run", "--games", "50", "--out", str(tmp_path / "out")]) == 0
    bars = capsys.readouterr().err.replace("\r", "\n").splitlines()
    labels = {line.split(":  ")[0].split(": ")[0] for line in bars if "|" in line}
    solo = [seats[0] if i == 0 else f"{seats[0]}{',' if ':' in seats[0] else ':'}games={games}"
            for i, (seats, games) in enumerate(small_ladders["airport-scramble"])]
    tables = [" vs ".join(dict.fromkeys(seats)) for seats, _ in small_ladders["flight-tycoon"]]
    assert {*solo, *tables} <= labels and "games" not in labels
    for name, (_, games) in zip(solo, small_ladders["airport-scramble"]):  # each bar counts its agent's games
        assert str(games) in {re.search(r"\| \d+/(\d+) \[", line)[1] for line in bars if line.startswith(f"{name}: ")}
