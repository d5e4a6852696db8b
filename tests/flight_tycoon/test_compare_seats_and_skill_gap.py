"""``aerodeck compare`` on Flight Tycoon: its tables (each agent, the mixed table), the skill gap,
the seats against the fair share."""

import json

import pytest

from aerodeck.cli import main as cli

FT = "flight-tycoon"


def run(argv, capsys):
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_flight_tycoon_tables_and_the_skill_gap(tmp_path, capsys):
    out = tmp_path / "ft"
    status, _, err = run(["compare", FT, "--variant", "share:vp_sharing=first_only", "--games", "24",
                          "--players", "3", "--out", str(out), "--no-progress", "--judges", "heuristic",
                          "--metric", "first_player_win", "--metric", "win_by_position", "--metric", "skill_gap"],
                         capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    assert [t["name"] for t in results["tables"]] == ["heuristic", "random", "heuristic vs random"]
    assert results["tables"][2] == {"name": "heuristic vs random", "agents": ["heuristic", "random"], "mixed": True,
                                    "judge": False}
    gap = results["skill_gap"]["base"]
    assert "fair share 0.333" in gap["what"] and 0 <= gap["value"] <= 1
    assert (out / "landings_by_square.png").exists() and (out / "game_length-histogram.png").exists()
    # win_by_position / 1st is first_player_win: tested once, in the comparisons and against the fair share
    assert {c["column"] for c in results["comparisons"] if c["metric"] == "win_by_position"} == {"2nd", "3rd"}
    fair = [(f["metric"], f["column"], f["variant"], f["table"]) for f in results["fair"]]
    assert len(fair) == len(set(fair)) == 2 * 3 * 3  # (first_player_win, 2nd, 3rd) × variants × tables
    assert [f["test"]["against"] for f in results["fair"]] == pytest.approx([1 / 3] * len(fair))
    assert "## Seats against the fair share" in (out / "report.md").read_text()
    skill = [c for c in results["comparisons"] if c["metric"] == "skill_gap"]
    assert [c["table"] for c in skill] == ["heuristic vs random"] and skill[0]["role"] == "skill"
