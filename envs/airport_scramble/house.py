"""Airport Scramble's glue for house rules (``GameSpec.house``; ``aerodeck.envs.common.house``): one
reference game as the batched core's arrays and back, and the engine's calls in the core's terms.

A game's table is its :class:`~aerodeck.envs.airport_scramble.position.Position` (``snapshot``), which
the batched core loads (``load_positions``) and exports (``snapshot``), so the arrays a house-ruled game
shows (to the metrics, the agents, the look-ahead view) are exactly the ones the batched core would hold
for the same table.
"""

from __future__ import annotations

import numpy as np

from aerodeck.envs.airport_scramble.core import AirportScrambleCore
from aerodeck.envs.airport_scramble.position import LINE_CHOICE
from aerodeck.envs.airport_scramble.reference import ReferenceGame
from aerodeck.envs.common.batch import BatchedState


class Glue:
    """What ``aerodeck.envs.common.house.ReferenceCore`` needs of Airport Scramble (every method static)."""

    #: The reference engine a house rule subclasses.
    reference = ReferenceGame

    @staticmethod
    def core(rules) -> AirportScrambleCore:
        """The batched core of the same options (layouts, arrays)."""
        return AirportScrambleCore(rules, check_actions=False)

    @staticmethod
    def to_act(game) -> int:
        """The seat to decide: 0, or −1 once the game is over (AS-16)."""
        return -1 if game.done else 0

    @staticmethod
    def legal_mask(game) -> np.ndarray:
        """``bool (A,)``: the engine's ``legal_mask()``."""
        return game.legal_mask()

    @staticmethod
    def observe(game, seat: int) -> np.ndarray:
        """``float32 (O,)``: the engine's ``observe()`` (one seat)."""
        return game.observe()

    @staticmethod
    def step(game, action: int) -> list[float]:
        """The engine's ``step(action)``; the reward of the one seat."""
        return [game.step(action)]

    @staticmethod
    def write(core: AirportScrambleCore, state, rows: np.ndarray, games: list) -> None:
        """Write ``games`` into the rows ``rows`` of ``state`` (every field, as ``load_positions`` sets it;
        ``placed`` keeps the order the cards were placed in, as the batched core's does, until a line is
        removed, AS-15, when the batched core too lists them afresh; ``lines`` outside a line choice keeps
        the last choice's, as the batched core's does)."""
        old_placed, old_n, old_lines = state.placed[rows].copy(), state.n_placed[rows].copy(), state.lines[rows].copy()
        BatchedState.put(state, rows, core.load_positions([g.snapshot() for g in games]))
        keep = state.phase[rows] != LINE_CHOICE  # the batched core keeps the last choice's lines until the next
        state.lines[rows[keep]] = old_lines[keep]
        grid = state.grid.reshape(state.batch_size, -1)
        for j, i in enumerate(rows.tolist()):
            kept = [int(c) for c in old_placed[j, : old_n[j]]]
            if not all(grid[i, c] >= 0 for c in kept):
                continue  # a line was removed: listed afresh
            new = [int(c) for c in state.placed[i, : state.n_placed[i]] if int(c) not in set(kept)]
            state.placed[i, : len(kept) + len(new)] = kept + new

    @staticmethod
    def read(core: AirportScrambleCore, state, i: int, engine: type):
        """Game ``i`` of ``state`` as an ``engine`` game (``from_position`` of the core's ``snapshot``)."""
        return engine.from_position(core.rules, core.snapshot(state, i))
