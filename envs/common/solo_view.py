"""The look-ahead view of a solo game whose only hidden information is the order of its decks
(``aerodeck.envs.common.core.View``): the table is public, and a game's future draws are fixed by its random
stream, so a look-ahead agent never steps the real state — it gets copies whose streams are replaced by
seeds of its own (``determinize``), where every future draw is a fresh uniform draw from the cards that
are really left: the same distribution the player faces.
"""

from __future__ import annotations

import numpy as np

from aerodeck.envs.common.checks import check_seeds


class SoloView:
    """B games as a look-ahead agent may see them, valid during one ``Agent.act`` call.

    ``SoloView(core, state, seats=0)``: ``core`` a solo game's core, ``state`` its games (kept private),
    ``seats`` the deciding seat (0, or integers (B,) with 0 or -1 for finished games, as ``core.to_act``
    gives). A game subclasses it to name itself (``game``) and its hidden state fields (``hidden``).
    """

    #: The game's name in messages.
    game = "this game"
    #: The state fields that hold the hidden deck order (the random stream).
    hidden: tuple[str, ...] = ("key", "counter")
    #: Why they are hidden (the rule), in :meth:`public`'s refusal.
    hidden_rule = "the deck order is hidden"

    def __init__(self, core, state, seats=0) -> None:
        seats = np.asarray(seats)
        if seats.shape not in ((), (state.batch_size,)) or not np.isin(seats, (0, -1)).all():
            raise ValueError(f"{self.game} has one seat: seats must be 0 (or -1 for a finished game), got {seats!r}")
        self.core, self.rules, self._state = core, core.rules, state
        #: int64 (B,): the deciding seat of each game, always 0 (solo).
        self.seats = np.zeros(state.batch_size, np.int64)

    @property
    def batch_size(self) -> int:
        """The number of games B."""
        return self._state.batch_size

    def observation(self) -> np.ndarray:
        """``float32 (B, obs_size)``: each game's observation."""
        return self.core.observe(self._state)

    def legal_mask(self) -> np.ndarray:
        """``bool (B, n_actions)``: the legal actions of the decision now."""
        return self.core.legal_mask(self._state)

    def action_kinds(self) -> np.ndarray:
        """``int8 (B, n_actions)``: the kind of each legal action (``core.action_kinds``), −1 where illegal."""
        return self.core.action_kinds(self._state)

    def public(self, name: str) -> np.ndarray:
        """A copy of the state field ``name`` that the player sees (any field but the hidden ones)."""
        if name in self.hidden:
            raise AttributeError(f"{name!r} is the hidden deck order ({self.hidden_rule}); use determinize() to look ahead")
        return np.copy(getattr(self._state, name))

    def determinize(self, seeds, samples: int = 1, games=None):
        """Each game (of ``games``: integer indices or a bool mask, default all, rows in their order)
        repeated ``samples`` times in a row (game i → rows i·samples … i·samples + samples − 1),
        with fresh random streams from ``seeds`` (integers, one per row). Returns a new State."""
        if not isinstance(samples, (int, np.integer)) or isinstance(samples, bool) or samples < 1:
            raise ValueError(f"samples must be a positive integer, got {samples!r}")
        state = self._state if games is None else self._state.take(games)
        rows = state.batch_size * int(samples)
        seeds = check_seeds(seeds)
        if seeds.shape != (rows,):
            raise ValueError(f"determinize needs one seed per row: {rows} rows, got {seeds.size} seeds")
        branches = state.repeat(int(samples))
        self.core.reseed(branches, seeds)
        return branches
