"""The stable-baselines3 ``VecEnv`` plumbing both games share (needs the ``train`` extra).

A game's ``sb3.py`` subclasses :class:`BatchedVecEnv` and supplies ``_reset()`` and ``_step(actions)``
over its batched learner view; this class does the rest of SB3's ``VecEnv`` protocol once: the
``step_async``/``step_wait`` pair, ``get_attr``/``set_attr``/``env_method``/``env_is_wrapped`` on the one
shared object, ``action_masks`` for sb3-contrib's MaskablePPO, and SB3's ``Monitor`` convention —
every ended game's ``infos[i]["episode"] = {"r": return, "l": length, "t": seconds since start}`` —
so SB3's logger and TensorBoard show rollout curves without a ``VecMonitor``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv


class BatchedVecEnv(VecEnv):
    """B games stepped as one object; subclasses implement ``_reset`` / ``_step`` / ``_masks``."""

    def __init__(self, num_envs: int, obs_size: int, n_actions: int, render_mode: str | None = None) -> None:
        self.render_mode = render_mode
        self._actions: np.ndarray | None = None
        self._returns = np.zeros(num_envs, np.float64)
        self._lengths = np.zeros(num_envs, np.int64)
        self._t0 = time.perf_counter()
        super().__init__(num_envs, spaces.Box(0.0, 1.0, (obs_size,), np.float32), spaces.Discrete(n_actions))

    # --- what a game supplies --------------------------------------------------------------------------

    def _reset(self) -> np.ndarray:
        """Start every game; ``float32 (num_envs, obs_size)``."""
        raise NotImplementedError

    def _step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        """One learner decision per game with same-step autoreset: observations, rewards ``float32
        (num_envs,)``, dones ``bool (num_envs,)`` and infos (``terminal_observation`` for ended games)."""
        raise NotImplementedError

    def _masks(self) -> np.ndarray:
        """``bool (num_envs, n_actions)``: the learners' legal actions now."""
        raise NotImplementedError

    def _frames(self, rows: list[int]) -> list:
        """Render the games ``rows`` (``render_mode``); none by default."""
        return [None for _ in rows]

    # --- the VecEnv protocol ------------------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        obs = self._reset()
        self._returns[:] = 0
        self._lengths[:] = 0
        self.reset_infos = [{"action_mask": row.copy()} for row in self._masks()]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_async() must come before step_wait()")
        actions, self._actions = self._actions, None
        obs, rewards, dones, infos = self._step(actions)
        self._returns += rewards
        self._lengths += 1
        now = round(time.perf_counter() - self._t0, 6)
        for i in np.flatnonzero(dones):
            infos[i]["episode"] = {"r": float(self._returns[i]), "l": int(self._lengths[i]), "t": now}
            infos[i].setdefault("TimeLimit.truncated", False)
        self._returns[dones] = 0
        self._lengths[dones] = 0
        return obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """``bool (num_envs, n_actions)``: the legal actions of every env now (MaskablePPO)."""
        return self._masks().copy()

    def close(self) -> None:
        """Nothing to release (one process)."""

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
        """``action_masks`` gives each env's mask row (what MaskablePPO calls), ``render`` each env's
        frame; any other method of this object is called once and its result repeated per env."""
        rows = self._rows(indices)
        if method_name == "action_masks":
            masks = self._masks()
            return [masks[i].copy() for i in rows]
        if method_name == "render":
            return self._frames(rows)
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        """No env is wrapped."""
        return [False for _ in self._rows(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        """An RGB frame per env (``render_mode="rgb_array"``)."""
        if self.render_mode != "rgb_array":
            return [None for _ in range(self.num_envs)]
        return self._frames(list(range(self.num_envs)))
