"""What a seat knows, and determinizations: hidden cards sampled consistently with that knowledge.

**The knowledge model** (FT-13, FT-14). A seat sees its own hand, the public facts and the cards it
can *locate*: every card it ever held (dealt, drawn, received, given away), the discards and the laid
cards once revealed. Hands are sorted and every card moves at a public slot (FT-13), so once a seat
has located a card it can follow it for the rest of the game — nothing it knows ever turns into a
guess. ``State.known`` holds these sets; the reference engine keeps the same knowledge slot by slot
(as a player would) and the differential tests check that the two agree.

**Determinization** (:func:`sample_hidden`) draws, for one seat, a full game state that the seat cannot
tell from the real one: the same own hand, public facts and located cards, with every card the seat
cannot locate dealt again at random among the places it may be. Honoured exactly:

* its own hand, laid card, every located card (holder *and* slot), the discards, the revealed laid
  cards, tokens, VP, stock, the turn record and the decision in progress;
* every hand size and the deck size;
* the sorted order of every hand: each tower stays at its public slot (so the cards before it are of
  earlier months, the cards after it of its month or later) and each located card keeps its slot (so
  the unknown cards around it keep their side of it) — the sampler works gap by gap between these
  anchors and never produces a hand that contradicts them;
* what the other seats know: a card another seat can locate in a third hand is "the card at that
  slot", so in the sample that seat locates whatever card lies at the same slot;
* before the reveal, the other seats' pending tower choices are drawn among their sampled hands;
* a decision in progress stays a decision: when another seat is choosing what to give or discard, the
  sample gives it at least two allowed cards (by redrawing the games that fall short).

Not honoured (approximately only — the sample can contradict these finer inferences): the months
implied by the slots at which *unlocated* cards entered or left a hand (e.g. an opponent's landed
card went in at slot 3, so its month lies between its neighbours'), negative facts (a target that gave
a card not meeting the square held no card that did; a landing means the receiver held no card of that
month then; a forced give means a single allowed card), and any model of how opponents choose.

Within those constraints the draw is exactly uniform when no hand holds an anchor (a plain random deal
of the unknown cards into the unknown slots), and close to uniform otherwise: cards are dealt in id
order, each to one of the places that may still take it (never to one that would leave another
unfillable — Hall's condition for interval constraints), with probability proportional to the room
left there over the cards still able to fill it. Another seat's discard choice in progress reserves
room for two cards of its month (a "virtual gap"); the rare remaining misses are redrawn.
"""

from __future__ import annotations

import numpy as np

from aerodeck.envs.common.bits import BELOW, BIT, kth_bit, pack_bits, unpack_bits
from aerodeck.envs.common.checks import check_seeds
from aerodeck.envs.common.rng import draw_below_array, game_keys, mix_array, stream_array
from aerodeck.envs.flight_tycoon.rules import ALL_CARDS, DISCARD, GIVE, MONTH_BITS, N_CARDS, N_MONTHS, TOWER
from aerodeck.envs.flight_tycoon.state import State

_BIG = np.int32(1 << 20)
_SAMPLER_SALT = np.uint64(0x5EED5A3B1E5F00D5)
#: ``uint64 (4096,)``: for a 12-bit set of tower months, the gap ends they make (card 4m − 1 for month m ≥ 1).
_TOWER_MONTHS = np.arange(1, N_MONTHS)
_TOWER_BOUNDS = np.bitwise_or.reduce(
    np.where((np.arange(1 << N_MONTHS)[:, None] >> _TOWER_MONTHS) & 1, BIT[4 * _TOWER_MONTHS - 1], np.uint64(0)), axis=1
)
MAX_REDRAWS = 200


def sample_hidden(core, state: State, seat, seeds) -> State:
    """Determinizations of ``state`` for ``seat``: one new state per game (see the module docstring).

    ``seat``: an absolute seat (int) or one per game (integers (B,)); ``seeds``: integers (B,) — the
    draw depends only on them and on what the seat knows, never on the cards it cannot locate. The
    returned games have fresh random streams (key from ``seeds``, counter 0), so a rollout does not
    replay the real future draws. ``state`` is not modified.
    """
    B, n = state.batch_size, core.n_players
    seat = np.broadcast_to(np.asarray(seat, np.int64), (B,)).copy()
    seeds = check_seeds(np.atleast_1d(seeds))
    if seeds.size not in (1, B):
        raise ValueError(f"seeds: one per game ({B}) or one for all, got {seeds.size}")
    seeds = np.broadcast_to(seeds, (B,))
    if seat.size and (seat.min() < 0 or seat.max() >= n):
        raise ValueError(f"seat must be in 0..{n - 1}")
    out = state.copy()
    keys = game_keys(seeds)
    sampler_keys = mix_array(keys ^ _SAMPLER_SALT)
    todo = np.arange(B)
    for attempt in range(MAX_REDRAWS):
        _deal(core, state, out, todo, seat[todo], sampler_keys[todo], attempt)
        todo = todo[~_decision_kept(core, out, todo, seat[todo])]
        if todo.size == 0:
            break
    else:
        raise RuntimeError(f"sample_hidden: no consistent deal found for games {todo[:10].tolist()} "
                           f"after {MAX_REDRAWS} draws")
    out.key[:] = keys
    out.counter[:] = 0
    return out


def _decision_kept(core, st: State, g: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """Whether another seat's decision in progress still has two or more choices (FT-16)."""
    ok = np.ones(g.size, bool)
    phase = st.phase[g]
    give = np.flatnonzero((phase == GIVE) & (st.target[g] != seat))
    if give.size:
        ok[give] = np.bitwise_count(core._gifts(st, g[give])) >= 2
    discard = np.flatnonzero((phase == DISCARD) & (st.active[g] != seat))
    if discard.size:
        gd = g[discard]
        ok[discard] = np.bitwise_count(st.hand[gd, st.active[gd]] & MONTH_BITS[st.received[gd] >> 2]) >= 2
    return ok


def _deal(core, real: State, out: State, g: np.ndarray, seat: np.ndarray, keys: np.ndarray, attempt: int) -> None:
    """Deal the cards ``seat`` cannot locate, in games ``g`` of ``real``, into ``out``."""
    n = core.n_players
    k = g.size
    rows = np.arange(k)
    seats = np.arange(n)
    known = real.known[g, seat]
    hands = real.hand[g]  # (k, n)
    laid = real.laid[g]
    revealed = real.phase[g] != TOWER
    other = seats[None, :] != seat[:, None]  # (k, n)
    pending = ~revealed[:, None] & other & (laid >= 0)  # a hidden tower choice: its card is still to place
    pending_bits = np.where(pending, BIT[np.maximum(laid, 0)], np.uint64(0))
    unknown = np.where(other, (hands & ~known[:, None]) | pending_bits, np.uint64(0))  # (k, n)
    anchors = np.where(other, hands & known[:, None], np.uint64(0))
    towers = np.where(revealed[:, None], real.tower_months[g], 0).astype(np.int64)
    bounds = (anchors >> np.uint64(1)) | _TOWER_BOUNDS[towers] | BIT[N_CARDS - 1]
    # hi[b, h, x]: the last card id of the gap of hand h that card x would fall in
    gaps = bounds[:, :, None] & ~BELOW[None, None, :N_CARDS]
    hi = np.bitwise_count((gaps & (~gaps + np.uint64(1))) - np.uint64(1)).astype(np.int64)  # (k, n, 48)
    unknown_flags = unpack_bits(unknown, N_CARDS)  # (k, n, 48)
    b_idx, h_idx, x_idx = np.nonzero(unknown_flags)
    room = np.bincount((b_idx * (n + 1) + h_idx) * N_CARDS + hi[b_idx, h_idx, x_idx], minlength=k * (n + 1) * N_CARDS)
    room = room.reshape(k, n + 1, N_CARDS).astype(np.int32)  # room[b, h, j]: unknown cards of the gap ending at j
    js = np.arange(N_CARDS)
    hi = np.concatenate([hi, np.broadcast_to(js, (k, 1, N_CARDS))], axis=1)  # row n: the "virtual gap" below
    pool = ~known & ALL_CARDS
    virtual = _reserve_discard_choice(real, g, seat, anchors, pool, hi, room)
    demand = np.cumsum(room.sum(1), axis=1, dtype=np.int32)  # (k, 48): room in gaps ending at or before j
    pool_flags = unpack_bits(pool, N_CARDS)
    pool_count = np.cumsum(pool_flags, axis=1, dtype=np.int32)  # pool cards with id <= j
    deck_room = np.bitwise_count(real.deck[g]).astype(np.int32)
    place = np.full((k, N_CARDS), -1, np.int64)  # seat, n for the virtual gap, n + 1 for the deck
    places = np.arange(n + 1)
    for x in range(N_CARDS):  # deal the unlocated cards in id order
        live = pool_flags[:, x]
        if not live.any():
            continue
        # slack[j] for j >= x: pool cards in (x, j] minus the room of gaps ending at or before j (Hall)
        slack = pool_count - pool_count[:, x:x + 1] - demand
        slack[:, :x] = _BIG
        after = np.minimum.accumulate(slack[:, ::-1], axis=1)[:, ::-1]  # min over j' >= j
        upto = np.minimum.accumulate(slack, axis=1)  # min over x <= j' <= j
        ends = hi[:, :, x]  # (k, n + 1)
        left = room[rows[:, None], places[None, :], ends]
        fits = (left > 0) & ((ends == x) | (upto[rows[:, None], ends - 1] >= 0)) & (after[rows[:, None], ends] >= -1)
        # weight of a place: the share of its remaining candidates it still takes (room / candidates)
        here = pool_count[:, x:x + 1] - 1  # pool cards below x
        hand_weight = np.where(fits, left / np.maximum(pool_count[rows[:, None], ends] - here, 1), 0.0)
        deck_weight = np.where(after[:, x] >= 0, deck_room / np.maximum(pool_count[:, -1:] - here, 1)[:, 0], 0.0)
        cum = np.cumsum(np.concatenate([hand_weight, deck_weight[:, None]], axis=1), axis=1)
        value = stream_array(keys, np.full(k, attempt * 64 + x))
        pick = (value >> np.uint64(11)).astype(np.float64) * 2.0**-53 * cum[:, -1]
        choice = np.where(live, np.minimum((cum <= pick[:, None]).sum(1), n + 1), -1)
        to_hand = np.flatnonzero((choice >= 0) & (choice <= n))
        end = ends[to_hand, choice[to_hand]]
        room[to_hand, choice[to_hand], end] -= 1
        demand[to_hand] -= js[None, :] >= end[:, None]
        deck_room[choice == n + 1] -= 1
        place[:, x] = choice
    place = np.where(place == n, virtual[:, None], place)
    n_deck = n + 1
    dealt = pack_bits(place[:, None, :] == seats[None, :, None])  # (k, n)
    new_hands = np.where(other, anchors | dealt, hands)
    new_deck = pack_bits(place == n_deck)
    # FT-6: a pending tower choice of another seat is drawn among its sampled hand
    new_laid = laid.copy()
    new_towers = real.tower_months[g].copy()
    for h in range(n):
        p = np.flatnonzero(pending[:, h])
        if p.size == 0:
            continue
        cards = new_hands[p, h]
        value = stream_array(keys[p], np.full(p.size, attempt * 64 + N_CARDS + h))
        card = kth_bit(cards, draw_below_array(value, np.bitwise_count(cards)))
        new_hands[p, h] = cards & ~BIT[card]
        new_laid[p, h] = card
        new_towers[p, h] = np.uint16(1) << (card >> 2).astype(np.uint16)
    # what the other seats know: the card now at the slot of each card they could locate
    new_known = _translate_knowledge(real, g, seat, known, unknown, new_hands, new_laid, pending, n)
    out.hand[g] = new_hands
    out.deck[g] = new_deck
    out.laid[g] = new_laid
    out.tower_months[g] = new_towers
    out.known[g] = new_known


def _reserve_discard_choice(real: State, g, seat, anchors, pool, hi, room) -> np.ndarray:
    """Keep another seat's discard choice a choice (FT-16d): its hand must get two cards of the month.

    When all the unlocated cards of that month fall in one gap of its hand, part of that gap's room
    becomes a "virtual gap" (row n of ``hi``/``room``) spanning the month's four ids, with room for the
    missing cards — an interval constraint like the others, so the deal stays exact. Returns, per
    game, the seat that the virtual gap belongs to (−1 where there is none; the redraw loop covers the
    rare rest).
    """
    n = anchors.shape[1]
    owner = np.full(g.size, -1, np.int64)
    rows = np.flatnonzero((real.phase[g] == DISCARD) & (real.active[g] != seat))
    if rows.size == 0:
        return owner
    active = real.active[g[rows]].astype(np.int64)
    month = real.received[g[rows]].astype(np.int64) >> 2
    need = 2 - np.bitwise_count(anchors[rows, active] & MONTH_BITS[month]).astype(np.int32)
    ids = month[:, None] * 4 + np.arange(4)[None, :]
    free = unpack_bits(pool[rows] & MONTH_BITS[month], N_CARDS)[np.arange(rows.size)[:, None], ids]
    ends = hi[rows[:, None], active[:, None], ids]
    one_gap = np.where(free, ends, -1).max(1) == np.where(free, ends, N_CARDS).min(1)
    use = np.flatnonzero((need > 0) & one_gap)
    r, a, m, end = rows[use], active[use], month[use], np.where(free, ends, -1).max(1)[use]
    room[r, a, end] -= need[use]
    room[r, n, m * 4 + 3] = need[use]
    hi[r[:, None], n, ids[use]] = (m * 4 + 3)[:, None]
    owner[r] = a
    return owner


def _translate_knowledge(real: State, g, seat, known, unknown, new_hands, new_laid, pending, n) -> np.ndarray:
    """``uint64 (k, n)``: each seat's located cards in the sampled games (the sampling seat's unchanged).

    A card another seat located stays located if it did not move (the sampling seat's hand, public
    cards, cards the sampling seat locates too); one the sampling seat cannot locate was "the card at
    slot q of hand t" — in the sample, the card at the same rank among the unknown cards of hand t.
    """
    k = g.size
    old_known = real.known[g]
    laid = real.laid[g]
    revealed_laid = np.bitwise_or.reduce(np.where(laid >= 0, BIT[np.maximum(laid, 0)], np.uint64(0)), axis=1)
    public = real.discard[g] | np.where(real.phase[g] != TOWER, revealed_laid, np.uint64(0))
    fixed = real.hand[g, seat] | public | np.bitwise_or.reduce(real.hand[g] & known[:, None], axis=1)
    pending_bits = np.where(pending, BIT[np.maximum(new_laid, 0)], np.uint64(0))
    new_unknown_flags = unpack_bits(np.where(unknown != 0, new_hands | pending_bits, np.uint64(0)) & ~known[:, None],
                                    N_CARDS)
    old_unknown_flags = unpack_bits(unknown, N_CARDS)
    old_rank = np.cumsum(old_unknown_flags, axis=2) - 1  # (k, n, 48)
    new_rank = np.cumsum(new_unknown_flags, axis=2) - 1
    card_at = np.zeros((k, n, N_CARDS), np.int64)
    b_i, h_i, x_i = np.nonzero(new_unknown_flags)
    card_at[b_i, h_i, new_rank[b_i, h_i, x_i]] = x_i
    result = np.empty((k, n), np.uint64)
    for o in range(n):
        follow = unpack_bits(old_known[:, o], N_CARDS)[:, None, :] & old_unknown_flags  # (k, n, 48)
        follow[:, o, :] = False
        b_f, h_f, x_f = np.nonzero(follow)
        moved = np.zeros(k, np.uint64)
        np.bitwise_or.at(moved, b_f, BIT[card_at[b_f, h_f, old_rank[b_f, h_f, x_f]]])
        sampled = new_hands[:, o] | pending_bits[:, o] | (old_known[:, o] & fixed) | moved
        result[:, o] = np.where(seat == o, old_known[:, o], sampled)
    return result
