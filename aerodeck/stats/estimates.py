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
    #: How the interval and the test were made, when not a t interval (``wilson``, ``exact``).
    method: str | None = None
    #: Why there is no test (``p_value`` None): ``too few games: N`` or ``no spread``.
    note: str | None = None

    def excludes(self, x: float) -> bool:
        """True when ``x`` lies outside the interval."""
        return x < self.low or x > self.high

    def to_dict(self) -> dict:
        """JSON-ready fields (``p_value`` only when set)."""
        out = {"value": self.value, "low": self.low, "high": self.high, "n": self.n, "level": self.level}
        if self.p_value is not None or self.note is not None:
            out["p_value"] = self.p_value
        for key in ("method", "note"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
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
    """A proportion ``successes / n`` with a Wilson score interval (:func:`wilson`)."""
    if n <= 0:
        raise ValueError("proportion_ci needs n >= 1")
    p, low, high = wilson(successes, n, level)
    return Estimate(p, low, high, int(n), level)


#: The fewest samples a t-test is made on; below it :func:`against_value` gives no p ("too few games").
MIN_SAMPLES = 10
#: The smallest p-value reported: one that underflows below it is kept as this bound (shown ``<1e-300``).
P_FLOOR = 1e-300
#: A share is tested exactly (binomial) when the smaller of its successes and failures is below this.
EXACT_BELOW = 10


def exact_share(successes: float, n: int, against: float, level: float = 0.95) -> tuple[float, float, float]:
    """``(low, high, p)``: the Clopper–Pearson interval of ``successes / n`` and the two-sided exact binomial
    p-value against ``against`` (twice the smaller tail, at most 1: the test the Clopper–Pearson interval
    inverts, so ``against`` lies outside the interval exactly when p < 1 − level). Fractional successes
    (split wins) are rounded to the nearest count; the interval always keeps the observed share."""
    k, n = int(round(successes)), int(round(n))
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"an exact share needs 0 <= successes <= n and n >= 1, got {successes} of {n}")
    a = 1 - level
    low = 0.0 if k == 0 else float(stats.beta.ppf(a / 2, k, n - k + 1))
    high = 1.0 if k == n else float(stats.beta.ppf(1 - a / 2, k + 1, n - k))
    p = min(1.0, 2 * min(float(stats.binom.cdf(k, n, against)), float(stats.binom.sf(k - 1, n, against))))
    share = successes / n
    return min(low, share), max(high, share), max(p, P_FLOOR)


def _zero_one(m: Moments) -> bool:
    """Whether samples in [0, 1] are all 0 or 1: then their sum of squared deviations is ``k − k²/n``
    (``k`` the sum), the largest any samples in [0, 1] with that sum can have."""
    k = m.mean * m.n
    return (m.low >= 0 and m.high <= 1 and abs(k - round(k)) < 1e-9
            and abs(m.m2 - (k - k * k / m.n)) <= 1e-9 * max(1.0, m.n))


def share_against(m: Moments, value: float, level: float = 0.95) -> Estimate:
    """A share (per-game values in [0, 1]: a win, a win split over seats, a head-to-head result) against
    ``value`` in (0, 1). Samples of 0 and 1 (a count of successes): Wilson interval and score test, or —
    fewer than :data:`EXACT_BELOW` successes or failures — the Clopper–Pearson interval and the exact
    binomial test. Fractional samples: the one-sample t when there are :data:`MIN_SAMPLES` or more with
    some spread; otherwise the Wilson interval and score test, conservative for values in [0, 1] (their
    variance is at most that of 0/1 samples with the same mean). Intervals never collapse to a point."""
    k, n = m.mean * m.n, m.n
    if _zero_one(m) or m.n < MIN_SAMPLES or m.constant():
        if min(k, n - k) < EXACT_BELOW:
            low, high, p = exact_share(k, n, value, level)
            return Estimate(m.mean, low, high, n, level, p, method="exact")
        _, low, high = wilson(k, n, level)
        z = (m.mean - value) / math.sqrt(value * (1 - value) / n)
        return Estimate(m.mean, low, high, n, level, max(float(2 * stats.norm.sf(abs(z))), P_FLOOR), method="wilson")
    est = mean_ci(m, level)
    t = (m.mean - value) / (m.std() / math.sqrt(m.n))
    return dataclasses.replace(est, p_value=max(float(2 * stats.t.sf(abs(t), m.n - 1)), P_FLOOR))


def wilson(successes: float, n: float, level: float = 0.95) -> tuple[float, float, float]:
    """``(p, low, high)``: the proportion ``successes / n`` with its Wilson score interval, the suite's one
    Wilson interval (the same as scipy's ``binomtest(k, n).proportion_ci(method="wilson")`` for a count;
    ``successes`` may be fractional: shared wins count as a share). The interval always keeps ``p``."""
    if not n > 0:
        raise ValueError(f"a proportion needs n >= 1, got n = {n}")
    z = float(stats.norm.ppf(0.5 + level / 2))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n))
    return p, min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))


def against_value(samples, value: float, level: float = 0.95, share: bool = False) -> Estimate:
    """Mean of ``samples`` (or their :class:`Moments`) with its interval and the two-sided one-sample
    t-test p-value against ``value``. ``share``: the samples are shares in [0, 1] and ``value`` lies in
    (0, 1) — see :func:`share_against` (Wilson or exact binomial where a t-test would fail). Fewer than
    :data:`MIN_SAMPLES` samples, or none with spread (the t-test is undefined): no p-value (``None``)
    and a ``note`` ("too few games: N", "no spread"), except samples all equal to ``value`` (p = 1).
    A p-value that underflows is kept as :data:`P_FLOOR`."""
    m = _moments(samples)
    if share:
        if not 0 < value < 1:
            raise ValueError(f"a share is tested against a value in (0, 1), got {value}")
        if m.n == 0:
            raise ValueError("against_value needs at least one sample")
        return share_against(m, value, level)
    est = mean_ci(m, level)
    if m.constant() and math.isclose(est.value, value, rel_tol=1e-12, abs_tol=1e-12):
        return dataclasses.replace(est, p_value=1.0)  # every sample is the value: nothing to find
    if m.n < MIN_SAMPLES:
        return dataclasses.replace(est, note=f"too few games: {m.n}")
    if m.constant():  # no spread: the t-test is undefined
        return dataclasses.replace(est, note=f"no spread: every sample is {est.value:.4g}")
    t = (m.mean - value) / (m.std() / math.sqrt(m.n))
    p = float(2 * stats.t.sf(abs(t), m.n - 1))
    return dataclasses.replace(est, p_value=max(p, P_FLOOR))
