"""Differences between rule variants: intervals, p-values, Holm–Bonferroni, verdicts in words.

Every function takes per-game samples and returns a :class:`Difference` (variant minus base) with a
two-sided interval at ``level`` and a two-sided p-value against "no change":

- :func:`paired_difference`: the same games under both variants (common random numbers): Student's t on
  the game-by-game differences (``scipy.stats.ttest_rel``).
- :func:`welch_difference`: independent games (the deal depends on the variant): Welch's t
  (``scipy.stats.ttest_ind(equal_var=False)``).
- :func:`ratio_difference`: a ratio of sums over games (``Σ y / Σ x``, e.g. completions per attempt, or a
  mean over the games where a metric is defined), paired or not, by the delta method: each game's
  linearised contribution ``(y − R x) / mean(x)`` goes through the t machinery above, so with ``x ≡ 1``
  it *is* the paired / Welch t-test.
- :func:`bootstrap_difference`: a percentile bootstrap over games (pairs resampled together when
  paired), seeded, for a check free of the normal approximation.

A paired difference carries the pairing's ``correlation``: how strongly the two sides' per-game values
(their linearised contributions, for a ratio) move together over the common seeds — the closer to 1, the
narrower the paired interval is than an unpaired one. :func:`fair_share_test` tests a share (a seat's
share of the win) against a fixed value such as the fair share 1/n; :func:`rate_estimates` gives ratios
of counts (completions per attempt) bootstrap intervals that stay inside [0, 1].

:func:`holm` adjusts the p-values of all the comparisons of a run (Holm 1979, step-down, monotone),
:func:`minimum_detectable_change` is the smallest true change detected with 80 % power at the nominal
level, and :func:`verdict` puts the three in words.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from scipy import stats

from aerodeck.stats.estimates import wilson

#: The power at which :func:`minimum_detectable_change` is quoted.
POWER = 0.8
#: The fewest games (pairs, when paired) a difference is tested on: below this a difference gets no
#: p-value and no verdict ("too few games: N"), as the t and delta-method approximations need a handful.
MIN_GAMES = 10
#: The smallest p-value written: one that underflows below it is kept as this bound (``p_text`` shows
#: ``<1e-300``), never as 0.
P_FLOOR = 1e-300
#: Shares are tested exactly (binomial) when the smaller of successes and failures is below this.
EXACT_BELOW = 10


@dataclasses.dataclass(frozen=True)
class Difference:
    """A difference (variant − base) with its interval, p-value and standard error.

    ``n``: the games behind it (pairs when paired, both sides' games otherwise); ``method``: how it was
    computed (``paired t``, ``Welch t``, ``delta (paired)``, ``delta (Welch)``, ``bootstrap``).
    """

    value: float
    low: float
    high: float
    p_value: float
    se: float
    n: int
    method: str
    level: float = 0.95
    #: Paired differences: Pearson's correlation of the two sides' per-game values (``None``: unpaired, or a
    #: side without spread).
    correlation: float | None = None
    #: The t degrees of freedom behind the interval (``None``: not a t interval).
    df: float | None = None
    #: Why there is no test (``p_value`` and the interval ``None``): ``too few games: N`` or ``no spread: …``.
    note: str | None = None

    @property
    def tested(self) -> bool:
        """Whether the difference has a p-value (enough games, some spread or none needed)."""
        return self.p_value is not None

    def to_dict(self) -> dict:
        """JSON-ready fields."""
        return dataclasses.asdict(self)


def floor_p(p: float) -> float:
    """A p-value kept at or above :data:`P_FLOOR` (an underflow is stored as that bound)."""
    return max(float(p), P_FLOOR)


def _t_difference(value: float, se: float, df: float, n: int, method: str, level: float) -> Difference:
    """Difference from a point value, its standard error and t degrees of freedom. Fewer than
    :data:`MIN_GAMES` games: no test (``note`` "too few games: N"); no spread at all: "equal in every
    game" (p = 1) when the difference is 0, otherwise no test (``note`` "no spread")."""
    if n < MIN_GAMES:
        return Difference(value, None, None, None, se if math.isfinite(se) else 0.0, n, method, level,
                          note=f"too few games: {n}")
    if not se > 0 or not math.isfinite(se):
        if math.isclose(value, 0.0, abs_tol=1e-12):
            return Difference(value, value, value, 1.0, 0.0, n, method, level)
        return Difference(value, None, None, None, 0.0, n, method, level,
                          note=f"no spread: every game differs by {value:.4g}, no test applies")
    t = value / se
    half = float(stats.t.ppf(0.5 + level / 2, df)) * se
    p = floor_p(2 * stats.t.sf(abs(t), df))
    return Difference(value, value - half, value + half, p, se, n, method, level, df=float(df))


def at_level(diff: Difference, level: float) -> Difference:
    """``diff`` with its interval at ``level`` (a t interval re-derived from its standard error and
    degrees of freedom; an untested or spread-free difference unchanged but for the level). A bootstrap
    difference is recomputed by its caller (the resamples are not kept)."""
    if diff.df is None or not diff.se > 0:
        return dataclasses.replace(diff, level=level)
    half = float(stats.t.ppf(0.5 + level / 2, diff.df)) * diff.se
    return dataclasses.replace(diff, low=diff.value - half, high=diff.value + half, level=level)


def _clean(x) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64).ravel()
    if a.size == 0:
        raise ValueError("a difference needs at least one game on each side")
    return a


def correlation(a, b) -> float | None:
    """Pearson's correlation of two equally long samples (float ``(G,)``); ``None`` when either side has
    no spread (the correlation is undefined)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.size < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    return float(np.clip(stats.pearsonr(a, b).statistic, -1.0, 1.0))


def paired_difference(variant, base, level: float = 0.95) -> Difference:
    """Mean of ``variant − base`` game by game (float arrays ``(G,)``, the same games): paired t, with the
    pairing's correlation."""
    a, b = _clean(variant), _clean(base)
    if a.shape != b.shape:
        raise ValueError(f"paired samples need the same games, got {a.size} and {b.size}")
    d = a - b
    n = d.size
    se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    return dataclasses.replace(_t_difference(float(d.mean()), se, n - 1, n, "paired t", level),
                               correlation=correlation(a, b))


def _welch_se_df(var_a: float, n_a: int, var_b: float, n_b: int) -> tuple[float, float]:
    """Welch's standard error of a difference of means and its Welch–Satterthwaite degrees of freedom."""
    va, vb = var_a / n_a, var_b / n_b
    se = math.sqrt(va + vb)
    den = va**2 / (n_a - 1) + vb**2 / (n_b - 1)
    return se, ((va + vb) ** 2 / den if den > 0 else 1.0)


def welch_difference(variant, base, level: float = 0.95) -> Difference:
    """Mean of ``variant`` minus mean of ``base`` (independent games, float ``(Ga,)`` and ``(Gb,)``): Welch t."""
    a, b = _clean(variant), _clean(base)
    if min(a.size, b.size) < MIN_GAMES:
        return Difference(float(a.mean() - b.mean()), None, None, None, 0.0, a.size + b.size, "Welch t", level,
                          note=f"too few games: {min(a.size, b.size)}")
    se, df = _welch_se_df(a.var(ddof=1), a.size, b.var(ddof=1), b.size)
    return _t_difference(float(a.mean() - b.mean()), se, df, a.size + b.size, "Welch t", level)


def ratio(numerator, denominator) -> float:
    """``Σ numerator / Σ denominator`` (NaN when the denominator sums to 0)."""
    den = float(np.sum(denominator))
    return float(np.sum(numerator)) / den if den > 0 else math.nan


def linearised(numerator, denominator) -> np.ndarray:
    """Each game's delta-method contribution to the ratio of sums: ``(y − R x) / mean(x)``, float ``(G,)``."""
    y, x = _clean(numerator), _clean(denominator)
    r, mean_x = ratio(y, x), x.mean()
    if not mean_x > 0:
        raise ValueError("a ratio needs a positive denominator")
    return (y - r * x) / mean_x


def ratio_estimate(numerator, denominator, level: float = 0.95) -> tuple[float, float, float]:
    """``(R, low, high)``: the ratio of sums over games with its delta-method t interval."""
    z = linearised(numerator, denominator)
    r = ratio(numerator, denominator)
    n = z.size
    se = float(z.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    half = float(stats.t.ppf(0.5 + level / 2, n - 1)) * se if se > 0 else 0.0
    return r, r - half, r + half


def ratio_difference(variant: tuple, base: tuple, paired: bool, level: float = 0.95) -> Difference:
    """``R_variant − R_base`` for ratios of sums over games; ``variant`` / ``base``: ``(numerator,
    denominator)``, each float ``(G,)``; ``paired``: the same games on both sides (then ``Ga == Gb``)."""
    za, zb = linearised(*variant), linearised(*base)
    value = ratio(*variant) - ratio(*base)
    if paired:
        if za.shape != zb.shape:
            raise ValueError(f"paired samples need the same games, got {za.size} and {zb.size}")
        d = za - zb
        se = float(d.std(ddof=1) / math.sqrt(d.size)) if d.size > 1 else 0.0
        return dataclasses.replace(_t_difference(value, se, d.size - 1, d.size, "delta (paired)", level),
                                   correlation=correlation(za, zb))
    if min(za.size, zb.size) < MIN_GAMES:
        return Difference(value, None, None, None, 0.0, za.size + zb.size, "delta (Welch)", level,
                          note=f"too few games: {min(za.size, zb.size)}")
    se, df = _welch_se_df(za.var(ddof=1), za.size, zb.var(ddof=1), zb.size)
    return _t_difference(value, se, df, za.size + zb.size, "delta (Welch)", level)


def bootstrap_difference(variant: tuple, base: tuple, paired: bool, seed: int, level: float = 0.95,
                         resamples: int = 2000) -> Difference:
    """Percentile bootstrap of ``R_variant − R_base`` (ratios of sums; a plain mean is ``(values,
    ones)``): games resampled with replacement, pairs together when ``paired``; seeded by ``seed``.

    The p-value is the two-sided bootstrap p: twice the share of resampled differences on the other
    side of 0, never below ``1 / resamples`` (the resolution of the resampling) and at most 1.
    """
    ya, xa = (_clean(v) for v in variant)
    yb, xb = (_clean(v) for v in base)
    rng = np.random.default_rng(seed)
    value = ratio(ya, xa) - ratio(yb, xb)
    if paired:
        if ya.shape != yb.shape:
            raise ValueError(f"paired samples need the same games, got {ya.size} and {yb.size}")
        idx = rng.integers(0, ya.size, size=(resamples, ya.size))
        ia = ib = idx
    else:
        ia = rng.integers(0, ya.size, size=(resamples, ya.size))
        ib = rng.integers(0, yb.size, size=(resamples, yb.size))
    with np.errstate(invalid="ignore", divide="ignore"):
        draws = ya[ia].sum(1) / xa[ia].sum(1) - yb[ib].sum(1) / xb[ib].sum(1)
    draws = draws[np.isfinite(draws)]
    low, high = np.quantile(draws, [0.5 - level / 2, 0.5 + level / 2])
    if np.all(draws == value):
        p = 1.0 if value == 0 else 0.0
    else:
        p = float(min(1.0, max(1.0 / resamples, 2 * min(np.mean(draws <= 0), np.mean(draws >= 0)))))
    se = float(draws.std(ddof=1)) if draws.size > 1 else 0.0
    r = correlation(linearised(ya, xa), linearised(yb, xb)) if paired else None
    if ya.size < MIN_GAMES or (not paired and yb.size < MIN_GAMES):
        return Difference(value, None, None, None, se, ya.size + (0 if paired else yb.size), "bootstrap", level, r,
                          note=f"too few games: {min(ya.size, yb.size)}")
    return Difference(value, float(low), float(high), p, se, ya.size + (0 if paired else yb.size), "bootstrap", level,
                      r)


def holm(p_values) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values (same order as given): the k-th smallest of m is multiplied
    by ``m − k + 1``, made monotone non-decreasing in that order and capped at 1. Reject where the
    adjusted value is below the level: this controls the chance of any false "change" in the run."""
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError("holm needs a flat list of p-values")
    if np.any((p < 0) | (p > 1) | np.isnan(p)):
        raise ValueError("p-values must lie in [0, 1]")
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out = np.empty(m)
    out[order] = scaled
    return out


def holm_levels(p_values, alpha: float = 0.05) -> np.ndarray:
    """The level at which Holm's step-down procedure tested each hypothesis (same order as given): the
    k-th smallest p of m (k from 1) is compared with ``alpha / (m − k + 1)`` while every smaller one was
    rejected; from the first one not rejected on, every hypothesis is kept at that step's level
    ``alpha / (m − s + 1)``. A test's two-sided interval at confidence ``1 − level`` then excludes "no
    change" exactly when Holm rejects it (the adjusted p-value of :func:`holm` is below ``alpha``), so an
    interval shown at this level never contradicts its verdict. Returns float ``(m,)`` of levels."""
    p = np.asarray(p_values, dtype=np.float64)
    m = p.size
    adjusted = holm(p)
    order = np.argsort(p, kind="stable")
    steps = alpha / (m - np.arange(m))  # the level of step k (0-based) in sorted order
    rejected = adjusted[order] < alpha
    stop = int(np.argmin(rejected)) if not rejected.all() else m
    levels = np.where(np.arange(m) < stop, steps, steps[min(stop, m - 1)] if m else alpha)
    out = np.empty(m)
    out[order] = levels
    return out


def minimum_detectable_change(se: float, alpha: float = 0.05, power: float = POWER) -> float:
    """The smallest true difference a two-sided test at ``alpha`` detects with probability ``power``,
    given the difference's standard error ``se`` (normal approximation: ``(z₁₋α/₂ + z_power) · se``)."""
    return float((stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)) * se)


def verdict(diff: Difference, p_adjusted: float | None, alpha: float = 0.05, digits: int = 3,
            level_alpha: float | None = None) -> str:
    """``"higher"``, ``"lower"`` or ``"no detectable change at this N; the smallest change this N
    detects is ±X"`` for a difference whose Holm-adjusted p-value is ``p_adjusted`` (``"no change: equal
    in every game"`` when the difference has no spread at all, e.g. a metric the variant cannot move; the
    difference's ``note`` — "too few games: N" — when it was not tested). The smallest detectable change
    is quoted at ``level_alpha`` (the level the verdict's Holm step used; default ``alpha``)."""
    if not diff.tested or p_adjusted is None:
        return diff.note or "not tested"
    if p_adjusted < alpha:
        return "higher" if diff.value > 0 else "lower"
    if diff.se == 0:  # no spread at all: the two sides agree game by game
        return "no change: equal in every game"
    return ("no detectable change at this N; the smallest change this N detects is "
            f"±{minimum_detectable_change(diff.se, level_alpha or alpha):.{digits}g}")


@dataclasses.dataclass(frozen=True)
class ShareTest:
    """A share against a fixed value (e.g. a seat's share of the win against the fair share 1/n):
    the share with its interval, the value tested, the two-sided p-value and the ``method`` (``score``:
    Wilson interval and score test; ``exact``: Clopper–Pearson interval and the exact binomial test)."""

    value: float
    low: float
    high: float
    against: float
    p_value: float
    n: int
    method: str = "score"
    level: float = 0.95
    #: The successes behind the share (fractional when wins are split).
    successes: float = 0.0

    def to_dict(self) -> dict:
        """JSON-ready fields."""
        return dataclasses.asdict(self)


def fair_share_test(successes: float, n: int, against: float, level: float = 0.95) -> ShareTest:
    """The share ``successes / n`` (``successes`` may be fractional: split wins) tested against the value
    ``against`` in (0, 1). With at least :data:`EXACT_BELOW` successes and failures: the score test, whose
    null variance ``against (1 − against) / n`` makes it the test the Wilson interval inverts (``against``
    lies outside the interval exactly when p < 1 − level); a fractional share varies less than a 0/1 one, so
    the test is conservative there. With fewer (small samples, rates near 0 or 1): the exact binomial test
    (twice the smaller tail, on the successes rounded to a count) and the Clopper–Pearson interval, which
    inverts it the same way (:func:`aerodeck.stats.estimates.exact_share`)."""
    from aerodeck.stats.estimates import exact_share

    if not 0 < against < 1:
        raise ValueError(f"a share is tested against a value in (0, 1), got {against}")
    if not n >= 1:
        raise ValueError(f"a share needs at least one game, got n = {n}")
    if min(successes, n - successes) < EXACT_BELOW:
        low, high, p = exact_share(successes, n, against, level)
        return ShareTest(successes / n, low, high, against, floor_p(p), int(round(n)), "exact", level, successes)
    p, low, high = wilson(successes, n, level)
    z = (p - against) / math.sqrt(against * (1 - against) / n)
    return ShareTest(p, low, high, against, floor_p(2 * stats.norm.sf(abs(z))), int(round(n)), "score", level,
                     successes)


#: Resamples of the bootstrap intervals of rates (:func:`rate_estimates`).
RATE_RESAMPLES = 1000


def rate_estimates(numerator, denominator, seed: int, level: float = 0.95,
                   resamples: int = RATE_RESAMPLES) -> list[tuple[float, float, float] | None]:
    """Ratios of counts over games (``Σ numerator / Σ denominator`` per column, e.g. completions per
    attempt; float ``(G, W)`` with ``0 ≤ numerator ≤ denominator``) with percentile bootstrap intervals:
    games are resampled with replacement (every column of a game together, seeded by ``seed``), so the
    interval respects that a game's attempts are not independent and never leaves [0, 1]. A column with
    no event (or only events) gets the Wilson interval over its attempts, which says how rare the event
    can still be; a column with no attempt ``None``."""
    y, x = np.atleast_2d(np.asarray(numerator, np.float64)), np.atleast_2d(np.asarray(denominator, np.float64))
    if y.shape != x.shape:
        raise ValueError(f"numerator and denominator need the same shape, got {y.shape} and {x.shape}")
    G, W = y.shape
    sums_y, sums_x = y.sum(0), x.sum(0)
    boot = [c for c in range(W) if sums_x[c] > 0 and 0 < sums_y[c] < sums_x[c]]
    draws = np.empty((resamples, len(boot)))
    if boot:
        rng = np.random.default_rng(seed)
        step = max(1, min(resamples, 2**24 // max(G, 1)))  # weights of `step` resamples at a time
        for start in range(0, resamples, step):
            r = min(step, resamples - start)
            picks = rng.integers(0, G, size=(r, G)) + (np.arange(r) * G)[:, None]
            weights = np.bincount(picks.ravel(), minlength=r * G).reshape(r, G).astype(np.float64)
            with np.errstate(invalid="ignore", divide="ignore"):
                draws[start:start + r] = (weights @ y[:, boot]) / (weights @ x[:, boot])
    lows = np.nanquantile(draws, 0.5 - level / 2, axis=0) if boot else []
    highs = np.nanquantile(draws, 0.5 + level / 2, axis=0) if boot else []
    out: list[tuple[float, float, float] | None] = []
    for c in range(W):
        if not sums_x[c] > 0:
            out.append(None)
        elif c in boot:
            k = boot.index(c)
            value = float(sums_y[c] / sums_x[c])
            out.append((value, min(value, float(lows[k])), max(value, float(highs[k]))))
        else:
            out.append(wilson(float(sums_y[c]), int(round(sums_x[c])) or 1, level))
    return out


def effect_difference(first: tuple, second: tuple, level: float = 0.95) -> Difference:
    """How much two judges' effects differ on the same games: ``(R_v − R_b)`` under the first judge minus
    the same under the second, where ``first`` and ``second`` are ``(num_v, den_v, num_b, den_b)``, each
    float ``(G,)`` over the same game indices (game i on seed i at every table). Each game's delta-method
    contributions give one value per game, ``(z_v − z_b)₁ − (z_v − z_b)₂``, tested by a paired t (a plain
    mean has ``den ≡ 1``: then it is the t-test of the per-game difference of differences)."""
    parts = []
    for num_v, den_v, num_b, den_b in (first, second):
        zv, zb = linearised(num_v, den_v), linearised(num_b, den_b)
        if zv.shape != zb.shape:
            raise ValueError(f"a judge's effect needs the same games on both sides, got {zv.size} and {zb.size}")
        parts.append((zv - zb, ratio(num_v, den_v) - ratio(num_b, den_b)))
    (d1, v1), (d2, v2) = parts
    if d1.shape != d2.shape:
        raise ValueError(f"judges compared on the same games need as many games, got {d1.size} and {d2.size}")
    d = d1 - d2
    se = float(d.std(ddof=1) / math.sqrt(d.size)) if d.size > 1 else 0.0
    return _t_difference(v1 - v2, se, d.size - 1, d.size, "paired t of the difference of effects", level)
