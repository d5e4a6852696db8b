"""The Flight Tycoon observation and step, compiled: one game at a time.

:func:`observe_rows` writes what ``FlightTycoonCore.observe`` returns — the blocks of
``aerodeck.envs.flight_tycoon.observation.ObservationLayout`` (FT-13, FT-14) — for each listed game and observer
seat. It is the numpy version it replaced, row by row, with the same float32 values (every count
scaled by the same float32 factors), so the differential tests against the reference engine hold it
to the rules (``tests/flight_tycoon/test_differential.py``). Written with numba: a numpy pass per
block over the whole batch wrote the 6.8 MB of a 4,096-game observation many times; this writes each
row once (``benchmarks/throughput.py``). Compiled on first use; numba's cache (``__pycache__`` beside
this file) keeps the machine code for later processes. Every function here is compiled without
numba's reference counting (``_nrt=False``: nothing is allocated) and the helpers are inlined — with
both, a step of the same 4,096 games took 0.38 ms instead of 2.5 ms (a scratch timing).

:func:`step_games` plays a step's decision and the forced steps after it (FT-6 … FT-12, FT-16), game
by game: the numpy step it replaced ran a pass over the batch for each stage (towers, requests,
gives, landings, collisions, discards, draws, turn ends), most of them on a few games; the same
differential tests hold it to the reference engine, random streams included
(``aerodeck.envs.common.kernels``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from aerodeck.envs.common.bits import BELOW
from aerodeck.envs.common.kernels import draw_below, kth_bit, popcount, stream
from aerodeck.envs.flight_tycoon.rules import (
    CARD_BITS, COLLIDED, DISCARD, GIVE, LANDED, MONTH_BITS, N_CARDS, N_MONTHS, N_SQUARES, OVER, PASSED, PENDING,
    REQUEST, SQUARE_BITS, TOWER, TOWER_MEETS,
)
from aerodeck.envs.flight_tycoon.state import (
    REC_ACTIVE, REC_DISCARD, REC_DRAW, REC_GIVE, REC_LAND, REC_OUTCOME, REC_SQUARE, REC_TARGET,
)


#: ``float32 (256, 8)``: the bits of each byte, lowest first.
_BYTE_BITS = ((np.arange(256)[:, None] >> np.arange(8)[None, :]) & 1).astype(np.float32)
#: ``uint16 (13,)``: tower months below m (bits 0 … m−1).
MONTHS_BELOW = ((1 << np.arange(N_MONTHS + 1)) - 1).astype(np.uint16)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _unpack(row, start, word) -> None:
    """``row[start + c]`` = 1 for every card c in the set ``word``, 0 for the others (a byte at a time)."""
    for k in range(N_CARDS // 8):
        byte = (word >> np.uint64(8 * k)) & np.uint64(255)
        for j in range(8):
            row[start + 8 * k + j] = _BYTE_BITS[byte, j]


@njit(cache=True, nogil=True, _nrt=False)
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
            row[o_size + t] = np.float32(popcount(hand[b, h]) + popcount(tower_months[b, h])) * by48[1]
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
                slot = popcount(hand[b, holder] & below[month * 4]) + popcount(tower_months[b, holder] & months_below[month])
                at = (holder - s) % n
            else:
                slot = popcount(hand[b, i] & below[month * 4])
                at = (i - s) % n
            row[o_towers + at * N_MONTHS + month] = by48[slot + 1]
        _unpack(row, o_laid, shown)
        for q in range(N_SQUARES):
            row[o_tokens + q] = np.float32(tokens[b, q]) * per_token
        row[o_deck] = by48[popcount(deck[b])]
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


# --- the step ---------------------------------------------------------------------------------------------
# One game at a time, the stages of FlightTycoonCore.step's docstring in rule order. ``g`` bundles the
# state's fields (``State`` order: hand, deck, discard, known, laid, tower_holder, tower_months, tokens,
# stock, vp, phase, active, target, square, received, start, record, key, counter, done).


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _slot(g, b, seat, card, tower):
    """FT-13: the items sorted before ``card`` in the hand of ``seat`` (a tower first in its month)."""
    hand, tower_months = g[0], g[6]
    month = card >> 2
    below, months = (month * 4, month) if tower else (card, month + 1)
    return popcount(hand[b, seat] & BELOW[below]) + popcount(np.uint64(tower_months[b, seat] & MONTHS_BELOW[months]))


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _learn_all(g, b, bits):
    """FT-14: every seat can locate the cards ``bits`` from now on."""
    known = g[3]
    for s in range(known.shape[1]):
        known[b, s] |= bits


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _tower_index(g, b, card):
    """The seat whose laid-aside card is ``card`` (the first such), −1 if none."""
    laid = g[4]
    for i in range(laid.shape[1]):
        if laid[b, i] == card:
            return i
    return -1


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _in_flight(g, b, card):
    """``card`` names the tower being given (its holder is −1 while in flight)."""
    laid, holder = g[4], g[5]
    for i in range(laid.shape[1]):
        if laid[b, i] == card and holder[b, i] < 0:
            return True
    return False


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _gifts(g, b, giveable):
    """FT-9: the cards the target may give (towers by their laid id): those meeting the square, else any."""
    hand, laid, holder = g[0], g[4], g[5]
    target, square = g[12][b], g[13][b]
    held = hand[b, target]
    allowed = held & SQUARE_BITS[square]
    if giveable:
        towers = np.uint64(0)
        for i in range(laid.shape[1]):
            if holder[b, i] == target and laid[b, i] >= 0:
                towers |= CARD_BITS[laid[b, i]]
        allowed |= towers & TOWER_MEETS[square]
        held |= towers
    return allowed if allowed != np.uint64(0) else held


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _finish(g, b, rewards, outcome):
    """FT-12: highest VP wins, then more real cards, else a shared win; FT-15 outcome rewards."""
    hand, vp = g[0], g[9]
    g[10][b] = OVER
    g[19][b] = True
    n = hand.shape[1]
    best, winners = np.int64(-1), 0
    for s in range(n):
        score = np.int64(vp[b, s]) * 64 + popcount(hand[b, s])
        if score > best:
            best, winners = score, 1
        elif score == best:
            winners += 1
    if outcome:
        for s in range(n):
            won = np.int64(vp[b, s]) * 64 + popcount(hand[b, s]) == best
            rewards[b, s] += np.float32(1.0 / winners) if won else np.float32(-1.0 / (n - 1))


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _advance(g, b, ending, rewards, outcome):
    """End the turn (``ending``, FT-12) or begin the active player's turn (FT-8), passing turns until the
    game waits for a decision or is over."""
    hand, deck, stock, phase, active, record = g[0], g[1], g[8], g[10], g[11], g[16]
    n = hand.shape[1]
    while True:
        if ending:  # FT-12: deck or stock empty, or no real card anywhere
            anywhere = np.uint64(0)
            for s in range(n):
                anywhere |= hand[b, s]
            if deck[b] == np.uint64(0) or stock[b] == 0 or anywhere == np.uint64(0):
                _finish(g, b, rewards, outcome)
                return
            active[b] = (active[b] + 1) % n  # FT-7: clockwise
        others = np.uint64(0)
        for s in range(n):
            if s != active[b]:
                others |= hand[b, s]
        if others != np.uint64(0):
            phase[b] = REQUEST
            return
        for c in range(record.shape[1]):  # FT-8: nobody else holds a real card — the turn passes
            record[b, c] = -1
        record[b, REC_ACTIVE] = active[b]
        record[b, REC_OUTCOME] = PASSED
        ending = True


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _finish_collision(g, b):
    """FT-10: the token goes back to the stock; the active player draws (nothing from an empty deck)."""
    hand, deck, known, tokens, stock, active, square, record, key, counter = (
        g[0], g[1], g[3], g[7], g[8], g[11], g[13], g[16], g[17], g[18])
    tokens[b, square[b]] -= 1
    stock[b] += 1
    if deck[b] != np.uint64(0):
        value = stream(key[b], counter[b])
        counter[b] += 1
        card = kth_bit(deck[b], draw_below(value, popcount(deck[b])))
        bit = CARD_BITS[card]
        seat = active[b]
        deck[b] &= ~bit
        hand[b, seat] |= bit
        known[b, seat] |= bit
        record[b, REC_DRAW] = _slot(g, b, seat, card, False)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _discard_from_hand(g, b, card):
    """FT-10: a real card of the colliding month leaves the active player's hand, face up."""
    hand, discard, seat = g[0], g[2], g[11][b]
    bit = CARD_BITS[card]
    g[16][b, REC_DISCARD] = _slot(g, b, seat, card, False)
    hand[b, seat] &= ~bit
    discard[b] |= bit
    _learn_all(g, b, bit)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _give(g, b, card, giveable, vp_table, rewards, reward_vp, outcome):
    """FT-9 the target gives ``card`` (its slot public, FT-13; known to both, FT-14), then FT-10: it lands
    (FT-11 VP) or collides (one real card of its month discarded, or the discard chosen later, FT-16d)."""
    hand, discard, known, holder, tower_months = g[0], g[2], g[3], g[5], g[6]
    tokens, vp, phase, active, target, square, received, record = g[7], g[9], g[10], g[11], g[12], g[13], g[14], g[16]
    seat, giver = active[b], target[b]
    month = card >> 2
    bit = CARD_BITS[card]
    month_bit = np.uint16(1 << month)
    if giveable:
        tower = hand[b, giver] & bit == np.uint64(0)  # the laid-aside id names a tower
        record[b, REC_GIVE] = _slot(g, b, giver, card, tower)
        if tower:
            tower_months[b, giver] &= ~month_bit
            holder[b, _tower_index(g, b, card)] = -1  # in flight
    else:
        record[b, REC_GIVE] = _slot(g, b, giver, card, False)
    hand[b, giver] &= ~bit
    known[b, seat] |= bit
    if hand[b, seat] & MONTH_BITS[month] == np.uint64(0) and tower_months[b, seat] & month_bit == 0:
        # FT-10 landing at the sorted place
        tower = giveable and _in_flight(g, b, card)
        if tower:
            tower_months[b, seat] |= month_bit
            holder[b, _tower_index(g, b, card)] = seat
        else:
            hand[b, seat] |= bit
        record[b, REC_LAND] = _slot(g, b, seat, card, tower)
        record[b, REC_OUTCOME] = LANDED
        gain = vp_table[square[b], tokens[b, square[b]]]  # FT-11
        vp[b, seat] += gain
        if reward_vp:  # FT-15
            rewards[b, seat] += gain
        _advance(g, b, True, rewards, outcome)
        return
    if giveable and _in_flight(g, b, card):  # a received tower is simply out of play
        bit = np.uint64(0)
    discard[b] |= bit
    _learn_all(g, b, bit)
    received[b] = card
    record[b, REC_OUTCOME] = COLLIDED
    same = hand[b, seat] & MONTH_BITS[month]
    matches = popcount(same)
    if matches >= 2:
        phase[b] = DISCARD  # FT-16d: the active player chooses
        return
    if matches == 1:
        _discard_from_hand(g, b, popcount(same - np.uint64(1)))
    _finish_collision(g, b)
    _advance(g, b, True, rewards, outcome)


@njit(cache=True, nogil=True, _nrt=False)
def step_games(games, actions, g, vp_table, giveable, reward_vp, outcome, rewards):
    """Play ``actions[r]`` (int64) in game ``games[r]`` (int64 (k,), unfinished games) and every forced
    step after it (FT-16); ``g`` the state's fields in ``State`` order (mutated), ``vp_table`` int32
    (24, ·) FT-11's VP by square and tokens there, ``rewards`` float32 (B, n) added to (FT-15)."""
    hand, laid, tower_months = g[0], g[4], g[6]
    tokens, stock, phase, active, target, square, start, record = g[7], g[8], g[10], g[11], g[12], g[13], g[15], g[16]
    n = hand.shape[1]
    for r in range(games.shape[0]):
        b, a = games[r], actions[r]
        kind = phase[b]
        if kind == TOWER:  # FT-6: lay the card aside; the tower stands first within its month
            seat = active[b]
            hand[b, seat] &= ~CARD_BITS[a]
            laid[b, seat] = a
            tower_months[b, seat] |= np.uint16(1 << (a >> 2))
            if seat < n - 1:
                active[b] = seat + 1
                continue
            shown = np.uint64(0)  # all have chosen: the laid cards are revealed at once (FT-6, FT-13)
            for s in range(n):
                shown |= CARD_BITS[laid[b, s]]
            _learn_all(g, b, shown)
            active[b] = start[b]  # FT-7
            _advance(g, b, False, rewards, outcome)
        elif kind == REQUEST:  # FT-8: a token onto the square; the target gives (FT-9)
            offset, sq = (a - N_CARDS) // N_SQUARES, (a - N_CARDS) % N_SQUARES
            seat = active[b]
            target[b] = (seat + offset + 1) % n
            square[b] = sq
            tokens[b, sq] += 1
            stock[b] -= 1
            for c in range(record.shape[1]):  # FT-13: the turn record starts afresh
                record[b, c] = -1
            record[b, REC_OUTCOME] = PENDING
            record[b, REC_ACTIVE] = seat
            record[b, REC_TARGET] = target[b]
            record[b, REC_SQUARE] = sq
            allowed = _gifts(g, b, giveable)
            if popcount(allowed) == 1:  # FT-16: a single allowed card is no decision
                _give(g, b, popcount(allowed - np.uint64(1)), giveable, vp_table, rewards, reward_vp, outcome)
            else:
                phase[b] = GIVE
        elif kind == GIVE:
            _give(g, b, a, giveable, vp_table, rewards, reward_vp, outcome)
        elif kind == DISCARD:
            _discard_from_hand(g, b, a)
            _finish_collision(g, b)
            _advance(g, b, True, rewards, outcome)


@njit(cache=True, nogil=True, _nrt=False)
def begin_turns(games, g, rewards, outcome):
    """Begin the active player's turn in each of ``games`` (int64 (k,)), passing turns as FT-8 says."""
    for r in range(games.shape[0]):
        _advance(g, games[r], False, rewards, outcome)
