"""The batched game state of Flight Tycoon: B games as a struct of numpy arrays (leading axis = game)."""

from __future__ import annotations

import dataclasses

import numpy as np

from aerodeck.envs.common.batch import BatchedState
from aerodeck.envs.flight_tycoon.rules import N_SQUARES, TOWER

# Columns of ``State.record`` (the turn record, FT-13); -1 = none.
REC_ACTIVE, REC_TARGET, REC_SQUARE, REC_OUTCOME, REC_GIVE, REC_LAND, REC_DISCARD, REC_DRAW = range(8)


@dataclasses.dataclass
class State(BatchedState):
    """B games of Flight Tycoon. Every field's leading axis is the game; ``n`` = players.

    Sets of cards are packed ``uint64`` words, bit c = card c (``aerodeck.envs.common.bits``): ``hand`` (B, n)
    the real cards of each seat, ``deck`` and ``discard`` (B,), ``known`` (B, n) the cards each seat can
    locate — its hand, cards it once held (given, received, drawn: all their later moves are at public
    slots, FT-13), the discards and the revealed laid cards. Towers by owner: ``laid`` int8 (B, n) the
    laid-aside card (−1 until chosen), ``tower_holder`` int8 (B, n) (−1 once discarded); by holder:
    ``tower_months`` uint16 (B, n), bit m = holds the tower of month m. Map: ``tokens`` int16 (B, 24),
    ``stock`` int16 (B,), ``vp`` int32 (B, n). Turn: ``phase`` int8 (B,) (TOWER, REQUEST, GIVE,
    DISCARD, OVER), ``active`` (the turn's player, or the seat choosing its tower), ``target``,
    ``square``, ``received`` (the card that collided), ``start`` int8 (B,); ``record`` int8 (B, 8) the
    public turn record (``REC_*`` columns, −1 = none). Randomness: ``key`` uint64 (B,), ``counter``
    int64 (B,). ``done`` bool (B,).
    """

    hand: np.ndarray
    deck: np.ndarray
    discard: np.ndarray
    known: np.ndarray
    laid: np.ndarray
    tower_holder: np.ndarray
    tower_months: np.ndarray
    tokens: np.ndarray
    stock: np.ndarray
    vp: np.ndarray
    phase: np.ndarray
    active: np.ndarray
    target: np.ndarray
    square: np.ndarray
    received: np.ndarray
    start: np.ndarray
    record: np.ndarray
    key: np.ndarray
    counter: np.ndarray
    done: np.ndarray

    @classmethod
    def empty(cls, batch_size: int, n_players: int) -> State:
        """``batch_size`` blank games (no card anywhere, tower phase) for ``n_players``."""
        B, n = batch_size, n_players
        i8 = np.int8
        u64 = np.uint64
        return cls(
            hand=np.zeros((B, n), u64), deck=np.zeros(B, u64), discard=np.zeros(B, u64), known=np.zeros((B, n), u64),
            laid=np.full((B, n), -1, i8), tower_holder=np.tile(np.arange(n, dtype=i8), (B, 1)),
            tower_months=np.zeros((B, n), np.uint16), tokens=np.zeros((B, N_SQUARES), np.int16),
            stock=np.zeros(B, np.int16), vp=np.zeros((B, n), np.int32), phase=np.full(B, TOWER, i8),
            active=np.zeros(B, i8), target=np.full(B, -1, i8), square=np.full(B, -1, i8),
            received=np.full(B, -1, i8), start=np.zeros(B, i8), record=np.full((B, 8), -1, i8),
            key=np.zeros(B, np.uint64), counter=np.zeros(B, np.int64), done=np.zeros(B, bool),
        )
