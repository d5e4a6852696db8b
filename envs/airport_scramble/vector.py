"""Batched environments over the core: a native Gymnasium ``VectorEnv`` (the vector entry point of
``aerodeck/AirportScramble-v0``) and, in ``sb3.py``, a stable-baselines3 ``VecEnv``.

Both autoreset in the same step (Gymnasium's ``AutoresetMode.SAME_STEP``): when a game ends, the
step returns the first observation of the next game in its row, the last observation of the ended
game in ``info["final_obs"]`` (Gymnasium) / ``info["terminal_observation"]`` (SB3), and the new
game's legal mask. New games get seeds from the env's own generator (seeded by ``reset(seed=...)``).
Episode returns and lengths are left to the wrappers that record them (Gymnasium's
``RecordEpisodeStatistics``; SB3's ``Monitor`` convention in ``aerodeck.envs.common.sb3.BatchedVecEnv``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from aerodeck.envs.airport_scramble.core import AirportScrambleCore
from aerodeck.envs.airport_scramble.env import RENDER_MODES, illegal_message, make_rules
from aerodeck.envs.airport_scramble.render import render_ansi, render_rgb
from aerodeck.envs.airport_scramble.rules import AirportScrambleRules
from aerodeck.envs.common.checks import (
    ILLEGAL_REWARD, MAX_SEED, ON_ILLEGAL, check_actions, check_choice, check_seed, check_seeds, illegal_policy,
)


@dataclasses.dataclass
class BatchStep:
    """What one step of :class:`BatchGames` produced (arrays over the ``num_envs`` rows)."""

    obs: np.ndarray  # float32 (n, obs_size): after autoreset
    rewards: np.ndarray  # float32 (n,)
    terminated: np.ndarray  # bool (n,)
    ended: np.ndarray  # int64 (k,): the rows whose game ended this step
    final_obs: np.ndarray  # float32 (k, obs_size): their last observations
    final_score: np.ndarray  # int (k,)
    outcome: list[str]  # per ended row: "won", "failed" or "illegal"
    illegal: dict[int, str]  # row -> why its action was illegal


class BatchGames:
    """``num_envs`` games on one core with same-step autoreset (shared by both vector envs)."""

    def __init__(self, rules: AirportScrambleRules, num_envs: int, on_illegal: str = "terminate") -> None:
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        check_choice("on_illegal", on_illegal, ON_ILLEGAL)
        self.rules = rules
        self.core = AirportScrambleCore(rules, check_actions=False)  # checked here, against the masks
        self.num_envs = n = int(num_envs)
        self.on_illegal = on_illegal
        self.mask = np.zeros((n, self.core.n_actions), bool)
        self.obs = np.zeros((n, self.core.obs_size), np.float32)
        self.rng = np.random.default_rng()
        self.state = None

    def reset(self, seed: int | list[int] | None = None) -> np.ndarray:
        """Start every game. ``seed``: None (random), an int (games ``seed .. seed+n-1``, and new
        games drawn from a generator seeded with it) or one seed per game. Returns the observations."""
        n = self.num_envs
        if seed is None:
            seeds = self._new_seeds(n)
        elif isinstance(seed, (list, tuple, np.ndarray)) and np.ndim(seed) == 1:
            seeds = check_seeds(seed)
            if len(seeds) != n:
                raise ValueError(f"reset needs {n} seeds (one per env), got {len(seeds)}")
            self.rng = np.random.default_rng([int(s) for s in seeds])
        else:
            first = check_seed(seed)
            if first > MAX_SEED - (n - 1):
                raise ValueError(f"seed must be at most 2**64-{n} with {n} envs (games seed .. seed+{n - 1}), "
                                 f"got {first}")
            self.rng = np.random.default_rng(first)
            seeds = np.arange(n, dtype=np.uint64) + np.uint64(first)
        self.state = self.core.init(seeds)
        return self._refresh()

    def _new_seeds(self, k: int) -> np.ndarray:
        return self.rng.integers(0, 2**63, size=k, dtype=np.int64)

    def _refresh(self) -> np.ndarray:
        self.core.legal_mask(self.state, out=self.mask)
        return self.core.observe(self.state, out=self.obs)

    def step(self, actions) -> BatchStep:
        """One action per game: integers ``(num_envs,)`` in ``0..n_actions-1`` (``ValueError``
        otherwise); illegal ones end their game (reward -1) or raise ``IllegalActionError``."""
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        n = self.num_envs
        actions = check_actions(actions, n, self.core.n_actions)
        legal = self.mask[np.arange(n), actions]
        illegal = {int(row): f"env {row}: " + illegal_message(self.core.actions, int(actions[row]),
                                                              self.core.explain_illegal(self.state, row, int(actions[row])))
                   for row in np.flatnonzero(~legal)}
        if illegal:
            illegal_policy(self.on_illegal, "; ".join(illegal.values()))
        if illegal:
            self.state.done[list(illegal)] = True  # the game ends before the step; it ignores its action
        rewards = self.core.step(self.state, actions)[:, 0]
        for row in illegal:
            rewards[row] = ILLEGAL_REWARD
        terminated = self.state.done.copy()
        ended = np.flatnonzero(terminated)
        final_obs = (self.core.observe(self.state.take(ended)) if ended.size
                     else np.zeros((0, self.core.obs_size), np.float32))
        outcome = [
            "illegal" if int(row) in illegal else ("won" if self.state.ticket[row] < 0 else "failed") for row in ended
        ]
        result = BatchStep(
            obs=self.obs,
            rewards=rewards,
            terminated=terminated,
            ended=ended,
            final_obs=final_obs,
            final_score=self.state.score[ended].astype(np.int64),
            outcome=outcome,
            illegal=illegal,
        )
        if ended.size:
            self.core.reset(self.state, ended, self._new_seeds(ended.size))
        result.obs = self._refresh()
        return result

    def render(self, render_mode: str | None, rows=None) -> tuple:
        """Frames of the given rows (all by default) in ``render_mode``."""
        if self.state is None or render_mode is None:
            return ()
        rows = range(self.num_envs) if rows is None else rows
        draw = render_ansi if render_mode == "ansi" else render_rgb
        return tuple(draw(self.rules, self.core.snapshot(self.state, i)) for i in rows)


def batch_games(num_envs, on_illegal, render_mode, rules, rule_options) -> BatchGames:
    """The :class:`BatchGames` behind a vector env, its arguments checked."""
    check_choice("render_mode", render_mode, (None, *RENDER_MODES))
    return BatchGames(make_rules(rules, rule_options), num_envs, on_illegal)


def observation_space(core: AirportScrambleCore) -> spaces.Box:
    """One game's observation space."""
    return spaces.Box(0.0, 1.0, (core.obs_size,), np.float32)


class AirportScrambleVectorEnv(VectorEnv):
    """``num_envs`` games as a native Gymnasium ``VectorEnv`` with same-step autoreset.

    ``step`` returns ``infos`` with ``action_mask`` (bool (num_envs, n_actions), the masks of the
    decisions to make now, new games included), ``score``; and, for rows whose game ended,
    ``final_obs`` (object array, None elsewhere) and ``final_info`` (``score``, ``outcome``,
    ``illegal_action``), each with its ``_key`` row mask. Episode statistics come from Gymnasium's
    ``gymnasium.wrappers.vector.RecordEpisodeStatistics`` (``info["episode"]`` with ``r``, ``l``, ``t``).
    """

    metadata = {"render_modes": list(RENDER_MODES), "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int = 1,
        render_mode: str | None = None,
        on_illegal: str = "terminate",
        rules: AirportScrambleRules | None = None,
        **rule_options: Any,
    ) -> None:
        self.games = batch_games(num_envs, on_illegal, render_mode, rules, rule_options)
        self.rules, self.core = self.games.rules, self.games.core
        self.num_envs = self.games.num_envs
        self.render_mode = render_mode
        self.single_observation_space = observation_space(self.core)
        self.single_action_space = spaces.Discrete(self.core.n_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def reset(self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None):
        """Start every game (see :meth:`BatchGames.reset` for ``seed``)."""
        one = seed is not None and np.ndim(seed) == 0
        super().reset(seed=check_seed(seed) if one else None)
        if seed is None:
            self.games.rng = self.np_random
        obs = self.games.reset(seed)
        return obs.copy(), self._infos()

    def _infos(self) -> dict[str, Any]:
        n = self.num_envs
        every = np.ones(n, bool)
        return {
            "action_mask": self.games.mask.copy(),
            "_action_mask": every,
            "score": self.games.state.score.astype(np.int64),
            "_score": every,
        }

    def step(self, actions):
        """One action per env; ended games restart in the same step (see the class doc)."""
        out = self.games.step(actions)
        infos = self._infos()
        if out.ended.size:
            n, ended = self.num_envs, out.ended
            rows = np.zeros(n, bool)
            rows[ended] = True
            final_obs = np.full(n, None, dtype=object)
            for k, row in enumerate(ended):
                final_obs[row] = out.final_obs[k]
            score = np.zeros(n, np.int64)
            score[ended] = out.final_score
            outcome = np.full(n, None, dtype=object)
            outcome[ended] = out.outcome
            illegal = np.full(n, None, dtype=object)
            for row, why in out.illegal.items():
                illegal[row] = why
            infos.update(
                final_obs=final_obs,
                _final_obs=rows,
                final_info={"score": score, "_score": rows, "outcome": outcome, "_outcome": rows,
                            "illegal_action": illegal, "_illegal_action": rows},
                _final_info=rows,
            )
        truncated = np.zeros(self.num_envs, bool)
        return out.obs.copy(), out.rewards.copy(), out.terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """``bool (num_envs, n_actions)``: the legal actions of every env now."""
        return self.games.mask.copy()

    def render(self) -> tuple | None:
        """A frame per env in ``render_mode`` (None without one)."""
        if self.render_mode is None:
            return None
        return self.games.render(self.render_mode)
