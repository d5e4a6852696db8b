"""The look-ahead view of Flight Tycoon (``aerodeck.envs.common.core.View``): what a search agent may see.

A :class:`FlightTycoonView` shows each game through its deciding seat: the seat's observation, the legal
actions and determinizations (``knowledge.sample_hidden``: full states the seat cannot tell from the
real one, with fresh random streams) — never the real hidden cards. ``aerodeck.envs.view_of_env(aec)`` makes
one for the PettingZoo env; the batched learner view (``learner.py``) and the tournaments pass one to
every opponent.
"""

from __future__ import annotations

import numpy as np

from aerodeck.envs.common.checks import check_seeds
from aerodeck.envs.flight_tycoon.knowledge import sample_hidden
from aerodeck.envs.flight_tycoon.state import State


class FlightTycoonView:
    """``FlightTycoonView(core, state, seats, games=None)``: the deciding ``seats`` (absolute; an int or one
    per listed game) of the games ``games`` (indices into ``state``, default all). Valid during one
    ``Agent.act`` call (the games move on after it)."""

    def __init__(self, core, state: State, seats, games=None) -> None:
        self.core = core
        self.rules = core.rules
        self._state = state
        self._games = np.arange(state.batch_size) if games is None else np.asarray(games, np.int64)
        self.seats = np.broadcast_to(np.asarray(seats, np.int64), self._games.shape).copy()

    @property
    def batch_size(self) -> int:
        """k, the number of games seen."""
        return self._games.size

    def observation(self) -> np.ndarray:
        """``float32 (k, obs_size)``: each game's observation for its seat."""
        return self.core.observe(self._state, self.seats, games=self._games)

    def legal_mask(self) -> np.ndarray:
        """``bool (k, n_actions)``: the legal actions of the decision now (the seat's own)."""
        return self.core.legal_mask(self._state, games=self._games)

    def action_kinds(self) -> np.ndarray:
        """``int8 (k, n_actions)``: the kind of each legal action (``core.action_kinds``), −1 where
        illegal. Public: the decision's phase and the seat's own legal actions (FT-16)."""
        return self.core.action_kinds(self._state.take(self._games))

    def determinize(self, seeds, samples: int = 1, games=None) -> State:
        """``samples`` determinizations of each game for its seat — of the games ``games`` (indices
        0 … k−1 into this view, default all) — game by game in a row (the i-th game's samples are rows
        i·samples … i·samples + samples − 1). ``seeds``: integers in [0, 2**64), one per row. A full
        state to play forward with the core, sampled by ``knowledge.sample_hidden``."""
        if not isinstance(samples, (int, np.integer)) or isinstance(samples, bool) or samples < 1:
            raise ValueError(f"samples must be a positive integer, got {samples!r}")
        rows = np.arange(self.batch_size) if games is None else np.asarray(games, np.int64)
        if rows.ndim != 1 or (rows.size and (rows.min() < 0 or rows.max() >= self.batch_size)):
            raise ValueError(f"games must be indices 0..{self.batch_size - 1} into the view, got {rows.tolist()}")
        seeds = check_seeds(seeds)
        if seeds.size != rows.size * samples:
            raise ValueError(f"seeds: one per sample ({rows.size} games × {samples}), got {seeds.size}")
        state = self._state.take(self._games[rows]).repeat(samples)
        return sample_hidden(self.core, state, np.repeat(self.seats[rows], samples), seeds)
