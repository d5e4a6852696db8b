"""Small samples and extreme rates handled as a statistician would: intervals that never collapse to a
point, exact binomial tests for small counts or rates of 0 and 1, no verdict on too few games, never a
p-value below the floor of 1e-300 — and every verdict's interval, at the verdict's Holm level, agreeing
with the verdict."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from aerodeck.cli import main as cli
from aerodeck.stats.estimates import Moments, against_value, exact_share
from aerodeck.stats import significance as sig
from tests.games import MULTI, SOLO


@pytest.mark.parametrize("n", [1, 2, 20])
@pytest.mark.parametrize("case", ["all", "none", "half"])
def test_share_tests_never_collapse_and_stay_honest(n, case):
    k = {"all": n, "none": 0, "half": n // 2}[case]
    for against in (0.25, 0.5):
        t = sig.fair_share_test(float(k), n, against)
        assert t.low <= t.value <= t.high and t.high - t.low > 0.05  # never a point
        assert 0 <= t.low and t.high <= 1 and sig.P_FLOOR <= t.p_value <= 1
        assert t.method == ("exact" if min(k, n - k) < sig.EXACT_BELOW else "score")
        # the exact test and its Clopper–Pearson interval (the score test and Wilson's) invert each other
        assert (t.p_value < 0.05) == (not t.low <= against <= t.high)
    all_wins = sig.fair_share_test(20.0, 20, 0.5)
    assert all_wins.p_value == pytest.approx(2 * 0.5**20) and all_wins.low == pytest.approx(
        stats.beta.ppf(0.025, 20, 1))


def test_a_bench_share_of_twenty_wins_in_twenty_is_exact():
    wins = against_value(np.ones(20), 0.5, share=True)  # a head-to-head won 20 times of 20
    assert wins.method == "exact" and wins.p_value == pytest.approx(1.9073486328125e-06)
    assert 0.8 < wins.low < 0.85 and wins.high == 1.0
    none = against_value(np.zeros(20), 0.25, share=True)
    assert none.low == 0.0 and 0.15 < none.high < 0.18 and none.p_value == pytest.approx(2 * 0.75**20)
    one = against_value(np.ones(1), 0.25, share=True)
    assert one.low < 0.05 and one.high == 1.0 and one.p_value == 0.5
    # split wins (fractional per-game shares) with spread: the t-test on the per-game values
    split = against_value(np.tile([0.0, 0.5, 1.0, 1 / 3], 30), 0.25, share=True)
    assert split.method is None and split.p_value == pytest.approx(
        stats.ttest_1samp(np.tile([0.0, 0.5, 1.0, 1 / 3], 30), 0.25).pvalue)


@given(k=st.integers(0, 60), extra=st.integers(0, 60), against=st.floats(0.05, 0.95))
@settings(max_examples=60, deadline=None)
def test_exact_shares_invert_their_interval(k, extra, against):
    n = k + extra
    if n == 0:
        return
    low, high, p = exact_share(k, n, against)
    assert 0 <= low <= k / n <= high <= 1 and high > low and sig.P_FLOOR <= p <= 1
    if not math.isclose(p, 0.05, rel_tol=1e-6):
        assert (p < 0.05) == (not low <= against <= high)


@pytest.mark.parametrize("n", [1, 2, 9])
def test_too_few_games_get_no_test_and_no_verdict(n):
    rng = np.random.default_rng(n)
    a, b = rng.normal(1, 1, n), rng.normal(0, 1, n)
    for d in (sig.paired_difference(a, b), sig.welch_difference(a, b),
              sig.ratio_difference((a, np.ones(n)), (b, np.ones(n)), paired=True)):
        assert d.p_value is None and d.low is None and d.note == f"too few games: {n}"
        assert sig.verdict(d, None) == f"too few games: {n}"
    m = Moments.of(a - b)
    assert against_value(m, 0.0).p_value is None and against_value(m, 0.0).note == f"too few games: {n}"


def test_twenty_games_are_tested_and_an_underflow_is_kept_at_the_floor():
    rng = np.random.default_rng(0)
    d = sig.paired_difference(rng.normal(1, 1, 20), rng.normal(0, 1, 20))
    assert d.p_value is not None and d.low < d.value < d.high
    huge = sig.paired_difference(np.arange(5000) * 1e-9 + 1000.0, np.arange(5000) * 1e-9 * 1.0001)
    assert huge.p_value == sig.P_FLOOR  # t far beyond the float range: the bound, never 0


@given(st.lists(st.floats(0.0, 0.2), min_size=1, max_size=30), st.integers(0, 2**31))
@settings(max_examples=80, deadline=None)
def test_every_interval_at_its_holm_level_agrees_with_its_verdict(shifts, seed):
    rng = np.random.default_rng(seed)
    diffs = [sig.paired_difference(rng.normal(s, 1, 60), rng.normal(0, 1, 60)) for s in shifts]
    ps = [d.p_value for d in diffs]
    adjusted, levels = sig.holm(ps), sig.holm_levels(ps)
    for d, p, a in zip(diffs, adjusted, levels):
        at = sig.at_level(d, 1 - a)
        excludes = at.low > 0 or at.high < 0
        if not math.isclose(p, 0.05, rel_tol=1e-9):
            assert excludes == (p < 0.05)
        assert a <= 0.05 and a >= 0.05 / len(ps)


def run(argv, capsys):
    status = cli.main([*argv, "--no-progress"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def p_values(tree):
    """Every p-value in a results.json tree."""
    if isinstance(tree, dict):
        for k, v in tree.items():
            if k in ("p_value", "p_holm"):
                yield v
            else:
                yield from p_values(v)
    elif isinstance(tree, list):
        for v in tree:
            yield from p_values(v)


def test_one_game_gives_no_verdict_and_no_zero_p(tmp_path, capsys):
    out = tmp_path / "one"
    key, value = next(iter(SOLO.variants[1].items()))
    run(["compare", SOLO.id, "--variant", f"x:{key}={value}", "--agent", "random", "--games", "1",
         "--out", str(out)], capsys)
    results = json.loads((out / "results.json").read_text())
    assert results["comparisons"] and all(c["verdict"] == "too few games: 1" and c["p_holm"] is None
                                          for c in results["comparisons"])
    assert all(p is None or p >= sig.P_FLOOR for p in p_values(results))
    assert "<1e-300" not in (out / "report.md").read_text()


def test_games_csv_carries_the_numerator_and_denominator_of_ratio_metrics(tmp_path, capsys):
    out = tmp_path / "csv"
    cat = MULTI.catalogue()
    rate = next(m.name for m in cat.metrics if m.kind == "rate" and m.width == 1)
    run(["compare", MULTI.id, "--variant", "p3:" + f"{MULTI.players_option}=3", "--agent", "random", "--metric", rate,
         "--games", "30", "--out", str(out)], capsys)
    rows = list(csv.DictReader((out / "games.csv").open()))
    num = np.array([float(r[f"{rate}.num"]) for r in rows if r["variant"] == "base"])
    den = np.array([float(r[f"{rate}.den"]) for r in rows if r["variant"] == "base"])
    results = json.loads((out / "results.json").read_text())
    assert results["estimates"][rate]["base"]["random"][0]["value"] == pytest.approx(num.sum() / den.sum())


def test_the_skill_share_is_the_share_of_variance_between_the_two_agents():
    from aerodeck.judge.skill import multi_share, solo_share

    rng = np.random.default_rng(5)
    strong, weak = rng.poisson(3, 500).astype(float), rng.poisson(0.2, 500).astype(float)
    pooled = np.concatenate([strong, weak])
    between = 0.5 * ((strong.mean() - pooled.mean()) ** 2 + (weak.mean() - pooled.mean()) ** 2)
    assert solo_share(strong, weak) == pytest.approx(between / pooled.var())
    assert solo_share(strong, strong) == 0.0
    # a seat's win: the strong agent's share p among n players; η² of 0/1 wins between the two agents' seats
    n, p = 4, 0.7
    seats = np.array([p] + [(1 - p) / (n - 1)] * (n - 1))
    eta = np.sum((seats - 1 / n) ** 2) / n / (1 / n * (1 - 1 / n))
    assert multi_share(np.array([p]), np.array([1.0]), n) == pytest.approx(eta)
    assert multi_share(np.array([0.25]), np.array([1.0]), 4) == 0.0 and multi_share(np.ones(3), np.ones(3), 4) == 1.0
