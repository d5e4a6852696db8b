"""AS-15 lines on batches of grids: which lines may be removed, and the cells of a chosen line.

Used by the core on the (few) games that draw a pre-played ticket. A line is a maximal horizontal or
vertical run of two or more cards, named by its first (leftmost or topmost) cell.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np


def connected(cells: np.ndarray) -> np.ndarray:
    """``bool (K,)``: whether the True cells of each ``bool (K, G, G)`` grid are orthogonally connected
    (an empty grid counts as connected)."""
    K = cells.shape[0]
    flat = cells.reshape(K, cells.shape[1] * cells.shape[2])
    reached = np.zeros_like(flat)
    reached[np.arange(K), np.argmax(flat, axis=1)] = True
    reached &= flat
    reached = reached.reshape(cells.shape)
    while True:
        grown = reached.copy()
        grown[:, 1:] |= reached[:, :-1]
        grown[:, :-1] |= reached[:, 1:]
        grown[:, :, 1:] |= reached[:, :, :-1]
        grown[:, :, :-1] |= reached[:, :, 1:]
        grown &= cells
        if np.array_equal(grown, reached):
            return (reached == cells).all(axis=(1, 2))
        reached = grown


def choosable_lines(grid: np.ndarray) -> np.ndarray:
    """``bool (n, 2, G, G)``: for grids ``int8 (n, G, G)`` (card id or -1), ``[i, o, r, c]`` is True iff
    a line of orientation ``o`` (0 horizontal, 1 vertical) starts at (r, c) in grid i and may be
    removed: at least one card remains and the remaining cards stay connected (AS-15)."""
    occupied = grid >= 0
    n, G, _ = occupied.shape
    result = np.zeros((n, 2, G, G), bool)
    for orientation in (0, 1):
        # Work in a frame where lines run along the last axis: [game, line index, position].
        runs = occupied if orientation == 0 else occupied.transpose(0, 2, 1)
        before = np.zeros_like(runs)
        before[:, :, 1:] = runs[:, :, :-1]
        after = np.zeros_like(runs)
        after[:, :, :-1] = runs[:, :, 1:]
        game, index, start = np.nonzero(runs & ~before & after)
        if not game.size:
            continue
        along = np.arange(G)
        from_start = along >= start[:, None]
        broken = np.logical_or.accumulate(from_start & ~runs[game, index], axis=1)
        line = np.zeros((len(game), G, G), bool)
        line[np.arange(len(game)), index] = from_start & ~broken
        if orientation == 1:
            line = line.transpose(0, 2, 1)
        remaining = occupied[game] & ~line
        ok = remaining.any(axis=(1, 2)) & connected(remaining)
        if orientation == 0:
            result[game, 0, index, start] = ok
        else:
            result[game, 1, start, index] = ok
    return result


def line_cells(grid: np.ndarray, orientation: np.ndarray, first: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The cells of the line starting at cell index ``first`` (``row * G + col``) in each grid.

    ``grid``: ``int8 (n, G, G)``; ``orientation``, ``first``: integers (n,). Yields, step by step along
    the lines, ``(j, cells)``: the grids ``j`` (indices into 0..n-1) whose line reaches this step and
    the cell index it covers there.
    """
    n, G, _ = grid.shape
    flat = grid.reshape(n, -1)
    row, col = first // G, first % G
    going = np.ones(n, bool)
    for step in range(G):
        r, c = row + step * orientation, col + step * (1 - orientation)
        going &= (r < G) & (c < G)
        cells = np.minimum(r, G - 1) * G + np.minimum(c, G - 1)
        going &= flat[np.arange(n), cells] >= 0
        if not going.any():
            return
        j = np.flatnonzero(going)
        yield j, cells[j]
