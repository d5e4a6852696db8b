"""Confidence intervals and tests: coverage and the edge cases."""

import numpy as np
import pytest

from scipy import stats

from aerodeck.stats.estimates import Moments, against_value, mean_ci, proportion_ci


def test_mean_ci_covers_the_true_mean_about_95_percent_of_the_time():
    rng = np.random.default_rng(0)
    covered = sum(not mean_ci(rng.normal(3.0, 2.0, 50)).excludes(3.0) for _ in range(2000))
    assert 1850 < covered < 1950


def test_mean_ci_degenerate_samples():
    est = mean_ci([2, 2, 2])
    assert (est.value, est.low, est.high, est.n) == (2.0, 2.0, 2.0, 3)
    with pytest.raises(ValueError, match="at least one"):
        mean_ci([])


def test_moments_added_chunk_by_chunk_equal_those_of_all_samples_at_once():
    rng = np.random.default_rng(1)
    x = rng.normal(1e6, 3.0, 10_001)  # a large mean: a naive sum of squares would lose the spread
    chunked = Moments()
    for part in np.array_split(x, 7):
        chunked.add(part)
    chunked.add([])
    assert chunked.n == x.size and chunked.mean == pytest.approx(x.mean(), rel=1e-14)
    assert chunked.std() == pytest.approx(x.std(ddof=1), rel=1e-9)
    assert (chunked.low, chunked.high) == (x.min(), x.max())
    whole, parts = mean_ci(x), mean_ci(chunked)
    assert (parts.low, parts.high) == pytest.approx((whole.low, whole.high), rel=1e-12)


def test_against_value_is_the_one_sample_t_test():
    rng = np.random.default_rng(4)
    x = rng.normal(0.1, 1.0, 300)
    assert against_value(x, 0.0).p_value == pytest.approx(stats.ttest_1samp(x, 0.0).pvalue, rel=1e-9)
    assert against_value(Moments.of(x), 0.0).p_value == pytest.approx(stats.ttest_1samp(x, 0.0).pvalue, rel=1e-9)


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
    few = against_value(x, 0.25)  # 4 samples: no test, and never a p that underflowed to 0
    assert few.p_value is None and few.note == "too few games: 4"
    flat = against_value(np.tile(x, 5), 0.25)  # 20 samples without spread: the t-test is undefined
    assert flat.p_value is None and flat.note.startswith("no spread")


def test_the_suite_has_one_wilson_interval():
    """Every Wilson interval of the reports (bench's proportions, shares against a value, compare's share
    metrics, the fair-share test) is :func:`aerodeck.stats.estimates.wilson`: no second copy to drift."""
    import ast
    from pathlib import Path

    import aerodeck

    root = Path(aerodeck.__file__).resolve().parents[1]
    defined = [f"{path.relative_to(root)}:{node.name}" for folder in ("aerodeck", "agents", "train", "envs")
               for path in sorted((root / folder).rglob("*.py"))
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if isinstance(node, ast.FunctionDef) and "wilson" in node.name.lower()]
    assert defined == ["aerodeck/stats/estimates.py:wilson"]
