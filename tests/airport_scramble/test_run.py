"""``aerodeck run``: random games on built-in defaults with a score summary, then the agent ladder."""

import json

import numpy as np

from train import cli, run
from train.run import play_random, summarise
from envs.airport_scramble.rules import AirportScrambleRules


def test_run_prints_a_summary_and_writes_json(tmp_path, capsys):
    out = tmp_path / "summary.json"
    assert cli.main(["run", "--games", "300", "--batch", "64", "--no-progress", "--no-ladder", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "300 games" in text and "mean score" in text and "95% CI" in text and "games/s" in text
    summary = json.loads(out.read_text())
    assert summary["games"] == 300 and sum(summary["distribution"].values()) == 300
    assert summary["ci95"][0] <= summary["mean_score"] <= summary["ci95"][1]


def test_run_takes_rule_flags_and_variant_files(tmp_path, capsys):
    path = tmp_path / "v.toml"
    path.write_text("[rules]\ngrid_size = 5\nface_up = 2\nmax_replace = 2\n")
    assert cli.main(["run", "--games", "50", "--no-progress", "--no-ladder", "--rules", str(path), "--rule", "allow_wait=off"]) == 0
    assert "grid_size=5 face_up=2 max_replace=2 allow_wait=False" in capsys.readouterr().out


def test_run_reports_bad_rules_clearly(capsys):
    assert cli.main(["run", "--rule", "grid_size=99"]) == 2
    assert "'grid_size'" in capsys.readouterr().err


def test_play_random_counts_every_game_once_and_is_seeded():
    rules = AirportScrambleRules(grid_size=5)
    a = play_random(rules, 100, 16, seed=3, progress=False)
    b = play_random(rules, 100, 16, seed=3, progress=False)
    assert np.array_equal(a["scores"], b["scores"]) and np.array_equal(a["lengths"], b["lengths"])
    assert (a["lengths"] >= 1).all() and summarise(a, rules)["games"] == 100


def test_run_benches_the_agent_ladder_of_both_games_with_the_same_rule_options(tmp_path, capsys, monkeypatch):
    small = [(folder, [a.replace("games=2000", "games=40").replace("games=100", "games=4")
                       .replace("10000", "100").replace("2000", "24").replace("200", "8") for a in argv])
             for folder, argv in run.LADDER]
    monkeypatch.setattr(run, "LADDER", small)
    assert cli.main(["run", "--games", "50", "--no-progress", "--rule", "grid_size=7", "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "Airport Scramble — rules: grid_size=7" in text and text.count("Flight Tycoon — 4 players") == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [folder for folder, _ in sorted(run.LADDER)]
    ladder = json.loads((tmp_path / "airport-scramble" / "results.json").read_text())
    assert ladder["rules"]["grid_size"] == 7 and list(ladder["agents"]) == ["random", "heuristic:games=40", "search:games=4"]
    tycoon = json.loads((tmp_path / "flight-tycoon-search-vs-heuristic" / "results.json").read_text())
    assert tycoon["games"] == 8 and tycoon["lineup"] == ["search", "heuristic", "heuristic", "heuristic"]
