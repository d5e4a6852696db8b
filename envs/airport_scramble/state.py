"""The batched state of Airport Scramble: B games as numpy arrays (leading axis = game)."""

from __future__ import annotations

import dataclasses

import numpy as np

from aerodeck.envs.common.batch import BatchedState


@dataclasses.dataclass
class State(BatchedState):
    """B games. Canonical fields (as in :class:`~envs.airport_scramble.position.Position`) and derived
    ones that the core keeps in step with them.

    Canonical: ``key`` uint64 (B,), ``counter`` int64 (B,) random values used; ``grid`` int8 (B, G, G)
    card id or -1; ``plane`` int16 (B,) cell index ``row * G + col``; ``slots`` int8 (B, F) card id or
    -1; ``deck`` bool (B, N) airport cards in the deck; ``ticket_deck`` bool (B, T); ``ticket`` int8
    (B,) current ticket or -1; ``die`` int8 (B,) (0 without a ticket); ``points`` int8 (B,) action
    points left; ``aboard`` bool (B,); ``phase`` int8 (B,) 0 turn action, 1 AS-15 line choice;
    ``redraw_used`` bool (B,); ``score`` int16 (B,); ``done`` bool (B,).
    Derived: ``nb`` uint16 (B, G² + 1) per cell the colour bits its neighbours demand (H bits of the
    left/right cards, V bits of the upper/lower ones) plus an occupied and an isolated flag (column G²
    is a scratch cell, flagged occupied); ``location`` int16 (B, N) where each card is: its cell if in
    play, G² + s if face up in slot s, -1 if in the airport deck; ``row_bits`` / ``col_bits`` uint16
    (B, G) occupancy of each row (bit = column) and column (bit = row); ``cell_values`` float32
    (B, 2G²) the observation's ``cell_hv`` block;
    ``lines`` bool (B, 2, G, G) the choosable lines (by first cell) in the line-choice phase;
    ``deck_bits`` uint64 (B, ceil(N / 64)) and ``ticket_bits`` uint64 (B, 1) the two decks as bitsets
    (bit i of word w: card / ticket 64 w + i), for O(1) counts and draws; ``placed`` int16 (B, G²) the
    cells holding a card, in no particular order, its first ``n_placed`` int16 (B,) entries valid (the
    rest are stale; the legal mask no longer reads them: it scans ``nb``).
    """

    key: np.ndarray
    counter: np.ndarray
    grid: np.ndarray
    plane: np.ndarray
    slots: np.ndarray
    deck: np.ndarray
    ticket_deck: np.ndarray
    ticket: np.ndarray
    die: np.ndarray
    points: np.ndarray
    aboard: np.ndarray
    phase: np.ndarray
    redraw_used: np.ndarray
    score: np.ndarray
    done: np.ndarray
    nb: np.ndarray
    location: np.ndarray
    row_bits: np.ndarray
    col_bits: np.ndarray
    cell_values: np.ndarray
    lines: np.ndarray
    deck_bits: np.ndarray
    ticket_bits: np.ndarray
    placed: np.ndarray
    n_placed: np.ndarray

    @property
    def plane_row(self) -> np.ndarray:
        """int (B,): the plane's row."""
        return self.plane // self.grid.shape[1]

    @property
    def plane_col(self) -> np.ndarray:
        """int (B,): the plane's column."""
        return self.plane % self.grid.shape[1]
