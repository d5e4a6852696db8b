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

from envs.airport_scramble.core import AirportScrambleCore
from envs.airport_scramble.position import LINE_CHOICE
from envs.airport_scramble.render import render_ansi, render_rgb
from envs.airport_scramble.rules import AirportScrambleRules
from envs.airport_scramble.state import State
from envs.common.checks import IllegalActionError, check_action, check_seed

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


def illegal_message(core: AirportScrambleCore, state: State, game: int, action: int) -> str:
    """``"action 0 (fly N 1) is illegal: the plane's reach N is 0"`` for game ``game`` of ``state``."""
    why = core.explain_illegal(state, game, action) or "it is not legal now"
    return f"action {action} ({core.actions.describe(action)}) is illegal: {why}"


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
    rules=None, **rule_options)``; ``reset(seed=s)`` plays the same game as ``core.init([s])``.

    An action that is not an integer in ``0..n_actions-1`` (a numpy integer or a shape-(1,) integer
    array counts as one) raises ``ValueError``; a well-formed but illegal one follows ``on_illegal``.
    The batched core is ``self.core``, the one game's state the private ``self._state`` (read by
    ``envs.view_of_env`` for look-ahead agents).
    """

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
        self.core = AirportScrambleCore(self.rules, check_actions=False)  # checked here, against the mask
        self.render_mode = render_mode
        self.on_illegal = on_illegal
        self.observation_space = spaces.Box(0.0, 1.0, (self.core.obs_size,), np.float32)
        self.action_space = spaces.Discrete(self.core.n_actions)
        self._state: State | None = None
        self._mask = np.zeros(self.core.n_actions, bool)
        self._over = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start a game; with ``seed`` (an integer in 0..2**64-1) it is the game of that seed,
        otherwise one drawn from ``np_random``."""
        if seed is not None:
            seed = check_seed(seed)
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int(self.np_random.integers(0, 2**63))
        self._state = self.core.init([game_seed])
        self._over = False
        return self._observe(), game_info(self._state, self._mask.copy())

    def _observe(self) -> np.ndarray:
        self._mask = self.core.legal_mask(self._state)[0]
        return self.core.observe(self._state)[0]

    def step(self, action):
        """Play ``action``; an illegal one ends the episode with reward -1 (or raises, see ``on_illegal``)."""
        if self._state is None or self._over:
            raise RuntimeError("call reset() before step() (the episode is over or has not started)")
        index = check_action(action, self.core.n_actions)
        if not self._mask[index]:
            message = illegal_message(self.core, self._state, 0, index)
            if self.on_illegal == "raise":
                raise IllegalActionError(message)
            self._over = True
            info = game_info(self._state, np.zeros_like(self._mask))
            info["illegal_action"] = message
            info["outcome"] = "illegal"
            self._mask = info["action_mask"]
            return self.core.observe(self._state)[0], ILLEGAL_REWARD, True, False, info
        reward = float(self.core.step(self._state, np.array([index]))[0, 0])
        obs = self._observe()
        terminated = bool(self._state.done[0])
        self._over = terminated
        return obs, reward, terminated, False, game_info(self._state, self._mask.copy())

    def action_masks(self) -> np.ndarray:
        """``bool (n_actions,)``: the legal actions now (all False once the episode is over)."""
        return self._mask.copy()

    def render(self):
        """``ansi``: a text table; ``rgb_array``: ``uint8 (H, W, 3)``; None without a render mode."""
        if self._state is None or self.render_mode is None:
            return None
        position = self.core.snapshot(self._state, 0)
        if self.render_mode == "ansi":
            return render_ansi(self.rules, position)
        return render_rgb(self.rules, position)
