"""A Stable-Baselines3 ``VecEnv`` over the batched learner view (``learner.LearnerGames``).

Needs the ``train`` extra (stable-baselines3, which imports torch). The SB3 plumbing — ``action_masks()``
for sb3-contrib's MaskablePPO and the ``Monitor``-style ``infos[i]["episode"]`` of every ended game —
is ``aerodeck.envs.common.sb3.BatchedVecEnv``'s; an ended game's info also holds the learner's ``rank`` and
``win_share`` (see ``LearnerGames.step``)::

    from sb3_contrib import MaskablePPO
    venv = FlightTycoonSB3VecEnv(64, n_players=4, seed=0)
    MaskablePPO("MlpPolicy", venv).learn(10_000)
"""

from __future__ import annotations

import numpy as np

from aerodeck.envs.common.checks import check_seed
from aerodeck.envs.common.sb3 import BatchedVecEnv
from aerodeck.envs.flight_tycoon.learner import LearnerGames


class FlightTycoonSB3VecEnv(BatchedVecEnv):
    """``num_envs`` Flight Tycoon games for one learning seat each; arguments as ``LearnerGames``
    (``opponents``: callables ``(observations, masks, view) -> actions``, default uniform random play)."""

    def __init__(self, num_envs: int, rules=None, opponents=None, learner_seat="rotate", seed: int = 0,
                 assign=None, **rule_options) -> None:
        self.view = LearnerGames(num_envs, rules, opponents, learner_seat, seed, assign, **rule_options)
        self.rules, self.core = self.view.rules, self.view.core
        super().__init__(self.view.num_envs, self.core.obs_size, self.core.n_actions)

    def _reset(self) -> np.ndarray:
        observations, _ = self.view.reset()
        return observations

    def _step(self, actions: np.ndarray):
        return self.view.step(actions)

    def _masks(self) -> np.ndarray:
        return self.view.action_masks()

    def seed(self, seed: int | None = None) -> list:
        """Seed the games dealt from the next ``reset`` on (given opponents keep their own randomness)."""
        if seed is not None:
            seed = check_seed(seed)
        self.view.seed(seed)
        return [seed for _ in range(self.num_envs)]
