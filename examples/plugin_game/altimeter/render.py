"""Altimeter's table as text (``ansi``) and as an image (``rgb_array``: ``uint8 (H, W, 3)``)."""

from __future__ import annotations

import numpy as np

#: Pixels per altitude step and per column of the image.
CELL = 12


def render_text(core, state, game: int = 0) -> str:
    """The table of game ``game``: the altitude gauge, the pot, the score and the cards left."""
    r = core.rules
    altitude = int(state.altitude[game])
    gauge = "".join("#" if v == altitude else "." for v in range(1, r.n_values + 1))
    left = " ".join(f"{v}:{int(c)}" for v, c in enumerate(state.remaining[game], start=1))
    end = "  (landed for good)" if state.done[game] else ""
    return (f"altitude {altitude:>2} [{gauge}]  pot {int(state.pot[game])}  score {int(state.score[game])}{end}\n"
            f"deck {int(state.remaining[game].sum())} left: {left}\n")


def render_image(core, state, game: int = 0) -> np.ndarray:
    """``uint8 (H, W, 3)``: one column per altitude (the cards left as grey bars, the face-up card
    in blue), the pot as a green bar and the score as an orange bar on the right."""
    r = core.rules
    height, width = (r.copies + 2) * CELL, (r.n_values + 2) * CELL
    image = np.full((height, width, 3), 255, np.uint8)
    for v, count in enumerate(state.remaining[game]):
        if count:
            image[height - int(count) * CELL:, v * CELL + 1:(v + 1) * CELL - 1] = (160, 160, 160)
    a = int(state.altitude[game]) - 1
    image[:CELL, a * CELL + 1:(a + 1) * CELL - 1] = (47, 111, 208)
    for column, value, colour in ((r.n_values, state.pot[game], (46, 158, 74)),
                                  (r.n_values + 1, state.score[game], (239, 138, 31))):
        bar = min(height, int(value) * height // max(r.deck_size, 1))
        if bar:
            image[height - bar:, column * CELL + 1:(column + 1) * CELL - 1] = colour
    return image
