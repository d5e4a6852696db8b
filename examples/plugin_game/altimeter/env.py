"""Altimeter as a Gymnasium environment (``aerodeck/Altimeter-v0``): one game on the batched core (B = 1).

Observation ``Box(0, 1, (O,), float32)``; actions ``Discrete(3)`` (climb, descend, land); the legal
mask is ``info["action_mask"]`` and ``action_masks()``; the reward is the points a decision banks (AL-7).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from altimeter.core import AltimeterCore
from altimeter.render import render_image, render_text
from altimeter.rules import AltimeterRules
from aerodeck.envs.common.checks import (
    ILLEGAL_REWARD, ON_ILLEGAL, check_action, check_choice, check_seed, illegal_policy, rules_with_options,
)

RENDER_MODES = ("ansi", "rgb_array")


class AltimeterEnv(gym.Env):
    """One game. ``AltimeterEnv(render_mode=None, on_illegal="terminate", rules=None, **rule_options)``;
    ``reset(seed=s)`` plays the game ``core.init([s])`` plays. ``core``/``_state``: the batched core
    and the one game's state (for ``aerodeck.envs.view_of_env``)."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(self, render_mode: str | None = None, on_illegal: str = "terminate",
                 rules: AltimeterRules | None = None, **rule_options: Any) -> None:
        check_choice("on_illegal", on_illegal, ON_ILLEGAL)
        check_choice("render_mode", render_mode, (None, *RENDER_MODES))
        self.rules = rules_with_options(AltimeterRules, rules, rule_options)
        self.core = AltimeterCore(self.rules, check_actions=False)  # checked here, against the mask
        self.render_mode, self.on_illegal = render_mode, on_illegal
        self.observation_space = spaces.Box(0.0, 1.0, (self.core.obs_size,), np.float32)
        self.action_space = spaces.Discrete(self.core.n_actions)
        self._state = None
        self._mask = np.zeros(self.core.n_actions, bool)

    def _info(self) -> dict[str, Any]:
        self._mask = self.core.legal_mask(self._state)[0]
        return {"action_mask": self._mask.copy(), "score": int(self._state.score[0]), "pot": int(self._state.pot[0])}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start a game: the one of ``seed`` (an integer in 0..2**64-1), or one drawn from ``np_random``."""
        if seed is not None:
            seed = check_seed(seed)
        super().reset(seed=seed)
        self._state = self.core.init([seed if seed is not None else int(self.np_random.integers(0, 2**63))])
        return self.core.observe(self._state)[0], self._info()

    def step(self, action):
        """Play ``action``; an illegal one ends the episode with reward −1 (or raises, ``on_illegal``)."""
        if self._state is None or self._state.done[0] or not self._mask.any():
            raise RuntimeError("call reset() before step() (the episode is over or has not started)")
        index = check_action(action, self.core.n_actions)
        if not self._mask[index]:
            why = self.core.explain_illegal(self._state, 0, index)
            message = f"action {index} ({self.core.actions.describe(index)}) is illegal: {why}"
            illegal_policy(self.on_illegal, message)
            self._mask = np.zeros_like(self._mask)
            info = {"action_mask": self._mask.copy(), "illegal_action": message, "score": int(self._state.score[0])}
            return self.core.observe(self._state)[0], ILLEGAL_REWARD, True, False, info
        reward = float(self.core.step(self._state, np.array([index]))[0, 0])
        return self.core.observe(self._state)[0], reward, bool(self._state.done[0]), False, self._info()

    def action_masks(self) -> np.ndarray:
        """``bool (3,)``: the legal actions now (all False once the episode is over)."""
        return self._mask.copy()

    def render(self):
        """``ansi``: ``str``; ``rgb_array``: ``uint8 (H, W, 3)``; ``None`` without a render mode."""
        if self._state is None or self.render_mode is None:
            return None
        return render_text(self.core, self._state) if self.render_mode == "ansi" else render_image(self.core, self._state)
