"""A Stable-Baselines3 ``VecEnv`` over the batched training view (``training.SelfPlay``).

Needs the ``train`` extra (stable-baselines3, which imports torch). ``action_masks()`` (and
``env_method("action_masks")``) serve sb3-contrib's MaskablePPO.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from envs.flight_tycoon.training import SelfPlay


class FlightTycoonVecEnv(VecEnv):
    """``num_envs`` Flight Tycoon games for one learning seat each; arguments as ``SelfPlay``."""

    def __init__(self, num_envs: int, rules=None, opponents=None, learner_seat="rotate", seed: int = 0,
                 **rule_options) -> None:
        self.view = SelfPlay(num_envs, rules, opponents, learner_seat, seed, **rule_options)
        observation_space = gymnasium.spaces.Box(0.0, 1.0, (self.view.observation_size,), np.float32)
        self.render_mode = None
        super().__init__(num_envs, observation_space, gymnasium.spaces.Discrete(self.view.n_actions))
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        observations, _ = self.view.reset()
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        observations, rewards, dones, infos = self.view.step(self._actions)
        return observations, rewards, dones, infos

    def seed(self, seed: int | None = None) -> list:
        """Seed the games dealt from the next ``reset`` on (the opponents keep their own randomness)."""
        self.view.seed(seed)
        return [seed for _ in range(self.num_envs)]

    def action_masks(self) -> np.ndarray:
        """``bool (num_envs, n_actions)``: the learners' legal actions."""
        return self.view.action_masks()

    def close(self) -> None:
        pass

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def get_attr(self, attr_name: str, indices=None) -> list:
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._indices(indices)]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in self._indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._indices(indices)]
