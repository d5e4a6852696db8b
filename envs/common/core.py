"""The contracts every game satisfies: the batched ``Core``, its two layouts and the look-ahead ``View``.

A game's ``core.py`` holds one class satisfying :class:`Core`; ``aerodeck.testing.check_game`` checks it
(``tests/test_contract.py`` for every game in the registry, ``aerodeck.envs.games()``). ``B`` is the number of games in a batch, ``A``
the number of actions (``core.n_actions``), ``O`` the observation size (``core.obs_size``), ``n``
the number of seats (``core.n_players``; 1 for a solo game).

Conventions shared by every core:

- Rewards are ``float32 (B, n)``, by absolute seat (a solo game's are ``(B, 1)``).
- ``step`` refuses bad input: actions of the wrong shape or dtype or out of range raise
  ``ValueError``; an action the rules forbid raises :class:`~envs.common.checks.IllegalActionError`
  naming the game, the action and why — unless the core was built with ``check_actions=False``
  (trusted callers such as rollouts, which draw from ``legal_mask``). A finished game ignores its
  action and keeps its final state; its mask row is all False.
- Seeds are integers in ``[0, 2**64)`` (:func:`~envs.common.checks.check_seeds`); a game's trajectory
  depends only on its seed and its actions, never on the batch it is stepped in.
- ``save`` / ``restore`` round-trip a whole batch exactly (plain arrays: ``numpy.savez``-able).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from aerodeck.envs.common.layout import Block


@runtime_checkable
class ActionLayout(Protocol):
    """The action indices of a game (``core.actions``)."""

    #: A, the number of actions.
    n_actions: int
    #: The kinds of decision, by name (e.g. ``fly``, ``stop_early``, ``play``; ``tower``, ``request``,
    #: ``give``, ``discard``): what ``Core.action_kinds`` indexes. Used by restricted play and metrics.
    kinds: tuple[str, ...]

    def describe(self, action: int) -> str:
        """The action in the game's words (e.g. ``"fly E 2"``)."""
        ...


@runtime_checkable
class ObservationLayout(Protocol):
    """The flat observation vector of a game (``core.observation``), block by block."""

    #: O, the number of entries; every entry lies in ``[0, 1]``.
    size: int
    #: The blocks by name, laid end to end.
    blocks: dict[str, Block]


@runtime_checkable
class State(Protocol):
    """B games as arrays whose leading axis is the game (``aerodeck.envs.common.batch.BatchedState``)."""

    #: ``bool (B,)``: the game is over.
    done: np.ndarray

    @property
    def batch_size(self) -> int: ...

    def copy(self) -> Any: ...

    def take(self, idx) -> Any: ...

    def repeat(self, k: int) -> Any: ...

    def put(self, idx, other) -> None: ...


@runtime_checkable
class Core(Protocol):
    """B games of one game under one rules object, stepped with array operations."""

    rules: Any
    #: n, the number of seats (1 for a solo game).
    n_players: int
    n_actions: int
    obs_size: int
    actions: ActionLayout
    observation: ObservationLayout

    def init(self, seeds) -> State:
        """New games, one per seed (integers ``(B,)``)."""
        ...

    def reset(self, state: State, games, seeds) -> None:
        """Start new games from ``seeds`` in place of the games ``games`` (integer indices) of ``state``."""
        ...

    def step(self, state: State, actions) -> np.ndarray:
        """Play one decision per unfinished game (``actions`` integers ``(B,)``), in place; rewards
        ``float32 (B, n)``."""
        ...

    def legal_mask(self, state: State) -> np.ndarray:
        """``bool (B, A)``: the legal actions of the decision now (all False in a finished game)."""
        ...

    def observe(self, state: State, seat=None) -> np.ndarray:
        """``float32 (B, O)``: what ``seat`` (absolute, an int or integers ``(B,)``; default: the
        seat to act) may know."""
        ...

    def to_act(self, state: State) -> np.ndarray:
        """``int64 (B,)``: the absolute seat whose decision it is (0 in a solo game); −1 when over."""
        ...

    def reseed(self, state: State, seeds) -> None:
        """Give every game a fresh random stream from ``seeds`` (``(B,)``); the table is kept."""
        ...

    def save(self, state: State) -> dict[str, np.ndarray]:
        """The whole batch as plain arrays (field name -> array)."""
        ...

    def restore(self, saved: dict[str, np.ndarray]) -> State:
        """The batch that ``save`` wrote; ``ValueError`` naming a missing or misshapen field."""
        ...

    def explain_illegal(self, state: State, game: int, action: int) -> str | None:
        """Why ``action`` is illegal in game ``game`` now, or ``None`` if it is legal."""
        ...

    def action_kinds(self, state: State) -> np.ndarray:
        """``int8 (B, A)``: the kind (index into ``actions.kinds``) each action would be in each game's
        decision now, −1 where the action is illegal. A kind may depend on the state (Airport
        Scramble's fly short of the reach is ``stop_early``; Flight Tycoon's card actions are
        ``tower``, ``give`` or ``discard`` by phase)."""
        ...


@runtime_checkable
class View(Protocol):
    """What a look-ahead agent may see of the B games it decides for: never a hidden card or a
    future draw, only determinizations (full states consistent with what the deciding seat knows,
    with fresh random streams). Valid during one ``Agent.act`` call."""

    core: Core
    rules: Any
    #: ``int64 (B,)``: the deciding seat of each game (absolute; 0 in a solo game).
    seats: np.ndarray

    @property
    def batch_size(self) -> int: ...

    def observation(self) -> np.ndarray:
        """``float32 (B, O)``: each game's observation for its deciding seat."""
        ...

    def legal_mask(self) -> np.ndarray:
        """``bool (B, A)``: the legal actions of the decision now."""
        ...

    def action_kinds(self) -> np.ndarray:
        """``int8 (B, A)``: ``Core.action_kinds`` of the games now (kinds are public: every
        determinization has the same)."""
        ...

    def determinize(self, seeds, samples: int = 1, games=None) -> State:
        """``samples`` determinizations of each game (of ``games``, default all), game by game in a
        row (game i's are rows i·samples … i·samples + samples − 1); ``seeds``: integers, one per row."""
        ...
