"""What one seat knows in Flight Tycoon, as packed card sets (``docs/flight-tycoon.md``, FT-13/14).

:class:`Facts` holds, for a batch of games each seen by one seat, its hand, the cards it can locate
in the other hands, the public cards, towers and counts — seats relative to the observer (offset 0 =
me). :meth:`Facts.read` decodes them from observations (all an agent in the AEC env has);
:meth:`Facts.of_state` computes the very same facts from a game state for a given seat, which the
search agent's rollouts use on *sampled* states to skip building observations (the tests hold the
two equal). :func:`none_held` is the chance that a hand the seat cannot see holds none of some cards.
"""

from __future__ import annotations

import dataclasses
from math import lgamma

import numpy as np

from aerodeck.envs.common.bits import BIT, pack_bits, unpack_bits
from aerodeck.envs.flight_tycoon.observation import CARD_SCALE, ObservationLayout
from aerodeck.envs.flight_tycoon.rules import (  # noqa: F401 — decision kinds, tables, landing_vp_table: for the agents
    ALL_CARDS, CARD_MONTH, CARD_SUIT, DISCARD, GIVE, MONTH_BITS, N_CARDS, N_MONTHS, N_SQUARES, OVER, REQUEST, SQUARE_BITS,
    SUIT_BITS, TOWER, FlightTycoonRules, landing_vp_table,
)
from aerodeck.envs.flight_tycoon.state import REC_ACTIVE, REC_SQUARE, State

#: ``uint64 (4096,)``: the cards of the months in a 12-bit month set.
MONTHS_CARDS = np.bitwise_or.reduce(
    np.where((np.arange(1 << N_MONTHS)[:, None] >> np.arange(N_MONTHS)) & 1, MONTH_BITS, np.uint64(0)), axis=1)
_MONTH_WEIGHT = (1 << np.arange(N_MONTHS)).astype(np.uint16)

#: ``float64 (49, 49, 49)``: [pool, hidden, x] = C(pool − x, hidden) / C(pool, hidden), 0 where impossible.
_P, _H, _X = np.meshgrid(np.arange(49), np.arange(49), np.arange(49), indexing="ij")
_LF = np.array([lgamma(k + 1) for k in range(49)])
_OK = (_X <= _P) & (_H <= _P - _X)
_NONE = np.where(
    _OK,
    np.exp(_LF[np.clip(_P - _X, 0, 48)] - _LF[np.clip(_P - _X - _H, 0, 48)] - _LF[_P] + _LF[np.clip(_P - _H, 0, 48)]),
    0.0,
).astype(np.float32).ravel()
_NONE.setflags(write=False)
del _P, _H, _X, _OK


def none_held(x: np.ndarray, hidden: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """The chance that a hand of ``hidden`` cards, dealt from the ``pool`` cards the seat cannot locate,
    holds none of ``x`` given ones among them: C(pool − x, hidden) / C(pool, hidden) (hypergeometric).

    Integer arrays (values 0 … 48) broadcasting together; ``float32`` of the broadcast shape.
    """
    return _NONE[none_base(pool, hidden) + np.asarray(x, np.int32)]


def none_base(pool: np.ndarray, hidden: np.ndarray) -> np.ndarray:
    """``int32``: the row of (``pool``, ``hidden``) in the table of :func:`none_held` — then
    ``none_table()[base + x]`` is ``none_held(x, hidden, pool)``, for many ``x`` at one lookup each."""
    return (np.asarray(pool, np.int32) * 49 + np.asarray(hidden, np.int32)) * 49


def none_table() -> np.ndarray:
    """``float32 (49³,)``: the flat table that :func:`none_base` indexes (read-only)."""
    return _NONE


def months_of(words: np.ndarray) -> np.ndarray:
    """``uint16 (...)``: the 12-bit set of months that the packed card sets ``words`` hold."""
    held = (np.asarray(words, np.uint64)[..., None] & MONTH_BITS) != 0  # (..., 12)
    return (held * _MONTH_WEIGHT).sum(-1, dtype=np.uint16)


def month_counts(words: np.ndarray) -> np.ndarray:
    """``int64 (..., 12)``: the cards of each month in the packed card sets ``words``."""
    return np.bitwise_count(np.asarray(words, np.uint64)[..., None] & MONTH_BITS).astype(np.int64)


def rules_for(rules: FlightTycoonRules | None, n_actions: int) -> FlightTycoonRules:
    """The rules an agent plays by: ``rules``, or the default rules for the player count that the
    mask width ``n_actions`` = 48 + 24·(n − 1) implies (FT-17)."""
    n = (n_actions - N_CARDS) // N_SQUARES + 1
    if rules is None:
        return FlightTycoonRules(n_players=n)
    if not isinstance(rules, FlightTycoonRules):
        raise TypeError(f"Flight Tycoon agents need FlightTycoonRules, got {type(rules).__name__}")
    if rules.n_players != n:
        raise ValueError(f"masks of width {n_actions} are for {n} players, the rules say {rules.n_players}")
    return rules


@dataclasses.dataclass
class Facts:
    """B games, each seen by one seat. Offsets are seats clockwise from that seat (0 = itself).

    Packed card sets (``uint64``, bit c = card c): ``located`` (B, n) the cards the seat can locate in
    the hand of each offset (offset 0: its whole hand), ``discard`` and ``laid`` (B,) (the laid cards
    it can see). ``towers`` ``uint16`` (B, n): the tower months each offset holds (only its own before
    the reveal, FT-6). ``hand_size`` int64 (B, n): cards in hand, towers included. ``vp`` int64 (B, n).
    ``tokens`` int64 (B, 24). ``deck``, ``stock`` int64 (B,). ``decision`` int64 (B,): the decision kind
    (FT-16: ``rules.TOWER``, ``REQUEST``, ``GIVE``, ``DISCARD``), −1 when over. ``requester`` int64
    (B,): offset of the current (or last) turn's active player, −1 if none; ``square`` int64 (B,): its
    square, −1 if none.
    """

    located: np.ndarray
    discard: np.ndarray
    laid: np.ndarray
    towers: np.ndarray
    hand_size: np.ndarray
    vp: np.ndarray
    tokens: np.ndarray
    deck: np.ndarray
    stock: np.ndarray
    decision: np.ndarray
    requester: np.ndarray
    square: np.ndarray

    @classmethod
    def read(cls, layout: ObservationLayout, observations: np.ndarray) -> Facts:
        """Decode ``float32 (B, obs_size)`` observations laid out by ``layout`` (a core's ``observation``)."""
        obs = np.asarray(observations, np.float32)
        B, n = obs.shape[0], layout.n_players

        def block(name: str) -> np.ndarray:
            return obs[:, layout.slice(name)]

        def count(name: str, scale: int) -> np.ndarray:
            return np.rint(block(name) * scale).astype(np.int64)

        onehot = block("decision")
        active = block("turn_active")
        square = block("turn_square")
        return cls(
            located=pack_bits(block("hand").reshape(B, n, N_CARDS) > 0.5),
            discard=pack_bits(block("discard") > 0.5),
            laid=pack_bits(block("laid") > 0.5),
            towers=((block("towers").reshape(B, n, N_MONTHS) > 0) * _MONTH_WEIGHT).sum(-1, dtype=np.uint16),
            hand_size=count("hand_size", CARD_SCALE),
            vp=count("vp", layout.vp_scale),
            tokens=count("tokens", layout.token_scale),
            deck=count("deck", CARD_SCALE)[:, 0],
            stock=count("stock", layout.token_scale)[:, 0],
            decision=np.where(onehot.any(1), onehot.argmax(1), -1),
            requester=np.where(active.any(1), active.argmax(1), -1),
            square=np.where(square.any(1), square.argmax(1), -1),
        )

    @classmethod
    def of_state(cls, core, state: State, seats: np.ndarray) -> Facts:
        """The facts that ``core.observe(state, seats)`` shows, computed from ``state`` directly.

        ``seats``: the observing seat of every game, integers (B,). Only for states the caller may
        see whole — the search agent's sampled determinizations, never a real game's hidden cards.
        """
        st = state
        n = core.n_players
        seats = np.asarray(seats, np.int64)
        rows = np.arange(st.batch_size)[:, None]
        order = (seats[:, None] + np.arange(n)[None, :]) % n  # absolute seat at each offset
        hands = st.hand[rows, order]
        located = hands & st.known[rows[:, 0], seats][:, None]
        revealed = st.phase != TOWER
        laid = st.laid
        own = np.arange(n)[None, :] == seats[:, None]
        visible = (laid >= 0) & (revealed[:, None] | own)
        laid_bits = np.bitwise_or.reduce(np.where(visible, BIT[np.maximum(laid, 0)], np.uint64(0)), axis=1)
        tower_months = st.tower_months[rows, order]
        hand_size = np.bitwise_count(hands).astype(np.int64) + np.bitwise_count(tower_months)
        towers = np.where(revealed[:, None] | (order == seats[:, None]), tower_months, np.uint16(0))
        over = st.phase == OVER
        active = st.record[:, REC_ACTIVE].astype(np.int64)
        square = st.record[:, REC_SQUARE].astype(np.int64)
        return cls(
            located=located, discard=st.discard.copy(), laid=laid_bits, towers=towers.astype(np.uint16),
            hand_size=hand_size, vp=st.vp[rows, order].astype(np.int64), tokens=st.tokens.astype(np.int64),
            deck=np.bitwise_count(st.deck).astype(np.int64), stock=st.stock.astype(np.int64),
            decision=np.where(over, -1, st.phase.astype(np.int64)),
            requester=np.where(active >= 0, (active - seats) % n, -1),
            square=np.where(square >= 0, square, -1),
        )

    def take(self, rows) -> Facts:
        """The games ``rows`` (indices or a bool mask)."""
        return Facts(**{f.name: getattr(self, f.name)[rows] for f in dataclasses.fields(self)})

    @property
    def batch_size(self) -> int:
        return self.discard.shape[0]

    @property
    def hand(self) -> np.ndarray:
        """``uint64 (B,)``: my real cards."""
        return self.located[:, 0]

    @property
    def months(self) -> np.ndarray:
        """``uint16 (B,)``: the months my hand holds, my towers' included (FT-10: a card of these collides)."""
        return months_of(self.hand) | self.towers[:, 0]

    @property
    def unknown(self) -> np.ndarray:
        """``uint64 (B,)``: the cards I cannot locate — in another hand at a slot I cannot name, or in the
        deck (or, before the reveal, laid aside by another seat)."""
        return ~(np.bitwise_or.reduce(self.located, axis=1) | self.discard | self.laid) & ALL_CARDS

    @property
    def real_size(self) -> np.ndarray:
        """``int64 (B, n)``: the real cards (towers excluded) in the hand of each offset."""
        return np.maximum(self.hand_size - np.bitwise_count(self.towers), 0)

    @property
    def hidden(self) -> np.ndarray:
        """``int64 (B, n)``: the real cards I cannot locate in the hand of each offset (0 for mine)."""
        out = np.maximum(self.real_size - np.bitwise_count(self.located), 0)
        out[:, 0] = 0
        return out

    def cards(self, words: np.ndarray) -> np.ndarray:
        """``bool (..., 48)``: packed sets unpacked (for tests and display)."""
        return unpack_bits(words, N_CARDS)
