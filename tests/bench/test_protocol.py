"""The protocol's aggregates over training seeds (``aerodeck.bench.protocol``, on rliable) against values
computed by hand."""

import numpy as np
import pytest

pytest.importorskip("rliable")

from aerodeck.bench.protocol import aggregate, iqm  # noqa: E402


def test_iqm_is_the_mean_of_the_middle_half_of_every_score():
    # 8 scores sorted: 0 0 0 1 | 2 3 4 100 -> the middle half (drop 2 at each end): 0 1 2 3 -> 1.5
    assert iqm([[0, 0, 0, 100], [1, 2, 3, 4]]) == pytest.approx(1.5)
    # 1..20: the middle half is 6..15 -> 10.5
    assert iqm(np.arange(1, 21).reshape(5, 4)) == pytest.approx(10.5)


def test_the_point_estimates_are_the_iqm_and_the_mean():
    scores = np.array([[0.2, 1.0, 3.0], [0.4, 1.2, -1.0], [0.1, 0.9, 0.5], [0.3, 1.1, 0.7], [0.2, 0.8, 0.6]])
    agg = aggregate(scores, reps=500)
    assert agg.mean[0] == pytest.approx(scores.mean())
    flat = np.sort(scores.ravel())  # 15 scores: scipy trims int(0.25 * 15) = 3 from each end
    assert agg.iqm[0] == pytest.approx(flat[3:12].mean())
    assert (agg.seeds, agg.tasks) == (5, 3)


def test_the_bootstrap_interval_holds_the_estimate_and_shrinks_with_more_seeds():
    rng = np.random.default_rng(0)
    widths = []
    for seeds in (5, 50):
        scores = rng.normal([0.5, 1.0, 1.5], 0.3, size=(seeds, 3))
        agg = aggregate(scores, reps=2000)
        for value, low, high in (agg.iqm, agg.mean):
            assert low <= value <= high
        widths.append(agg.mean[2] - agg.mean[1])
    assert widths[1] < widths[0] / 2  # ten times the seeds: about a third of the width


def test_the_bootstrap_is_stratified_over_seeds_within_each_task():
    """A task whose seeds all score the same keeps that score in every resample: with every task
    constant across seeds the interval of the mean is a point."""
    scores = np.tile([0.0, 1.0, 2.0], (6, 1))
    agg = aggregate(scores, reps=500)
    assert agg.mean == pytest.approx((1.0, 1.0, 1.0))


def test_the_performance_profile_is_the_share_of_scores_above_each_threshold():
    scores = np.array([[0.0, 0.5, 1.0, 1.5], [0.25, 0.75, 1.25, 2.0]])
    agg = aggregate(scores, taus=[0.0, 0.5, 1.0, 1.9, 2.0], reps=300)
    # above 0: 7 of 8; above 0.5: 5; above 1.0: 3; above 1.9: 1; above 2.0: 0
    assert np.allclose(agg.profile, [7 / 8, 5 / 8, 3 / 8, 1 / 8, 0.0])
    assert (agg.profile_low <= agg.profile + 1e-12).all() and (agg.profile <= agg.profile_high + 1e-12).all()


def test_the_same_scores_and_seed_give_the_same_intervals():
    scores = np.random.default_rng(4).uniform(size=(5, 6))
    assert aggregate(scores, reps=400, seed=1).to_dict() == aggregate(scores, reps=400, seed=1).to_dict()


@pytest.mark.parametrize("bad", [np.zeros(5), np.zeros((0, 3)), [[1.0, np.nan]]])
def test_scores_that_are_not_seeds_by_tasks_are_refused(bad):
    with pytest.raises(ValueError, match="scores must be"):
        aggregate(bad)
