"""Flight Tycoon's glue for house rules (``GameSpec.house``; ``aerodeck.envs.common.house``): one
reference game as the batched core's ``State`` arrays and back, and the engine's calls in the core's
terms.

The arrays hold what the reference engine holds, field by field (the differential tests compare the
two engines through ``snapshot``): hands, deck and discards as card bits, the towers, the map, the
turn, the public turn record, what each seat can locate (``known``) and the random stream. Read back,
a seat's knowledge of the other hands is rebuilt from ``known`` (FT-13, FT-14), as the engine's
``from_position`` does.
"""

from __future__ import annotations

import numpy as np

from aerodeck.envs.common.bits import unpack_bits
from aerodeck.envs.flight_tycoon.core import FlightTycoonCore
from aerodeck.envs.flight_tycoon.reference import ReferenceGame
from aerodeck.envs.flight_tycoon.rules import CARD_BITS, DISCARD, GIVE, N_CARDS, TOWER

_RECORD = ("active", "target", "square", "outcome", "give", "land", "discard", "draw")


def _bits(cards) -> np.uint64:
    return np.bitwise_or.reduce(CARD_BITS[list(cards)]) if len(cards) else np.uint64(0)


def _cards(word) -> list[int]:
    return [int(c) for c in np.flatnonzero(unpack_bits(np.uint64(word), N_CARDS))]


class Glue:
    """What ``aerodeck.envs.common.house.ReferenceCore`` needs of Flight Tycoon (every method static)."""

    #: The reference engine a house rule subclasses.
    reference = ReferenceGame

    @staticmethod
    def core(rules) -> FlightTycoonCore:
        """The batched core of the same options (layouts, arrays, ``standings``, the sampler's helpers)."""
        return FlightTycoonCore(rules, check_actions=False)

    @staticmethod
    def to_act(game) -> int:
        """The absolute seat to decide (FT-16), −1 once the game is over."""
        return game.to_act

    @staticmethod
    def legal_mask(game) -> np.ndarray:
        """``bool (A,)``: the engine's ``legal_mask()``."""
        return game.legal_mask()

    @staticmethod
    def observe(game, seat: int) -> np.ndarray:
        """``float32 (O,)``: the engine's ``observe(seat)``."""
        return game.observe(seat)

    @staticmethod
    def step(game, action: int) -> list[float]:
        """The engine's ``step(action)``: rewards by absolute seat."""
        return list(game.step(action))

    @staticmethod
    def write(core: FlightTycoonCore, state, rows: np.ndarray, games: list) -> None:
        """Write ``games`` into the rows ``rows`` of ``state``, every field as the batched core holds it."""
        n = core.n_players
        for i, g in zip(rows.tolist(), games):
            snap = g.snapshot()
            for p in range(n):
                state.hand[i, p] = _bits(g.hands[p])
                state.known[i, p] = _bits(snap["known"][p])
            state.deck[i], state.discard[i] = _bits(g.deck), _bits(g.discard)
            months = [0] * n
            for t, tower in enumerate(g.towers):
                state.laid[i, t] = -1 if tower.laid is None else tower.laid
                state.tower_holder[i, t] = -1 if tower.holder is None else tower.holder
                if tower.laid is not None and tower.holder is not None:
                    months[tower.holder] |= 1 << (tower.laid // 4)
            state.tower_months[i] = months
            state.tokens[i], state.stock[i], state.vp[i] = g.tokens, g.stock, g.vp
            state.phase[i], state.active[i], state.start[i] = g.phase, g.active, g.start
            state.target[i], state.square[i], state.received[i] = g.last_target, g.last_square, g.last_received
            state.record[i] = [g.record[k] for k in _RECORD]
            state.key[i], state.counter[i], state.done[i] = g.key, g.counter, g.done

    @staticmethod
    def read(core: FlightTycoonCore, state, i: int, engine: type):
        """Game ``i`` of ``state`` as an ``engine`` game (its random stream and knowledge included)."""
        n = core.n_players
        game = engine.__new__(engine)
        game._setup(core.rules, 0)
        game.hands = [_cards(state.hand[i, p]) for p in range(n)]
        game.deck, game.discard = _cards(state.deck[i]), _cards(state.discard[i])
        for t, tower in enumerate(game.towers):
            laid, holder = int(state.laid[i, t]), int(state.tower_holder[i, t])
            tower.laid = None if laid < 0 else laid
            tower.holder = None if holder < 0 else holder
        game.tokens, game.stock, game.vp = [int(x) for x in state.tokens[i]], int(state.stock[i]), [int(x) for x in state.vp[i]]
        game.phase, game.active, game.start = int(state.phase[i]), int(state.active[i]), int(state.start[i])
        game.last_target, game.last_square = int(state.target[i]), int(state.square[i])
        game.last_received = int(state.received[i])
        during = game.phase in (GIVE, DISCARD)  # the request in progress (the arrays keep the last between turns)
        game.target = game.last_target if during else None
        game.square = game.last_square if during else None
        game.received = game.last_received if game.phase == DISCARD else None
        game.record = {k: int(v) for k, v in zip(_RECORD, state.record[i])}
        game.key, game.counter, game.done = int(state.key[i]), int(state.counter[i]), bool(state.done[i])
        if game.phase != TOWER:  # FT-6: revealed; each seat's view of the hands from what it can locate
            game._reveal([_cards(state.known[i, o]) for o in range(n)])
        if game.done:
            best = max((game.vp[p], game.real_cards(p)) for p in range(n))
            game.winners = [p for p in range(n) if (game.vp[p], game.real_cards(p)) == best]
        return game
