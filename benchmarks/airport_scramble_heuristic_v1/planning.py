# FROZEN copy of agents/airport_scramble/planning.py before issue 21 (the test oracle): never edit.
"""Planning helpers for the Airport Scramble agents: the public table as arrays, and flight costs.

Everything works on a batch of B games at once; loops run over directions, slots or relaxation rounds,
never over games. The pieces:

- :class:`Geometry` — per-rules tables (neighbours, rays, action-block offsets).
- :class:`Table` — what the player sees, decoded either from observations (``from_observations``) or
  from a core state's public fields (``from_state``); the two agree (a test checks it).
- :class:`Runs` — the run structure of B grids: for every card, where its row and column runs end.
  A run is a maximal straight line of cards; AS-8 flights go along runs.
- :func:`reverse_field` / :func:`forward_field` — flight costs in action points (AS-8: full reach 1
  point, stopping early 1 + ``stop_early_cost``) to a goal from every card, or from a source to every
  card, by batched relaxation (each round adds one flight; the rounds stop when nothing changes).
- :func:`arrival` / :func:`departure` / :func:`placement_goal` — the same costs for a card not played
  yet: flying onto an empty cell once a card lies there, or flying on from it.

Per-cell arrays of a batch are *cell buffers*: 1-D arrays of length ``B·G² + 1`` (game b's cell c at
``b·G² + c``) whose last element stands for every off-grid cell, so that neighbour lookups are plain
``np.take`` with precomputed flat indices and need no bounds checks. ``cells(buf, B)`` views the
first ``B·G²`` elements as ``(B, G²)``.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from aerodeck.envs.airport_scramble.actions import STEPS, ActionLayout
from aerodeck.envs.airport_scramble.observation import ObservationLayout
from aerodeck.envs.common.batch import BatchedState

N_, E_, S_, W_ = range(4)  # AS-8 directions, as in the action layout
OPPOSITE = (S_, W_, N_, E_)
HORIZONTAL = (False, True, False, True)
#: Costs at or above INF mean "not possible"; int32 throughout.
INF = 4000
_BIG = 8192  # segment offset of the running minimum that restarts at empty cells (> any cost)


class Geometry:
    """Tables that depend only on the rules: grid size, neighbours, rays, costs and action blocks.

    ``neighbour``: int64 (G², 4) the cell next to each cell in direction d (N, E, S, W), -1 off the
    grid; ``ray``: int64 (G², 4, G-1) the cells 1..G-1 steps away, -1 off the grid.
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
        self.origin = np.array(comp.ticket_origin, np.int64)
        self.destination = np.array(comp.ticket_destination, np.int64)
        cells = np.arange(G2)
        rows, cols = cells // G, cells % G
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

    @functools.lru_cache(maxsize=4)
    def flat_neighbours(self, B: int) -> np.ndarray:
        """intp (4, B, G²): flat buffer index of each cell's neighbour in direction d (off grid: B·G²)."""
        base = (np.arange(B) * self.G2)[None, :, None]
        nb = self.neighbour.T[:, None, :]
        return np.where(nb >= 0, base + nb, B * self.G2).astype(np.intp)

    def flat(self, B: int, cell: np.ndarray) -> np.ndarray:
        """intp: flat buffer index of ``cell`` (int (B, ...), -1 = off grid) in each game's block."""
        shape = (B,) + (1,) * (np.ndim(cell) - 1)
        base = (np.arange(B) * self.G2).reshape(shape)
        return np.where(cell >= 0, base + cell, B * self.G2).astype(np.intp)


def buffer(B: int, G2: int, fill, dtype=np.int32) -> np.ndarray:
    """A cell buffer (see the module docstring) filled with ``fill``."""
    return np.full(B * G2 + 1, fill, dtype)


def cells(buf: np.ndarray, B: int) -> np.ndarray:
    """The (B, G²) view of a cell buffer."""
    return buf[:-1].reshape(B, -1)


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

        def where_one(values):  # index of the 1 in a one-hot block, -1 if none
            return np.where(values.max(axis=1) > 0.5, values.argmax(axis=1), -1).astype(np.int64)

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
    counts[:, :-1] = deck.astype(np.int32) @ geo.card_pair
    pair = np.where(slot_h >= 0, slot_h.astype(np.int64) * nc + slot_v, nc * nc)
    rows = np.arange(B)
    for s in range(pair.shape[1]):  # no two slots of a game are counted at once
        counts[rows, pair[:, s]] += 1
    return counts[:, :-1]


def colour_bits(geo: Geometry, h: np.ndarray, v: np.ndarray) -> np.ndarray:
    """AS-9 matching as bits (int32): H colour c is bit c, V colour c is bit ``n_colors + c``; a colour
    of -1 gives no bit."""
    one = np.int32(1)
    h = np.asarray(h).astype(np.int32)
    v = np.asarray(v).astype(np.int32)
    return np.where(h >= 0, one << np.maximum(h, 0), 0) | np.where(v >= 0, one << (np.maximum(v, 0) + geo.n_colors), 0)


class Board:
    """The network of B games: occupancy, the colours each empty cell demands, its runs.

    ``occ``: bool cell buffer; ``need``: int32 (B, G²) per cell the colour bits its neighbours demand
    of a card placed there (AS-9: H of the left/right cards, V of the upper/lower ones); ``near``:
    bool (B, G²) empty cells next to a card; ``nbf``: the flat neighbour indices (4, B, G²).
    """

    def __init__(self, geo: Geometry, table: Table) -> None:
        self.geo = geo
        B, G, G2 = table.batch_size, geo.G, geo.G2
        self.B = B
        self.nbf = nbf = geo.flat_neighbours(B)
        occ = buffer(B, G2, False, bool)
        cells(occ, B)[:] = table.hcol >= 0
        self.occ = occ
        hbit = buffer(B, G2, 0)
        vbit = buffer(B, G2, 0)
        cells(hbit, B)[:] = colour_bits(geo, table.hcol, -1)
        cells(vbit, B)[:] = colour_bits(geo, -1, table.vcol)
        self.need = (np.take(vbit, nbf[N_]) | np.take(hbit, nbf[E_]) | np.take(vbit, nbf[S_])
                     | np.take(hbit, nbf[W_]))
        occupied = cells(occ, B)
        self.occupied = occupied
        self.near = ~occupied & (np.take(occ, nbf[0]) | np.take(occ, nbf[1]) | np.take(occ, nbf[2])
                                 | np.take(occ, nbf[3]))
        self.beyond = [np.take(occ, nbf[d]) for d in range(4)]  # the neighbour in direction d is a card
        self.runs = Runs(geo, occupied.reshape(B, G, G))

    def fits(self, h: np.ndarray, v: np.ndarray) -> np.ndarray:
        """bool (B, G²): the cells where a card of colours ``h``, ``v`` (int (B,)) may be played
        (AS-9: empty, next to a card, matching every neighbour); none where a colour is -1."""
        bits = colour_bits(self.geo, h, v)
        ok = (np.asarray(h) >= 0) & (np.asarray(v) >= 0)
        return self.near & ((self.need & ~bits[:, None]) == 0) & ok[:, None]

    def landing(self, d: int) -> np.ndarray:
        """int32 (B, G²): the cost of a flight heading ``d`` that stops on each (empty) cell once a card
        lies there: 1 if the cell beyond is empty (the new card ends the run), else early (AS-8)."""
        return np.where(self.beyond[d], np.int32(self.geo.early), np.int32(1))


class Runs:
    """The runs of B grids (``occ`` bool (B, G, G)). For each card: ``east``/``west`` the columns where
    its row run ends, ``south``/``north`` the rows where its column run ends (meaningless on empty
    cells); ``end[d]`` intp (B, G²) the flat buffer index of the run's end in direction d (the card
    itself if its neighbour there is empty); ``past[d]`` the cell just past that end (off grid: B·G²).
    """

    def __init__(self, geo: Geometry, occ: np.ndarray) -> None:
        self.geo = geo
        G, G2 = geo.G, geo.G2
        B = occ.shape[0]
        self.B = B
        self.occ = occ
        empty = ~occ
        self.west, self.east = _ends(occ, axis=2)
        self.north, self.south = _ends(occ, axis=1)
        # Running minimum that restarts at every empty cell: subtract a growing offset per segment.
        self.row_offset = np.cumsum(empty, axis=2, dtype=np.int32) * np.int32(_BIG)
        self.col_offset = np.cumsum(empty, axis=1, dtype=np.int32) * np.int32(_BIG)
        base = (np.arange(B, dtype=np.intp) * G2)[:, None, None]
        idx = np.arange(G, dtype=np.intp)
        rows, cols = idx[None, :, None] * G, idx[None, None, :]
        end = [base + cols + self.north * G, base + rows + self.east,
               base + cols + self.south * G, base + rows + self.west]
        off = B * G2
        past = [np.where(self.north > 0, end[N_] - G, off), np.where(self.east < G - 1, end[E_] + 1, off),
                np.where(self.south < G - 1, end[S_] + G, off), np.where(self.west > 0, end[W_] - 1, off)]
        self.end = [e.reshape(B, G2) for e in end]
        self.past = [p.reshape(B, G2) for p in past]
        # A card at the end of a run of two or more: flying the full reach along the run lands on it.
        self.row_end = (occ & (self.east > self.west) & ((self.east == cols) | (self.west == cols))).reshape(B, G2)
        col_idx = idx[None, :, None]
        self.col_end = (occ & (self.south > self.north) & ((self.south == col_idx) | (self.north == col_idx))).reshape(B, G2)

    def run_min(self, buf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The minimum of a cell buffer (int32) over each cell's row run and column run: two (B, G²)."""
        B, G = self.B, self.geo.G
        values = cells(buf, B).reshape(B, G, G)
        row = _running_min(values - self.row_offset, axis=2)
        row += self.row_offset
        col = _running_min(values - self.col_offset, axis=1)
        col += self.col_offset
        return np.take(row, self.end[E_]), np.take(col, self.end[S_])

    def end_buffer(self, d: int) -> np.ndarray:
        """``end[d]`` as an intp cell buffer (the off-grid element points off grid)."""
        buf = np.empty(self.B * self.geo.G2 + 1, np.intp)
        buf[:-1] = self.end[d].ravel()
        buf[-1] = self.B * self.geo.G2
        return buf

    def end_min(self, buf: np.ndarray) -> np.ndarray:
        """int32 (B, G²): the least value of a cell buffer at the four ends of each cell's runs."""
        out = np.minimum(np.take(buf, self.end[0]), np.take(buf, self.end[1]))
        np.minimum(out, np.take(buf, self.end[2]), out=out)
        np.minimum(out, np.take(buf, self.end[3]), out=out)
        return out


def _running_min(values: np.ndarray, axis: int) -> np.ndarray:
    """Running minimum along ``axis`` (1 or 2) of an (B, G, G) array, in place (a loop over the G
    positions is several times faster than ``np.minimum.accumulate`` along a short axis)."""
    for j in range(1, values.shape[axis]):
        if axis == 2:
            np.minimum(values[:, :, j - 1], values[:, :, j], out=values[:, :, j])
        else:
            np.minimum(values[:, j - 1], values[:, j], out=values[:, j])
    return values


def _ends(occ: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """Where each card's run along ``axis`` (1 or 2) of ``occ`` bool (B, G, G) starts and ends: two
    intp (B, G, G) position arrays (meaningless on empty cells)."""
    G = occ.shape[axis]
    low = np.empty(occ.shape, np.intp)
    high = np.empty(occ.shape, np.intp)

    def at(a, j):
        return a[:, :, j] if axis == 2 else a[:, j]

    at(low, 0)[:] = 0
    for j in range(1, G):
        np.copyto(at(low, j), np.where(at(occ, j - 1), at(low, j - 1), j))
    at(high, G - 1)[:] = G - 1
    for j in range(G - 2, -1, -1):
        np.copyto(at(high, j), np.where(at(occ, j + 1), at(high, j + 1), j))
    return low, high


def _settle(board: Board, buf: np.ndarray, values: np.ndarray) -> bool:
    """Write ``values`` (B, G²) into ``buf`` (INF on empty cells); True if anything changed."""
    values[~board.occupied] = INF
    view = cells(buf, board.B)
    if np.array_equal(values, view):
        return False
    view[:] = values
    return True


def reverse_field(board: Board, goal: np.ndarray) -> np.ndarray:
    """Flight cost to a goal from every card: an int32 cell buffer (``INF`` on empty cells).

    ``goal``: int32 (B, G²) the cost of finishing from each card (0 on the goal card, ``INF`` where
    the card is no goal). AS-8: from a card, flying the full reach to one of its runs' ends costs 1;
    stopping early on any other card of its runs costs ``1 + stop_early_cost``.
    """
    geo, runs = board.geo, board.runs
    buf = buffer(board.B, geo.G2, INF)
    _settle(board, buf, np.minimum(goal, INF).astype(np.int32))
    while True:
        row, col = runs.run_min(buf)
        step = np.minimum(row, col)
        step += geo.early
        np.minimum(step, runs.end_min(buf) + 1, out=step)
        np.minimum(step, cells(buf, board.B), out=step)
        if not _settle(board, buf, step):
            return buf


def forward_field(board: Board, source: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flight cost from each game's ``source`` card (int (B,) cell) to every card.

    Returns the cost (an int32 cell buffer) and the least cost over each card's row run and column
    run (two int32 cell buffers, ``INF`` on empty cells), which is what flying onto a new card at the
    end of that run costs, less the landing itself (:func:`arrival`).
    """
    geo, runs, B = board.geo, board.runs, board.B
    buf = buffer(B, geo.G2, INF)
    buf[np.arange(B) * geo.G2 + source] = 0
    row_cost = np.where(runs.row_end, np.int32(1), np.int32(geo.early))
    col_cost = np.where(runs.col_end, np.int32(1), np.int32(geo.early))
    while True:
        row, col = runs.run_min(buf)
        step = np.minimum(row + row_cost, col + col_cost)
        np.minimum(step, cells(buf, B), out=step)
        if not _settle(board, buf, step):
            break
    row_buf, col_buf = buffer(B, geo.G2, INF), buffer(B, geo.G2, INF)
    _settle(board, row_buf, row)
    _settle(board, col_buf, col)
    return buf, row_buf, col_buf


def arrival(board: Board, row_min: np.ndarray, col_min: np.ndarray) -> np.ndarray:
    """int32 (B, G²): cost of flying onto each empty cell once a card is played there, from the source
    of :func:`forward_field` (``row_min``/``col_min`` its run minima). ``INF`` where no card is near.

    A new card at c next to card n (in direction d) joins n's run; any card of that run flies to c
    heading back (opposite d), landing at c by full reach when c ends the run (AS-8).
    """
    out = np.full((board.B, board.geo.G2), INF, np.int32)
    for d in range(4):
        run_min = row_min if HORIZONTAL[d] else col_min
        np.minimum(out, np.take(run_min, board.nbf[d]) + board.landing(OPPOSITE[d]), out=out)
    out[board.occupied] = INF
    return np.minimum(out, INF, out=out)


def departure(board: Board, field: np.ndarray) -> np.ndarray:
    """int32 (B, G²): the cost to the goal of ``field`` (a :func:`reverse_field` buffer) from a card
    newly played on each empty cell (``INF`` where no card is near).

    From a new card at c, flying in direction d crosses c's neighbour n and lands at the end of n's run
    (1 point), or stops early on any card of that run (AS-8).
    """
    geo, runs, B = board.geo, board.runs, board.B
    row, col = runs.run_min(field)
    row_buf, col_buf = buffer(B, geo.G2, INF), buffer(B, geo.G2, INF)
    cells(row_buf, B)[:], cells(col_buf, B)[:] = row, col
    out = np.full((B, geo.G2), INF, np.int32)
    for d in range(4):
        n = board.nbf[d]
        run_min = np.take(row_buf if HORIZONTAL[d] else col_buf, n)
        end_value = np.take(field, np.take(runs.end_buffer(d), n))
        cost = np.minimum(end_value + 1, run_min + geo.early)
        np.minimum(out, np.where(board.beyond[d], cost, INF), out=out)
    out[board.occupied] = INF
    return np.minimum(out, INF, out=out)


def placement_goal(board: Board, fit: np.ndarray, after: np.ndarray, extra: np.ndarray) -> np.ndarray:
    """int32 (B, G²): goal costs (for :func:`reverse_field`) of playing a card and flying onto it.

    ``fit``: bool (B, G²) where the card may be played; ``after``: int32 (B, G²) the cost still to pay
    once the plane stands on it there; ``extra``: int (B,) cost of getting the card (0 if face up).
    From a card p, the cells just past the four ends of p's runs can be flown onto in one flight
    (heading that way) once the card lies there: 1 (play) + the landing cost + ``after`` + ``extra``.
    """
    geo, runs, B = board.geo, board.runs, board.B
    goal = np.full((B, geo.G2), INF, np.int32)
    value = buffer(B, geo.G2, INF)
    for d in range(4):
        cells(value, B)[:] = np.where(fit, 1 + board.landing(d) + after, INF)
        np.minimum(goal, np.take(value, runs.past[d]), out=goal)
    goal += np.asarray(extra, np.int32)[:, None]
    goal[~board.occupied] = INF
    return np.minimum(goal, INF, out=goal)
