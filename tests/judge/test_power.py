"""Honest about power: a compare says how many games its question needs (the practical size of each
metric, at the verdict's level and 80 % power, from the spread of the run's paired differences), and marks
a detected change smaller than the practical size."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
from scipy import stats

from aerodeck.cli import main as cli
from aerodeck.judge import power
from aerodeck.judge.report_markdown import _plain
from tests.games import SOLO
from tests.judge.options import scalar_means, variant


def run(argv, capsys):
    status = cli.main([*argv, "--no-progress"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def test_games_for_is_the_normal_sample_size_formula():
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    assert power.games_for(1.0, 0.1, 0.05) == math.ceil((z * 10) ** 2) == 785
    assert power.games_for(0.5, 0.1, 0.05) == math.ceil((z * 5) ** 2)
    assert power.games_for(1.0, 0.1, 0.001) > power.games_for(1.0, 0.1, 0.05)  # a stricter level needs more


def test_the_practical_size_of_a_share_is_two_points_unless_stated():
    class M:
        name, kind, practical = "x", "share", None

    assert power.practical_size(M) == 0.02
    M.kind = "mean"
    assert power.practical_size(M) is None
    assert power.practical_size(M, {"x": 0.5}) == 0.5
    M.practical = 0.3
    assert power.practical_size(M) == 0.3 and power.size_text(0.02, {"kind": "share"}) == "±2 points"


def test_a_20_game_compare_says_how_many_games_its_question_needs(tmp_path, capsys):
    out = tmp_path / "p"
    metric = scalar_means(SOLO)[0]
    stdout = run(["compare", SOLO.id, "--variant", variant(SOLO, "v"), "--agent", "random", "--metric", metric,
                  "--practical", f"{metric}=0.05", "--games", "20", "--out", str(out)], capsys)
    a = json.loads((out / "results.json").read_text())
    [c] = a["comparisons"]
    pw = c["power"]
    assert pw["practical"] == 0.05 and pw["games"] == 20
    # recomputed from games.csv: the spread of the paired differences, at the verdict's level
    rows = list(csv.DictReader(open(out / "games.csv", encoding="utf-8")))
    side = {v: np.array([float(r[metric]) for r in rows if r["variant"] == v]) for v in ("base", "v")}
    d = side["v"] - side["base"]
    sd = d.std(ddof=1) if d.std() > 0 else math.sqrt(side["v"].var(ddof=1) + side["base"].var(ddof=1))
    assert pw["games_needed"] == power.games_for(sd, 0.05, 1 - c["level"])
    short = c["p_holm"] >= 0.05 and not pw["enough"]  # no verdict, and fewer games than the size needs
    assert ("Too few games for this question" in stdout) == short
    if short:
        assert f"--games {pw['games_needed']}" in stdout
        report = (out / "report.md").read_text().split("## The question")[0]
        word = "up to about" if pw["basis"].startswith("the two sides") else "about"
        assert f"needs {word} {pw['games_needed']:,}" in report


def test_a_detected_change_smaller_than_the_practical_size_is_marked():
    a = {"games": 100, "metrics": {"score": {"unit": "tickets", "kind": "mean", "labels": [""]}},
         "estimates": {"score": {"v": {"t": [{"value": 2.0}]}, "base": {"t": [{"value": 1.98}]}}}}
    c = {"metric": "score", "column": "", "variant": "v", "table": "t", "against": ["base", "t"], "p_holm": 0.001,
         "difference": {"value": 0.02}, "interval": {"low": 0.01, "high": 0.03}, "verdict": "higher",
         "power": {"practical": 0.1, "games_needed": 10, "enough": True}}
    c["small"] = power.small(c)
    assert "real but smaller than the practical size ±0.1 tickets" in _plain(a, c)
    c["difference"]["value"], c["small"] = 0.2, None
    c["small"] = power.small(c)
    assert "smaller than the practical size" not in _plain(a, c)


def test_practical_refuses_an_unknown_metric_or_a_size_that_is_not_positive(tmp_path, capsys):
    for bad in ("nosuch=1", f"{scalar_means(SOLO)[0]}=0", f"{scalar_means(SOLO)[0]}=x"):
        status = cli.main(["compare", SOLO.id, "--variant", variant(SOLO, "v"), "--practical", bad,
                           "--out", str(tmp_path / "x"), "--no-progress"])
        err = capsys.readouterr().err
        assert status == 2 and ("unknown metric 'nosuch'" in err if bad.startswith("nosuch") else "--practical" in err)
        assert not (tmp_path / "x").exists()
