"""The Gymnasium environment ``aerodeck/AirportScramble-v0``: one game.

Observation: flat ``Box(0, 1, (obs_size,), float32)`` (layout in docs/airport-scramble.md);
actions: ``Discrete(n_actions)`` laid out as AS-19; the legal mask is ``info["action_mask"]`` and
``action_masks()`` (what sb3-contrib's MaskablePPO reads). Reward +1 per completed ticket (AS-16).

One game runs on :class:`~envs.airport_scramble.single.SingleGame` (the reference engine's rules
code with fast observation and mask), several times faster than a batch of one on the core; it
plays exactly the core's game of the same seed (``tests/airport_scramble/test_env.py`` checks
observations, masks, rewards and positions step by step).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from aerodeck.envs.airport_scramble.core import AirportScrambleCore
from aerodeck.envs.airport_scramble.position import LINE_CHOICE
from aerodeck.envs.airport_scramble.render import render_ansi, render_rgb
from aerodeck.envs.airport_scramble.rules import AirportScrambleRules
from aerodeck.envs.airport_scramble.single import SingleGame
from aerodeck.envs.airport_scramble.state import State
from aerodeck.envs.common.checks import (
    ILLEGAL_REWARD, ON_ILLEGAL, check_action, check_choice, check_seed, illegal_policy, rules_with_options,
)

RENDER_MODES = ("ansi", "rgb_array")


def make_rules(rules: AirportScrambleRules | None, rule_options: dict[str, Any]) -> AirportScrambleRules:
    """The rules object: ``rules`` (default: the default rules) with the keyword rule options
    applied on top (``rules.replace(**rule_options)``)."""
    return rules_with_options(AirportScrambleRules, rules, rule_options)


def illegal_message(actions, action: int, why: str | None) -> str:
    """``"action 0 (fly N 1) is illegal: the plane's reach N is 0"`` (``actions``: the ``ActionLayout``)."""
    return f"action {action} ({actions.describe(action)}) is illegal: {why or 'it is not legal now'}"


def game_info(game: SingleGame, mask: np.ndarray) -> dict[str, Any]:
    """The ``info`` dict of one game: its mask and what a logger wants to see."""
    info: dict[str, Any] = {
        "action_mask": mask,
        "score": game.score,
        "die": game.die,
        "points": game.points,
        "line_choice": game.phase == LINE_CHOICE,
    }
    if game.done:
        info["outcome"] = "won" if game.ticket < 0 else "failed"
    return info


class AirportScrambleEnv(gym.Env):
    """One game of Airport Scramble. ``AirportScrambleEnv(render_mode=None, on_illegal="terminate",
    rules=None, **rule_options)`` (rule options are applied on top of ``rules``); ``reset(seed=s)``
    plays the same game as ``core.init([s])``.

    An action that is not an integer in ``0..n_actions-1`` (a numpy integer or a shape-(1,) integer
    array counts as one) raises ``ValueError``; a well-formed but illegal one follows ``on_illegal``
    (``aerodeck.envs.common.checks.ON_ILLEGAL``). ``self.core`` is a batched core for these rules and
    ``self._state`` the game now as a batch of one of it (built on demand; read by
    ``aerodeck.envs.view_of_env`` for look-ahead agents).
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(
        self,
        render_mode: str | None = None,
        on_illegal: str = "terminate",
        rules: AirportScrambleRules | None = None,
        **rule_options: Any,
    ) -> None:
        check_choice("on_illegal", on_illegal, ON_ILLEGAL)
        check_choice("render_mode", render_mode, (None, *RENDER_MODES))
        self.rules = make_rules(rules, rule_options)
        self.core = AirportScrambleCore(self.rules, check_actions=False)
        self.render_mode = render_mode
        self.on_illegal = on_illegal
        self.observation_space = spaces.Box(0.0, 1.0, (self.core.obs_size,), np.float32)
        self.action_space = spaces.Discrete(self.core.n_actions)
        self._game: SingleGame | None = None
        self._mask = np.zeros(self.core.n_actions, bool)
        self._over = False

    @property
    def _state(self) -> State | None:
        """The game now as the core's batch of one (None before the first reset)."""
        return None if self._game is None else self.core.load_positions([self._game.snapshot()])

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start a game; with ``seed`` (an integer in 0..2**64-1) it is the game of that seed,
        otherwise one drawn from ``np_random``."""
        if seed is not None:
            seed = check_seed(seed)
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int(self.np_random.integers(0, 2**63))
        self._game = SingleGame(self.rules, game_seed)
        self._over = False
        self._mask = self._game.legal_mask()
        return self._game.observe(), game_info(self._game, self._mask.copy())

    def step(self, action):
        """Play ``action``; an illegal one ends the episode with reward -1 (or raises, see ``on_illegal``)."""
        if self._game is None or self._over:
            raise RuntimeError("call reset() before step() (the episode is over or has not started)")
        index = check_action(action, self.core.n_actions)
        game = self._game
        if not self._mask[index]:
            message = illegal_message(self.core.actions, index, game.explain_illegal(index))
            illegal_policy(self.on_illegal, message)
            self._over = True
            self._mask = np.zeros_like(self._mask)
            info = game_info(game, self._mask)
            info["illegal_action"] = message
            info["outcome"] = "illegal"
            return game.observe(), ILLEGAL_REWARD, True, False, info
        reward = game.step(index)
        self._mask = game.legal_mask()
        self._over = game.done
        return game.observe(), reward, game.done, False, game_info(game, self._mask.copy())

    def action_masks(self) -> np.ndarray:
        """``bool (n_actions,)``: the legal actions now (all False once the episode is over)."""
        return self._mask.copy()

    def render(self):
        """``ansi``: a text table; ``rgb_array``: ``uint8 (H, W, 3)``; None without a render mode."""
        if self._game is None or self.render_mode is None:
            return None
        position = self._game.snapshot()
        if self.render_mode == "ansi":
            return render_ansi(self.rules, position)
        return render_rgb(self.rules, position)
