"""Altimeter's look-ahead view (``envs.common.core.View``): the table, and determinizations whose
future draws are fresh (AL-8: the deck order is the only hidden information)."""

from __future__ import annotations

import numpy as np

from envs.common.checks import check_seeds


class AltimeterView:
    """B games as a look-ahead agent may see them. ``AltimeterView(core, state, seats=0)``."""

    def __init__(self, core, state, seats=0) -> None:
        seats = np.asarray(seats)
        if seats.shape not in ((), (state.batch_size,)) or not np.isin(seats, (0, -1)).all():
            raise ValueError(f"Altimeter has one seat: seats must be 0 (or -1 for a finished game), got {seats!r}")
        self.core, self.rules, self._state = core, core.rules, state
        #: int64 (B,): the deciding seat, always 0.
        self.seats = np.zeros(state.batch_size, np.int64)

    @property
    def batch_size(self) -> int:
        """The number of games B."""
        return self._state.batch_size

    def observation(self) -> np.ndarray:
        """``float32 (B, O)``."""
        return self.core.observe(self._state)

    def legal_mask(self) -> np.ndarray:
        """``bool (B, 3)``."""
        return self.core.legal_mask(self._state)

    def action_kinds(self) -> np.ndarray:
        """``int8 (B, 3)``."""
        return self.core.action_kinds(self._state)

    def determinize(self, seeds, samples: int = 1, games=None):
        """Each game (of ``games``, default all) ``samples`` times in a row with fresh streams from
        ``seeds`` (one per row); a new State."""
        if not isinstance(samples, (int, np.integer)) or isinstance(samples, bool) or samples < 1:
            raise ValueError(f"samples must be a positive integer, got {samples!r}")
        state = self._state if games is None else self._state.take(games)
        seeds = check_seeds(seeds)
        if seeds.shape != (state.batch_size * int(samples),):
            raise ValueError(f"determinize needs one seed per row: {state.batch_size * int(samples)} rows, "
                             f"got {seeds.size} seeds")
        branches = state.repeat(int(samples))
        self.core.reseed(branches, seeds)
        return branches
