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


@dataclasses.dataclass
class Moments:
    """Running count, mean, sum of squared deviations and range of samples, added batch by batch
    (Chan et al.'s parallel update), so an interval over any number of samples needs constant memory."""

    n: int = 0
    mean: float = 0.0
    m2: float = 0.0
    low: float = math.inf
    high: float = -math.inf

    @classmethod
    def of(cls, samples) -> Moments:
        """The moments of ``samples`` (any real dtype, any shape; flattened)."""
        return cls().add(samples)

    def add(self, samples) -> Moments:
        """Take in more samples (in place); returns ``self``."""
        x = np.asarray(samples, dtype=np.float64).ravel()
        if x.size == 0:
            return self
        n, mean = x.size, float(x.mean())
        m2 = float(((x - mean) ** 2).sum())
        total = self.n + n
        delta = mean - self.mean
        self.mean += delta * n / total
        self.m2 += m2 + delta * delta * self.n * n / total
        self.n = total
        self.low, self.high = min(self.low, float(x.min())), max(self.high, float(x.max()))
        return self

    def constant(self) -> bool:
        """Whether the samples are equal up to rounding."""
        return self.high - self.low <= 1e-12 * max(1.0, abs(self.low), abs(self.high))

    def std(self) -> float:
        """The sample standard deviation (``ddof=1``)."""
        return math.sqrt(max(self.m2, 0.0) / (self.n - 1))


def _moments(samples) -> Moments:
    return samples if isinstance(samples, Moments) else Moments.of(samples)


def mean_ci(samples, level: float = 0.95) -> Estimate:
    """Mean of ``samples`` (1-D, any real dtype, or their :class:`Moments`) with a Student-t confidence interval."""
    m = _moments(samples)
    if m.n == 0:
        raise ValueError("mean_ci needs at least one sample")
    if m.n == 1 or m.constant():
        return Estimate(m.mean, m.mean, m.mean, m.n, level)
    half = float(stats.t.ppf(0.5 + level / 2, m.n - 1) * m.std() / math.sqrt(m.n))
    return Estimate(m.mean, m.mean - half, m.mean + half, m.n, level)


def proportion_ci(successes: int, n: int, level: float = 0.95) -> Estimate:
    """A proportion ``successes / n`` with a Wilson score interval."""
    if n <= 0:
        raise ValueError("proportion_ci needs n >= 1")
    ci = stats.binomtest(int(successes), int(n)).proportion_ci(level, method="wilson")
    return Estimate(successes / n, float(ci.low), float(ci.high), int(n), level)


def against_value(samples, value: float, level: float = 0.95) -> Estimate:
    """Mean of ``samples`` (or their :class:`Moments`) with its interval and the two-sided one-sample
    t-test p-value against ``value``."""
    m = _moments(samples)
    est = mean_ci(m, level)
    if m.constant():  # no spread: the t-test is undefined
        p = 1.0 if math.isclose(est.value, value, rel_tol=1e-12, abs_tol=1e-12) else 0.0
    else:
        t = (m.mean - value) / (m.std() / math.sqrt(m.n))
        p = float(2 * stats.t.sf(abs(t), m.n - 1))
    return dataclasses.replace(est, p_value=p)
