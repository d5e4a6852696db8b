"""Verdicts a designer can trust: paired differences whatever the deal, judges set side by side. (A
game's own cases: tests/flight_tycoon/test_seat_fair_shares.py, tests/airport_scramble/test_rate_intervals.py,
test_compare_summary.py, test_judge_disagreement.py.)"""

import csv
import json

import numpy as np
import pytest

from tests.games import SOLO
from tests.train.judge.options import changes, variant
from aerodeck.train import cli
from aerodeck.train.judge import significance as sig
from aerodeck.train.judge.analysis import agreement


def run(argv, capsys):
    status = cli.main([*argv, "--no-progress"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def per_game(folder, variant: str, metric: str) -> np.ndarray:
    rows = csv.DictReader((folder / "games.csv").open())
    return np.array([float(r[metric]) for r in rows if r["variant"] == variant])


def test_a_variant_that_changes_the_deal_is_still_paired_game_by_game(tmp_path, capsys):
    # the spec's first variant changes the deal (a board or deck option among its options)
    assert "decisions" in [m.name for m in SOLO.catalogue().metrics]
    out = tmp_path / "p"
    argv = ["compare", SOLO.id, "--variant", variant(SOLO, "wide"), "--agent", "random", "--judges", "random",
            "--metric", "decisions", "--games", "100", "--seed", "4"]
    run([*argv, "--out", str(out)], capsys)
    results = json.loads((out / "results.json").read_text())
    deal = results["variants"]["wide"]["deal"]
    assert deal and any(f"{key}=" in deal for key in changes(SOLO))
    [c] = results["comparisons"]
    wide, base = per_game(out, "wide", "decisions"), per_game(out, "base", "decisions")
    ref = sig.paired_difference(wide, base)
    assert c["difference"]["method"] == "paired t"
    assert c["difference"]["p_value"] == pytest.approx(ref.p_value, rel=1e-9)
    assert c["difference"]["correlation"] == pytest.approx(np.corrcoef(wide, base)[0, 1], rel=1e-9)
    assert "| r |" in (out / "report.md").read_text()
    out_w = tmp_path / "w"
    run([*argv, "--out", str(out_w), "--test", "welch"], capsys)
    [w] = json.loads((out_w / "results.json").read_text())["comparisons"]
    assert w["difference"]["method"] == "Welch t" and w["difference"]["correlation"] is None
    assert w["difference"]["p_value"] == pytest.approx(sig.welch_difference(wide, base).p_value, rel=1e-9)


def test_agreement_of_judges_that_see_the_same_direction():
    def comparison(table, value, p):
        return {"metric": "score", "column": "", "variant": "v", "table": table, "against": ["base", table],
                "p_holm": p, "difference": {"value": value, "low": value - 0.1, "high": value + 0.1}}

    same = [comparison("heuristic", 0.5, 0.001), comparison("search", 0.3, 0.01)]
    assert agreement(same, ["heuristic", "search"]) == [] and same[1]["agree_text"] == "yes (2 judges)"
    other = [comparison("heuristic", 0.5, 0.001), comparison("search", -0.3, 0.01)]
    [d] = agreement(other, ["heuristic", "search"])
    assert d["text"] == "no — heuristic: higher +0.5 [+0.4, +0.6]; search: lower -0.3 [-0.4, -0.2]"
