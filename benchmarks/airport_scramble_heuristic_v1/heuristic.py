# FROZEN copy of agents/airport_scramble/heuristic.py before issue 21 (the test oracle): never edit.
"""The heuristic Airport Scramble agent: plans the cheapest flight, plays the cards that make it.

Every decision is a score per action (lower is better), in sixteenths of an action point:

- The ticket's plan: board at the origin, then fly to the destination (AS-12). A ticket card not in
  play yet is the card *to place*; it can go wherever it fits (AS-9). :mod:`planning` gives, for every
  card on the table, the action points still needed from there (flights at their AS-8 costs, plays 1
  point, a card still in the deck an expected replace cost). So a flight scores its cost plus what
  is left where it lands; playing the card to place scores 1 + the flight onto it + what is left from
  there; playing a *connector* (a face-up card beside which the card to place will fit, e.g. a hub
  joining two colours) scores 2 + the flight onto the card to place beside it.
- Stuck (the card to place is in the deck, or fits nowhere yet): first the flights that must happen
  anyway (when what is left after the card shows up would not fit in one turn), then plays that open
  a colour one card away from letting it fit, then replacing every spare face-up card (AS-10). A last
  point nothing needs plays a spare card (a fresh one is drawn) rather than waiting.
- Farming: while the rest of the ticket surely fits in the turns left, the agent places the ticket's
  cards and then grows the network instead of flying (every card in play is one card less to find in
  the deck for the tickets to come); it flies when the die says it is time. Points left after a
  ticket is completed also grow the network.
- AS-15 line choice: the shortest line that does not carry the plane.

Vectorized over the batch: numpy over B games, loops over directions, slots and relaxation rounds.
It decodes the observation (``needs_view = False``), so it also plays inside the single-game env.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .planning import (
    HORIZONTAL, INF, OPPOSITE, W_, N_, Board, Geometry, Table, arrival, buffer, cells, colour_bits,
    departure, forward_field, placement_goal, reverse_field,
)
from aerodeck.agents.base import Agent, Knob
from aerodeck.envs.airport_scramble.rules import DIE_SIDES, AirportScrambleRules

CHUNK = 1024  # games planned at once (see HeuristicAgent.decide)
UNIT = 16  # scores are in sixteenths of an action point; the remainder breaks ties
NONE = np.int32(1 << 30)  # "not a candidate"


@dataclasses.dataclass
class Plan:
    """Scores of every action of B games by block (AS-19), int32, lower is better, ``NONE`` = never.

    ``fly`` (B, 4, G-1), ``play`` (B, F, G²), ``replace`` (B, 2^F-1), ``line`` (B, 2, G²), ``wait`` (B,).
    Illegal actions are ``NONE``.
    """

    fly: np.ndarray
    play: np.ndarray
    replace: np.ndarray
    line: np.ndarray
    wait: np.ndarray

    def _blocks(self, geo: Geometry):
        lay, B = geo.actions, self.wait.shape[0]
        return [(0, self.fly.reshape(B, -1)), (lay.play_offset, self.play.reshape(B, -1)),
                (lay.replace_offset, self.replace), (lay.line_offset, self.line.reshape(B, -1)),
                (lay.wait, self.wait[:, None])]

    def scores(self, geo: Geometry) -> np.ndarray:
        """int32 (B, n_actions): the scores in action-index order (AS-19)."""
        return np.concatenate([block for _, block in self._blocks(geo)], axis=1)

    def best(self, geo: Geometry) -> np.ndarray:
        """int64 (B,): the best-scored action of each game (the lowest index among equals; the wait
        index where nothing is legal, i.e. in a finished game)."""
        B = self.wait.shape[0]
        rows = np.arange(B)
        best_score = np.full(B, NONE, np.int64)
        best = np.full(B, geo.actions.wait, np.int64)
        for offset, block in self._blocks(geo):
            if block.shape[1] == 0:
                continue
            i = block.argmin(axis=1)
            s = block[rows, i]
            better = s < best_score
            best_score[better] = s[better]
            best[better] = offset + i[better]
        return best


@dataclasses.dataclass(frozen=True)
class Style:
    """The heuristic's switches (see :class:`HeuristicAgent`)."""

    cycle: bool = True
    grow: bool = True
    farm: bool = True
    margin: int = 0


class HeuristicAgent(Agent):
    """A sensible player (see the module docstring). Deterministic: its seed is unused.

    ``cycle``: on to spend a last point that nothing else needs on playing a spare face-up card
    (a fresh card is drawn into its slot), off to wait instead; ``grow``: on to play spare cards with
    the points left after completing a ticket; ``farm``: on to grow the network while the ticket is
    sure to be completed in time, keeping ``margin`` turns to spare.
    """

    name = "heuristic"
    needs_view = False
    knobs = {
        "cycle": Knob(bool, doc="spend a last spare point on playing a spare face-up card (off: wait)"),
        "grow": Knob(bool, doc="play spare cards with the points left after completing a ticket"),
        "farm": Knob(bool, doc="grow the network while the ticket is sure to be completed in time"),
        "margin": Knob(int, 0, DIE_SIDES, doc="turns kept to spare while farming"),
    }

    def __init__(self, seed: int | None = 0, rules: AirportScrambleRules | None = None, cycle: bool = True,
                 grow: bool = True, farm: bool = True, margin: int = 0) -> None:
        super().__init__(seed, rules if rules is not None else AirportScrambleRules())
        values = {name: self.knobs[name].parse(value, f"heuristic agent knob {name!r}")
                  for name, value in (("cycle", cycle), ("grow", grow), ("farm", farm), ("margin", margin))}
        self.geo = Geometry(self.rules)
        self.style = Style(**values)

    def act(self, observations: np.ndarray, masks: np.ndarray, view=None) -> np.ndarray:
        """Actions int64 (B,) for observations float32 (B, obs_size) and masks bool (B, n_actions)."""
        return self.decide(Table.from_observations(self.geo, observations), masks)

    def decide(self, table: Table, masks: np.ndarray) -> np.ndarray:
        """Actions int64 (B,) for a decoded table and masks bool (B, n_actions) (each legal; the wait
        index for a game without legal actions, i.e. a finished one).

        Large batches are planned ``CHUNK`` games at a time: the planner's temporaries then stay in
        cache, which is faster per game than one pass over the whole batch."""
        B = table.batch_size
        if B <= CHUNK:
            return self.plan(table, masks).best(self.geo)
        out = np.empty(B, np.int64)
        for start in range(0, B, CHUNK):
            part = np.arange(start, min(start + CHUNK, B))
            out[part] = self.plan(table.take(part), masks[part]).best(self.geo)
        return out

    def plan(self, table: Table, masks: np.ndarray) -> Plan:
        """Every action's score (see :class:`Plan`)."""
        return plan_scores(self.geo, table, np.asarray(masks, bool), self.style)

    def scores(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``float64 (B, A)``: the value of every action in action points (minus its plan's cost),
        ``-inf`` where the mask forbids it. Higher is better (as Flight Tycoon's heuristic; the
        ``ppo`` agent's prior reads it)."""
        cost = self.plan(Table.from_observations(self.geo, observations), masks).scores(self.geo)
        return np.where(cost >= NONE, -np.inf, -cost / UNIT)


def plan_scores(geo: Geometry, t: Table, masks: np.ndarray, style: Style | None = None) -> Plan:
    """Score every action of B games (see the module docstring); ``masks`` bool (B, n_actions)."""
    style = style or Style()
    rules, lay = geo.rules, geo.actions
    B, G, G2, F = t.batch_size, geo.G, geo.G2, geo.F
    games = np.arange(B)
    base = games * G2
    fly_ok = masks[:, : lay.n_fly].reshape(B, 4, G - 1)
    play_ok = masks[:, lay.play_offset : lay.replace_offset].reshape(B, F, G2)
    replace_ok = masks[:, lay.replace_offset : lay.line_offset]
    line_ok = masks[:, lay.line_offset : lay.wait].reshape(B, 2, G2)
    wait_ok = masks[:, lay.wait]
    board = Board(geo, t)
    runs = board.runs
    zero = np.zeros((B, G2), np.int32)

    # --- the ticket: which card is to be placed, from where (AS-12: origin first, then destination) ---
    o_in, d_in = t.origin_cell >= 0, t.destination_cell >= 0
    second_leg = t.aboard | o_in  # the destination is placed next (origin in play or passenger aboard)
    to_place = t.active & np.where(second_leg, ~d_in, ~o_in)
    place_h = np.where(second_leg, t.destination_h, t.origin_h)
    place_v = np.where(second_leg, t.destination_v, t.origin_v)
    place_slot = np.where(to_place, np.where(second_leg, t.destination_slot, t.origin_slot), -1)
    in_deck = to_place & (place_slot < 0)
    keep_slot = np.where(~second_leg & ~d_in, t.destination_slot, -1)  # the destination waits face up
    per_replace = min(rules.max_replace, F)
    penalty = (rules.replace_cost * -(-t.deck_size // per_replace)).astype(np.int32)  # AS-10: cost to draw it

    # --- points still needed from every card: the destination leg, then the origin leg ---
    goal = placement_goal(board, board.fits(t.destination_h, t.destination_v), zero,
                          np.where(t.destination_slot >= 0, 0, penalty))
    goal[d_in | ~t.active] = INF
    goal[games[d_in], t.destination_cell[d_in]] = 0
    to_dest = reverse_field(board, goal)
    leave_dest = departure(board, to_dest)  # from a card newly played on each empty cell
    goal = placement_goal(board, board.fits(t.origin_h, t.origin_v), leave_dest,
                          np.where(t.origin_slot >= 0, 0, penalty))
    goal[o_in | ~t.active | t.aboard] = INF
    boarding = o_in & t.active & ~t.aboard
    goal[games[boarding], t.origin_cell[boarding]] = 0  # with the origin in play: the distance to it
    to_origin = reverse_field(board, goal)
    dest_from_origin = np.where(o_in, to_dest[base + np.maximum(t.origin_cell, 0)], 0)
    remaining = buffer(B, G2, INF)
    cells(remaining, B)[:] = np.where(t.aboard[:, None], cells(to_dest, B),
                                      np.minimum(cells(to_origin, B) + dest_from_origin[:, None], INF))
    now = remaining[base + t.plane]
    # AS-12: standing on the origin does not board; the plane must leave and land there again.
    now = np.where(~t.aboard & (t.plane == t.origin_cell), now + 2, now)
    now = np.where(t.active, np.minimum(now, INF), 0).astype(np.int32)

    # --- flights (AS-8) ---
    landing = geo.flat(B, geo.ray[t.plane])  # (B, 4, G-1)
    end = np.stack([runs.end[d][games, t.plane] for d in range(4)], axis=1) - base[:, None]
    reach = np.abs(end // G - (t.plane // G)[:, None]) + np.abs(end % G - (t.plane % G)[:, None])
    cost = np.where(np.arange(1, G)[None, None, :] == reach[:, :, None], np.int32(1), np.int32(geo.early))
    fly = UNIT * (cost + np.take(remaining, landing))
    fly = np.where(fly_ok, fly, NONE)

    # --- playing the card to place, and connectors (AS-9) ---
    source = np.where(~t.aboard & o_in, t.origin_cell, t.plane)
    prefix = np.where(source != t.plane, to_origin[base + t.plane], 0)
    _, row_min, col_min = forward_field(board, source)
    reach_new = arrival(board, row_min, col_min)  # flying onto a newly played card
    after = np.where(second_leg[:, None], 0, leave_dest)
    extra = (np.where(in_deck, penalty, 0) + prefix).astype(np.int32)
    play = np.full((B, F, G2), NONE, np.int32)
    direct = to_place & (place_slot >= 0)
    play[games[direct], place_slot[direct]] = UNIT * (1 + extra[direct, None] + reach_new[direct] + after[direct]) + 1
    place_fit = board.fits(place_h, place_v)
    connector = _connectors(board, t, play_ok, place_h, place_v, place_fit, place_slot, reach_new, row_min,
                            col_min, after)
    connects = to_place[:, None, None] & (connector < INF)
    play = np.where(connects, np.minimum(play, UNIT * (2 + extra[:, None, None] + connector) + 2), play)
    opens_new, promising = _openings(board, t, to_place, place_h, place_v)
    play = np.where(play_ok & t.active[:, None, None], play, NONE)

    # --- replace (AS-10), the spare plays, wait (AS-11) ---
    filled = t.slot_h >= 0
    slot = np.arange(F)[None, :]
    spare = filled & (slot != place_slot[:, None]) & (slot != keep_slot[:, None])  # neither ticket card
    spare_cells = spare[:, :, None] & ~place_fit[:, None, :] & play_ok  # keep the card to place's cells free
    on_plan = UNIT * now[:, None, None] + 3
    stuck = to_place & (in_deck | (np.minimum(play.min(axis=(1, 2)), fly.min(axis=(1, 2))) >= UNIT * INF))
    chosen = _slot_mask(spare, np.minimum(per_replace, t.deck_size))
    replace = np.full(replace_ok.shape, NONE, np.int64)
    has_mask = chosen > 0
    replace[games[has_mask], chosen[has_mask] - 1] = UNIT * (now[has_mask] + rules.replace_cost) + 8
    # A spare card played anyway (a fresh card is drawn for it): best where it opens a colour one card
    # away from letting the card to place fit, and near the centre.
    cycle_score = UNIT * now[:, None, None] + 8 - 4 * promising + np.minimum(geo.centrality, 7)
    if style.cycle:
        play = np.where(spare_cells & to_place[:, None, None], np.minimum(play, cycle_score), play)
    wait = np.where(t.active, UNIT * (now + 1) + 8, 0)

    # Stuck: the flights that must happen anyway (if what is left once the card shows up would not
    # fit in one turn), then the promising plays, then replacing every spare face-up card.
    after_draw = now - np.where(in_deck, penalty, 0)
    prework = stuck & in_deck & (after_draw > rules.action_points)
    fly = np.where(prework[:, None, None] & (fly <= on_plan), fly - 8 * UNIT * INF, fly)
    play = np.where(stuck[:, None, None] & spare_cells & promising,
                    np.minimum(play, cycle_score - UNIT * (now + 3)[:, None, None]), play)
    replace[games[has_mask & stuck], chosen[has_mask & stuck] - 1] = -UNIT

    # Farming (see the module docstring), with ``margin`` turns to spare.
    ap = rules.action_points
    safe = t.active & ~in_deck & (now < INF) & (-(-(now + 1) // ap) + style.margin <= t.die - 1)
    if style.farm:
        near_ticket = np.zeros((B, G2), bool)
        for cell, on in ((t.destination_cell, d_in), (t.origin_cell, o_in & ~t.aboard)):
            near = geo.neighbour[cell[on]]
            near_ticket[games[on][:, None], np.where(near >= 0, near, cell[on][:, None])] = True
        grow_cells = spare_cells & ~near_ticket[:, None, :]
        farm_play = np.where(play <= on_plan, play - 6 * UNIT * INF, np.where(grow_cells, -4 * UNIT - 8 * opens_new + np.minimum(geo.centrality, 7), play))
        play = np.where(safe[:, None, None], farm_play, play)
        fly = np.where(safe[:, None, None] & (fly < NONE), fly + 100 * UNIT, fly)
    # No ticket (it was completed this turn): the points left grow the network, else pass.
    if style.grow:
        idle = ~t.active[:, None, None] & play_ok & filled[:, :, None]
        play = np.where(idle, np.where(opens_new, -2, -1), play)
    fly = np.where(t.active[:, None, None], fly, UNIT * cost)
    replace = np.where(t.active[:, None], replace, UNIT * 3)

    # --- AS-15: remove the shortest line that does not carry the plane ---
    cell_ids = np.arange(G2)
    length_h = (runs.east - runs.west + 1).reshape(B, G2)
    length_v = (runs.south - runs.north + 1).reshape(B, G2)
    carries_h = (runs.end[W_][games, t.plane] - base)[:, None] == cell_ids
    carries_v = (runs.end[N_][games, t.plane] - base)[:, None] == cell_ids
    line = UNIT * np.stack([length_h + 100 * carries_h, length_v + 100 * carries_v], axis=1)

    def legal(scores, ok):
        return np.where(ok, scores, NONE).astype(np.int32)

    return Plan(fly=legal(fly, fly_ok), play=legal(play, play_ok), replace=legal(replace, replace_ok),
                line=legal(line, line_ok), wait=legal(wait, wait_ok))


def _connectors(board: Board, t: Table, play_ok, place_h, place_v, place_fit, place_slot, reach_new, row_min,
                col_min, after) -> np.ndarray:
    """int32 (B, F, G²): for each face-up card and cell, the least cost (in points, less the 2 plays)
    of flying onto the card to place once it is played next to this one, on a cell where it fits only
    thanks to this card (AS-9); ``INF`` where the play makes no such cell."""
    geo, B = board.geo, board.B
    G2, F = geo.G2, geo.F
    place_bits = colour_bits(geo, place_h, place_v)
    fit_buf = buffer(B, G2, True, bool)  # off grid counts as "fits already": no new cell there
    cells(fit_buf, B)[:] = place_fit | board.occupied | ((board.need & ~place_bits[:, None]) != 0)
    after_buf = buffer(B, G2, INF)
    cells(after_buf, B)[:] = after
    best = np.full((B, F, G2), INF, np.int32)
    slot = np.arange(F)[None, :]
    for d in range(4):
        e = board.nbf[d]  # the cell next to each cell c in direction d
        # The card on c must show the card to place its colour on that side (H beside, V above/below).
        match = (t.slot_h == place_h[:, None]) if HORIZONTAL[d] else (t.slot_v == place_v[:, None])
        match &= slot != place_slot[:, None]
        new = ~np.take(fit_buf, e)
        landing = buffer(B, G2, INF)
        cells(landing, B)[:] = board.landing(d)
        inline = np.take(row_min if HORIZONTAL[d] else col_min, board.nbf[OPPOSITE[d]])  # through c onto e
        cost = np.take(landing, e) + np.minimum(reach_new, inline) + np.minimum(np.take(after_buf, e), after + 1)
        ok = play_ok & match[:, :, None] & new[:, None, :]
        np.minimum(best, np.where(ok, cost[:, None, :], INF), out=best)
    return np.minimum(best, INF, out=best)


def _openings(board: Board, t: Table, to_place, place_h, place_v) -> tuple[np.ndarray, np.ndarray]:
    """What playing each face-up card on each cell opens, as bool (B, F, G²) pairs (``new``,
    ``promising``): ``new`` where it offers the network a colour no free cell offers yet (AS-9: beside
    a horizontal neighbour a card offers its V colour above and below it, beside a vertical neighbour its
    H colour left and right); ``promising`` where that colour is one card away from letting the card to
    place fit (a card of that colour pair is still in the deck or face up)."""
    geo, B = board.geo, board.B
    nc = geo.n_colors
    games = np.arange(B)
    need = board.need
    single = board.near & (need != 0) & ((need & (need - 1)) == 0)
    offered = np.bitwise_or.reduce(np.where(single, need, 0), axis=1)  # (B,) colour bits free cells offer
    h_all = (1 << nc) - 1
    beside_h = (need & h_all) != 0
    beside_v = (need & (h_all << nc)) != 0
    opens = np.where(beside_h[:, None, :], colour_bits(geo, -1, t.slot_v)[:, :, None], 0)
    opens |= np.where(beside_v[:, None, :], colour_bits(geo, t.slot_h, -1)[:, :, None], 0)
    new = opens & ~offered[:, None, None]
    # Colours one card from the card to place: (V, b) if a card (place_h, b) is left, (H, a) if (a, place_v).
    avail = t.available.reshape(B, nc, nc).copy()
    mine = to_place & (place_h >= 0)
    avail[games[mine], place_h[mine], place_v[mine]] -= 1  # the card to place itself connects nothing
    h_ok, v_ok = np.maximum(place_h, 0), np.maximum(place_v, 0)
    one_away = np.zeros(B, np.int32)
    for c in range(nc):
        one_away |= (avail[games, h_ok, c] > 0).astype(np.int32) << (nc + c)
        one_away |= (avail[games, c, v_ok] > 0).astype(np.int32) << c
    one_away = np.where(mine, one_away, 0)
    return new != 0, (new & one_away[:, None, None]) != 0


def _slot_mask(chosen: np.ndarray, most: np.ndarray) -> np.ndarray:
    """int64 (B,): the AS-10 slot bitmask of the first ``most[i]`` chosen slots (bool (B, F))."""
    B, F = chosen.shape
    mask = np.zeros(B, np.int64)
    count = np.zeros(B, np.int64)
    for s in range(F):
        take = chosen[:, s] & (count < most)
        mask |= take.astype(np.int64) << s
        count += take
    return mask
