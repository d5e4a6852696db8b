"""Altimeter as a stable-baselines3 ``VecEnv`` over the batched core (needs aerodeck's ``train`` extra).

Same-step autoreset: an ended game's last observation is ``infos[i]["terminal_observation"]``, its
``score`` beside it, SB3's ``episode`` record from ``aerodeck.envs.common.sb3.BatchedVecEnv``; masks through
``action_masks()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from altimeter.core import AltimeterCore
from altimeter.rules import AltimeterRules
from aerodeck.envs.common.checks import check_actions, rules_with_options
from aerodeck.envs.common.sb3 import BatchedVecEnv

class AltimeterSB3VecEnv(BatchedVecEnv):
    """``num_envs`` games. ``AltimeterSB3VecEnv(num_envs, seed=None, render_mode=None, rules=None,
    **rule_options)``; game i of the next ``reset()`` is dealt from ``seed + i``, later games from a
    generator seeded by ``seed``. Illegal actions raise (a masked learner never plays one)."""

    def __init__(self, num_envs: int = 1, seed: int | None = None, render_mode: str | None = None,
                 rules=None, **rule_options: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.rules = rules_with_options(AltimeterRules, rules, rule_options)
        self.core = AltimeterCore(self.rules)
        self._start_seed = seed
        self._rng = np.random.default_rng(seed)
        self.state = None
        super().__init__(num_envs, self.core.obs_size, self.core.n_actions, render_mode)

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the games the next ``reset()`` deals (game i gets ``seed + i``)."""
        self._start_seed = seed
        self._rng = np.random.default_rng(seed)
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def _new_seeds(self, k: int) -> np.ndarray:
        return self._rng.integers(0, 2**63, size=k, dtype=np.int64)

    def _reset(self) -> np.ndarray:
        start = self._start_seed
        seeds = np.arange(start, start + self.num_envs) if start is not None else self._new_seeds(self.num_envs)
        self.state = self.core.init(seeds)
        self._start_seed = None
        return self.core.observe(self.state)

    def _step(self, actions: np.ndarray):
        actions = check_actions(np.asarray(actions).astype(np.int64), self.num_envs, self.core.n_actions)
        rewards = self.core.step(self.state, actions)[:, 0].copy()
        dones = self.state.done.copy()
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended = np.flatnonzero(dones)
        if ended.size:
            final = self.core.observe(self.state.take(ended))
            for k, row in enumerate(ended):
                infos[row]["terminal_observation"] = final[k]
                infos[row]["score"] = int(self.state.score[row])
            self.core.reset(self.state, ended, self._new_seeds(ended.size))
        return self.core.observe(self.state), rewards, dones, infos

    def _masks(self) -> np.ndarray:
        return self.core.legal_mask(self.state)
