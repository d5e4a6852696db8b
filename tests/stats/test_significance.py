"""Differences, p-values, Holm and verdicts: checked against scipy on known data."""


import numpy as np
import pytest
from scipy import stats

from aerodeck.stats.significance import (
    Difference, bootstrap_difference, holm, minimum_detectable_change, paired_difference, ratio_difference,
    ratio_estimate, verdict, welch_difference,
)
from aerodeck.stats.estimates import wilson

RNG = np.random.default_rng(20240611)
A = RNG.poisson(1.2, 300).astype(float)
B = A + RNG.normal(0.15, 1.0, 300)  # correlated with A: the same games under another variant


def test_paired_difference_is_scipys_paired_t_test():
    ref = stats.ttest_rel(B, A)
    ci = ref.confidence_interval(0.95)
    d = paired_difference(B, A)
    assert d.value == pytest.approx(np.mean(B - A), rel=1e-12)
    assert (d.low, d.high) == (pytest.approx(ci.low, rel=1e-10), pytest.approx(ci.high, rel=1e-10))
    assert d.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    assert d.n == 300 and d.method == "paired t"


def test_welch_difference_is_scipys_welch_test():
    a, b = RNG.normal(1.0, 2.0, 150), RNG.normal(0.4, 0.5, 400)
    ref = stats.ttest_ind(a, b, equal_var=False)
    ci = ref.confidence_interval(0.9)
    d = welch_difference(a, b, level=0.9)
    assert (d.low, d.high) == (pytest.approx(ci.low, rel=1e-10), pytest.approx(ci.high, rel=1e-10))
    assert d.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    assert d.n == 550


def test_a_ratio_over_a_denominator_of_ones_is_the_t_test():
    ones = np.ones_like(A)
    paired = ratio_difference((B, ones), (A, ones), paired=True)
    assert paired.p_value == pytest.approx(stats.ttest_rel(B, A).pvalue, rel=1e-10)
    assert paired.low == pytest.approx(paired_difference(B, A).low, rel=1e-10)
    welch = ratio_difference((B, ones), (A[:200], ones[:200]), paired=False)
    assert welch.p_value == pytest.approx(stats.ttest_ind(B, A[:200], equal_var=False).pvalue, rel=1e-10)
    est, low, high = ratio_estimate(A, ones)
    ci = stats.ttest_1samp(A, 0).confidence_interval(0.95)
    assert (est, low, high) == (pytest.approx(A.mean()), pytest.approx(ci.low), pytest.approx(ci.high))


def test_the_delta_method_agrees_with_the_bootstrap_on_a_ratio():
    attempts = RNG.integers(1, 6, 2000).astype(float)
    success_a = RNG.binomial(attempts.astype(int), 0.30).astype(float)
    success_b = RNG.binomial(attempts.astype(int), 0.36).astype(float)
    for paired in (True, False):
        delta = ratio_difference((success_b, attempts), (success_a, attempts), paired=paired)
        boot = bootstrap_difference((success_b, attempts), (success_a, attempts), paired=paired, seed=3)
        assert boot.value == pytest.approx(delta.value)
        assert boot.low == pytest.approx(delta.low, abs=0.006) and boot.high == pytest.approx(delta.high, abs=0.006)
        assert delta.p_value < 1e-6 and boot.p_value < 0.01


def test_the_bootstrap_interval_is_scipys_percentile_bootstrap():
    ones = np.ones(200)
    a, b = RNG.normal(0, 1, 200), RNG.normal(0.3, 1, 200)
    mine = bootstrap_difference((b, ones), (a, ones), paired=True, seed=0, resamples=4000)
    ref = stats.bootstrap((b - a,), np.mean, n_resamples=4000, method="percentile", random_state=1).confidence_interval
    assert mine.low == pytest.approx(ref.low, abs=0.02) and mine.high == pytest.approx(ref.high, abs=0.02)
    again = bootstrap_difference((b, ones), (a, ones), paired=True, seed=0, resamples=4000)
    assert again == mine  # seeded: the same numbers


def test_identical_samples_are_no_change_and_constant_gaps_are_certain():
    same = paired_difference(A, A)
    assert (same.value, same.low, same.high, same.p_value, same.se) == (0.0, 0.0, 0.0, 1.0, 0.0)
    shifted = paired_difference(A + 1, A)  # a constant gap: no spread, no test (never p = 0)
    assert shifted.value == 1.0 and shifted.p_value is None and shifted.note.startswith("no spread")
    assert verdict(shifted, None).startswith("no spread")
    assert welch_difference(np.ones(12), np.ones(14)).p_value == 1.0
    few = welch_difference(np.ones(5), np.ones(7))
    assert few.p_value is None and few.note == "too few games: 5"


def test_holm_matches_the_step_down_procedure_by_hand():
    p = [0.01, 0.04, 0.03, 0.005, 0.5]
    # sorted: 0.005*5=0.025, 0.01*4=0.04, 0.03*3=0.09, 0.04*2=0.08->0.09 (monotone), 0.5*1=0.5
    assert holm(p).tolist() == pytest.approx([0.04, 0.09, 0.09, 0.025, 0.5])
    assert holm([0.3, 0.6]).tolist() == pytest.approx([0.6, 0.6])
    assert holm([]).size == 0
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm([0.2, 1.5])


def test_holm_never_rejects_more_than_unadjusted_tests_nor_fewer_than_bonferroni():
    p = RNG.uniform(0, 0.1, 40)
    adjusted = holm(p)
    assert np.all(adjusted >= p)
    assert np.all(adjusted <= np.minimum(1, p * p.size) + 1e-15)


def test_wilson_matches_scipy_and_takes_shared_wins():
    for k, n in [(0, 10), (3, 10), (30, 100), (100, 100)]:
        p, low, high = wilson(k, n)
        ref = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
        assert (low, high) == (pytest.approx(ref.low, abs=1e-12), pytest.approx(ref.high, abs=1e-12))
    p, low, high = wilson(2.5, 10)
    assert p == 0.25 and low < 0.25 < high


def test_minimum_detectable_change_is_z_alpha_plus_z_power_standard_errors():
    assert minimum_detectable_change(1.0) == pytest.approx(1.959964 + 0.841621, rel=1e-5)
    assert minimum_detectable_change(0.0) == 0.0


def test_verdict_words():
    up = Difference(0.2, 0.1, 0.3, 1e-5, 0.05, 100, "paired t")
    assert verdict(up, 1e-4) == "higher"
    assert verdict(Difference(-0.2, -0.3, -0.1, 1e-5, 0.05, 100, "paired t"), 1e-4) == "lower"
    words = verdict(up, 0.2)
    assert words.startswith("no detectable change at this N; the smallest change this N detects is ±")
    assert words.endswith(f"{minimum_detectable_change(0.05):.3g}")
    assert verdict(paired_difference(A, A), 1.0) == "no change: equal in every game"


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="same games"):
        paired_difference([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="at least one game"):
        paired_difference([], [])
    with pytest.raises(ValueError, match="positive denominator"):
        ratio_difference(([1.0, 2.0], [0.0, 0.0]), ([1.0, 1.0], [1.0, 1.0]), paired=True)


def test_paired_intervals_cover_the_true_difference_at_the_nominal_rate():
    rng = np.random.default_rng(7)
    covered = 0
    for _ in range(1000):
        base = rng.poisson(2.0, 60).astype(float)
        variant = base + rng.normal(0.25, 1.0, 60)
        d = paired_difference(variant, base)
        covered += d.low <= 0.25 <= d.high
    assert 930 <= covered <= 970  # 95 % ± 3.5 binomial standard errors


def test_a_paired_difference_carries_the_pairing_correlation():
    from aerodeck.stats.significance import correlation

    d = paired_difference(B, A)
    assert d.correlation == pytest.approx(np.corrcoef(B, A)[0, 1], rel=1e-12)
    assert correlation(A, np.ones_like(A)) is None  # no spread on one side: undefined
    assert welch_difference(B, A).correlation is None


def test_the_fair_share_test_is_the_score_test_the_wilson_interval_inverts():
    from aerodeck.stats.significance import fair_share_test

    t = fair_share_test(262, 1000, 0.25)
    z = (0.262 - 0.25) / np.sqrt(0.25 * 0.75 / 1000)
    assert t.p_value == pytest.approx(2 * stats.norm.sf(z), rel=1e-12)
    assert (t.value, t.low, t.high) == pytest.approx(wilson(262, 1000))
    for k in range(150, 351, 5):
        t = fair_share_test(k, 1000, 0.25)
        assert (t.p_value < 0.05) == (not t.low <= 0.25 <= t.high), k
    with pytest.raises(ValueError, match=r"a value in \(0, 1\)"):
        fair_share_test(3, 10, 1.0)


def test_rate_intervals_are_a_percentile_bootstrap_over_games():
    from aerodeck.stats.significance import rate_estimates

    rng = np.random.default_rng(9)
    attempts = rng.integers(1, 4, size=(200, 2)).astype(float)
    done = rng.binomial(attempts.astype(int), [0.3, 0.02]).astype(float)
    (r, low, high), (r2, low2, high2) = rate_estimates(done, attempts, seed=5, resamples=500)
    idx = np.random.default_rng(5).integers(0, 200, size=(500, 200))  # the same draws, resampled naively
    draws = done[idx, 0].sum(1) / attempts[idx, 0].sum(1)
    assert r == pytest.approx(done[:, 0].sum() / attempts[:, 0].sum())
    assert (low, high) == pytest.approx(tuple(np.quantile(draws, [0.025, 0.975])), rel=1e-12)
    assert 0 <= low2 <= r2 <= high2 <= 1
