"""Fairness first (FT-7: the starting player is position 1): a 5-player compare's summary sentence of every
variant names the first seat's share of the win against the fair share 1/5 with its interval; a share's
change reads in points; games.csv holds each seat position's credit of the win, so the win share by seat
is recomputed from it; the plots draw the fair line."""

import csv
import json

import numpy as np
import pytest

from aerodeck.cli import main as cli

FT = "flight-tycoon"


@pytest.fixture(scope="module")
def five(tmp_path_factory):
    out = tmp_path_factory.mktemp("ft5") / "c"
    status = cli.main(["compare", FT, "--players", "5", "--variant", "small:hand_size=4", "--games", "60",
                       "--agent", "heuristic", "--out", str(out), "--no-progress"])
    assert status == 0
    return out


def test_the_summary_line_of_every_variant_names_the_first_seats_share_against_one_fifth(five):
    a = json.loads((five / "results.json").read_text())
    summary = (five / "report.md").read_text().split("## Summary", 1)[1].split("## The question", 1)[0]
    lines = [line for line in summary.splitlines() if line.startswith("- **") and "measured by" in line]
    assert [line.split("**")[1] for line in lines] == ["base", "small"]
    for line, variant in zip(lines, ["base", "small"]):
        [f] = [f for f in a["fair"] if (f["metric"], f["column"], f["variant"], f["table"])
               == ("first_player_win", "", variant, "heuristic")]
        t = f["test"]
        assert t["against"] == pytest.approx(0.2)
        first = line.split("measured by heuristic: ", 1)[1]
        assert first.startswith(f"first seat wins {t['value']:.3g} [{t['low']:.3g}, {t['high']:.3g}] of the games "
                                f"against a fair 0.2, {f['verdict']}")


def test_a_change_of_a_share_reads_in_points(five):
    a = json.loads((five / "results.json").read_text())
    [c] = [c for c in a["comparisons"] if (c["metric"], c["variant"], c["table"])
           == ("first_player_win", "small", "heuristic")]
    report = (five / "report.md").read_text()
    row = next(line for line in report.splitlines() if line.startswith("| first_player_win | small / heuristic |"))
    assert f"| {100 * c['difference']['value']:+.3g} points |" in row and " % |" not in row.split("|")[8]


def test_the_win_share_by_seat_is_recomputed_from_games_csv(five):
    a = json.loads((five / "results.json").read_text())
    rows = list(csv.DictReader(open(five / "games.csv", encoding="utf-8")))
    positions = ["1st", "2nd", "3rd", "4th", "5th"]
    for variant in ("base", "small"):
        mine = [r for r in rows if r["variant"] == variant and r["table"] == "heuristic"]
        credit = np.array([[float(r[f"win_by_position.{p}"]) for p in positions] for r in mine])
        assert credit.sum(axis=1) == pytest.approx(np.ones(len(mine)))  # one win per game, split when shared
        est = a["estimates"]["win_by_position"][variant]["heuristic"]
        assert credit.mean(axis=0) == pytest.approx([e["value"] for e in est[:5]])
        assert credit[:, 0] == pytest.approx([float(r["first_player_win"]) for r in mine])


def test_the_plots_draw_the_fair_line(five):
    from aerodeck.judge import designer_report

    a = json.loads((five / "results.json").read_text())
    fig = designer_report._overview(a, ["first_player_win"])
    lines = [line for line in fig.axes[0].get_lines() if line.get_label() == "fair share 1/n"]
    assert lines and list(lines[0].get_ydata()) == pytest.approx([0.2, 0.2])
    fig = designer_report._distribution(a, "win_by_position")
    assert any(line.get_label() == "fair share 1/n" for line in fig.axes[0].get_lines())


def test_the_most_favoured_seat_is_named_when_another_position_wins_more():
    from aerodeck.judge.report_markdown import fairness_clause

    est = lambda v, lo, hi: {"value": v, "low": lo, "high": hi, "n": 100}  # noqa: E731
    a = {"judges": ["heuristic"], "fair": [], "variants": {"base": {"players": 3}},
         "metrics": {"first_player_win": {"seat_share": True, "labels": [""]},
                     "win_by_position": {"seat_share": True, "labels": ["1st", "2nd", "3rd", "4th", "5th"]}},
         "estimates": {"first_player_win": {"base": {"heuristic": [est(0.25, 0.2, 0.3)]}},
                       "win_by_position": {"base": {"heuristic": [est(0.25, 0.2, 0.3), est(0.3, 0.25, 0.35),
                                                                  est(0.45, 0.4, 0.5), None, None]}}}}
    text = fairness_clause(a, "base")
    assert text.startswith("first seat wins 0.25 [0.2, 0.3] of the games against a fair 0.333, below the fair share")
    assert text.endswith("the most favoured seat is the 3rd: 0.45 [0.4, 0.5] (95 %)")
