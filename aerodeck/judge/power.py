"""Is the question answered? The practical size of each metric, the games a comparison needs to detect it,
and whether a detected change is large enough to matter.

- The *practical size* of a metric is the smallest change a designer would act on, in the metric's unit:
  ``--practical NAME=SIZE`` for a run, else the catalogue's ``Metric.practical``, else
  :data:`SHARE_PRACTICAL` (2 points) for a share or a rate; a mean without one stated has none.
- The games needed to detect it: with ``sd`` the standard deviation of the per-game paired differences
  (each game's delta-method contribution for a ratio) observed in this run, a two-sided test at the
  comparison's level (its Holm step's) detects a true change of ``δ`` with power 0.8 after
  ``((z₁₋α/₂ + z₀.₈) · sd / δ)²`` games. When no game differed at all (no spread in the differences: a
  judge that played the same under both rules, or too few games to see a difference), the unpaired
  spread of the two sides stands in (``var_variant + var_base``): what the question costs if the pairing
  did not help; a metric with no spread on either side cannot say.
- A detected change whose estimate is smaller than the practical size is *real but small*: the report
  marks it so rather than headline it as a change.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from aerodeck.stats import significance as sig

#: The practical size of a share or a rate (a share of games, of the win, of attempts): 2 points.
SHARE_PRACTICAL = 0.02
#: The practical size of the skill share (the share of the outcome's variance the decisions explain).
SKILL_SHARE_PRACTICAL = 0.05


def practical_size(metric, overrides: dict | None = None) -> float | None:
    """The practical size of ``metric`` (an ``aerodeck.envs.common.metrics.Metric``): ``overrides[name]``,
    else ``metric.practical``, else :data:`SHARE_PRACTICAL` for a share or rate, else ``None``."""
    if overrides and metric.name in overrides:
        return float(overrides[metric.name])
    if metric.practical is not None:
        return float(metric.practical)
    return SHARE_PRACTICAL if metric.kind in ("share", "rate") else None


def games_for(sd: float, delta: float, alpha: float, power: float = sig.POWER) -> int:
    """The games (pairs) a two-sided test at ``alpha`` needs to detect a true change ``delta`` with
    probability ``power`` when the per-game differences have standard deviation ``sd`` (normal
    approximation, rounded up; at least 2)."""
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
    return max(2, int(math.ceil((z * sd / delta) ** 2)))


def _contributions(num, den) -> np.ndarray | None:
    """Each game's contribution to the metric (its value for a plain per-game metric, its delta-method
    contribution for a ratio): float ``(G,)``, or ``None`` when no game defines it."""
    num, den = np.asarray(num, float), np.asarray(den, float)
    if not den.sum() > 0:
        return None
    if np.all(den == 1):
        return num
    return sig.linearised(num, den)


def needed(args: tuple, paired: bool, delta: float | None, alpha: float, games: int) -> dict | None:
    """How many games detect ``delta`` for one comparison. ``args``: ``(num_v, den_v, num_b, den_b)`` per
    game (float ``(G,)`` each); ``alpha``: the comparison's level; ``games``: the games this run played per
    side. Returns ``{"practical", "sd", "basis", "games_needed", "games", "enough"}`` (``games_needed``
    ``None`` when the metric has no spread on either side), or ``None`` without a practical size."""
    if delta is None or not delta > 0:
        return None
    zv, zb = _contributions(args[0], args[1]), _contributions(args[2], args[3])
    if zv is None or zb is None or zv.size < 2 or zb.size < 2:
        return {"practical": delta, "sd": None, "basis": "too few games to estimate a spread",
                "games_needed": None, "games": games, "enough": False}
    spread = float(math.sqrt(np.var(zv, ddof=1) + np.var(zb, ddof=1)))
    if paired and zv.shape == zb.shape:
        sd, basis = float(np.std(zv - zb, ddof=1)), "paired differences"
        if sd == 0:
            sd, basis = spread, "the two sides' spread (no game differed)"
    else:
        sd, basis = spread, "unpaired spread"
    if sd == 0:
        return {"practical": delta, "sd": 0.0, "basis": "no spread on either side", "games_needed": None,
                "games": games, "enough": True}
    n = games_for(sd, delta, alpha)
    return {"practical": delta, "sd": sd, "basis": basis, "games_needed": n, "games": games, "enough": games >= n}


def size_text(delta: float, metric: dict) -> str:
    """A practical size in words: ``±2 points`` for a share or rate, ``±0.1 tickets`` otherwise."""
    if metric.get("kind") in ("share", "rate"):
        return f"±{100 * delta:.3g} points"
    return f"±{delta:.3g} {metric.get('unit', '')}".rstrip()


def small(c: dict, alpha: float = 0.05) -> bool:
    """Whether a comparison found a change (Holm-adjusted p below ``alpha``) smaller than its metric's
    practical size."""
    pw, d = c.get("power"), c["difference"]
    value = d["value"] if isinstance(d, dict) else d.value
    return pw is not None and c.get("p_holm") is not None and c["p_holm"] < alpha and abs(value) < pw["practical"]
