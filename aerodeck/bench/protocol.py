"""Aggregates of normalized scores over training seeds and tasks, with rliable (Agarwal et al., 2021,
"Deep reinforcement learning at the edge of the statistical precipice").

``aggregate(scores)`` takes the normalized scores of one method, ``float (n_seeds, n_tasks)`` (one row
per training seed, one column per task), and gives the interquartile mean (IQM: the mean of the middle
50 % of all seed × task scores) and the mean, each with a 95 % stratified bootstrap interval (seeds
resampled within each task: ``rliable.library.get_interval_estimates``), and the performance profile
(the share of seed × task scores above each threshold τ, with its interval:
``rliable.library.create_performance_profile``). The protocol asks for at least :data:`MIN_SEEDS` seeds.
"""

from __future__ import annotations

import dataclasses

import numpy as np

#: Training seeds the protocol asks a result to be reported over.
MIN_SEEDS = 5
#: Bootstrap resamples of the intervals (rliable's own default is 50,000; 2,000 for the profiles).
REPS = 10_000
#: The thresholds of the performance profiles: normalized scores 0 … 2.
TAUS = np.linspace(0.0, 2.0, 41)


@dataclasses.dataclass(frozen=True)
class Aggregate:
    """The aggregates of one method: ``iqm`` and ``mean`` as ``(value, low, high)``, ``taus`` ``float64 (T,)``
    and ``profile`` ``float64 (T,)`` with its interval ``profile_low`` / ``profile_high``, over
    ``seeds`` × ``tasks`` scores."""

    iqm: tuple[float, float, float]
    mean: tuple[float, float, float]
    taus: np.ndarray
    profile: np.ndarray
    profile_low: np.ndarray
    profile_high: np.ndarray
    seeds: int
    tasks: int

    def to_dict(self) -> dict:
        def est(t):
            return {"value": t[0], "low": t[1], "high": t[2], "level": 0.95}

        return {"iqm": est(self.iqm), "mean": est(self.mean), "seeds": self.seeds, "tasks": self.tasks,
                "performance_profile": {"tau": self.taus.tolist(), "fraction": self.profile.tolist(),
                                        "low": self.profile_low.tolist(), "high": self.profile_high.tolist()}}


def _check(scores) -> np.ndarray:
    scores = np.asarray(scores, np.float64)
    if scores.ndim != 2 or scores.shape[0] < 1 or scores.shape[1] < 1:
        raise ValueError(f"scores must be a 2-D array (n_seeds, n_tasks), got shape {scores.shape}")
    if not np.isfinite(scores).all():
        raise ValueError("scores must be finite numbers")
    return scores


def iqm(scores) -> float:
    """The interquartile mean of every score of ``scores`` ``(n_seeds, n_tasks)`` (rliable's
    ``metrics.aggregate_iqm``: scipy's 25 %-trimmed mean of the flattened scores)."""
    from rliable import metrics

    return float(metrics.aggregate_iqm(_check(scores)))


def aggregate(scores, taus=None, reps: int = REPS, seed: int = 0) -> Aggregate:
    """IQM and mean with 95 % stratified bootstrap intervals and the performance profile of normalized
    ``scores`` ``float (n_seeds, n_tasks)`` (see the module docstring). ``taus``: the profile's thresholds
    (default :data:`TAUS`); ``reps``: bootstrap resamples; ``seed``: the bootstrap's random state (the
    same scores and seed give the same intervals)."""
    scores = _check(scores)
    taus = TAUS if taus is None else np.asarray(taus, np.float64)
    # rliable's stratified bootstrap draws its resamples from numpy's global generator (whatever random_state
    # it is given): seeded here for the call, and put back as it was after
    state = np.random.get_state()
    try:
        np.random.seed(seed % 2**32)
        return _aggregate(scores, taus, reps)
    finally:
        np.random.set_state(state)


def _aggregate(scores, taus, reps) -> Aggregate:
    from rliable import library as rly
    from rliable import metrics

    def both(x):
        return np.array([metrics.aggregate_iqm(x), metrics.aggregate_mean(x)])

    points, intervals = rly.get_interval_estimates({"m": scores}, both, reps=reps)
    (p_iqm, p_mean), ((lo_iqm, lo_mean), (hi_iqm, hi_mean)) = points["m"], intervals["m"]
    profile, bands = rly.create_performance_profile({"m": scores}, taus, reps=max(200, reps // 5))
    return Aggregate((float(p_iqm), float(lo_iqm), float(hi_iqm)), (float(p_mean), float(lo_mean), float(hi_mean)),
                     taus, np.asarray(profile["m"], np.float64), np.asarray(bands["m"][0], np.float64),
                     np.asarray(bands["m"][1], np.float64), scores.shape[0], scores.shape[1])


def plot_profiles(profiles: dict[str, Aggregate], path) -> None:
    """Performance profiles of several methods (name → :class:`Aggregate`) on one plot, written to ``path``
    (rliable's ``plot_utils.plot_performance_profiles``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from rliable import plot_utils

    first = next(iter(profiles.values()))
    fig, ax = plt.subplots(figsize=(6, 4))
    plot_utils.plot_performance_profiles(
        {k: a.profile for k, a in profiles.items()},
        first.taus, performance_profile_cis={k: (a.profile_low, a.profile_high) for k, a in profiles.items()},
        xlabel=r"normalized score $\tau$ (random = 0, heuristic = 1)", ax=ax)
    ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
