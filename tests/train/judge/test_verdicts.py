"""Verdicts a designer can trust: paired differences whatever the deal, seats against the fair share,
rates inside [0, 1], metrics without events, a summary that leads with the largest change, judges set
side by side."""

import csv
import json

import numpy as np
import pytest

from envs.flight_tycoon.rules import FlightTycoonRules
from train import cli
from train.judge import significance as sig
from train.judge.analysis import _fair_shares, agreement, estimate
from train.judge.backends import catalogue
from train.judge.compare import Question, Table
from train.judge.wording import interval

AS, FT = "airport-scramble", "flight-tycoon"


def run(argv, capsys):
    status = cli.main([*argv, "--no-progress"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def per_game(folder, variant: str, metric: str) -> np.ndarray:
    rows = csv.DictReader((folder / "games.csv").open())
    return np.array([float(r[metric]) for r in rows if r["variant"] == variant])


def test_a_variant_that_changes_the_deal_is_still_paired_game_by_game(tmp_path, capsys):
    out = tmp_path / "p"
    run(["compare", AS, "--variant", "wide:face_up=5", "--agent", "random", "--judges", "random", "--metric", "turns",
         "--games", "200", "--seed", "4", "--out", str(out)], capsys)
    results = json.loads((out / "results.json").read_text())
    assert "face_up=5" in results["variants"]["wide"]["deal"]
    [c] = results["comparisons"]
    wide, base = per_game(out, "wide", "turns"), per_game(out, "base", "turns")
    ref = sig.paired_difference(wide, base)
    assert c["difference"]["method"] == "paired t"
    assert c["difference"]["p_value"] == pytest.approx(ref.p_value, rel=1e-9)
    assert c["difference"]["correlation"] == pytest.approx(np.corrcoef(wide, base)[0, 1], rel=1e-9)
    assert "| r |" in (out / "report.md").read_text()
    out_w = tmp_path / "w"
    run(["compare", AS, "--variant", "wide:face_up=5", "--agent", "random", "--judges", "random", "--metric", "turns",
         "--games", "200", "--seed", "4", "--out", str(out_w), "--test", "welch"], capsys)
    [w] = json.loads((out_w / "results.json").read_text())["comparisons"]
    assert w["difference"]["method"] == "Welch t" and w["difference"]["correlation"] is None
    assert w["difference"]["p_value"] == pytest.approx(sig.welch_difference(wide, base).p_value, rel=1e-9)


def seat_table(win_probs, games: int, seed: int):
    """A synthetic 4-player cell whose seat position k wins with probability ``win_probs[k]``."""
    rng = np.random.default_rng(seed)
    n = len(win_probs)
    winner = rng.choice(n, size=games, p=win_probs)
    by_position = np.zeros((games, 5))
    by_position[np.arange(games), winner] = 1
    den = np.zeros((games, 5))
    den[:, :n] = 1
    return {"metrics": {"first_player_win": (by_position[:, :1].copy(), np.ones((games, 1))),
                        "win_by_position": (by_position, den)}}


def test_seat_shares_are_tested_against_the_fair_share_once_per_seat():
    rules = FlightTycoonRules().replace(n_players=4)
    question = Question(FT, {"base": rules}, (Table("biased", ("random",)), Table("fair", ("random",))), 4000, 0,
                        ("first_player_win", "win_by_position"))
    cells = {("base", "biased"): seat_table([0.3, 0.25, 0.25, 0.2], 4000, 1),
             ("base", "fair"): seat_table([0.25] * 4, 4000, 2)}
    metrics_of = {"base": {m.name: m for m in catalogue(FT).metrics}}
    tests = {(f["table"], f["metric"], f["column"]): f["test"] for f in _fair_shares(question, cells, metrics_of)}
    assert ("biased", "win_by_position", "1st") not in tests  # first_player_win is that seat, tested once
    assert ("biased", "win_by_position", "5th") not in tests  # no 5th seat at 4 players
    first, fourth = tests[("biased", "first_player_win", "")], tests[("biased", "win_by_position", "4th")]
    assert first.against == fourth.against == 0.25
    assert first.p_value < 1e-6 and first.value > 0.25 and first.low > 0.25
    assert fourth.p_value < 1e-6 and fourth.high < 0.25
    assert tests[("fair", "first_player_win", "")].p_value > 0.05
    for t in tests.values():  # the score test is the one the Wilson interval inverts
        assert (t.p_value < 0.05) == (not t.low <= t.against <= t.high)


def test_rate_intervals_stay_inside_0_and_1_and_say_when_nothing_happened():
    metric = catalogue(AS).metric("ticket_completion")
    rng = np.random.default_rng(3)
    attempts = rng.integers(0, 3, size=(80, 3)).astype(float)
    attempts[:, 2] = 0  # a ticket nobody attempted
    done = np.zeros_like(attempts)
    attempts[5, 0] = done[5, 0] = 1  # one completion in 80 games
    done[:, 1] = attempts[:, 1]  # always completed
    rare, always, never = estimate(metric, done, attempts, seed=0)
    assert sig.ratio_estimate(done[:, 0], attempts[:, 0])[1] < 0  # the delta method's interval would leave [0, 1]
    assert 0 <= rare["low"] <= rare["value"] <= rare["high"] <= 1 and rare["low"] < rare["value"] < rare["high"]
    assert always["value"] == always["high"] == 1 and 0 < always["low"] < 1
    assert never is None
    no_win = estimate(catalogue(AS).metric("won"), np.zeros((50, 1)), np.ones((50, 1)))[0]
    assert no_win["note"] == "no events" and no_win["low"] == 0 < no_win["high"] < 0.1  # Wilson: how rare it can be
    removals = estimate(catalogue(AS).metric("line_removals"), np.zeros((50, 1)), np.ones((50, 1)))[0]
    assert interval(removals) == "0 (no events in 50 games)"


def test_the_summary_opens_with_the_largest_change(tmp_path, capsys):
    out = tmp_path / "s"
    run(["compare", AS, "--variant", "easy:ticket_turn_bonus=4", "--agent", "heuristic", "--judges", "heuristic",
         "--metric", "score", "--metric", "turns", "--metric", "zero_tickets", "--games", "150", "--seed", "1",
         "--out", str(out)], capsys)
    results = json.loads((out / "results.json").read_text())
    found = []
    for c in results["comparisons"]:
        if c["p_holm"] < 0.05:
            base = results["estimates"][c["metric"]]["base"][c["table"]][0]["value"]
            found.append((abs(c["difference"]["value"] / base) if base else np.inf, c["metric"]))
    assert len(found) >= 2
    largest = max(found)[1]
    report = (out / "report.md").read_text()
    summary = report.split("## Summary", 1)[1].split("## The question", 1)[0]
    first = next(line for line in summary.splitlines() if line.startswith("- "))
    assert first.startswith(f"- The largest change: **{largest}**")
    assert " %" in first and "instead of" in first


def test_judges_that_disagree_are_named_with_their_differences(tmp_path, capsys):
    # the random agent waits, so forbidding waiting lowers its share of waits; the agent already forbidden
    # to wait cannot change: the two judges disagree by construction
    out = tmp_path / "j"
    nowait = "restricted:base=random,forbid=wait"
    run(["compare", AS, "--variant", "nowait:allow_wait=off", "--agent", "random", "--judges", "random", nowait,
         "--metric", "action_mix", "--games", "60", "--seed", "2", "--out", str(out)], capsys)
    results = json.loads((out / "results.json").read_text())
    assert results["judges"] == ["random", nowait]
    [d] = [d for d in results["disagreements"] if d["column"] == "wait"]
    assert d["directions"] == {"random": -1, nowait: 0}
    assert d["text"].startswith("no — random: lower -") and f"{nowait}: no detectable change +0 [+0, +0]" in d["text"]
    wait = [c for c in results["comparisons"] if c["metric"] == "action_mix" and c["column"] == "wait"
            and c["table"] in results["judges"] and c["against"] == ["base", c["table"]]]
    assert len(wait) == 2 and {c["agree"] for c in wait} == {False}
    assert "**The judges disagree** on: action_mix / wait under nowait" in (out / "report.md").read_text()


def test_agreement_of_judges_that_see_the_same_direction():
    def comparison(table, value, p):
        return {"metric": "score", "column": "", "variant": "v", "table": table, "against": ["base", table],
                "p_holm": p, "difference": {"value": value, "low": value - 0.1, "high": value + 0.1}}

    same = [comparison("heuristic", 0.5, 0.001), comparison("search", 0.3, 0.01)]
    assert agreement(same, ["heuristic", "search"]) == [] and same[1]["agree_text"] == "yes (2 judges)"
    other = [comparison("heuristic", 0.5, 0.001), comparison("search", -0.3, 0.01)]
    [d] = agreement(other, ["heuristic", "search"])
    assert d["text"] == "no — heuristic: higher +0.5 [+0.4, +0.6]; search: lower -0.3 [-0.4, -0.2]"
