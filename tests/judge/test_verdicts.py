"""Verdicts a designer can trust: paired differences whatever the deal, judges set side by side. (A
game's own cases: tests/flight_tycoon/test_seat_fair_shares.py, tests/airport_scramble/test_rate_intervals.py,
test_compare_summary.py, test_judge_disagreement.py.)"""

import csv
import json

import numpy as np
import pytest

from tests.games import SOLO
from tests.judge.options import changes, variant
from aerodeck.cli import main as cli
from aerodeck.stats import significance as sig
from aerodeck.judge.analysis import agreement


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
                "p_holm": p, "verdict": "higher" if value > 0 else "lower",
                "difference": {"value": value, "low": value - 0.1, "high": value + 0.1}}

    def test(p_holm, value=0.2):
        return [{"metric": "score", "column": "", "variant": "v", "judges": ["heuristic", "search"], "value": value,
                 "low": value - 0.1, "high": value + 0.1, "p_holm": p_holm}]

    same = [comparison("heuristic", 0.5, 0.001), comparison("search", 0.3, 0.01)]
    assert agreement(same, ["heuristic", "search"], test(0.4)) == []
    assert same[1]["agree_text"] == "yes (2 judges)" and same[1]["agreement"] == "agree"
    # opposite verdicts whose difference is not detected: no detectable difference, not a disagreement
    other = [comparison("heuristic", 0.5, 0.001), comparison("search", -0.3, 0.01)]
    assert agreement(other, ["heuristic", "search"], test(0.2, 0.8)) == []
    assert other[0]["agreement"] == "no detectable difference" and other[0]["agree"]
    [d] = agreement(other, ["heuristic", "search"], test(0.001, 0.8))
    assert d["text"].startswith("no — opposite directions: heuristic: higher +0.5 [+0.4, +0.6]; search: lower -0.3 "
                                "[-0.4, -0.2] (difference of effects: heuristic − search +0.8")
    assert d["estimates"]["search"]["value"] == -0.3
    one = [comparison("heuristic", 0.5, 0.001), comparison("search", 0.1, 0.3)]
    assert agreement(one, ["heuristic", "search"], test(0.5)) == []
    assert one[0]["agreement"] == "no detectable difference"


def test_judges_are_compared_by_a_paired_test_of_the_difference_of_their_effects():
    rng = np.random.default_rng(3)
    deal = rng.normal(0, 1, 400)  # the deal moves both judges' scores: the paired test removes it
    h_b, h_v = deal + rng.normal(0, 0.3, 400), deal + 0.5 + rng.normal(0, 0.3, 400)
    s_b, s_v = deal + rng.normal(0, 0.3, 400), deal + 0.45 + rng.normal(0, 0.3, 400)
    ones = np.ones(400)
    d = sig.effect_difference((h_v, ones, h_b, ones), (s_v, ones, s_b, ones))
    ref = sig.paired_difference(h_v - h_b, s_v - s_b)
    assert d.value == pytest.approx(ref.value) and d.p_value == pytest.approx(ref.p_value, rel=1e-9)
    assert d.method == "paired t of the difference of effects"


def test_every_games_headline_metrics_are_in_its_catalogue():
    from aerodeck import envs

    for spec in envs.specs():
        if spec.metrics is None:
            continue
        names = spec.catalogue().names()
        assert set(spec.headline) <= set(names), (spec.id, sorted(set(spec.headline) - set(names)))
