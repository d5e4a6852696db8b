"""Statistics shared by every report: estimates with confidence intervals and significance tests.

All intervals are two-sided at ``level`` (default 0.95) and come from scipy.stats.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import stats


@dataclasses.dataclass(frozen=True)
class Estimate:
    """A point estimate with its confidence interval, the number of samples and (for tests) a p-value."""

    value: float
    low: float
    high: float
    n: int
    level: float = 0.95
    p_value: float | None = None

    def excludes(self, x: float) -> bool:
        """True when ``x`` lies outside the interval."""
        return x < self.low or x > self.high

    def to_dict(self) -> dict:
        """JSON-ready fields (``p_value`` only when set)."""
        out = {"value": self.value, "low": self.low, "high": self.high, "n": self.n, "level": self.level}
        if self.p_value is not None:
            out["p_value"] = self.p_value
        return out

    def __str__(self) -> str:
        return f"{self.value:.4g} [{self.low:.4g}, {self.high:.4g}]"


def mean_ci(samples, level: float = 0.95) -> Estimate:
    """Mean of ``samples`` (1-D, any real dtype) with a Student-t confidence interval."""
    x = np.asarray(samples, dtype=np.float64).ravel()
    n = x.size
    if n == 0:
        raise ValueError("mean_ci needs at least one sample")
    mean = float(x.mean())
    if n == 1 or constant(x):
        return Estimate(mean, mean, mean, n, level)
    half = float(stats.t.ppf(0.5 + level / 2, n - 1) * x.std(ddof=1) / math.sqrt(n))
    return Estimate(mean, mean - half, mean + half, n, level)


def difference_ci(a, b, level: float = 0.95) -> Estimate:
    """Mean of ``a`` minus mean of ``b`` (independent samples): Welch's t interval and p-value."""
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    diff = float(a.mean() - b.mean())
    if a.var() == 0 and b.var() == 0:
        return Estimate(diff, diff, diff, a.size + b.size, level, 1.0 if diff == 0 else 0.0)
    res = stats.ttest_ind(a, b, equal_var=False)
    ci = res.confidence_interval(level)
    return Estimate(diff, float(ci.low), float(ci.high), a.size + b.size, level, float(res.pvalue))


def proportion_ci(successes: int, n: int, level: float = 0.95) -> Estimate:
    """A proportion ``successes / n`` with a Wilson score interval."""
    if n <= 0:
        raise ValueError("proportion_ci needs n >= 1")
    ci = stats.binomtest(int(successes), int(n)).proportion_ci(level, method="wilson")
    return Estimate(successes / n, float(ci.low), float(ci.high), int(n), level)


def against_value(samples, value: float, level: float = 0.95) -> Estimate:
    """Mean of ``samples`` with its interval and the two-sided one-sample t-test p-value against ``value``."""
    est = mean_ci(samples, level)
    x = np.asarray(samples, dtype=np.float64).ravel()
    if constant(x):  # no spread: the t-test is undefined
        p = 1.0 if math.isclose(est.value, value, rel_tol=1e-12, abs_tol=1e-12) else 0.0
    else:
        p = float(stats.ttest_1samp(x, value).pvalue)
    return dataclasses.replace(est, p_value=p)


def constant(x: np.ndarray) -> bool:
    """Whether the samples ``x`` (float64, 1-D, not empty) are equal up to rounding."""
    return float(np.ptp(x)) <= 1e-12 * max(1.0, float(np.abs(x).max()))
