"""``aerodeck bench`` end to end on small budgets, and its errors."""

import json

import pytest

from train import cli


def run(argv):
    return cli.main(["bench", *argv, "--no-progress"])


def results(folder):
    data = json.loads((folder / "results.json").read_text())
    for agent in data["agents"].values():  # timings differ from run to run
        agent.pop("seconds", None)
        agent.pop("games_per_second", None)
    data.pop("seconds", None)
    data.pop("games_per_second", None)
    return data


def test_airport_scramble_bench_writes_json_csv_and_plot(tmp_path, capsys):
    assert run(["airport-scramble", "--agent", "random", "--agent", "random:games=50", "--games", "300",
                "--seed", "3", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.csv", "results.json", "scores.png"]
    data = results(tmp_path)
    mean = data["agents"]["random"]["mean_score"]
    assert mean["low"] <= mean["value"] <= mean["high"] and mean["n"] == 300
    assert data["agents"]["random:games=50"]["games"] == 50
    assert data["comparisons"][0]["mean_score_difference"]["n"] == 50
    assert len((tmp_path / "games.csv").read_text().splitlines()) == 301
    assert "mean score" in capsys.readouterr().out


def test_the_same_seed_reproduces_the_same_numbers(tmp_path):
    for name in ("a", "b"):
        assert run(["airport-scramble", "--games", "200", "--seed", "11", "--rule", "grid_size=7",
                    "--out", str(tmp_path / name)]) == 0
    assert results(tmp_path / "a") == results(tmp_path / "b")
    assert results(tmp_path / "a")["rules"]["grid_size"] == 7



def test_flight_tycoon_lineup_seats_may_name_an_agent_by_its_name(tmp_path):
    assert run(["flight-tycoon", "--agent", "heuristic:noise=0", "--agent", "random", "--lineup",
                "heuristic,random,random,random", "--games", "4", "--out", str(tmp_path)]) == 0
    data = results(tmp_path)
    assert data["lineup"] == ["heuristic:noise=0", "random", "random", "random"]
    assert data["agents"]["heuristic:noise=0"]["seats_played"] == 4


@pytest.mark.parametrize(
    "argv, message",
    [
        (["airport-scramble", "--agent", "genius"], "unknown agent 'genius'.*available: random"),
        (["airport-scramble", "--agent", "random:depth=3"], "no parameter 'depth'"),
        (["airport-scramble", "--rule", "grid_size=99"], "'grid_size'"),
        (["airport-scramble", "--rule", "colour=3"], "unknown rule option 'colour'"),
        (["airport-scramble", "--games", "0"], "--games must be at least 1"),
        (["airport-scramble", "--players", "4"], "--players applies to flight-tycoon only"),
        (["airport-scramble", "--agent", "random", "--agent", "random"], "each --agent may be given once"),
    ],
)
def test_bad_input_gets_a_clear_error_and_no_files(tmp_path, capsys, argv, message):
    assert run([*argv, "--out", str(tmp_path / "out")]) == 2
    assert pytest.importorskip("re").search(message, capsys.readouterr().err)
    assert not (tmp_path / "out").exists()


def test_malformed_rules_file_is_refused(tmp_path, capsys):
    bad = tmp_path / "variant.toml"
    bad.write_text("grid_size = [\n")
    assert run(["airport-scramble", "--rules", str(bad), "--out", str(tmp_path / "out")]) == 2
    assert "variant.toml" in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_flight_tycoon_tournament_writes_win_rates_head_to_head_and_ratings(tmp_path):
    assert run(["flight-tycoon", "--players", "3", "--games", "30", "--out", str(tmp_path)]) == 0
    data = results(tmp_path)
    assert data["players"] == 3 and data["games"] == 30
    assert data["agents"]["random"]["win_rate"]["value"] == pytest.approx(1 / 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.csv", "head_to_head.png", "landings.png", "results.json",
                                                          "win_rates.png"]


def test_flight_tycoon_bench_reports_the_squares_landed_on_and_how_games_ended(tmp_path, capsys):
    # FT-11: every landing leaves a token; FT-12: a game ends on an empty stock or an empty deck
    assert run(["flight-tycoon", "--agent", "heuristic", "--games", "40", "--rule", "tokens=12",
                "--rule", "vp_table=0,0,0,0,10", "--out", str(tmp_path)]) == 0
    data = results(tmp_path)
    share = data["landing_share"]
    assert len(share) == 24 and sum(share.values()) == pytest.approx(1.0)
    airlines = sum(v for k, v in share.items() if k.startswith("airline"))
    assert airlines > 0.5  # only the airline squares pay VP here, and the heuristic goes for VP
    assert 0 < data["landings_per_game"] <= 12
    ended = data["ended_by"]
    assert ended["empty_stock"] + ended["empty_deck"] >= 0.99
    assert "Landings per game" in capsys.readouterr().out


def test_flight_tycoon_lineup_rotates_one_table_over_the_seats(tmp_path):
    # Two differently seeded random agents: one seat against three, rotated over the 4 seats.
    assert run(["flight-tycoon", "--agent", "random", "--agent", "random:", "--lineup", "random,random:,random:,random:",
                "--games", "10", "--out", str(tmp_path)]) == 0
    data = results(tmp_path)
    assert data["games"] == 12 and data["lineup"] == ["random", "random:", "random:", "random:"]
    assert data["agents"]["random"]["seats_played"] == 12 and data["agents"]["random:"]["seats_played"] == 36


@pytest.mark.parametrize(
    "argv, message",
    [
        (["flight-tycoon", "--players", "6"], "'n_players'"),
        (["flight-tycoon", "--lineup", "random,random"], "--lineup names 2 seats, the game has 4 players"),
        (["flight-tycoon", "--agent", "random", "--lineup", "random,random,random,heuristic"], "not one of the --agent"),
        (["flight-tycoon", "--agent", "heuristic:noise=0", "--agent", "heuristic", "--agent", "heuristic:noise=1",
          "--lineup", "heuristic:noise=0,heuristic,random,heuristic"], "not one of the --agent"),
        (["flight-tycoon", "--agent", "heuristic:noise=0", "--agent", "heuristic:noise=1", "--lineup",
          "heuristic,heuristic,heuristic,heuristic"], "several have that name"),
        (["flight-tycoon", "--agent", "random:games=5"], "games=N per agent applies to airport-scramble"),
        (["airport-scramble", "--lineup", "random"], "--lineup applies to flight-tycoon only"),
    ],
)
def test_flight_tycoon_bad_input(tmp_path, capsys, argv, message):
    assert run([*argv, "--out", str(tmp_path / "out")]) == 2
    assert pytest.importorskip("re").search(message, capsys.readouterr().err)


def test_an_output_folder_that_cannot_be_made_is_refused_before_playing(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert run(["airport-scramble", "--games", "5", "--out", str(blocker / "out")]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_a_rule_flag_wins_over_the_rules_file_even_when_it_names_the_default(tmp_path):
    path = tmp_path / "variants.toml"
    path.write_text("[variants.small]\ngrid_size = 5\nallow_wait = false\n")
    assert run(["airport-scramble", "--games", "5", "--rules", str(path), "--table", "variants.small",
                "--rule", "grid_size=9", "--out", str(tmp_path / "out")]) == 0
    rules = results(tmp_path / "out")["rules"]
    assert rules["grid_size"] == 9 and rules["allow_wait"] is False
