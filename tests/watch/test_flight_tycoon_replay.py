"""Replays of Flight Tycoon: ``aerodeck replay`` shows every hand and the log; ``bench --save-games``
of a 3-player lineup writes replays of the games it scored."""

import csv

from tests.watch.replays import agent_games, replay_command
from aerodeck.cli import main as cli
from aerodeck.arena.replays import read, write


def test_replay_of_a_flight_tycoon_game_shows_every_hand_and_the_log(tmp_path, monkeypatch, capsys):
    rules, records = agent_games("flight-tycoon", [9], "heuristic", n_players=3)
    path = write(tmp_path / "ft.jsonl", "flight-tycoon", rules, records)
    status, out, _ = replay_command([str(path)], ["j 3", "q"], monkeypatch, capsys)
    assert status == 0 and "viewer all" in out and "towers revealed:" in out


def test_bench_save_games_of_a_lineup_writes_replays_of_the_games_it_scored(tmp_path, capsys):
    out = tmp_path / "ft"
    assert cli.main(["bench", "flight-tycoon", "--agent", "heuristic", "--agent", "random", "--lineup",
                     "heuristic,random,random", "--players", "3", "--games", "6", "--save-games", "4",
                     "--out", str(out), "--no-progress"]) == 0
    replay = read(out / "games.jsonl")
    rows = list(csv.DictReader((out / "games.csv").open()))
    assert len(replay.records) == 4 and replay.rules.n_players == 3
    for r in replay.records:
        row = rows[r.game]
        assert r.agents == [row[f"seat{s}_agent"] for s in range(3)]
        assert [f"{x:g}" for x in r.result["score"]] == [row[f"seat{s}_score"] for s in range(3)]
        assert r.result["winners"] == [s for s in range(3) if float(row[f"seat{s}_win_share"]) > 0]
