"""The Airport Scramble observation, legal mask, turn actions and deal, compiled: one game at a time.

:func:`observe_rows` writes what ``AirportScrambleCore.observe`` returns (the blocks of
``aerodeck.envs.airport_scramble.observation.ObservationLayout``, AS-17), :func:`legal_rows` what
``AirportScrambleCore.legal_mask`` returns (AS-8 … AS-11, AS-15), and :func:`step_turns` plays the
turn actions of a step (AS-7 … AS-14, the draws included; :func:`draw_tickets` the ticket draw
alone) and :func:`deal` sets up new games (AS-6), from the core's state and lookup tables (``tables.py``). They replaced numpy passes over the
whole batch — a pass per observation block, per mask part and per stage of a step, most stages on a
few games — and give the same values bit for bit (every float from the same tables or the same
float32 division; the draws from ``aerodeck.envs.common.kernels``, which is ``aerodeck.envs.common.rng``). The
differential tests against the reference engine hold them to the rules
(``tests/airport_scramble/test_differential.py``). Compiled on first use and cached beside this file;
no reference counting (``_nrt=False``: nothing is allocated), as ``envs/flight_tycoon/kernel.py``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from aerodeck.envs.airport_scramble.position import LINE_CHOICE, TURN_ACTION
from aerodeck.envs.airport_scramble.tables import ISOLATED, OCCUPIED
from aerodeck.envs.common.kernels import draw_below, kth_bit, popcount, stream

#: Neighbour bits below the flags: an empty cell next to a card (one that is neither occupied nor isolated).
_OPEN_BELOW = int(ISOLATED)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _reach(plane, row_bits, col_bits, cell_row, cell_col, run_before, run_after, b, d):
    """AS-8: consecutive occupied cells from the plane of game b in direction d (N, E, S, W), from the
    occupancy bits of its row and column (``Tables.run_before`` / ``run_after``)."""
    G = row_bits.shape[1]
    r, c = cell_row[plane[b]], cell_col[plane[b]]
    if d == 0:
        return np.int64(run_before[col_bits[b, c] * G + r])
    if d == 1:
        return np.int64(run_after[row_bits[b, r] * G + c])
    if d == 2:
        return np.int64(run_after[col_bits[b, c] * G + r])
    return np.int64(run_before[row_bits[b, r] * G + c])


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
        row[o_die + 4] = one if phase[b] == LINE_CHOICE else zero
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
        if phase[b] == LINE_CHOICE:  # AS-15: only a line may be chosen
            for o in range(2):
                for r in range(G):
                    for c in range(G):
                        row[line_offset + o * G2 + r * G + c] = lines[b, o, r, c]
            continue
        # AS-8 fly: k <= reach; the full reach costs 1, stopping early 1 + stop_early_cost.
        early = 1 if points[b] > stop_early_cost else 0
        anything = False
        for d in range(4):  # N, E, S, W
            reach = _reach(plane, row_bits, col_bits, cell_row, cell_col, run_before, run_after, b, d)
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


# --- the step ---------------------------------------------------------------------------------------------
# One game at a time, in rule order. ``g`` bundles the state's fields (``AirportScrambleCore._FIELDS``: key,
# counter, grid, plane, slots, deck, ticket_deck, ticket, die, points, aboard, phase, redraw_used, score,
# done, nb, location, row_bits, col_bits, cell_values, deck_bits, ticket_bits, placed, n_placed) and ``t``
# the tables (``AirportScrambleCore._step_tables``: cell_row, cell_col, position_bit, run_before,
# run_after, ray, neighbour, neighbour_demand, hv_pairs, replace_slots, replace_count, turns, origin,
# destination, and ``rule`` int64 (11,): play_offset, replace_offset, line_offset, wait, G,
# action_points, stop_early_cost, replace_cost, pickup_in_flight, board_on_draw, the pre-played ticket
# rule (0 off, 1 remove_line, 2 redraw)).

_NOT_ISOLATED = ~ISOLATED
_REMOVE_LINE, _REDRAW = 1, 2
#: ``location`` of a replaced card until every replacement is drawn (AS-10: it cannot be drawn again at once).
_GOING_BACK = -2


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _draw(g, bits, present, b):
    """Draw the next card of game b's set (``bits`` ``uint64 (B, W)`` and ``present`` ``bool (B, n)``,
    its contents): the k-th remaining by id, ``k = draw_below(stream(key, counter), cards left)``
    (``envs/common/rng.py``); the counter moves on."""
    key, counter = g[0], g[1]
    left = 0
    for w in range(bits.shape[1]):
        left += popcount(bits[b, w])
    k = draw_below(stream(key[b], counter[b]), left)
    counter[b] += 1
    for w in range(bits.shape[1]):
        size = popcount(bits[b, w])
        if k < size:
            bit = kth_bit(bits[b, w], k)
            bits[b, w] &= ~(np.uint64(1) << np.uint64(bit))
            card = 64 * w + bit
            present[b, card] = False
            return card
        k -= size
    return -1


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _place(g, t, b, cell, card):
    """Put ``card`` on ``cell`` of game b and update the derived fields around it (``core._place``)."""
    grid, location, nb, row_bits, col_bits, cell_values, placed, n_placed = g[2], g[16], g[15], g[17], g[18], g[19], \
        g[22], g[23]
    cell_row, cell_col, position_bit, neighbour, neighbour_demand, hv_pairs = t[0], t[1], t[2], t[6], t[7], t[8]
    G = grid.shape[1]
    grid[b, cell // G, cell % G] = card
    location[b, card] = cell
    placed[b, n_placed[b]] = cell
    n_placed[b] += 1
    r, c = cell_row[cell], cell_col[cell]
    row_bits[b, r] |= position_bit[c]
    col_bits[b, c] |= position_bit[r]
    cell_values[b, 2 * cell] = hv_pairs[card, 0]
    cell_values[b, 2 * cell + 1] = hv_pairs[card, 1]
    nb[b, cell] = nb[b, cell] & _NOT_ISOLATED | OCCUPIED
    for d in range(4):  # N and S neighbours see the card's V colour, E and W its H colour (off-grid: scratch cell)
        at = neighbour[cell, d]
        nb[b, at] = nb[b, at] & _NOT_ISOLATED | neighbour_demand[card, d]


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _arrive(g, t, b, cell, rewards):
    """AS-12: board at the origin; with the passenger aboard, complete at the destination."""
    grid, ticket, die, aboard, score = g[2], g[7], g[8], g[10], g[13]
    origin, destination = t[12], t[13]
    k = ticket[b]
    if k < 0:
        return
    G = grid.shape[1]
    card = grid[b, cell // G, cell % G]
    if not aboard[b]:
        if card == origin[k]:
            aboard[b] = True
    elif card == destination[k]:
        score[b] += 1
        rewards[b] += 1
        ticket[b], die[b], aboard[b] = -1, 0, False  # set aside; the next is drawn at the next turn's start


@njit(cache=True, nogil=True, _nrt=False)
def draw_tickets(games, g, t, pending):
    """AS-14, AS-15 and AS-12's board-on-draw for each of ``games`` (``int64 (n,)``), which need a new
    ticket; writes into ``pending`` the games whose ticket is pre-played under ``remove_line`` (whether
    a line may be chosen is ``lines.choosable_lines``, left to the core) and returns how many."""
    n = 0
    for b in games:
        if _draw_ticket(g, t, b):
            pending[n] = b
            n += 1
    return n


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _draw_ticket(g, t, b):
    """:func:`draw_tickets` for game b; True if it is pending."""
    grid, plane, ticket_deck, ticket, die, aboard, redraw_used, done, location, ticket_bits = \
        g[2], g[3], g[6], g[7], g[8], g[10], g[12], g[14], g[16], g[21]
    turns, origin, destination, rule = t[11], t[12], t[13], t[14]
    if ticket_bits[b, 0] == 0:  # AS-14: the ticket deck is empty
        done[b] = True
        return False
    k = _draw(g, ticket_bits, ticket_deck, b)
    ticket[b], die[b], aboard[b] = k, turns[k], False
    G2 = grid.shape[1] * grid.shape[2]
    at_origin, at_destination = location[b, origin[k]], location[b, destination[k]]
    if 0 <= at_origin < G2 and 0 <= at_destination < G2:  # pre-played (AS-15)
        if rule[10] == _REMOVE_LINE:
            return True
        if rule[10] == _REDRAW and not redraw_used[b]:  # at most once per turn
            ticket_deck[b, k] = True
            ticket_bits[b, 0] |= np.uint64(1) << np.uint64(k)
            redraw_used[b] = True
            k = _draw(g, ticket_bits, ticket_deck, b)
            ticket[b], die[b] = k, turns[k]
    if rule[9]:  # board_on_draw
        G = grid.shape[1]
        if grid[b, plane[b] // G, plane[b] % G] == origin[k]:
            aboard[b] = True
    return False


@njit(cache=True, nogil=True, _nrt=False)
def step_turns(games, actions, g, t, rewards, pending):
    """Play ``actions[b]`` (checked, legal) in each of ``games`` (``int64 (n,)``, unfinished, in the
    turn-action phase): AS-8 fly, AS-9 play, AS-10 replace or AS-11 wait, then AS-7/AS-13 the end of
    the turn at 0 points and the next ticket. ``rewards`` ``float32 (B,)`` gains each completed ticket;
    games left pending by :func:`draw_tickets` go into ``pending``; returns how many."""
    plane, slots, deck, ticket, die, points, redraw_used, done, location, deck_bits = \
        g[3], g[4], g[5], g[7], g[8], g[9], g[12], g[14], g[16], g[20]
    ray, replace_slots, replace_count, rule = t[5], t[9], t[10], t[14]
    play_offset, replace_offset, line_offset, wait, G, action_points, stop_early_cost, replace_cost, in_flight = \
        rule[0], rule[1], rule[2], rule[3], rule[4], rule[5], rule[6], rule[7], rule[8]
    G2 = G * G
    n = 0
    for b in games:
        a = actions[b]
        if a < play_offset:  # AS-8 fly k cells in direction d; the full reach costs 1
            d, k = a // (G - 1), a % (G - 1) + 1
            start = plane[b]
            reach = _reach(plane, g[17], g[18], t[0], t[1], t[3], t[4], b, d)
            points[b] -= 1 if k == reach else 1 + stop_early_cost
            plane[b] = ray[start, d, k - 1]
            if in_flight:
                for j in range(k):
                    _arrive(g, t, b, ray[start, d, j], rewards)
            else:
                _arrive(g, t, b, plane[b], rewards)
        elif a < replace_offset:  # AS-9 play, the slot refilled at once (empty if the deck is)
            slot, cell = (a - play_offset) // G2, (a - play_offset) % G2
            _place(g, t, b, cell, np.int64(slots[b, slot]))
            points[b] -= 1
            filled = False
            for w in range(deck_bits.shape[1]):
                filled |= deck_bits[b, w] != 0
            slots[b, slot] = -1
            if filled:
                card = _draw(g, deck_bits, deck, b)
                slots[b, slot], location[b, card] = card, G2 + slot
        elif a < line_offset:  # AS-10 replace: the replacements drawn in slot order, then the cards go back
            mask = a - replace_offset + 1
            points[b] -= replace_cost
            for j in range(replace_count[mask]):
                slot = replace_slots[mask, j]
                location[b, slots[b, slot]] = _GOING_BACK
                card = _draw(g, deck_bits, deck, b)
                slots[b, slot], location[b, card] = card, G2 + slot
            for card in range(deck.shape[1]):
                if location[b, card] == _GOING_BACK:
                    location[b, card] = -1
                    deck[b, card] = True
                    deck_bits[b, card // 64] |= np.uint64(1) << np.uint64(card % 64)
        elif a == wait:  # AS-11
            points[b] -= 1
        if points[b] == 0:  # AS-7, AS-13: the die goes down for an open ticket (at 0 the game is over)
            if ticket[b] >= 0:
                die[b] -= 1
                if die[b] == 0:
                    done[b] = True
                    continue
            points[b] = action_points
            redraw_used[b] = False
            if ticket[b] < 0 and _draw_ticket(g, t, b):
                pending[n] = b
                n += 1
    return n


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _copy_row(dst, src, b, a):
    """``dst[b] = src[a]`` for 2-D arrays, element by element."""
    for i in range(dst.shape[1]):
        dst[b, i] = src[a, i]


@njit(cache=True, nogil=True, _nrt=False)
def deal(games, keys, g, start, t, centre, slots_dealt):
    """AS-6 for each of ``games`` (``int64 (n,)``) from its stream key ``keys[i]`` (``uint64 (n,)``): the
    first ticket (random value 0) decides the table — ``start`` holds, as ``g`` does, the table of
    each first ticket before slots 1 … F−1 are drawn (``AirportScrambleCore.start``) —, then slots 1 …
    ``slots_dealt`` are drawn in order (counter 1, 2, …). Every field of ``g`` but ``lines`` is set."""
    key, counter, plane, ticket, die, points, aboard, phase, redraw_used, score, done, location, slots = \
        g[0], g[1], g[3], g[7], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[16], g[4]
    turns, rule = t[11], t[14]
    T = start[0].shape[0]
    G2 = g[2].shape[1] * g[2].shape[2]
    for i in range(games.shape[0]):
        b, k = games[i], keys[i]
        first = draw_below(stream(k, 0), T)  # the k-th of a full ticket deck
        # the table as dealt: grid, slots, decks, neighbour bits, locations, occupancy, colours, placed cells
        for r in range(g[2].shape[1]):
            _copy_row(g[2][b], start[2][first], r, r)
        _copy_row(g[4], start[4], b, first)
        _copy_row(g[5], start[5], b, first)
        _copy_row(g[6], start[6], b, first)
        _copy_row(g[15], start[15], b, first)
        _copy_row(g[16], start[16], b, first)
        _copy_row(g[17], start[17], b, first)
        _copy_row(g[18], start[18], b, first)
        _copy_row(g[19], start[19], b, first)
        _copy_row(g[20], start[20], b, first)
        _copy_row(g[21], start[21], b, first)
        _copy_row(g[22], start[22], b, first)
        key[b], counter[b] = k, 1
        plane[b] = centre
        g[23][b] = 1  # n_placed: the centre card
        ticket[b], die[b], points[b] = first, turns[first], rule[5]
        aboard[b] = True  # AS-6: the passenger boards at once
        phase[b], redraw_used[b], score[b], done[b] = TURN_ACTION, False, 0, False
        for j in range(1, slots_dealt + 1):  # (slots_dealt: as many as F − 1 slots and the deck allow)
            card = _draw(g, g[20], g[5], b)
            slots[b, j], location[b, card] = card, G2 + j
