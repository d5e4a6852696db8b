"""Confidence intervals and tests: coverage and the edge cases."""

import numpy as np
import pytest

from train.stats import difference_ci, mean_ci, proportion_ci, against_value


def test_mean_ci_covers_the_true_mean_about_95_percent_of_the_time():
    rng = np.random.default_rng(0)
    covered = sum(not mean_ci(rng.normal(3.0, 2.0, 50)).excludes(3.0) for _ in range(2000))
    assert 1850 < covered < 1950


def test_mean_ci_degenerate_samples():
    est = mean_ci([2, 2, 2])
    assert (est.value, est.low, est.high, est.n) == (2.0, 2.0, 2.0, 3)
    with pytest.raises(ValueError, match="at least one"):
        mean_ci([])


def test_difference_ci_detects_a_real_gap_and_not_a_fake_one():
    rng = np.random.default_rng(1)
    a, b = rng.normal(1.0, 1.0, 4000), rng.normal(0.8, 1.0, 4000)
    gap = difference_ci(a, b)
    assert gap.excludes(0.0) and gap.p_value < 0.001 and gap.low < 0.2 < gap.high
    same = difference_ci(a, rng.normal(1.0, 1.0, 4000))
    assert same.low < 0 < same.high or abs(same.value) < 0.06


def test_proportion_ci_is_wilson():
    est = proportion_ci(30, 100)
    assert est.value == 0.3 and 0.21 < est.low < 0.22 and 0.39 < est.high < 0.40
    assert proportion_ci(0, 10).low == 0.0


def test_test_against_a_reference_value():
    rng = np.random.default_rng(2)
    assert against_value(rng.normal(0.3, 0.1, 500), 0.25).p_value < 1e-6
    assert against_value([1, 1, 1], 1).p_value == 1.0


def test_samples_equal_up_to_rounding_count_as_constant():
    third = 1 / 3
    x = np.array([third, 1 - 2 * third, third, (1 - third) / 2])  # 1/3 by different roundings
    assert len(set(x.tolist())) > 1
    est = against_value(x, 1 / 3)
    assert est.low == est.high == est.value and est.p_value == 1.0
    assert against_value(x, 0.25).p_value == 0.0
