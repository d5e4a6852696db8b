"""What an evaluation on a task gives: raw and normalized scores with their 95 % intervals."""

from __future__ import annotations

import dataclasses

import numpy as np

#: The confidence level of every interval of the protocol.
LEVEL = 0.95


@dataclasses.dataclass(frozen=True)
class Interval:
    """A mean with its 95 % interval (``low``, ``high``) over ``n`` games."""

    value: float
    low: float
    high: float
    n: int

    def holds(self, x: float) -> bool:
        """Whether ``x`` lies in the interval."""
        return self.low <= x <= self.high

    def to_dict(self) -> dict:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n, "level": LEVEL}

    def __str__(self) -> str:
        return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}]"


def mean_interval(samples) -> Interval:
    """The mean of ``samples`` (``float (n,)``) with its Student-t 95 % interval."""
    from aerodeck.stats.estimates import mean_ci

    est = mean_ci(np.asarray(samples, np.float64), LEVEL)
    return Interval(float(est.value), float(est.low), float(est.high), int(est.n))


@dataclasses.dataclass(frozen=True)
class Evaluation:
    """An agent's evaluation on a task.

    ``scores``: the raw score of each game, ``float64 (G,)`` in deal order (a rules-generalization task:
    ``(V, G)``, one row per held-out variant); ``raw``: their mean with its 95 % interval (a
    generalization task: the mean over variants); ``normalized``: random = 0, heuristic = 1 with its
    95 % interval (the references are constants of the task, measured on the same deals);
    ``variants``: a generalization task's per-variant figures. ``normalized`` is ``None`` while the task
    has no references (``aerodeck tasks --measure`` measures them)."""

    task: str
    agent: str
    seed: int
    scores: np.ndarray
    raw: Interval
    normalized: Interval | None
    variants: tuple = ()

    @property
    def games(self) -> int:
        """Games per rules set."""
        return int(self.scores.shape[-1])

    def to_dict(self) -> dict:
        """JSON-ready figures (the per-game scores left out)."""
        out = {"task": self.task, "agent": self.agent, "seed": self.seed, "games": self.games,
               "raw": self.raw.to_dict(),
               "normalized": None if self.normalized is None else self.normalized.to_dict()}
        if self.variants:
            out["variants"] = [dict(v) for v in self.variants]
        return out


def share_interval(shares) -> Interval:
    """The mean of win shares ``shares`` (``float (n,)`` in [0, 1]) with its Wilson score 95 % interval (the
    shares' sum as the successes, ``aerodeck.stats.estimates.wilson``): unlike a t interval it does not
    shrink to a point when every game is lost, or won."""
    from aerodeck.stats.estimates import wilson

    shares = np.asarray(shares, np.float64)
    p, low, high = wilson(float(shares.sum()), int(shares.size), LEVEL)
    return Interval(float(shares.mean()), float(low), float(high), int(shares.size))

