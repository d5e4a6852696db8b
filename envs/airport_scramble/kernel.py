"""The Airport Scramble observation and legal mask, compiled: one game at a time.

:func:`observe_rows` writes what ``AirportScrambleCore.observe`` returns (the blocks of
``envs.airport_scramble.observation.ObservationLayout``, AS-17) and :func:`legal_rows` what
``AirportScrambleCore.legal_mask`` returns (AS-8 … AS-11, AS-15), game by game from the core's
state and lookup tables (``tables.py``), with the float32 values of the numpy passes they replaced
(every value from the same tables or the same float32 division). The differential tests against the
reference engine hold both to the rules (``tests/airport_scramble/test_differential.py``). A numpy
pass per block over the whole batch wrote each 4,096-game observation and mask many times; these
write each row once (``benchmarks/throughput.py --profile``). Compiled on first use and cached
beside this file; no reference counting (``_nrt=False``: nothing is allocated), as
``envs/flight_tycoon/kernel.py``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: The phase of an AS-15 line choice (``position.LINE_CHOICE``).
_LINE_CHOICE = 1
#: Neighbour-bits values below this are empty cells next to a card (``tables.ISOLATED``).
_OPEN_BELOW = 1 << 14


@njit(cache=True, nogil=True, _nrt=False)
def observe_rows(out, plane, slots, ticket, location, cell_values, die, points, aboard, phase, redraw_used, score,
                 deck, ticket_deck, offsets, scales, hv_pairs, ticket_hv, ticket_cards, code_offset, one_hot):
    """Write row b of ``out`` (``float32 (B, obs_size)``) as game b of the state.

    The state's fields as ``State`` holds them (``cell_values`` ``float32 (B, 2G²)``); ``offsets``
    ``int64 (8,)``: the starts of the blocks cell_hv, plane, slot_hv, origin_hv (with destination_hv),
    die (the nine values die … score are adjacent), deck, card_place and ticket_deck; ``scales``
    ``float32 (6,)``: die_scale, action_points, n_cards, n_tickets, place_scale (G² + F) and 1;
    ``hv_pairs`` ``float32 (256, 2)``: a card's (H, V) values by its id as uint8 (255: no card);
    ``ticket_hv`` ``float32 (T + 1, 4)``: a ticket's ends' values (row T: none); ``ticket_cards``
    ``int64 (T + 1, 2)``; ``code_offset`` ``int64 (2,)`` and ``one_hot`` ``int64 (2K, 3)``: the
    ticket ends' one-hot columns by code (``Tables``)."""
    o_cell, o_plane, o_slot, o_origin, o_die, o_deck, o_place, o_tickets = offsets
    die_scale, action_points, n_cards, n_tickets, place_scale, one = scales
    zero = one - one
    F, N, T = slots.shape[1], deck.shape[1], ticket_deck.shape[1]
    for b in range(out.shape[0]):
        row = out[b]
        row[:] = zero
        for i in range(cell_values.shape[1]):
            row[o_cell + i] = cell_values[b, i]
        row[o_plane + plane[b]] = one
        for f in range(F):
            card = slots[b, f] & 255  # -1 (no card) reads row 255
            row[o_slot + 2 * f] = hv_pairs[card, 0]
            row[o_slot + 2 * f + 1] = hv_pairs[card, 1]
        t = ticket[b]
        if t >= 0:  # the ends' cell / slot / place one-hots (columns with nothing to mark: the die's)
            for e in range(2):
                code = location[b, ticket_cards[t, e]] + code_offset[e]
                for k in range(3):
                    row[one_hot[code, k]] = one
        else:
            t = T
        for k in range(4):
            row[o_origin + k] = ticket_hv[t, k]
        in_deck = 0
        for i in range(N):
            in_deck += deck[b, i]
            row[o_deck + i] = one if deck[b, i] else zero
            row[o_place + i] = np.float32(location[b, i] + 1) / place_scale  # AS-17: (1 + place) / (G² + F)
        left = 0
        for i in range(T):
            left += ticket_deck[b, i]
            row[o_tickets + i] = one if ticket_deck[b, i] else zero
        row[o_die] = np.float32(die[b]) / die_scale
        row[o_die + 1] = np.float32(points[b]) / action_points
        row[o_die + 2] = one if aboard[b] else zero
        row[o_die + 3] = one if ticket[b] >= 0 else zero
        row[o_die + 4] = one if phase[b] == _LINE_CHOICE else zero
        row[o_die + 5] = one if redraw_used[b] else zero
        row[o_die + 6] = np.float32(in_deck) / n_cards
        row[o_die + 7] = np.float32(left) / n_tickets
        row[o_die + 8] = np.float32(score[b]) / n_tickets


@njit(cache=True, nogil=True, _nrt=False)
def legal_rows(mask, plane, row_bits, col_bits, points, nb, slots, deck, phase, lines, done, cell_row, cell_col,
               run_before, run_after, fly_table, slot_misfit, replace_table, layout):
    """Write row b of ``mask`` (``bool (B, n_actions)``) as the legal actions of game b now (none if done).

    The state's fields as ``State`` holds them; the tables as ``Tables`` holds them (``fly_table``
    ``bool (2G, G−1)``, ``replace_table`` ``bool (2^F (2F+2), 2^F−1)``, ``slot_misfit`` ``uint16
    (N + 1,)``); ``layout`` ``int64 (8,)``: play_offset, replace_offset, line_offset, wait (the
    action layout, AS-19), G, stop_early_cost, replace_cost, allow_wait."""
    play_offset, replace_offset, line_offset, wait, G, stop_early_cost, replace_cost, allow_wait = layout
    G2, F, N = G * G, slots.shape[1], deck.shape[1]
    for b in range(mask.shape[0]):
        row = mask[b]
        row[:] = False
        if done[b]:
            continue
        if phase[b] == _LINE_CHOICE:  # AS-15: only a line may be chosen
            for o in range(2):
                for r in range(G):
                    for c in range(G):
                        row[line_offset + o * G2 + r * G + c] = lines[b, o, r, c]
            continue
        # AS-8 fly: k <= reach; the full reach costs 1, stopping early 1 + stop_early_cost.
        p = plane[b]
        r, c = cell_row[p], cell_col[p]
        across, down = row_bits[b, r] * G, col_bits[b, c] * G
        early = 1 if points[b] > stop_early_cost else 0
        anything = False
        for d in range(4):  # N, E, S, W
            if d == 0:
                reach = run_before[down + r]
            elif d == 1:
                reach = run_after[across + c]
            elif d == 2:
                reach = run_after[down + r]
            else:
                reach = run_before[across + c]
            for k in range(G - 1):
                ok = fly_table[2 * reach + early, k]
                row[d * (G - 1) + k] = ok
                anything |= ok
        # AS-9 play: the cell is empty, next to a card, and every neighbour's colour matches.
        filled = 0
        for f in range(F):
            if slots[b, f] >= 0:
                filled |= 1 << f
        for cell in range(G2):
            demand = nb[b, cell]
            if demand < _OPEN_BELOW:
                for f in range(F):
                    card = slots[b, f]
                    if card >= 0 and slot_misfit[card] & demand == 0:
                        row[play_offset + f * G2 + cell] = True
                        anything = True
        # AS-10 replace: only non-empty slots, at most max_replace, the deck must hold as many.
        in_deck = 0
        for i in range(N):
            in_deck += deck[b, i]
        at = filled * (2 * F + 2) + min(in_deck, F) * 2 + (1 if points[b] >= replace_cost else 0)
        for m in range(replace_table.shape[1]):
            ok = replace_table[at, m]
            row[replace_offset + m] = ok
            anything |= ok
        # AS-11 wait: legal if allowed, or if nothing else is.
        row[wait] = allow_wait != 0 or not anything
