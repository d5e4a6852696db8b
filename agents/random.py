"""The random agent: uniform over the legal actions of each game (both games)."""

from __future__ import annotations

import numpy as np

from aerodeck.agents.base import Agent
from aerodeck.envs.common.batch import sample_legal


class RandomAgent(Agent):
    """Plays uniformly at random among the legal actions."""

    name = "random"

    def act(self, observations: np.ndarray, masks: np.ndarray, view=None, keys: np.ndarray | None = None) -> np.ndarray:
        """Actions ``int64 (B,)``: uniform over each row of ``masks`` (``bool (B, A)``), drawn from the
        decision ``keys`` (``uint64 (B,)``) or, without them, from the agent's generator."""
        masks = np.asarray(masks, dtype=bool)
        return sample_legal(masks, self.uniform(keys, (masks.shape[0], 1))[:, 0])
