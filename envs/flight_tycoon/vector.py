"""The batched training view: one learning seat per game, the other seats played by opponent agents.

``SelfPlay(num_envs, opponents=..., learner_seat=...)`` runs ``num_envs`` games on the core. Each
``step(actions)`` plays the learner's decision in every game, then lets the opponents (``agents/``:
``act(observations, masks)`` on the whole batch at once) play until every game waits for the learner
again or is over; finished games restart at once (same-step autoreset, the finished game's last
observation in ``infos[i]["terminal_observation"]``). Observations are the learner's (seats relative to
it), so one policy fits every seat. ``envs.flight_tycoon.sb3.FlightTycoonVecEnv`` wraps this as a
Stable-Baselines3 ``VecEnv`` with ``action_masks()`` for MaskablePPO.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.base import Agent
from agents.random import RandomAgent
from envs.flight_tycoon.core import FlightTycoonCore
from envs.flight_tycoon.knowledge import SeatView
from envs.flight_tycoon.rules import FlightTycoonRules
from envs.flight_tycoon.state import State

LEARNER_SEATS = ("rotate", "random")


class SelfPlay:
    """``num_envs`` games with one learning seat each; see the module docstring.

    ``opponents``: one ``Agent`` for every other seat, or a sequence of n−1 agents by seat offset from
    the learner (1 = next clockwise); default ``RandomAgent``. ``learner_seat``: an absolute seat,
    ``"rotate"`` (a game's seat is its game number modulo n: every seat equally often) or ``"random"``.
    ``seed`` fixes the game seeds, the learner seats and nothing else (agents own their randomness).
    """

    def __init__(self, num_envs: int, rules: FlightTycoonRules | None = None, opponents=None,
                 learner_seat="rotate", seed: int = 0, **rule_options) -> None:
        if rules is not None and rule_options:
            raise ValueError("pass either a rules object or rule options, not both")
        self.rules = rules if rules is not None else FlightTycoonRules.from_options(rule_options)
        if not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        n = self.rules.n_players
        if not (learner_seat in LEARNER_SEATS or (isinstance(learner_seat, (int, np.integer)) and 0 <= learner_seat < n)):
            raise ValueError(f"learner_seat must be a seat 0..{n - 1}, 'rotate' or 'random', got {learner_seat!r}")
        self.core = FlightTycoonCore(self.rules)
        self.num_envs = int(num_envs)
        self.n_actions = self.core.n_actions
        self.observation_size = self.core.obs_size
        self.learner_seat = learner_seat
        self.opponents = self._opponents(opponents, n)
        self._seed_rng = np.random.default_rng(seed)
        self._games_started = 0
        self._reserve: State | None = None
        self._reserve_next = 0
        self.state: State | None = None
        self.learner = np.zeros(self.num_envs, np.int64)

    def seed(self, seed: int | None) -> None:
        """Deal the games from the next ``reset`` on (and every game after) from ``seed``."""
        self._seed_rng = np.random.default_rng(seed)
        self._reserve, self._reserve_next, self._games_started = None, 0, 0

    @staticmethod
    def _opponents(opponents, n: int) -> list[Agent]:
        if opponents is None:
            return [RandomAgent(0)] * (n - 1)
        if isinstance(opponents, Agent):
            return [opponents] * (n - 1)
        if isinstance(opponents, Sequence) and len(opponents) == n - 1 and all(isinstance(a, Agent) for a in opponents):
            return list(opponents)
        raise ValueError(f"opponents must be an Agent or a sequence of {n - 1} Agents (one per seat offset 1..{n - 1})")

    # --- games -----------------------------------------------------------------------------------------

    def _fresh(self, count: int) -> tuple[State, np.ndarray]:
        """``count`` new games (dealt in bulk, ahead of need) and their learner seats."""
        parts = []
        while count:
            if self._reserve is None or self._reserve_next == self._reserve.batch_size:
                seeds = self._seed_rng.integers(0, 2**63, size=max(self.num_envs, 64), dtype=np.uint64)
                self._reserve, self._reserve_next = self.core.init(seeds), 0
            take = min(count, self._reserve.batch_size - self._reserve_next)
            parts.append(self._reserve.take(slice(self._reserve_next, self._reserve_next + take)))
            self._reserve_next += take
            count -= take
        games = parts[0] if len(parts) == 1 else State.concatenate(parts)
        number = self._games_started + np.arange(games.batch_size)
        self._games_started += games.batch_size
        n = self.rules.n_players
        if self.learner_seat == "rotate":
            seats = number % n
        elif self.learner_seat == "random":
            seats = self._seed_rng.integers(0, n, size=games.batch_size)
        else:
            seats = np.full(games.batch_size, self.learner_seat)
        return games, seats.astype(np.int64)

    def _play_opponents(self, rewards: np.ndarray) -> None:
        """Let the opponents decide until every game waits for its learner or is over."""
        st, core, n = self.state, self.core, self.rules.n_players
        while True:
            to_act = core.to_act(st)
            waiting = (to_act >= 0) & (to_act != self.learner)
            if not waiting.any():
                return
            offset = (to_act - self.learner) % n
            actions = np.zeros(st.batch_size, np.int64)
            for agent in dict.fromkeys(self.opponents):  # each distinct agent once, on all its games
                mine = np.array([a is agent for a in self.opponents])
                games = np.flatnonzero(waiting & mine[offset - 1])
                if games.size:
                    obs = core.observe(st, to_act[games], games=games)
                    view = SeatView(core, st, to_act[games], games)  # for look-ahead agents: no hidden cards
                    actions[games] = agent.act(obs, core.legal_mask(st, games=games), view)
            played = np.flatnonzero(waiting)
            reward = core.step(st, actions, games=played)
            rewards[played] += reward[played, self.learner[played]]

    # --- the vector API ----------------------------------------------------------------------------------

    def reset(self) -> tuple[np.ndarray, np.ndarray]:
        """New games; returns the learner's observations ``float32 (B, obs)`` and masks ``bool (B, A)``."""
        games, self.learner = self._fresh(self.num_envs)
        self.state = games.copy()  # not a view of the dealt-ahead games
        self._play_opponents(np.zeros(self.num_envs, np.float32))
        return self.observe(), self.action_masks()

    def observe(self) -> np.ndarray:
        """``float32 (B, obs_size)``: each game's observation for its learner."""
        return self.core.observe(self.state, self.learner)

    def action_masks(self) -> np.ndarray:
        """``bool (B, n_actions)``: the learner's legal actions (all False only in a finished game)."""
        return self.core.legal_mask(self.state)

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        """Play the learners' ``actions`` (integers (B,)); returns observations, rewards ``float32 (B,)``
        (the learner's FT-15 rewards since its last decision), dones ``bool (B,)`` and infos.

        A finished game restarts at once: its entry holds the new game's first observation and
        ``infos[i]`` has ``terminal_observation``, ``vp`` (final VP by seat, relative to the learner)
        and ``learner_seat``.
        """
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {actions.shape}")
        rewards = np.zeros(self.num_envs, np.float32)
        reward = self.core.step(self.state, actions.astype(np.int64))
        rewards += reward[np.arange(self.num_envs), self.learner]
        self._play_opponents(rewards)
        dones = self.state.done.copy()
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        finished = np.flatnonzero(dones)
        if finished.size:
            terminal = self.core.observe(self.state, self.learner[finished], games=finished)
            n = self.rules.n_players
            for i, b in enumerate(finished):
                order = (self.learner[b] + np.arange(n)) % n
                infos[b] = {"terminal_observation": terminal[i], "vp": self.state.vp[b, order].copy(),
                            "learner_seat": int(self.learner[b])}
            games, seats = self._fresh(finished.size)
            self.state.put(finished, games)
            self.learner[finished] = seats
            self._play_opponents(np.zeros(self.num_envs, np.float32))  # new games: no reward carried over
        return self.observe(), rewards, dones, infos
