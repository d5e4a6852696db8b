"""Altimeter's heuristic agent: guess the likelier way, land when the guess risks more than it wins."""

from __future__ import annotations

import numpy as np

from aerodeck.agents.base import Agent
from altimeter.rules import AltimeterRules


class HeuristicAgent(Agent):
    """One step of expectation (AL-4, AL-5): a guess is worth ``p_right · (pot + 1)`` (plus
    ``p_equal · pot`` when an equal card holds the pot), landing is worth the pot; plays the best,
    the lowest index on ties. Deterministic."""

    name = "heuristic"

    def scores(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``float64 (B, 3)``: the expected pot after climb, descend and land; ``-inf`` where illegal.
        ``observations`` ``float32 (B, O)`` as the core lays them out, ``masks`` ``bool (B, 3)``."""
        r = self.rules if self.rules is not None else AltimeterRules()
        n = r.n_values
        obs = np.asarray(observations, np.float64)
        altitude = obs[:, :n].argmax(axis=1)  # index 0..n-1 of the face-up card
        left = np.rint(obs[:, n:2 * n] * r.copies)
        pot = np.rint(obs[:, 2 * n] * r.deck_size)
        total = np.maximum(left.sum(axis=1), 1.0)
        below = np.arange(n)[None, :] < altitude[:, None]
        above = np.arange(n)[None, :] > altitude[:, None]
        p_up, p_down = (left * above).sum(axis=1) / total, (left * below).sum(axis=1) / total
        p_equal = left[np.arange(len(obs)), altitude] / total
        hold = pot * p_equal if r.tie == "hold" else 0.0
        values = np.stack([p_up * (pot + 1) + hold, p_down * (pot + 1) + hold, pot], axis=1)
        return np.where(np.asarray(masks, bool), values, -np.inf)

    def act(self, observations: np.ndarray, masks: np.ndarray, view=None) -> np.ndarray:
        """Actions ``int64 (B,)``: the best :meth:`scores` of each row (0 for a row with no legal action)."""
        return np.argmax(self.scores(observations, masks), axis=1).astype(np.int64)
