"""The Flight Tycoon observation, compiled: one game at a time, straight into its row.

:func:`observe_rows` writes what ``FlightTycoonCore.observe`` returns — the blocks of
``envs.flight_tycoon.observation.ObservationLayout`` (FT-13, FT-14) — for each listed game and observer
seat. It is the numpy version it replaced, row by row, with the same float32 values (every count
scaled by the same float32 factors), so the differential tests against the reference engine hold it
to the rules (``tests/flight_tycoon/test_differential.py``). Written with numba: a numpy pass per
block over the whole batch wrote the 6.8 MB of a 4,096-game observation many times; this writes each
row once (``benchmarks/throughput.py``). Compiled on first use; numba's cache (``__pycache__`` beside
this file) keeps the machine code for later processes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.flight_tycoon.rules import GIVE, N_CARDS, N_MONTHS, N_SQUARES, OVER, TOWER
from envs.flight_tycoon.state import REC_ACTIVE, REC_GIVE, REC_OUTCOME, REC_SQUARE, REC_TARGET


#: ``float32 (256, 8)``: the bits of each byte, lowest first.
_BYTE_BITS = ((np.arange(256)[:, None] >> np.arange(8)[None, :]) & 1).astype(np.float32)
#: ``int64 (256,)``: the bits set in each byte.
_BYTE_COUNT = _BYTE_BITS.sum(axis=1).astype(np.int64)


@njit(cache=True, nogil=True)
def _popcount(word) -> int:
    """The number of cards in the set ``word`` (a byte at a time)."""
    word = np.uint64(word)
    count = 0
    for k in range(8):
        count += _BYTE_COUNT[(word >> np.uint64(8 * k)) & np.uint64(255)]
    return count


@njit(cache=True, nogil=True)
def _unpack(row, start, word) -> None:
    """``row[start + c]`` = 1 for every card c in the set ``word``, 0 for the others (a byte at a time)."""
    for k in range(N_CARDS // 8):
        byte = (word >> np.uint64(8 * k)) & np.uint64(255)
        for j in range(8):
            row[start + 8 * k + j] = _BYTE_BITS[byte, j]


@njit(cache=True, nogil=True)
def observe_rows(out, games, seats, hand, known, discard, laid, tower_holder, tower_months, vp, tokens, deck, stock,
                 phase, active, target, record, offsets, giveable, per_vp, per_token, by48, below, months_below):
    """Write row r of ``out`` (``float32 (k, obs_size)``) as game ``games[r]`` seen by absolute seat
    ``seats[r]``. ``offsets`` int64 (16,): the starts of the blocks hand, discard, laid, towers,
    hand_size, vp, tokens, deck, stock, decision, decider, turn_active, turn_target, turn_square,
    turn_outcome, turn_slots (16 entries); the state's fields as ``State`` holds them; ``by48``
    ``float32``: k/48; ``below`` ``uint64 (65,)``: the cards below card c; ``months_below`` ``uint16
    (13,)``."""
    n = hand.shape[1]
    (o_hand, o_discard, o_laid, o_towers, o_size, o_vp, o_tokens, o_deck, o_stock, o_decision, o_decider,
     o_active, o_target, o_square, o_outcome, o_slots) = offsets
    one, zero = np.float32(1.0), np.float32(0.0)
    for r in range(games.shape[0]):
        b, s = games[r], seats[r]
        row = out[r]
        row[o_towers:o_size] = zero  # the blocks written sparsely: the towers and the one-hots
        row[o_decision:o_slots] = zero
        mine = known[b, s]
        for t in range(n):  # FT-14: the cards of each seat that I can locate (my whole hand)
            h = (s + t) % n
            _unpack(row, o_hand + t * N_CARDS, hand[b, h] & mine)
            row[o_size + t] = np.float32(_popcount(hand[b, h]) + _popcount(tower_months[b, h])) * by48[1]
            row[o_vp + t] = np.float32(vp[b, h]) * per_vp
        _unpack(row, o_discard, discard[b])
        shown = np.uint64(0)
        for i in range(n):  # FT-6: a laid card shows (and its tower) after the reveal, or to its owner
            card = laid[b, i]
            if card < 0 or (phase[b] == TOWER and i != s):
                continue
            shown |= np.uint64(1) << np.uint64(card)
            month = card >> 2
            if giveable:  # the tower may have changed hands
                holder = tower_holder[b, i]
                if holder < 0:
                    continue
                slot = _popcount(hand[b, holder] & below[month * 4]) + _popcount(tower_months[b, holder] & months_below[month])
                at = (holder - s) % n
            else:
                slot = _popcount(hand[b, i] & below[month * 4])
                at = (i - s) % n
            row[o_towers + at * N_MONTHS + month] = by48[slot + 1]
        _unpack(row, o_laid, shown)
        for q in range(N_SQUARES):
            row[o_tokens + q] = np.float32(tokens[b, q]) * per_token
        row[o_deck] = by48[_popcount(deck[b])]
        row[o_stock] = np.float32(stock[b]) * per_token
        if phase[b] != OVER:
            row[o_decision + phase[b]] = one
            decider = target[b] if phase[b] == GIVE else active[b]
            row[o_decider + (decider - s) % n] = one
        if record[b, REC_ACTIVE] >= 0:
            row[o_active + (record[b, REC_ACTIVE] - s) % n] = one
            row[o_outcome + record[b, REC_OUTCOME]] = one
        if record[b, REC_TARGET] >= 0:
            row[o_target + (record[b, REC_TARGET] - s) % n] = one
            row[o_square + record[b, REC_SQUARE]] = one
        for j in range(4):
            row[o_slots + j] = by48[record[b, REC_GIVE + j] + 1]
