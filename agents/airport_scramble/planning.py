"""Planning helpers for the Airport Scramble agents: per-rules tables, and the public table as arrays.

- :class:`Geometry` — per-rules tables (neighbours, rays, rows and columns of cells, action-block
  offsets), what the compiled planner (:mod:`kernel`) and the search agent read.
- :class:`Table` — what the player sees, decoded either from observations (``from_observations``) or
  from a core state's public fields (``from_state``); the two agree (a test checks it).

Both work on a batch of B games at once, never looping over games. The flight-cost fields the
heuristic plans with (AS-8 costs to a goal from every card, or from the plane to every card) live in
:mod:`kernel`, next to the rest of the planner.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from aerodeck.envs.airport_scramble.actions import STEPS, ActionLayout
from aerodeck.envs.airport_scramble.observation import ObservationLayout
from aerodeck.envs.common.batch import BatchedState

N_, E_, S_, W_ = range(4)  # AS-8 directions, as in the action layout
OPPOSITE = (S_, W_, N_, E_)
HORIZONTAL = (False, True, False, True)
#: Costs at or above INF mean "not possible".
INF = 4000


class Geometry:
    """Tables that depend only on the rules: grid size, neighbours, rays, costs and action blocks.

    ``neighbour``: int64 (G², 4) the cell next to each cell in direction d (N, E, S, W), -1 off the
    grid; ``ray``: int64 (G², 4, G-1) the cells 1..G-1 steps away, -1 off the grid; ``row_of`` /
    ``col_of``: int64 (G²,) each cell's row and column.
    """

    def __init__(self, rules) -> None:
        comp = rules.components
        self.rules = rules
        self.G = G = rules.grid_size
        self.G2 = G2 = G * G
        self.F = rules.face_up
        self.n_colors = nc = comp.n_colors
        self.n_cards = comp.n_cards
        self.early = 1 + rules.stop_early_cost  # AS-8 cost of stopping a flight early
        self.actions = ActionLayout.of(rules)
        self.observation = ObservationLayout(rules)
        self.card_h = np.append(np.array(comp.card_h, np.int16), -1)  # index -1 (no card) -> -1
        self.card_v = np.append(np.array(comp.card_v, np.int16), -1)
        self.card_pair = np.zeros((comp.n_cards, nc * nc), np.int32)  # one-hot colour pair H * nc + V
        self.card_pair[np.arange(comp.n_cards), self.card_h[:-1] * nc + self.card_v[:-1]] = 1
        pair = self.card_h[:-1].astype(np.int64) * nc + self.card_v[:-1]
        #: the cards of each colour pair (the non-empty pairs only): [(pair, card ids), ...]
        self.pair_cards = [(p, np.flatnonzero(pair == p)) for p in range(nc * nc) if (pair == p).any()]
        self.origin = np.array(comp.ticket_origin, np.int64)
        self.destination = np.array(comp.ticket_destination, np.int64)
        cells = np.arange(G2)
        rows, cols = cells // G, cells % G
        self.row_of, self.col_of = rows.astype(np.int64), cols.astype(np.int64)
        self.neighbour = np.full((G2, 4), -1, np.int64)
        self.ray = np.full((G2, 4, G - 1), -1, np.int64)
        for d, (dr, dc) in enumerate(STEPS):
            for j in range(1, G):
                rr, cc = rows + dr * j, cols + dc * j
                inside = (rr >= 0) & (rr < G) & (cc >= 0) & (cc < G)
                self.ray[:, d, j - 1] = np.where(inside, rr * G + cc, -1)
            self.neighbour[:, d] = self.ray[:, d, 0]
        #: Manhattan distance of every cell to the centre (a mild preference for compact networks).
        self.centrality = (np.abs(rows - G // 2) + np.abs(cols - G // 2)).astype(np.int32)
        self.centrality_table = self.centrality.astype(np.int64)  # as the compiled planner reads it

    def landing(self, plane: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """int64, the shape of ``actions``: the cell each action flies the plane to from ``plane`` (its
        cells, broadcast against ``actions``) — AS-8's fly(d, k) — or -1 for an action that is not a
        flight or leaves the grid."""
        G = self.G
        fly = actions < self.actions.n_fly
        d, k = np.where(fly, actions // (G - 1), 0), np.where(fly, actions % (G - 1), 0)
        return np.where(fly, self.ray[np.broadcast_to(plane, np.shape(actions)), d, k], -1)


@dataclasses.dataclass
class Table(BatchedState):
    """The public table of B games as the agents use it (every array has leading axis B).

    ``hcol``/``vcol``: int16 (B, G²) H/V colour of the card on each cell, -1 if empty; ``plane``:
    int64 (B,) cell; ``slot_h``/``slot_v``: int16 (B, F), -1 if empty; ``origin_cell`` /
    ``destination_cell``: int64 (B,) the ticket's airports' cells, -1 if not in play; ``origin_slot``
    / ``destination_slot``: int64 (B,) their face-up slots, -1 if not face up; ``origin_h``,
    ``origin_v``, ``destination_h``, ``destination_v``: int16 (B,) their colours (-1 without a
    ticket); ``active``: a ticket is current; ``aboard``; ``choosing``: the AS-15 line choice;
    ``points``, ``die``, ``deck_size``: int64 (B,); ``available``: int32 (B, n_colors²) how many cards
    of each colour pair (index H · n_colors + V) are in the deck or face up.
    """

    hcol: np.ndarray
    vcol: np.ndarray
    plane: np.ndarray
    slot_h: np.ndarray
    slot_v: np.ndarray
    origin_cell: np.ndarray
    destination_cell: np.ndarray
    origin_slot: np.ndarray
    destination_slot: np.ndarray
    origin_h: np.ndarray
    origin_v: np.ndarray
    destination_h: np.ndarray
    destination_v: np.ndarray
    active: np.ndarray
    aboard: np.ndarray
    choosing: np.ndarray
    points: np.ndarray
    die: np.ndarray
    deck_size: np.ndarray
    available: np.ndarray

    @property
    def batch_size(self) -> int:
        """B."""
        return self.plane.shape[0]

    @classmethod
    def from_observations(cls, geo: Geometry, obs: np.ndarray) -> Table:
        """Decode observations ``float32 (B, obs_size)`` (``ObservationLayout``) into a table."""
        lay, G2, F, nc = geo.observation, geo.G2, geo.F, geo.n_colors
        obs = np.asarray(obs, np.float32)
        B = obs.shape[0]

        def seg(name):
            return obs[:, lay.blocks[name].slice]

        def colour(values):  # (c + 1) / n_colors, 0 for no card
            return (np.rint(values * nc) - 1).astype(np.int16)

        rows = np.arange(B)

        def where_one(values):  # index of the 1 in a one-hot block, -1 if none
            at = values.argmax(axis=1)
            return np.where(values[rows, at] > 0.5, at, -1).astype(np.int64)

        hv = colour(seg("cell_hv")).reshape(B, G2, 2)
        slot_hv = colour(seg("slot_hv")).reshape(B, F, 2)
        o_hv, d_hv = colour(seg("origin_hv")), colour(seg("destination_hv"))
        active = seg("ticket_active")[:, 0] > 0.5
        none = np.int16(-1)
        return cls(
            hcol=hv[:, :, 0], vcol=hv[:, :, 1], plane=seg("plane").argmax(axis=1).astype(np.int64),
            slot_h=slot_hv[:, :, 0], slot_v=slot_hv[:, :, 1],
            origin_cell=where_one(seg("origin_cell")), destination_cell=where_one(seg("destination_cell")),
            origin_slot=where_one(seg("slot_origin")), destination_slot=where_one(seg("slot_destination")),
            origin_h=np.where(active, o_hv[:, 0], none), origin_v=np.where(active, o_hv[:, 1], none),
            destination_h=np.where(active, d_hv[:, 0], none), destination_v=np.where(active, d_hv[:, 1], none),
            active=active, aboard=(seg("aboard")[:, 0] > 0.5) & active, choosing=seg("line_choice")[:, 0] > 0.5,
            points=np.rint(seg("points")[:, 0] * geo.rules.action_points).astype(np.int64),
            die=np.rint(seg("die")[:, 0] * lay.die_scale).astype(np.int64),
            deck_size=np.rint(seg("deck_size")[:, 0] * geo.n_cards).astype(np.int64),
            available=_available(geo, seg("deck") > 0.5, slot_hv[:, :, 0], slot_hv[:, :, 1]),
        )

    @classmethod
    def from_state(cls, geo: Geometry, state) -> Table:
        """Read a table from the public fields of a core ``State`` (or anything with its fields
        ``grid``, ``plane``, ``slots``, ``deck``, ``ticket``, ``die``, ``points``, ``aboard``,
        ``phase``, ``location``). Never reads the random stream."""
        G2 = geo.G2
        B = state.plane.shape[0]
        grid = state.grid.reshape(B, G2)
        ticket = state.ticket.astype(np.int64)
        active = ticket >= 0
        rows = np.arange(B)
        out = {}
        for name, cards in (("origin", geo.origin), ("destination", geo.destination)):
            card = np.where(active, cards[np.maximum(ticket, 0)], -1)
            where = np.where(active, state.location[rows, np.maximum(card, 0)].astype(np.int64), -1)
            out[f"{name}_cell"] = np.where((where >= 0) & (where < G2), where, -1)
            out[f"{name}_slot"] = np.where(where >= G2, where - G2, -1)
            out[f"{name}_h"], out[f"{name}_v"] = geo.card_h[card], geo.card_v[card]
        slot_h, slot_v = geo.card_h[state.slots], geo.card_v[state.slots]
        return cls(
            hcol=geo.card_h[grid], vcol=geo.card_v[grid], plane=state.plane.astype(np.int64),
            slot_h=slot_h, slot_v=slot_v, active=active, aboard=state.aboard & active,
            choosing=state.phase == 1, points=state.points.astype(np.int64), die=state.die.astype(np.int64),
            deck_size=state.deck.sum(axis=1).astype(np.int64),
            available=_available(geo, state.deck, slot_h, slot_v), **out,
        )


def _available(geo: Geometry, deck: np.ndarray, slot_h: np.ndarray, slot_v: np.ndarray) -> np.ndarray:
    """int32 (B, n_colors²): cards per colour pair in the deck (bool (B, N)) or face up."""
    nc = geo.n_colors
    B = deck.shape[0]
    counts = np.zeros((B, nc * nc + 1), np.int32)
    if B < 64:  # (few games: one product; many: a sum per colour pair, faster than numpy's integer product)
        counts[:, :-1] = deck.astype(np.int32) @ geo.card_pair
    else:
        ones = np.asarray(deck, bool).view(np.uint8)
        for p, cards in geo.pair_cards:
            counts[:, p] = ones[:, cards].sum(axis=1, dtype=np.int32)
    pair = np.where(slot_h >= 0, slot_h.astype(np.int64) * nc + slot_v, nc * nc)
    rows = np.arange(B)
    for s in range(pair.shape[1]):  # no two slots of a game are counted at once
        counts[rows, pair[:, s]] += 1
    return counts[:, :-1]
