"""A stable-baselines3 ``VecEnv`` over the batched core (needs the ``train`` extra).

Same-step autoreset as SB3 expects: an ended game's last observation is in
``infos[i]["terminal_observation"]`` and its score/length in ``infos[i]["episode"]``. Masks reach
sb3-contrib's MaskablePPO through ``env_method("action_masks")`` (one row per env), unchanged::

    from sb3_contrib import MaskablePPO
    env = AirportScrambleSB3VecEnv(num_envs=64, seed=0)
    MaskablePPO("MlpPolicy", env).learn(10_000)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from envs.airport_scramble.rules import AirportScrambleRules
from envs.airport_scramble.vector import batch_games, observation_space


class AirportScrambleSB3VecEnv(VecEnv):
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
        self.render_mode = render_mode
        self._start_seed = seed
        self._actions: np.ndarray | None = None
        super().__init__(self.games.num_envs, observation_space(self.core), spaces.Discrete(self.core.n_actions))

    # --- the VecEnv protocol --------------------------------------------------------------------

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the games started by the next ``reset()`` (game i gets ``seed + i``)."""
        self._start_seed = seed
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def reset(self) -> np.ndarray:
        """Start every game; returns the observations ``float32 (num_envs, obs_size)``."""
        obs = self.games.reset(self._start_seed).copy()
        self._start_seed = None
        self.reset_infos = [{"action_mask": row.copy()} for row in self.games.mask]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_async() must come before step_wait()")
        out = self.games.step(self._actions)
        self._actions = None
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for k, row in enumerate(out.ended):
            info = infos[row]
            info["terminal_observation"] = out.final_obs[k]
            info["TimeLimit.truncated"] = False
            info["episode"] = {"r": float(out.final_return[k]), "l": int(out.final_length[k])}
            info["score"] = int(out.final_score[k])
            info["outcome"] = out.outcome[k]
            if int(row) in out.illegal:
                info["illegal_action"] = out.illegal[int(row)]
        return out.obs.copy(), out.rewards.copy(), out.terminated.copy(), infos

    def close(self) -> None:
        """Nothing to release (one process)."""

    def action_masks(self) -> np.ndarray:
        """``bool (num_envs, n_actions)``: the legal actions of every env now."""
        return self.games.mask.copy()

    def _rows(self, indices) -> list[int]:
        return list(self._get_indices(indices))

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        """The attribute of the (shared) env object once per requested env."""
        value = getattr(self, attr_name)
        return [value for _ in self._rows(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        """Set an attribute of the (shared) env object."""
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        """``action_masks`` gives each env's mask row (what MaskablePPO calls); ``render`` each env's
        frame; any other method of this object is called once and its result repeated per env."""
        rows = self._rows(indices)
        if method_name == "action_masks":
            masks = self.games.mask
            return [masks[i].copy() for i in rows]
        if method_name == "render":
            return list(self.games.render(self.render_mode, rows))
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        """No env is wrapped."""
        return [False for _ in self._rows(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        """An RGB frame per env (``render_mode="rgb_array"``)."""
        if self.render_mode != "rgb_array":
            return [None for _ in range(self.num_envs)]
        return list(self.games.render("rgb_array"))
