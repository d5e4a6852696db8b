"""A stable-baselines3 ``VecEnv`` over the batched core (needs the ``train`` extra).

Same-step autoreset as SB3 expects: an ended game's last observation is in
``infos[i]["terminal_observation"]``, its ``score`` and ``outcome`` (and ``illegal_action``) beside
it, and SB3's ``Monitor`` episode record in ``infos[i]["episode"]`` (``r``, ``l``, ``t``; from
``aerodeck.envs.common.sb3.BatchedVecEnv``). Masks reach sb3-contrib's MaskablePPO through
``env_method("action_masks")`` (one row per env), unchanged::

    from sb3_contrib import MaskablePPO
    env = AirportScrambleSB3VecEnv(num_envs=64, seed=0)
    MaskablePPO("MlpPolicy", env).learn(10_000)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from aerodeck.envs.airport_scramble.rules import AirportScrambleRules
from aerodeck.envs.airport_scramble.vector import batch_games
from aerodeck.envs.common.sb3 import BatchedVecEnv


class AirportScrambleSB3VecEnv(BatchedVecEnv):
    """``num_envs`` Airport Scramble games as an SB3 ``VecEnv``.

    ``AirportScrambleSB3VecEnv(num_envs, seed=None, on_illegal="terminate", render_mode=None,
    rules=None, **rule_options)``; ``seed`` is used at the next ``reset()`` (as ``VecEnv.seed``).
    """

    def __init__(
        self,
        num_envs: int = 1,
        seed: int | None = None,
        on_illegal: str = "terminate",
        render_mode: str | None = None,
        rules: AirportScrambleRules | None = None,
        **rule_options: Any,
    ) -> None:
        self.games = batch_games(num_envs, on_illegal, render_mode, rules, rule_options)
        self.rules, self.core = self.games.rules, self.games.core
        self._start_seed = seed
        super().__init__(self.games.num_envs, self.core.obs_size, self.core.n_actions, render_mode)

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the games started by the next ``reset()`` (game i gets ``seed + i``)."""
        self._start_seed = seed
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def _reset(self) -> np.ndarray:
        obs = self.games.reset(self._start_seed).copy()
        self._start_seed = None
        return obs

    def _step(self, actions: np.ndarray):
        out = self.games.step(actions)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for k, row in enumerate(out.ended):
            info = infos[row]
            info["terminal_observation"] = out.final_obs[k]
            info["score"] = int(out.final_score[k])
            info["outcome"] = out.outcome[k]
            if int(row) in out.illegal:
                info["illegal_action"] = out.illegal[int(row)]
        return out.obs.copy(), out.rewards.copy(), out.terminated.copy(), infos

    def _masks(self) -> np.ndarray:
        return self.games.mask

    def _frames(self, rows: list[int]) -> list:
        return list(self.games.render(self.render_mode, rows))
