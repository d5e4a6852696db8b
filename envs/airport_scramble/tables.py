"""The lookup tables of Airport Scramble for one rules object: built once, shared by the batched core
(``core.py``) and the single-game engine (``single.py``), read-only.

Cards are indexed by id, with index N (reached by id -1) meaning "no card"; cells by ``row * G +
col``, with G² the scratch cell off the grid. Every table is a plain numpy array; ``tables(rules)``
caches them per rules object.
"""

from __future__ import annotations

import functools

import numpy as np

from aerodeck.envs.airport_scramble.actions import STEPS, ActionLayout
from aerodeck.envs.airport_scramble.observation import ObservationLayout
from aerodeck.envs.airport_scramble.rules import AirportScrambleRules

#: Neighbour-bits flag of an occupied cell (the top bit of ``nb``).
OCCUPIED = np.uint16(1 << 15)
#: Neighbour-bits flag of an empty cell with no neighbour.
ISOLATED = np.uint16(1 << 14)


class Tables:
    """Every table of one rules object (attributes named as the core reads them).

    Layouts: ``actions`` (AS-19), ``observation`` (AS-17), ``n_actions``, ``obs_size``. Cards:
    ``h_bits`` / ``v_bits`` uint16 (N + 1,) colour bits, ``slot_misfit`` (a card fits a cell iff
    ``nb & misfit == 0``), ``hv_values`` uint64 (256,) the (H, V) float32 values by card id as uint8,
    ``origin`` / ``destination`` int64 (T,) by ticket, ``turns`` int8 (T,) AS-3. Cells: ``neighbour``
    int64 (G², 4) and ``ray`` int64 (G², 4, G) in N, E, S, W order, ``run_after`` / ``run_before``
    uint8 (2^G · G,) AS-8 runs by (occupancy bits, position), ``fly_table`` bool (2G, G-1) legal
    distances by (2 · reach + stopping early affordable), ``nearest`` int64 (G², G²) AS-15
    relocation order. Replaces (AS-10): ``replace_table`` bool (2^F (2F + 2), 2^F - 1) by (filled
    slots, min(deck, F), affordable), ``replace_slots``, ``replace_count``. Observation writes:
    ``obs_start``, ``ticket_*``.
    """

    def __init__(self, rules: AirportScrambleRules) -> None:
        comp = self.components = rules.components
        self.actions = ActionLayout.of(rules)
        self.observation = ObservationLayout(rules)
        self.n_actions = self.actions.n_actions
        self.obs_size = self.observation.size
        self.index_kinds = self.actions.index_kinds()
        self.G, self.F, self.N, self.T = rules.grid_size, rules.face_up, comp.n_cards, comp.n_tickets
        self.G2 = self.G * self.G
        self._cards(rules)
        self._cells()
        self._replaces(rules)
        self._ticket_ends()
        for value in vars(self).values():
            if isinstance(value, np.ndarray):
                value.flags.writeable = False

    def _cards(self, rules: AirportScrambleRules) -> None:
        """Card and ticket tables indexed by id; card index N (reached by id -1) is "no card"."""
        comp, N = self.components, self.N
        h = np.array(comp.card_h, np.int64)
        v = np.array(comp.card_v, np.int64)
        self.h_bits = np.append(1 << h, 0).astype(np.uint16)
        self.v_bits = np.append(1 << (v + comp.n_colors), 0).astype(np.uint16)
        self.slot_misfit = ~(self.h_bits | self.v_bits)  # card fits a cell iff (cell nb & misfit) == 0
        # What a card demands of its (N, E, S, W) neighbours: V, H, V, H colour bits (row N: no card).
        self.neighbour_demand = np.stack([self.v_bits, self.h_bits, self.v_bits, self.h_bits], axis=1)
        colour = self.observation.color_values
        pairs = np.zeros((256, 2), np.float32)  # by card id as uint8 (255 = -1 = no card): (H, V) values
        pairs[:N, 0], pairs[:N, 1] = colour[h + 1], colour[v + 1]
        self.hv_values = pairs.view(np.uint64).ravel()
        self.place_scale = np.float32(self.observation.place_scale)
        self.origin = np.array(comp.ticket_origin, np.int64)
        self.destination = np.array(comp.ticket_destination, np.int64)
        self.turns = np.array(rules.turns_on_die, np.int8)  # AS-3: the card's turns plus the bonus

    def _cells(self) -> None:
        """Cell tables (off-grid neighbours are the scratch cell G², written, never read), AS-8 runs
        and distances, AS-15 relocation order."""
        G, G2 = self.G, self.G2
        cells = np.arange(G2)
        rows, cols = cells // G, cells % G
        self.centre = (G // 2) * G + G // 2
        self.neighbour = np.zeros((G2, 4), np.int64)
        self.ray = np.zeros((G2, 4, G), np.int64)  # cells 1..G steps away (the last is always off-grid)
        for d, (dr, dc) in enumerate(STEPS):
            for j in range(1, G + 1):
                rr, cc = rows + dr * j, cols + dc * j
                inside = (rr >= 0) & (rr < G) & (cc >= 0) & (cc < G)
                self.ray[:, d, j - 1] = np.where(inside, rr * G + cc, G2)
            self.neighbour[:, d] = self.ray[:, d, 0]
        self.cell_row, self.cell_col = rows, cols
        self.position_bit = (1 << np.arange(G)).astype(np.uint16)
        # AS-8 runs along a row or column with occupancy ``bits`` from position p:
        # run_after[bits * G + p] counts the ones at p+1, p+2, ...; run_before those at p-1, p-2, ...
        bits = np.arange(2**G)[:, None]
        position = np.arange(G)[None, :]
        self.run_after = np.zeros((2**G, G), np.uint8)
        self.run_before = np.zeros((2**G, G), np.uint8)
        after = np.ones((2**G, G), bool)
        before = np.ones((2**G, G), bool)
        for j in range(1, G):
            up, down = position + j, position - j
            after &= (up < G) & ((bits >> np.minimum(up, G - 1)) & 1 == 1)
            before &= (down >= 0) & ((bits >> np.maximum(down, 0)) & 1 == 1)
            self.run_after += after
            self.run_before += before
        self.run_after, self.run_before = self.run_after.ravel(), self.run_before.ravel()
        self.nb_template = np.full(G2 + 1, ISOLATED, np.uint16)
        self.nb_template[G2] = OCCUPIED  # the scratch cell: never cleared (only ISOLATED is), never open
        # AS-8: legal distances 1..G-1 given the reach (0..G-1) and whether stopping early is affordable.
        distance = np.arange(1, G)
        reach = np.arange(G)[:, None, None]
        early_ok = np.array([False, True])[None, :, None]
        self.fly_table = ((distance <= reach) & ((distance == reach) | early_ok)).reshape(2 * G, G - 1)
        # AS-15 relocation: for each cell, every cell by (Manhattan distance, row, column).
        dist = np.abs(rows[:, None] - rows[None, :]) + np.abs(cols[:, None] - cols[None, :])
        grid_rows, grid_cols = np.broadcast_to(rows, (G2, G2)), np.broadcast_to(cols, (G2, G2))
        self.nearest = np.lexsort((grid_cols, grid_rows, dist)).astype(np.int64)

    def _replaces(self, rules: AirportScrambleRules) -> None:
        """AS-10 replace masks m = 1 .. 2^F-1: ``replace_slots[m]`` lists m's slots in order, then -1s;
        ``replace_table`` their legality."""
        F = self.F
        masks = np.arange(1, 2**F)
        self.replace_count = np.array([0] + [bin(m).count("1") for m in masks])
        allowed = self.replace_count[1:] <= rules.max_replace
        self.replace_slots = np.full((2**F, F), -1, np.int64)
        for m in masks:
            chosen = [i for i in range(F) if m >> i & 1]
            self.replace_slots[m, : len(chosen)] = chosen
        # legality by (filled slots bitmask, min(deck size, F), points >= replace_cost):
        filled = np.arange(2**F)[:, None, None, None]
        deck = np.arange(F + 1)[None, :, None, None]
        affordable = np.array([False, True])[None, None, :, None]
        self.replace_table = (
            ((masks & ~filled) == 0) & allowed & (self.replace_count[1:] <= deck) & affordable
        ).reshape(-1, 2**F - 1)

    def _ticket_ends(self) -> None:
        """Observation of the ticket's two ends (origin, destination): by ticket (row T, reached by -1:
        no ticket) the two cards and their (H, V) colour values as float32 pairs, and where each end's
        one-hots go."""
        G2, F, T = self.G2, self.F, self.T
        self.obs_start = at = {name: block.start for name, block in self.observation.blocks.items()}
        self.ticket_cards = np.zeros((T + 1, 2), np.int64)
        self.ticket_cards[:T, 0], self.ticket_cards[:T, 1] = self.origin, self.destination
        self.ticket_hv = np.zeros((T + 1, 2), np.uint64)
        self.ticket_hv[:T] = self.hv_values[self.ticket_cards[:T]]
        # The three one-hot columns (cell, slot, place) of end e at code c = 1 + location (0 in the
        # deck, 1 + cell in play, 1 + G² + slot face up); columns with nothing to mark point at the die
        # column, which is written afterwards. Row e * K + c.
        K = G2 + F + 2
        self.ticket_code_offset = np.array([1, K + 1])  # added to the locations of the two ends
        self.ticket_one_hot = np.full((2 * K, 3), at["die"], np.int64)
        ends = [("origin_cell", "slot_origin", "origin_place"),
                ("destination_cell", "slot_destination", "destination_place")]
        for e, (cell_seg, slot_seg, place_seg) in enumerate(ends):
            table = self.ticket_one_hot[e * K : (e + 1) * K]
            table[0, 2] = at[place_seg] + 2  # in the deck
            table[1 : G2 + 1, 0] = at[cell_seg] + np.arange(G2)
            table[1 : G2 + 1, 2] = at[place_seg]
            table[G2 + 1 : G2 + F + 1, 1] = at[slot_seg] + np.arange(F)
            table[G2 + 1 : G2 + F + 1, 2] = at[place_seg] + 1


@functools.lru_cache(maxsize=64)
def tables(rules: AirportScrambleRules) -> Tables:
    """The (cached, read-only) :class:`Tables` of ``rules``."""
    return Tables(rules)
