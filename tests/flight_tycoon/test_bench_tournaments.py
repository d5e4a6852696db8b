"""``aerodeck bench`` of Flight Tycoon: lineups of named agents rotated over the seats, win rates, head to
head and tallies (FT-11, FT-12), the same files for any batch size, and its bad input."""

import re

import pytest

from tests.bench.benching import results, run


def test_flight_tycoon_lineup_seats_may_name_an_agent_by_its_name(tmp_path):
    assert run(["flight-tycoon", "--agent", "heuristic:noise=0", "--agent", "random", "--lineup",
                "heuristic,random,random,random", "--games", "4", "--out", str(tmp_path)]) == 0
    data = results(tmp_path)
    assert data["lineup"] == ["heuristic:noise=0", "random", "random", "random"]
    assert data["agents"]["heuristic:noise=0"]["seats_played"] == 4


def test_flight_tycoon_lineup_seats_may_give_an_agent_several_knobs(tmp_path):
    # the knob after the first comma belongs to the seat before it, not to a seat of its own
    spec = "heuristic:noise=0,land_bonus=0.5"
    assert run(["flight-tycoon", "--agent", spec, "--agent", "random", "--lineup", f"{spec},random,random,random",
                "--games", "4", "--out", str(tmp_path)]) == 0
    data = results(tmp_path)
    assert data["lineup"] == [spec, "random", "random", "random"]
    assert data["agents"][spec]["seats_played"] == 4


def test_flight_tycoon_tournament_writes_win_rates_head_to_head_and_ratings(tmp_path):
    assert run(["flight-tycoon", "--players", "3", "--games", "30", "--out", str(tmp_path)]) == 0
    data = results(tmp_path)
    assert data["players"] == 3 and data["games"] == 30
    assert data["agents"]["random"]["win_rate"]["value"] == pytest.approx(1 / 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["aerodeck-output.json", "games.csv", "head_to_head.png",
                                                          "results.json", "tallies.png", "win_rates.png"]


def test_flight_tycoon_bench_reports_the_squares_landed_on_and_how_games_ended(tmp_path, capsys):
    # FT-11: every landing leaves a token; FT-12: a game ends on an empty stock or an empty deck
    assert run(["flight-tycoon", "--agent", "heuristic", "--games", "40", "--rule", "tokens=12",
                "--rule", "vp_table=0,0,0,0,10", "--out", str(tmp_path)]) == 0
    data = results(tmp_path)
    landings = data["tallies"]["landings"]
    assert len(landings) == 24 and 0 < sum(landings.values()) <= 12
    airlines = sum(v for k, v in landings.items() if k.startswith("airline"))
    assert airlines > 0.5 * sum(landings.values())  # only the airline squares pay VP here, and the heuristic goes for VP
    ended = data["tallies"]["ended by"]
    assert ended["empty stock"] + ended["empty deck"] >= 0.99
    assert "landings (mean per game)" in capsys.readouterr().out


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
        (["flight-tycoon", "--agent", "random:games=5"], "games=N per agent applies to solo games"),
        (["flight-tycoon", "--agent", "heuristic", "--agent", "random", "--agent", "search", "--lineup",
          "heuristic,random,random,random"], "--agent search has no seat in --lineup"),
    ],
)
def test_flight_tycoon_bad_input(tmp_path, capsys, argv, message):
    assert run([*argv, "--out", str(tmp_path / "out")]) == 2
    assert re.search(message, capsys.readouterr().err)


def test_the_files_of_a_mixed_tournament_are_the_same_for_any_batch_size(tmp_path):
    # every agent draws from per-game decision keys, and finished games are replaced in the batch at once
    argv = ["flight-tycoon", "--players", "3", "--agent", "heuristic:noise=1", "--agent", "random",
            "--agent", "search:samples=1,candidates=2,horizon=2", "--games", "6"]
    for size in ("1", "7", "4096"):
        assert run([*argv, "--seed", "9", "--batch-size", size, "--out", str(tmp_path / size)]) == 0
    for size in ("1", "7"):
        assert results(tmp_path / size) == results(tmp_path / "4096"), size
        assert (tmp_path / size / "games.csv").read_bytes() == (tmp_path / "4096" / "games.csv").read_bytes(), size
