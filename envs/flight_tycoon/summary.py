"""Flight Tycoon's end-of-game figures for the reports (``GameSpec.summary``; read by ``aerodeck bench``).

For the designer: each seat's VP and FT-12 standing, where the planes landed on the schedule map
(every landing leaves a token on its square, FT-3/FT-11) and how the games ended (FT-12).
"""

from __future__ import annotations

import numpy as np

from aerodeck.envs.flight_tycoon.rules import SQUARE_NAMES


def summary(core, state) -> dict:
    """The figures of the B (finished) games of ``state``: ``score`` ``int64 (B, n)`` (VP),
    ``standing`` ``int64 (B, n)`` (FT-12: VP, then real cards in hand), and the tallies
    ``landings`` (tokens on each square, ``int64 (B,)`` per square) and ``ended by`` (``bool (B,)``:
    an empty stock, an empty deck)."""
    B = state.batch_size
    tokens = state.tokens.astype(np.int64)
    return {
        "score": state.vp.astype(np.int64),
        "standing": core.standings(state),
        "tallies": {
            "landings": {name: tokens[:, i] for i, name in enumerate(SQUARE_NAMES)},
            "ended by": {"empty stock": state.stock == 0, "empty deck": (state.deck.reshape(B, -1) == 0).all(1)},
        },
    }
