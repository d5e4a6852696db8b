"""The one agent protocol: a batch of observations and legal masks in, a batch of actions out."""

from __future__ import annotations

import numpy as np


class Agent:
    """Base class of every policy.

    An agent acts on a whole batch at once: ``act(observations, masks)`` takes observations of shape
    ``(B, ...)`` and legal masks ``bool (B, A)`` and returns actions ``int64 (B,)``, each legal in its
    row. It owns its randomness (``numpy.random.Generator`` seeded at construction or by ``reset``).
    Agents that look ahead receive, through ``act(..., view=...)``, a game view that cannot reveal
    hidden information; the others ignore it. ``rules`` is the game's rules object (agents that
    reason about the game read the edition, costs, ... from it).
    """

    name = "agent"
    #: True for agents that need a look-ahead ``view`` in ``act``.
    needs_view = False

    def __init__(self, seed: int | None = 0, rules=None) -> None:
        self.rules = rules
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the agent's randomness."""
        self.rng = np.random.default_rng(seed)

    def act(self, observations: np.ndarray, masks: np.ndarray, view=None) -> np.ndarray:
        """Actions ``int64 (B,)`` for observations ``(B, ...)`` and masks ``bool (B, A)``."""
        raise NotImplementedError

    def act_one(self, observation: np.ndarray, mask: np.ndarray, view=None) -> int:
        """One action for a single (unbatched) observation and mask, e.g. inside a Gymnasium env."""
        return int(self.act(np.asarray(observation)[None], np.asarray(mask, dtype=bool)[None], view)[0])
