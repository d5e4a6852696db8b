"""The Gymnasium environment ``aerodeck/AirportScramble-v0``: one game on the batched core (B = 1).

Observation: flat ``Box(0, 1, (obs_size,), float32)`` (layout in docs/airport_scramble.md);
actions: ``Discrete(n_actions)`` laid out as AS-19; the legal mask is ``info["action_mask"]`` and
``action_masks()`` (what sb3-contrib's MaskablePPO reads). Reward +1 per completed ticket (AS-16).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from envs.airport_scramble.core import AirportScrambleCore, State
from envs.airport_scramble.position import LINE_CHOICE
from envs.airport_scramble.reference import ReferenceGame
from envs.airport_scramble.render import render_ansi, render_rgb
from envs.airport_scramble.rules import AirportScrambleRules

ON_ILLEGAL = ("terminate", "raise")
RENDER_MODES = ("ansi", "rgb_array")
ILLEGAL_REWARD = -1.0


def make_rules(rules: AirportScrambleRules | None, rule_options: dict[str, Any]) -> AirportScrambleRules:
    """A rules object from either ``rules`` or keyword rule options (not both)."""
    if rules is not None:
        if rule_options:
            raise ValueError(f"give either a rules object or rule options, not both (got {sorted(rule_options)})")
        if not isinstance(rules, AirportScrambleRules):
            raise ValueError(f"rules must be an AirportScrambleRules, got {type(rules).__name__}")
        return rules
    return AirportScrambleRules.from_options(rule_options)


def check_mode(name: str, value, allowed: tuple) -> None:
    """``ValueError`` naming the argument unless ``value`` is one of ``allowed``."""
    if value not in allowed:
        raise ValueError(f"{name}={value!r} is not allowed; allowed: {', '.join(map(str, allowed))}")


def illegal_reason(core: AirportScrambleCore, state: State, game: int, action) -> str:
    """Why ``action`` is illegal for ``game`` of ``state`` (asked of the reference engine)."""
    reason = ReferenceGame.load(core.rules, core.position(state, game)).illegal_reason(action)
    return reason or "it is not legal now"


def describe_action(core: AirportScrambleCore, action) -> str:
    """``"action 17 (fly E 3)"``, or just ``"action X"`` if it is not a valid index."""
    try:
        return f"action {int(action)} ({core.layout.describe(int(action))})"
    except (ValueError, TypeError):
        return f"action {action!r}"


def as_action(action, n_actions: int) -> int | None:
    """The action as an int, or None if it is not an integer in 0..n_actions-1."""
    if isinstance(action, (bool, np.bool_)) or not hasattr(action, "__index__"):
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = action.item()
        else:
            return None
    action = int(action)
    return action if 0 <= action < n_actions else None


def game_info(state: State, mask: np.ndarray, game: int = 0) -> dict[str, Any]:
    """The ``info`` dict of one game: its mask and what a logger wants to see."""
    info: dict[str, Any] = {
        "action_mask": mask,
        "score": int(state.score[game]),
        "die": int(state.die[game]),
        "points": int(state.points[game]),
        "line_choice": bool(state.phase[game] == LINE_CHOICE),
    }
    if state.done[game]:
        info["outcome"] = "won" if state.ticket[game] < 0 else "failed"
    return info


class AirportScrambleEnv(gym.Env):
    """One game of Airport Scramble. ``AirportScrambleEnv(render_mode=None, on_illegal="terminate",
    rules=None, **rule_options)``; ``reset(seed=s)`` plays the same game as ``core.init([s])``."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(
        self,
        render_mode: str | None = None,
        on_illegal: str = "terminate",
        rules: AirportScrambleRules | None = None,
        **rule_options: Any,
    ) -> None:
        check_mode("on_illegal", on_illegal, ON_ILLEGAL)
        check_mode("render_mode", render_mode, (None, *RENDER_MODES))
        self.rules = make_rules(rules, rule_options)
        self.core = AirportScrambleCore(self.rules)
        self.render_mode = render_mode
        self.on_illegal = on_illegal
        self.observation_space = spaces.Box(0.0, 1.0, (self.core.obs_size,), np.float32)
        self.action_space = spaces.Discrete(self.core.n_actions)
        self.state: State | None = None
        self._mask = np.zeros(self.core.n_actions, bool)
        self._over = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start a game; with ``seed`` it is the game of that seed, otherwise one drawn from ``np_random``."""
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int(self.np_random.integers(0, 2**63))
        self.state = self.core.init([game_seed])
        self._over = False
        return self._observe(), game_info(self.state, self._mask.copy())

    def _observe(self) -> np.ndarray:
        self._mask = self.core.legal_mask(self.state)[0]
        return self.core.observe(self.state)[0]

    def step(self, action):
        """Play ``action``; an illegal one ends the episode with reward -1 (or raises, see ``on_illegal``)."""
        if self.state is None or self._over:
            raise RuntimeError("call reset() before step() (the episode is over or has not started)")
        index = as_action(action, self.core.n_actions)
        if index is None or not self._mask[index]:
            why = f"not an action index 0..{self.core.n_actions - 1}" if index is None else illegal_reason(self.core, self.state, 0, index)
            message = f"{describe_action(self.core, action)} is illegal: {why}"
            if self.on_illegal == "raise":
                raise ValueError(message)
            self._over = True
            info = game_info(self.state, np.zeros_like(self._mask))
            info["illegal_action"] = message
            info["outcome"] = "illegal"
            self._mask = info["action_mask"]
            return self.core.observe(self.state)[0], ILLEGAL_REWARD, True, False, info
        reward = float(self.core.step(self.state, np.array([index]))[0])
        obs = self._observe()
        terminated = bool(self.state.done[0])
        self._over = terminated
        return obs, reward, terminated, False, game_info(self.state, self._mask.copy())

    def action_masks(self) -> np.ndarray:
        """``bool (n_actions,)``: the legal actions now (all False once the episode is over)."""
        return self._mask.copy()

    def render(self):
        """``ansi``: a text table; ``rgb_array``: ``uint8 (H, W, 3)``; None without a render mode."""
        if self.state is None or self.render_mode is None:
            return None
        position = self.core.position(self.state, 0)
        if self.render_mode == "ansi":
            return render_ansi(self.rules, position)
        return render_rgb(self.rules, position)
