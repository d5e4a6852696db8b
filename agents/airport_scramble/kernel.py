"""The Airport Scramble heuristic's planner, compiled: one game at a time, on its cards and runs only.

:func:`plan_batch` gives, for a batch of decoded tables (:class:`planning.Table`), every action the
score that the heuristic's rules give it (``heuristic`` module docstring), and each game's best
action. It is written with numba and works per game on what is on the table: its cards (a handful of
the G² cells), its runs (maximal straight lines of cards, along which AS-8 flights go), the empty cells
next to the network (the only cells where a card may be played, AS-9) and the legal actions. The
batched numpy planner it replaced (kept as the test oracle, ``benchmarks/airport_scramble_heuristic_v1``)
made ~1,500 passes over ``(B, G²)`` and ``(B, F, G²)`` arrays per batch; this one is about ten times
faster and scores every action identically
(``tests/agents/test_airport_scramble_heuristic_same_decisions.py``).

The cost fields (AS-8 flight costs to a goal from every card, or from the plane to every card) are
shortest paths over the runs, found by relaxing run after run until nothing changes. Relaxations that
only ever lower a cost to that of a real route stop at the same (least) values whatever their order, so
they agree with the numpy planner's round-by-round relaxation.

Layout: per game, the board lives in the rows of one int64 matrix ``bd`` (``OCC`` … ``COL_COST``),
intermediate costs in the rows of ``wk`` (``GOAL`` … ``CELLS``), the legal plays in ``ent`` and the
game's scalars in the slots of one int64 vector ``gv`` (``N_NEAR`` … ``EXTRA``), all reused from game
to game. Cells are ``r·G + c``; directions N, E, S, W
(0..3: ``d & 1`` horizontal, ``d ^ 2`` the opposite); neighbour -1 = off the grid. Costs at or above
``INF`` are "not possible"; scores are in sixteenths of an action point (``UNIT``), ``NONE`` = not a
candidate (illegal). Every function has one explicit signature, so it is compiled once, when this
module is first imported (about 15 s of CPU; numba's cache, ``__pycache__`` beside this file, keeps
the machine code for every later process: about 1 s to load).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

INF = 4000  # planning.INF
UNIT = 16  # heuristic.UNIT
NONE = 1 << 30  # heuristic.NONE

# Rows of the board matrix ``bd`` (int64, (N_BOARD, G²)).
(OCC,  # 1 on a card
 NEED,  # colour bits a card played on the cell must show (AS-9: H of the cards beside, V above / below)
 NEAR,  # 1 on an empty cell next to a card (where cards may be played)
 NEAR_LIST,  # the near cells, ascending (``gv[N_NEAR]`` of them)
 RR, CR,  # the row / column run of each card (unset on empty cells: read on cards only)
 RLO, RHI,  # row run r: the cards rlo[r] .. rhi[r]
 CLO, CHI,  # column run r: the cards clo[r], clo[r] + G, .. chi[r]
 ROW_COST, COL_COST,  # the flight onto a card along its row / column: 1 if it ends a run of 2+, else early
 N_BOARD) = range(13)
# Rows of the work matrix ``wk`` (int64, (N_WORK, G²)): costs per cell (``INF`` where impossible).
(GOAL,  # a field's goal: the cost of finishing from each card; then the forward field's costs
 TO_DEST, TO_ORIGIN,  # points still needed from each card: via the destination leg / the origin first
 LEAVE,  # from a card newly played on each empty cell, to the destination
 REACH,  # flying onto a card newly played on each empty cell, from the plane (or the origin)
 ROW_MIN, COL_MIN,  # the forward field's least cost over each card's row / column run
 RUN_A, RUN_B,  # per run (row / column): a field's least cost
 CONN_H, CONN_V,  # connector costs per cell (see _connectors)
 STAMP,  # scratch marks, all 0 between uses
 CELLS,  # scratch list of cells
 N_WORK) = range(14)
# Rows of the legal plays ``ent`` (int64, (3, F · G²)): the action's offset in the play block, its slot, its cell.
PLAY_K, PLAY_S, PLAY_C = range(3)
# Slots of the game vector ``gv`` (int64, (N_GAME,)).
(N_NEAR, N_RR, N_CR, ACT, ABOARD, PLANE, O_CELL, D_CELL, SECOND_LEG, TO_PLACE, PLACE_H, PLACE_V, PLACE_SLOT,
 IN_DECK, KEEP_SLOT, PENALTY, NOW, FROM_ORIGIN, N_ENT, FLY_MIN, PLAY_MIN, EXTRA, N_GAME) = range(23)

_i8, _b1, _void = types.int64, types.boolean, types.void
_I1, _I2, _I3 = (types.Array(types.int64, n, "C") for n in (1, 2, 3))
_S1, _S2 = (types.Array(types.int16, n, "C") for n in (1, 2))
_B1, _B2 = (types.Array(types.boolean, n, "C") for n in (1, 2))
_J1, _J2 = (types.Array(types.int32, n, "C") for n in (1, 2))


@njit(_i8(_i8, _i8, _i8), cache=True)
def _bits(h, v, nc):
    """AS-9 matching as bits: H colour c is bit c, V colour c is bit ``nc + c``; -1 gives no bit."""
    out = 0
    if h >= 0:
        out |= 1 << h
    if v >= 0:
        out |= 1 << (v + nc)
    return out


@njit(_void(_i8, _i8, _i8, _I2, _S1, _S1, _I2, _I1, _I1), cache=True)
def _board(G, nc, early, nb, hc, vc, bd, gv, cards):
    """Fill the board matrix of one game from its cells' colours ``hc``, ``vc`` (-1: empty); ``cards``:
    scratch (G²,)."""
    G2 = G * G
    occ, need, near, near_list = bd[OCC], bd[NEED], bd[NEAR], bd[NEAR_LIST]
    rr, cr, rlo, rhi, clo, chi = bd[RR], bd[CR], bd[RLO], bd[RHI], bd[CLO], bd[CHI]
    row_cost, col_cost = bd[ROW_COST], bd[COL_COST]
    n_cards = 0  # the cells with a colour, ascending (cards; a V colour alone would count too)
    for c in range(G2):
        occ[c] = 1 if hc[c] >= 0 else 0
        need[c] = 0
        near[c] = 0
        if hc[c] >= 0 or vc[c] >= 0:
            cards[n_cards] = c
            n_cards += 1
    for i in range(n_cards):
        c = cards[i]
        hb = (1 << hc[c]) if hc[c] >= 0 else 0
        vb = (1 << (vc[c] + nc)) if vc[c] >= 0 else 0
        for d in range(4):
            n = nb[c, d]
            if n >= 0:
                need[n] |= hb if d & 1 else vb  # AS-9: H beside, V above and below
                if occ[c] and not occ[n]:
                    near[n] = 1
    n_near = 0
    for c in range(G2):
        if near[c]:
            near_list[n_near] = c
            n_near += 1
    # Runs, from the cards in row-major order: a card continues the run of the card before it in its
    # row (column) if there is one, else starts a run.
    n_rr = 0
    n_cr = 0
    for i in range(n_cards):
        c = cards[i]
        if not occ[c]:
            continue
        w, n = nb[c, 3], nb[c, 0]
        if w >= 0 and occ[w]:
            rr[c] = rr[w]
            rhi[rr[w]] = c
        else:
            rr[c] = n_rr
            rlo[n_rr] = rhi[n_rr] = c
            n_rr += 1
        if n >= 0 and occ[n]:
            cr[c] = cr[n]
            chi[cr[n]] = c
        else:
            cr[c] = n_cr
            clo[n_cr] = chi[n_cr] = c
            n_cr += 1
    for i in range(n_cards):
        c = cards[i]
        if occ[c]:
            a, z = rlo[rr[c]], rhi[rr[c]]
            row_cost[c] = 1 if (z > a and (c == a or c == z)) else early
            a, z = clo[cr[c]], chi[cr[c]]
            col_cost[c] = 1 if (z > a and (c == a or c == z)) else early
    gv[N_NEAR], gv[N_RR], gv[N_CR] = n_near, n_rr, n_cr


@njit(_void(_i8, _I2, _I1, _I1, _i8, _I1), cache=True)
def _ends(G, bd, row_of, col_of, c, out):
    """out[d]: the cell where the row / column run through cell c ends in direction d. For an empty
    cell as the numpy planner computes it: the runs on both sides joined through it."""
    occ, rr, rlo, rhi, cr, clo, chi = bd[OCC], bd[RR], bd[RLO], bd[RHI], bd[CR], bd[CLO], bd[CHI]
    r, k = row_of[c], col_of[c]
    if occ[c]:
        out[0], out[1], out[2], out[3] = clo[cr[c]], rhi[rr[c]], chi[cr[c]], rlo[rr[c]]
        return
    out[0] = clo[cr[c - G]] if (r > 0 and occ[c - G]) else c
    out[1] = rhi[rr[c + 1]] if (k < G - 1 and occ[c + 1]) else c
    out[2] = chi[cr[c + G]] if (r < G - 1 and occ[c + G]) else c
    out[3] = rlo[rr[c - 1]] if (k > 0 and occ[c - 1]) else c


@njit(_b1(_i8, _I1, _I1, _i8, _I1, _I1, _i8, _b1), cache=True)
def _relax_runs(n_runs, lo, hi, step, val, cost, early, forward):
    """One pass over the runs ``lo[r]..hi[r]`` (cells, stride ``step``), lowering each card's cost to
    the cheapest flight along the run: ``forward`` onto card c from any card of its run (``cost[c]``),
    else from c to any card of its run (``early``) or to either end (1). True if a value changed."""
    changed = False
    for r in range(n_runs):
        a, z = lo[r], hi[r]
        if a == z:
            continue  # a single card: no flight along this run
        m = INF
        c = a
        while c <= z:  # (faster than a range with a variable step)
            m = min(m, val[c])
            c += step
        c = a
        if forward:
            while c <= z:
                t = m + cost[c]
                if t < val[c]:
                    val[c] = t
                    changed = True
                c += step
        else:
            t = min(m + early, min(val[a], val[z]) + 1)
            while c <= z:
                if t < val[c]:
                    val[c] = t
                    changed = True
                c += step
    return changed


@njit(_void(_i8, _I1, _I1, _i8, _I1, _I1), cache=True)
def _run_minima(n_runs, lo, hi, step, val, out):
    """out[r]: the least value of ``val`` over run r."""
    for r in range(n_runs):
        m = INF
        c, z = lo[r], hi[r]
        while c <= z:
            m = min(m, val[c])
            c += step
        out[r] = m


@njit(_void(_i8, _i8, _I2, _I1, _I1, _I1), cache=True)
def _reverse_field(G, early, bd, gv, goal, out):
    """Flight cost to a goal from every card (``INF`` on empty cells). From a card, flying the full
    reach to an end of one of its runs costs 1, stopping early on any other card of its runs
    ``early`` (AS-8); ``goal``: the cost of finishing from each card."""
    occ, rlo, rhi, clo, chi = bd[OCC], bd[RLO], bd[RHI], bd[CLO], bd[CHI]
    n_rr, n_cr = gv[N_RR], gv[N_CR]
    for c in range(G * G):
        out[c] = min(goal[c], INF) if occ[c] else INF
    while True:
        changed = _relax_runs(n_rr, rlo, rhi, 1, out, out, early, False)
        if not _relax_runs(n_cr, clo, chi, G, out, out, early, False) and not changed:
            return


@njit(_void(_i8, _i8, _I2, _I2, _I1, _i8, _I2), cache=True)
def _forward_field(G, early, nb, bd, gv, source, wk):
    """Flight cost from ``source`` to every card (into wk[GOAL]) and the least of it over each card's
    row run and column run (wk[ROW_MIN], wk[COL_MIN]; ``INF`` on empty cells): what flying onto a new
    card at the end of that run costs, less the landing itself."""
    G2 = G * G
    occ, rr, rlo, rhi, cr, clo, chi = bd[OCC], bd[RR], bd[RLO], bd[RHI], bd[CR], bd[CLO], bd[CHI]
    row_cost, col_cost = bd[ROW_COST], bd[COL_COST]
    val, run_a, run_b, row_min, col_min = wk[GOAL], wk[RUN_A], wk[RUN_B], wk[ROW_MIN], wk[COL_MIN]
    for c in range(G2):
        val[c] = INF
    if occ[source]:
        val[source] = 0
    else:
        # A source on an empty cell (not in play): the numpy planner's first round reads it as the start
        # of the runs that follow it (east and south), and forgets it after.
        east, south = nb[source, 1], nb[source, 2]
        if east >= 0 and occ[east]:
            r = rr[east]
            for c in range(rlo[r], rhi[r] + 1):
                val[c] = row_cost[c]
        if south >= 0 and occ[south]:
            r = cr[south]
            c = clo[r]
            while c <= chi[r]:
                val[c] = min(val[c], col_cost[c])
                c += G
    while True:
        changed = _relax_runs(gv[N_RR], rlo, rhi, 1, val, row_cost, early, True)
        if not _relax_runs(gv[N_CR], clo, chi, G, val, col_cost, early, True) and not changed:
            break
    _run_minima(gv[N_RR], rlo, rhi, 1, val, run_a)
    _run_minima(gv[N_CR], clo, chi, G, val, run_b)
    for c in range(G2):
        if occ[c]:
            row_min[c] = run_a[rr[c]]
            col_min[c] = run_b[cr[c]]
        else:
            row_min[c] = INF
            col_min[c] = INF


@njit(_void(_i8, _i8, _I2, _I2, _I1, _I2), cache=True)
def _departure(G, early, nb, bd, gv, wk):
    """The cost to the destination (wk[TO_DEST]) from a card newly played on each empty cell (into
    wk[LEAVE]; ``INF`` where no card is near): flying heading d crosses the neighbour there and lands
    at the end of its run (1) or stops early on any card of that run (AS-8)."""
    occ, rr, rlo, rhi, cr, clo, chi = bd[OCC], bd[RR], bd[RLO], bd[RHI], bd[CR], bd[CLO], bd[CHI]
    near_list = bd[NEAR_LIST]
    field, run_a, run_b, out = wk[TO_DEST], wk[RUN_A], wk[RUN_B], wk[LEAVE]
    _run_minima(gv[N_RR], rlo, rhi, 1, field, run_a)
    _run_minima(gv[N_CR], clo, chi, G, field, run_b)
    for c in range(G * G):
        out[c] = INF
    for i in range(gv[N_NEAR]):
        c = near_list[i]
        best = INF
        for d in range(4):
            n = nb[c, d]
            if n < 0 or not occ[n]:
                continue
            if d & 1:
                run = run_a[rr[n]]
                end = rhi[rr[n]] if d == 1 else rlo[rr[n]]
            else:
                run = run_b[cr[n]]
                end = chi[cr[n]] if d == 2 else clo[cr[n]]
            best = min(best, min(field[end] + 1, run + early))
        out[c] = best


@njit(_void(_i8, _i8, _I2, _I2, _I1, _I2), cache=True)
def _arrival(G, early, nb, bd, gv, wk):
    """The cost of flying onto each empty cell once a card lies there, from the forward field's source
    (into wk[REACH]; ``INF`` where no card is near): any card of a neighbour's run flies there heading
    back, landing by full reach when the new card ends the run (AS-8)."""
    occ, near_list = bd[OCC], bd[NEAR_LIST]
    row_min, col_min, out = wk[ROW_MIN], wk[COL_MIN], wk[REACH]
    for c in range(G * G):
        out[c] = INF
    for i in range(gv[N_NEAR]):
        c = near_list[i]
        best = INF
        for d in range(4):
            n = nb[c, d]
            v = INF
            if n >= 0:
                v = row_min[n] if d & 1 else col_min[n]
            o = nb[c, d ^ 2]  # the flight lands by full reach unless a card lies beyond the new one
            best = min(best, v + (early if (o >= 0 and occ[o]) else 1))
        out[c] = best


@njit(_void(_i8, _i8, _i8, _I2, _I2, _I1, _i8, _i8, _I1, _b1, _i8, _I1), cache=True)
def _placement_goal(G, nc, early, nb, bd, gv, h, v, after, use_after, extra, out):
    """Goal costs of playing a card of colours h, v and flying onto it, per card: the cells just past
    the ends of the card's runs can be flown onto in one flight once the card lies there (where it
    fits, AS-9): 1 + the landing + ``after`` there (if ``use_after``) + ``extra``; ``INF`` on empty
    cells."""
    G2 = G * G
    occ, need, near, rlo, rhi, clo, chi = bd[OCC], bd[NEED], bd[NEAR], bd[RLO], bd[RHI], bd[CLO], bd[CHI]
    bits = _bits(h, v, nc)
    ok = h >= 0 and v >= 0
    for c in range(G2):
        out[c] = INF
    if not ok:  # the card fits nowhere
        for c in range(G2):
            if occ[c]:
                out[c] = min(INF + extra, INF)
        return
    for vertical in range(2):
        n_runs, lo, hi, step = (gv[N_CR], clo, chi, G) if vertical else (gv[N_RR], rlo, rhi, 1)
        for r in range(n_runs):
            a, z = lo[r], hi[r]
            best = INF
            for side in range(2):
                # The cell just past the run's end: heading N (W) from the first card, S (E) from the last.
                d = (2 if side else 0) if vertical else (1 if side else 3)
                p = nb[z if side else a, d]
                if p >= 0 and near[p] and (need[p] & ~bits) == 0:
                    n = nb[p, d]  # the landing: full reach unless a card lies beyond
                    land = early if (n >= 0 and occ[n]) else 1
                    best = min(best, 1 + land + (after[p] if use_after else 0))
            c = a
            while c <= z:
                out[c] = min(min(out[c], best) + extra, INF) if vertical else best
                c += step


@njit(_void(_i8, _i8, _i8, _i8, _I2, _I2, _I2, _I1, _i8, _i8, _i8, _i8, _i8, _i8, _i8, _i8, _i8, _b1, _b1, _i8,
            _i8), cache=True)
def _ticket(G, nc, early, replace_cost, nb, bd, wk, gv, per_replace, oc, dc, os, ds, oh, ov, dh, dv, act,
            abd, pl, deck_size):
    """The ticket's plan (AS-12: board at the origin, then fly to the destination): which card is to be
    placed, and the points still needed from every card (wk[TO_DEST], wk[TO_ORIGIN]) and from the
    plane (gv[NOW])."""
    G2 = G * G
    o_in, d_in = oc >= 0, dc >= 0
    second_leg = abd or o_in  # the destination is placed next (origin in play or passenger aboard)
    to_place = act and ((not d_in) if second_leg else (not o_in))
    gv[ACT], gv[ABOARD], gv[PLANE], gv[O_CELL], gv[D_CELL] = act, abd, pl, oc, dc
    gv[SECOND_LEG], gv[TO_PLACE] = second_leg, to_place
    gv[PLACE_H] = dh if second_leg else oh
    gv[PLACE_V] = dv if second_leg else ov
    place_slot = (ds if second_leg else os) if to_place else -1
    gv[PLACE_SLOT] = place_slot
    gv[IN_DECK] = to_place and place_slot < 0
    gv[KEEP_SLOT] = ds if (not second_leg and not d_in) else -1  # the destination waits face up
    penalty = replace_cost * -(-deck_size // per_replace)  # AS-10: the cost to draw it
    gv[PENALTY] = penalty
    goal, to_dest, to_origin, leave = wk[GOAL], wk[TO_DEST], wk[TO_ORIGIN], wk[LEAVE]
    # The destination leg, then the origin leg.
    if d_in or not act:
        for c in range(G2):
            goal[c] = INF
    else:
        _placement_goal(G, nc, early, nb, bd, gv, dh, dv, leave, False, 0 if ds >= 0 else penalty, goal)
    if d_in:
        goal[dc] = 0
    _reverse_field(G, early, bd, gv, goal, to_dest)
    if not second_leg:  # leaving a new destination matters only before the origin is in play
        _departure(G, early, nb, bd, gv, wk)
    if o_in or not act or abd:
        for c in range(G2):
            goal[c] = INF
    else:
        _placement_goal(G, nc, early, nb, bd, gv, oh, ov, leave, True, 0 if os >= 0 else penalty, goal)
    if o_in and act and not abd:
        goal[oc] = 0  # with the origin in play: the distance to it
    if abd or not act:  # no goal at all
        for c in range(G2):
            to_origin[c] = INF
    else:
        _reverse_field(G, early, bd, gv, goal, to_origin)
    from_origin = to_dest[oc] if o_in else 0
    gv[FROM_ORIGIN] = from_origin
    now = to_dest[pl] if abd else min(to_origin[pl] + from_origin, INF)
    if not abd and pl == oc:
        now += 2  # AS-12: standing on the origin does not board; the plane must leave and land again
    gv[NOW] = min(now, INF) if act else 0


@njit(_void(_i8, _i8, _I3, _I1, _I1, _I2, _I2, _I1, _B1, _I1, _I1, _I1), cache=True)
def _flights(G, early, ray, row_of, col_of, bd, wk, gv, mask, ends, fly, fly_cost):
    """AS-8 flights: their cost (1 for the full reach, else early) plus what is left where they land."""
    pl, abd, from_origin = gv[PLANE], gv[ABOARD], gv[FROM_ORIGIN]
    to_dest, to_origin = wk[TO_DEST], wk[TO_ORIGIN]
    _ends(G, bd, row_of, col_of, pl, ends)
    fly_min = NONE
    for d in range(4):
        far = abs(row_of[ends[d]] - row_of[pl]) + abs(col_of[ends[d]] - col_of[pl])
        for j in range(G - 1):
            k = d * (G - 1) + j
            cost = 1 if j + 1 == far else early
            fly_cost[k] = cost
            if mask[k]:
                cell = ray[pl, d, j]
                rem = INF
                if cell >= 0:
                    rem = to_dest[cell] if abd else min(to_origin[cell] + from_origin, INF)
                fly[k] = UNIT * (cost + rem)
            else:
                fly[k] = NONE
            fly_min = min(fly_min, fly[k])
    gv[FLY_MIN] = fly_min


@njit(_void(_I2, _I1, _I1, _I1, _I1, _I1, _I1, _I1, _I1, _I1, _i8, _i8, _b1, _b1, _I1, _i8), cache=True)
def _connectors(nb, occ, need, near, leave, reach, row_min, col_min, conn_h, conn_v, early, place_bits, place_ok,
                second_leg, cells, n_cells):
    """For a card played on each of the cells ``cells[:n_cells]``: the least cost (in points, less the
    2 plays) of flying onto the card to place once it is played beside this card, on a cell where it
    fits only thanks to it (AS-9); by side: ``conn_h[c]`` beside it (the card on c must show the card to
    place's H colour), ``conn_v[c]`` above or below (its V colour); ``INF`` where there is no such cell."""
    for i in range(n_cells):
        c = cells[i]
        best_h, best_v = INF, INF
        after_c = 0 if second_leg else leave[c]
        for d in range(4):
            e = nb[c, d]
            if e < 0 or occ[e] or (need[e] & ~place_bits) != 0:
                continue
            if place_ok and near[e]:
                continue  # the card to place fits there already
            o = nb[c, d ^ 2]
            inline = INF  # through c onto e
            if o >= 0:
                inline = row_min[o] if d & 1 else col_min[o]
            after_e = 0 if second_leg else leave[e]
            n = nb[e, d]  # the landing on e: full reach unless a card lies beyond
            land = early if (n >= 0 and occ[n]) else 1
            cost = land + min(reach[c], inline) + min(after_e, after_c + 1)
            if d & 1:
                best_h = min(best_h, cost)
            else:
                best_v = min(best_v, cost)
        conn_h[c] = best_h
        conn_v[c] = best_v


@njit(_void(_i8, _i8, _i8, _i8, _I2, _I2, _I2, _I1, _B1, _S1, _S1, _J1, _I2, _I1, _B1, _B1, _B1, _B1, _I1),
      cache=True)
def _plays(G, F, nc, early, nb, bd, wk, gv, play_ok, slot_h, slot_v, available, ent, value, opens_new,
           promising, spare_cell, spare, avail):
    """The legal plays (AS-9), listed in ``ent`` (ascending; gv[N_ENT] of them): playing the card to
    place (1 + the flight onto it + what is left from there), or a connector beside which it will fit
    (2 + the flight onto it), in ``value``; and what each play opens: a colour no free cell offers yet
    (``opens_new``), one card away from letting the card to place fit (``promising``), and whether it
    plays a spare card outside the card to place's cells (``spare_cell``)."""
    G2 = G * G
    occ, need, near, near_list = bd[OCC], bd[NEED], bd[NEAR], bd[NEAR_LIST]
    stamp, cells, reach, leave = wk[STAMP], wk[CELLS], wk[REACH], wk[LEAVE]
    conn_h, conn_v = wk[CONN_H], wk[CONN_V]
    ent_k, ent_s, ent_c = ent[PLAY_K], ent[PLAY_S], ent[PLAY_C]
    act, abd, pl, oc = gv[ACT] != 0, gv[ABOARD] != 0, gv[PLANE], gv[O_CELL]
    o_in, second_leg, to_place = oc >= 0, gv[SECOND_LEG] != 0, gv[TO_PLACE] != 0
    place_h, place_v, place_slot = gv[PLACE_H], gv[PLACE_V], gv[PLACE_SLOT]
    n_ent = 0
    n_cells = 0  # the cells where a connector may be played (each once)
    k = 0
    for s in range(F):
        for c in range(G2):
            if play_ok[k]:
                ent_k[n_ent], ent_s[n_ent], ent_c[n_ent] = k, s, c
                n_ent += 1
                if to_place and s != place_slot and not stamp[c]:
                    stamp[c] = 1
                    cells[n_cells] = c
                    n_cells += 1
            k += 1
    gv[N_ENT] = n_ent
    source = oc if (not abd and o_in) else pl
    prefix = wk[TO_ORIGIN, pl] if source != pl else 0
    extra = (gv[PENALTY] if gv[IN_DECK] else 0) + prefix
    gv[EXTRA] = extra
    place_bits = _bits(place_h, place_v, nc)
    place_ok = place_h >= 0 and place_v >= 0
    if n_ent > 0:
        _forward_field(G, early, nb, bd, gv, source, wk)
        _arrival(G, early, nb, bd, gv, wk)
    if n_cells > 0:
        _connectors(nb, occ, need, near, leave, reach, wk[ROW_MIN], wk[COL_MIN], conn_h, conn_v, early, place_bits,
                    place_ok, second_leg, cells, n_cells)
        for i in range(n_cells):
            stamp[cells[i]] = 0
    one_away = 0  # colours one card from the card to place: (V, b) if (place_h, b) is left, (H, a) if (a, place_v)
    if to_place and place_h >= 0:
        for i in range(nc * nc):
            avail[i] = available[i]
        avail[place_h * nc + (place_v if place_v >= 0 else place_v + nc)] -= 1  # not itself (indexed as numpy)
        v_ok = max(place_v, 0)
        for colour in range(nc):
            if avail[place_h * nc + colour] > 0:
                one_away |= 1 << (nc + colour)
            if avail[colour * nc + v_ok] > 0:
                one_away |= 1 << colour
    offered = 0  # colour bits the free cells offer already
    for i in range(gv[N_NEAR]):
        n = need[near_list[i]]
        if n != 0 and (n & (n - 1)) == 0:
            offered |= n
    keep_slot = gv[KEEP_SLOT]
    for s in range(F):
        spare[s] = slot_h[s] >= 0 and s != place_slot and s != keep_slot  # neither ticket card
    h_all = (1 << nc) - 1
    play_min = NONE
    for i in range(n_ent):
        s, c = ent_s[i], ent_c[i]
        v = NONE
        if to_place:
            if s == place_slot:
                after_c = 0 if second_leg else leave[c]
                v = UNIT * (1 + extra + reach[c] + after_c) + 1
            else:
                conn = INF
                if slot_h[s] == place_h:
                    conn = min(conn, conn_h[c])
                if slot_v[s] == place_v:
                    conn = min(conn, conn_v[c])
                if conn < INF:
                    v = UNIT * (2 + extra + conn) + 2
        if not act:
            v = NONE
        value[i] = v
        play_min = min(play_min, v)
        # AS-9: beside a horizontal neighbour a card offers its V colour above and below it, beside a
        # vertical neighbour its H colour left and right.
        opens = 0
        if need[c] & h_all and slot_v[s] >= 0:
            opens |= 1 << (slot_v[s] + nc)
        if need[c] & (h_all << nc) and slot_h[s] >= 0:
            opens |= 1 << slot_h[s]
        new = opens & ~offered
        opens_new[i] = new != 0
        promising[i] = (new & one_away) != 0
        fits_here = place_ok and near[c] != 0 and (need[c] & ~place_bits) == 0
        spare_cell[i] = spare[s] and not fits_here  # keep the card to place's cells free
    gv[PLAY_MIN] = play_min


@njit(_i8(_i8, _i8, _i8, _i8, _i8, _b1, _b1, _b1, _i8, _I2, _I1, _I1, _S1, _i8, _i8, _I2, _I1, _B1, _B1, _B1,
          _B1, _I1, _I1, _I1, _I1), cache=True)
def _adjust(G, F, action_points, replace_cost, per_replace, cycle, grow, farm, margin, nb, centrality, gv, slot_h,
            die, deck_size, ent, value, opens_new, promising, spare_cell, spare, fly, fly_cost, replace, mark):
    """Replacing (AS-10), the spare plays, being stuck, farming and growing (the heuristic's module
    docstring): adjusts ``value`` and ``fly``, fills ``replace``; returns the wait's score (AS-11)."""
    n_ent, n_fly, n_rep = gv[N_ENT], fly.shape[0], replace.shape[0]
    ent_s, ent_c = ent[PLAY_S], ent[PLAY_C]
    act, abd, now = gv[ACT] != 0, gv[ABOARD] != 0, gv[NOW]
    to_place, in_deck, penalty = gv[TO_PLACE] != 0, gv[IN_DECK] != 0, gv[PENALTY]
    oc, dc = gv[O_CELL], gv[D_CELL]
    on_plan = UNIT * now + 3
    stuck = to_place and (in_deck or min(gv[PLAY_MIN], gv[FLY_MIN]) >= UNIT * INF)
    most = min(per_replace, deck_size)
    chosen = 0  # the AS-10 slot bitmask of the first ``most`` spare slots
    count = 0
    for s in range(F):
        if spare[s] and count < most:
            chosen |= 1 << s
            count += 1
    for k in range(n_rep):
        replace[k] = NONE
    if chosen > 0:
        replace[chosen - 1] = UNIT * (now + replace_cost) + 8
    # A spare card played anyway (a fresh card is drawn for it): best where it opens a colour one card
    # away from letting the card to place fit, and near the centre.
    if cycle and to_place:
        for i in range(n_ent):
            if spare_cell[i]:
                c = ent_c[i]
                value[i] = min(value[i], UNIT * now + 8 - (4 if promising[i] else 0) + min(centrality[c], 7))
    wait = UNIT * (now + 1) + 8 if act else 0
    # Stuck: the flights that must happen anyway (if what is left once the card shows up would not fit
    # in one turn), then the promising plays, then replacing every spare face-up card.
    if stuck and in_deck and now - penalty > action_points:
        for k in range(n_fly):
            if fly[k] <= on_plan:
                fly[k] -= 8 * UNIT * INF
    if stuck:
        for i in range(n_ent):
            if spare_cell[i] and promising[i]:
                c = ent_c[i]
                value[i] = min(value[i], UNIT * now + 4 + min(centrality[c], 7) - UNIT * (now + 3))
        if chosen > 0:
            replace[chosen - 1] = -UNIT
    # Farming, with ``margin`` turns to spare.
    safe = act and not in_deck and now < INF and -(-(now + 1) // action_points) + margin <= die - 1
    if farm and safe:
        # Keep the cells next to the ticket's airports in play free (``mark``: all 0 on entry and exit).
        for cell, on in ((dc, dc >= 0), (oc, oc >= 0 and not abd)):
            if on:
                for d in range(4):
                    n = nb[cell, d]
                    mark[n if n >= 0 else cell] = 1
        for i in range(n_ent):
            p = value[i]
            if p <= on_plan:
                value[i] = p - 6 * UNIT * INF
            elif spare_cell[i] and not mark[ent_c[i]]:
                value[i] = -4 * UNIT - (8 if opens_new[i] else 0) + min(centrality[ent_c[i]], 7)
        for cell in (dc, oc):
            if cell >= 0:
                for d in range(4):
                    n = nb[cell, d]
                    mark[n if n >= 0 else cell] = 0
        for k in range(n_fly):
            if fly[k] < NONE:
                fly[k] += 100 * UNIT
    # No ticket (it was completed this turn): the points left grow the network, else pass.
    if grow and not act:
        for i in range(n_ent):
            if slot_h[ent_s[i]] >= 0:
                value[i] = -2 if opens_new[i] else -1
    if not act:
        for k in range(n_fly):
            fly[k] = UNIT * fly_cost[k]
        for k in range(n_rep):
            replace[k] = UNIT * 3
    return wait


@njit(_i8(_i8, _i8, _I1, _I1, _I2, _I1, _B1, _I1, _I2, _I1, _I1, _i8, _I1, _I1, _J1, _b1), cache=True)
def _write(G, F, row_of, col_of, bd, gv, mask, fly, ent, value, replace, wait, ends, line_ends, row, want):
    """The scores in action order (AS-19) into ``row`` (if ``want``; ``NONE`` where illegal) and the
    best action: the lowest index among the least scores, the wait index where nothing is legal.
    AS-15 line choice: the shortest line that does not carry the plane (``ends``: the plane's runs)."""
    G2 = G * G
    n_fly, n_rep = fly.shape[0], replace.shape[0]
    play_off = n_fly
    rep_off = play_off + F * G2
    line_off = rep_off + n_rep
    wait_ix = line_off + 2 * G2
    if want:
        for k in range(row.shape[0]):
            row[k] = NONE
    pick, low = wait_ix, NONE
    for k in range(n_fly):
        if mask[k]:
            if want:
                row[k] = fly[k]
            if fly[k] < low:
                pick, low = k, fly[k]
    ent_k = ent[PLAY_K]
    for i in range(gv[N_ENT]):
        k = play_off + ent_k[i]
        if want:
            row[k] = value[i]
        if value[i] < low:
            pick, low = k, value[i]
    for j in range(n_rep):
        k = rep_off + j
        if mask[k]:
            if want:
                row[k] = replace[j]
            if replace[j] < low:
                pick, low = k, replace[j]
    carry_h, carry_v = ends[3], ends[0]
    for j in range(2 * G2):
        k = line_off + j
        if mask[k]:
            c = j % G2
            _ends(G, bd, row_of, col_of, c, line_ends)
            if j < G2:
                score = UNIT * (col_of[line_ends[1]] - col_of[line_ends[3]] + 1 + (100 if c == carry_h else 0))
            else:
                score = UNIT * (row_of[line_ends[2]] - row_of[line_ends[0]] + 1 + (100 if c == carry_v else 0))
            if want:
                row[k] = score
            if score < low:
                pick, low = k, score
    if mask[wait_ix]:
        if want:
            row[wait_ix] = wait
        if wait < low:
            pick = wait_ix
    return pick


@njit(_void(_i8, _i8, _i8, _i8, _i8, _i8, _i8, _b1, _b1, _b1, _i8, _I2, _I3, _I1, _I1, _I1, _S2, _S2, _I1, _S2,
            _S2, _I1, _I1, _I1, _I1, _S1, _S1, _S1, _S1, _B1, _B1, _I1, _I1, _J2, _B2, _J2, _I1), cache=True)
def plan_batch(G, F, nc, early, action_points, replace_cost, max_replace, cycle, grow, farm, margin,
               nb, ray, row_of, col_of, centrality, hcol, vcol, plane, slot_h, slot_v, origin_cell,
               destination_cell, origin_slot, destination_slot, origin_h, origin_v, destination_h, destination_v,
               active, aboard, die, deck_size, available, masks, scores, best):
    """Score every action of B games (``heuristic.plan_scores``) and pick the best of each.

    Rules: G, F, n_colors, early (AS-8 cost of stopping early), action_points, replace_cost, max_replace;
    the heuristic's style: cycle, grow, farm, margin; geometry tables (``planning.Geometry``): nb, ray,
    row_of, col_of, centrality; the tables (``planning.Table`` arrays) and ``masks`` bool (B, A).
    ``scores`` int32 (B, A) receives the scores (``NONE`` where illegal), or has 0 rows when only
    ``best`` is wanted; ``best`` int64 (B,) receives each game's best action."""
    B = plane.shape[0]
    A = masks.shape[1]
    G2 = G * G
    n_fly = 4 * (G - 1)
    want = scores.shape[0] > 0
    bd = np.empty((N_BOARD, G2), np.int64)
    wk = np.empty((N_WORK, G2), np.int64)
    wk[STAMP] = 0  # kept all 0 between uses
    gv = np.zeros(N_GAME, np.int64)
    ent = np.empty((3, F * G2), np.int64)
    value = np.empty(F * G2, np.int64)
    opens_new = np.empty(F * G2, np.bool_)
    promising = np.empty(F * G2, np.bool_)
    spare_cell = np.empty(F * G2, np.bool_)
    spare = np.empty(F, np.bool_)
    avail = np.empty(nc * nc, np.int64)
    fly = np.empty(n_fly, np.int64)
    fly_cost = np.empty(n_fly, np.int64)
    replace = np.empty((1 << F) - 1, np.int64)
    ends = np.empty(4, np.int64)
    line_ends = np.empty(4, np.int64)
    dummy = np.empty(A, np.int32)
    per_replace = min(max_replace, F)
    play_off, rep_off = n_fly, n_fly + F * G2
    for b in range(B):
        mask = masks[b]
        _board(G, nc, early, nb, hcol[b], vcol[b], bd, gv, wk[CELLS])
        _ticket(G, nc, early, replace_cost, nb, bd, wk, gv, per_replace, origin_cell[b], destination_cell[b],
                origin_slot[b], destination_slot[b], origin_h[b], origin_v[b], destination_h[b], destination_v[b],
                active[b], aboard[b], plane[b], deck_size[b])
        _flights(G, early, ray, row_of, col_of, bd, wk, gv, mask, ends, fly, fly_cost)
        _plays(G, F, nc, early, nb, bd, wk, gv, mask[play_off:rep_off], slot_h[b], slot_v[b], available[b], ent, value,
               opens_new, promising, spare_cell, spare, avail)
        wait = _adjust(G, F, action_points, replace_cost, per_replace, cycle, grow, farm, margin, nb, centrality, gv,
                       slot_h[b], die[b], deck_size[b], ent, value, opens_new, promising, spare_cell, spare, fly,
                       fly_cost, replace, wk[STAMP])
        best[b] = _write(G, F, row_of, col_of, bd, gv, mask, fly, ent, value, replace, wait, ends, line_ends,
                         scores[b] if want else dummy, want)
