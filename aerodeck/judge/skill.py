"""How much does skill matter? The skill share of ``aerodeck compare``: the share of the outcome's
variation that the players' decisions explain, measured on the same deals by two agents of different
strength (the first two ``--agent`` s, the stronger first: by default the heuristic and random).

- A solo game (Airport Scramble): the first and the second agent play the same deals; over the pooled
  games of both, the share of the variance of the outcome (``Catalogue.skill_gap``: the score) that lies
  between the two agents — the η² of "which agent played": ``(Δ/2)² / ((s₁² + s₂²)/2 + (Δ/2)²)`` with
  ``Δ`` the difference of their mean scores and ``s²`` each agent's variance over the deals. 0: the
  decisions change nothing; 1: the agent alone decides the score, the deal nothing.
- A multi-player game (Flight Tycoon): in the table mixing them (the first agent in one seat, the
  second in the others), the same η² of a seat's win (a win counted 1, a loss 0) between the seats of
  the two agents: with ``p`` the first agent's share of the win among ``n`` players it is
  ``((p − 1/n) / (1 − 1/n))²`` — 0 when the stronger agent wins its fair share 1/n, 1 when it always wins.

Intervals: a percentile bootstrap over games (seeded) in a solo game; in a multi-player game the share's
interval (Wilson, or Clopper–Pearson near 0 or 1: ``significance.fair_share_test``) mapped through the
formula, so it never collapses when the stronger agent always wins. Across variants: the difference against the base
on the same game indices (the same resamples on both sides), with a normal interval from the bootstrap
standard error and its p-value, Holm over the variants, every interval at its Holm step's level.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
from scipy import stats

from aerodeck.stats import significance as sig

#: Bootstrap resamples of the skill share.
RESAMPLES = 1000


def _weight_blocks(n_games: int, resamples: int, rng: np.random.Generator):
    """Bootstrap weights over games, float ``(r, n_games)`` blocks of at most 2²⁴ entries, ``resamples``
    rows in all (each row: how often each game is drawn)."""
    step = max(1, min(resamples, 2**24 // max(n_games, 1)))
    for start in range(0, resamples, step):
        r = min(step, resamples - start)
        picks = rng.integers(0, n_games, size=(r, n_games)) + (np.arange(r) * n_games)[:, None]
        yield np.bincount(picks.ravel(), minlength=r * n_games).reshape(r, n_games).astype(np.float64)


def solo_share(strong, weak, weights=None) -> np.ndarray | float:
    """η² of the agent on the pooled outcomes: ``strong``, ``weak`` float ``(G,)`` on the same deals;
    ``weights`` float ``(B, G)`` (bootstrap rows) gives ``(B,)``."""
    s, w = np.asarray(strong, np.float64), np.asarray(weak, np.float64)
    if weights is None:
        weights = np.ones((1, s.size))
        one = True
    else:
        one = False
    total = weights.sum(1)
    ms, mw = weights @ s / total, weights @ w / total
    vs, vw = weights @ (s * s) / total - ms**2, weights @ (w * w) / total - mw**2
    between = ((ms - mw) / 2) ** 2
    whole = (np.maximum(vs, 0) + np.maximum(vw, 0)) / 2 + between
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(whole > 0, between / np.where(whole > 0, whole, 1), 0.0)
    return float(out[0]) if one else out


def multi_share(share_num, share_den, n_players: int, weights=None) -> np.ndarray | float:
    """η² of the agent on a seat's win: ``((p − 1/n) / (1 − 1/n))²`` with ``p = Σ num / Σ den`` the first
    agent's share of the win (float ``(G,)`` each); ``weights`` float ``(B, G)`` gives ``(B,)``."""
    y, x = np.asarray(share_num, np.float64), np.asarray(share_den, np.float64)
    if weights is None:
        p = np.array([y.sum() / x.sum()])
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            p = (weights @ y) / (weights @ x)
    fair = 1 / n_players
    out = ((p - fair) / (1 - fair)) ** 2
    return float(out[0]) if weights is None else out


def skill_shares(question, cells: dict, cat, solo: bool, alpha: float = 0.05) -> dict:
    """Per variant the skill share with its interval, and each variant's difference from the base (Holm
    over the variants); ``{}`` when the question has not two agents (solo) or no mixed table."""
    agents = [t for t in question.tables if not t.extra and not t.mixed]
    mixed = [t for t in question.tables if t.mixed]
    if (solo and len(agents) < 2) or (not solo and not mixed):
        return {}
    metric = cat.skill_gap
    data = {}
    for variant in question.variants:
        if solo:
            a = cells[(variant, agents[0].name)]["metrics"][metric]
            b = cells[(variant, agents[1].name)]["metrics"][metric]
            per_game = (a[0][:, 0] / np.where(a[1][:, 0] > 0, a[1][:, 0], 1),
                        b[0][:, 0] / np.where(b[1][:, 0] > 0, b[1][:, 0], 1))
            data[variant] = (lambda w, s=per_game: solo_share(*s, w))
        else:
            num, den = cells[(variant, mixed[0].name)]["metrics"][metric]
            n = question.players(variant)
            data[variant] = (lambda w, y=num[:, 0], x=den[:, 0], n=n: multi_share(y, x, n, w))
    games = question.games
    rng = np.random.default_rng([zlib.crc32(b"skill_share"), question.seed % 2**32])
    draws = {v: [] for v in data}
    for weights in _weight_blocks(games, RESAMPLES, rng):
        for v, f in data.items():
            draws[v].append(f(weights))
    draws = {v: np.concatenate(d) for v, d in draws.items()}
    what = (f"share of the variance of {metric} between {agents[0].name} and {agents[1].name} on the same deals"
            if solo else f"(edge of {mixed[0].agents[0]} over the fair share / (1 − 1/n))² in {mixed[0].name}")
    out = {"what": what, "estimates": {}, "differences": {}}
    for v, f in data.items():
        value = f(None)
        d = draws[v][np.isfinite(draws[v])]
        low, high = np.quantile(d, [alpha / 2, 1 - alpha / 2]) if d.size else (math.nan, math.nan)
        if not solo:  # η² is monotone in the share p on each side of 1/n: map the share's interval
            num, den = cells[(v, mixed[0].name)]["metrics"][metric]
            share = sig.fair_share_test(float(num[:, 0].sum()), float(den[:, 0].sum()), 1 / question.players(v),
                                        1 - alpha)
            ends = [multi_share(np.array([x]), np.array([1.0]), question.players(v)) for x in (share.low, share.high)]
            inside = share.low <= 1 / question.players(v) <= share.high
            low, high = (0.0 if inside else min(ends)), max(ends)
        out["estimates"][v] = ({"value": value, "low": None, "high": None, "n": games,
                                "note": f"too few games: {games}"} if games < sig.MIN_GAMES else
                               {"value": value, "low": float(min(low, value)), "high": float(max(high, value)),
                                "n": games})
    base = question.base
    diffs = []
    for v in list(data)[1:]:
        value = data[v](None) - data[base](None)
        d = draws[v] - draws[base]
        d = d[np.isfinite(d)]
        se = float(d.std(ddof=1)) if d.size > 1 else 0.0
        if games < sig.MIN_GAMES:
            diffs.append((v, {"value": value, "low": None, "high": None, "p_value": None, "se": se,
                              "note": f"too few games: {games}"}))
        elif not se > 0:
            diffs.append((v, {"value": value, "low": value, "high": value, "p_value": 1.0 if value == 0 else None,
                              "se": 0.0, "note": None if value == 0 else "no spread"}))
        else:
            p = sig.floor_p(2 * stats.norm.sf(abs(value) / se))
            diffs.append((v, {"value": value, "p_value": p, "se": se, "note": None}))
    tested = [d for _, d in diffs if d["p_value"] is not None]
    if tested:
        ps = [d["p_value"] for d in tested]
        for d, p_holm, a in zip(tested, sig.holm(ps), sig.holm_levels(ps, alpha)):
            z = float(stats.norm.ppf(1 - a / 2))
            d.update(p_holm=float(p_holm), level=1 - float(a))
            if d["se"] > 0:
                d.update(low=d["value"] - z * d["se"], high=d["value"] + z * d["se"])
            d["verdict"] = (("higher" if d["value"] > 0 else "lower") if p_holm < alpha else
                            "no change: equal in every game" if d["se"] == 0 else
                            "no detectable change at this N; the smallest change this N detects is "
                            f"±{sig.minimum_detectable_change(d['se'], float(a)):.3g}")
    for _, d in diffs:
        if d["p_value"] is None:
            d.update(p_holm=None, level=None, verdict=d["note"])
    out["differences"] = dict(diffs)
    return out
