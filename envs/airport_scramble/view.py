"""The look-ahead view of Airport Scramble games: public state, and branches with fresh randomness.

AS-17: the order of the two decks is the only hidden information. A game's future draws are fixed by
its random stream (key, counter), so a look-ahead agent may never step the real state: it gets
copies whose streams are replaced by seeds of its own (``branch``), where every future draw is a fresh
uniform draw from the cards that are really left — the same distribution the player faces.
"""

from __future__ import annotations

import numpy as np


class SearchView:
    """A batch of games as a look-ahead agent may see them.

    ``core``: the :class:`~envs.airport_scramble.core.AirportScrambleCore`; ``games`` its state (kept
    private). ``public(name)`` reads a state field that the player sees (any field but the random
    stream); ``branch(k, rng)`` returns each game repeated ``k`` times with fresh streams.
    """

    _HIDDEN = ("key", "counter")

    def __init__(self, core, state) -> None:
        self.core = core
        self._state = state

    @property
    def batch_size(self) -> int:
        """The number of games B."""
        return self._state.batch_size

    def public(self, name: str) -> np.ndarray:
        """A copy of the state field ``name`` (e.g. ``grid``, ``slots``, ``plane``, ``deck``)."""
        if name in self._HIDDEN:
            raise AttributeError(f"{name!r} is the hidden deck order (AS-17); use branch() to look ahead")
        return np.copy(getattr(self._state, name))

    def branch(self, k: int, rng: np.random.Generator, games=None):
        """Each game repeated ``k`` times (game i → rows i·k … i·k+k−1) with fresh random streams.

        ``games``: optional integer indices (or a bool mask) of the games to branch (default: all);
        the rows then follow the order of ``games``.
        """
        state = self._state if games is None else self._state.take(games)
        branches = state.repeat(k)
        self.core.reseed(branches, rng.integers(0, 2**63, size=branches.batch_size, dtype=np.uint64))
        return branches


def make_view(core, state) -> SearchView:
    """The view handed to look-ahead agents by ``train.play.play_solo``."""
    return SearchView(core, state)


def view_of_env(env) -> SearchView:
    """The view of a single-game environment (e.g. ``gymnasium.make("aerodeck/AirportScramble-v0")``),
    for agents with ``needs_view``: ``agent.act_one(obs, info["action_mask"], view_of_env(env))``.

    Uses the environment's batched ``core`` and its one-game ``state`` (looked up through wrappers).
    """
    base = getattr(env, "unwrapped", env)
    core = getattr(base, "core", None)
    state = getattr(base, "state", None)
    if core is None or state is None:
        raise TypeError(f"{type(base).__name__} has no batched core and state to look ahead with")
    return SearchView(core, state)
