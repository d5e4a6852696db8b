"""Pictures of one game: text (``ansi``) and an RGB image (``rgb_array``), as a chosen viewer may see it.

``viewer``: a seat (its own hand face up, the cards it can locate shown at their slots, FT-14),
``"public"`` (a spectator: public facts only, FT-13) or ``"all"`` (every card face up, for debugging).
Hidden cards are drawn face down (``??``); a tower shows its month once revealed (``T5``).
"""

from __future__ import annotations

import numpy as np

from aerodeck.envs.common.bits import unpack_bits
from aerodeck.envs.flight_tycoon.rules import (
    N_CARDS, N_SQUARES, OUTCOME_NAMES, OVER, PHASE_NAMES, SQUARE_KIND, SQUARE_NAMES, TOWER, card_key, card_name,
    tower_key,
)
from aerodeck.envs.flight_tycoon.state import REC_ACTIVE, REC_OUTCOME, REC_SQUARE, REC_TARGET, State

VIEWERS = ("public", "all")
_SHORT_SQUARES = tuple(f"M{m}" for m in range(1, 13)) + ("Spr", "Sum", "Aut", "Win", "H1", "H2", "Odd", "Even") + tuple(
    f"Air{a}" for a in "ABCD")


def check_viewer(viewer, n_players: int):
    """``viewer`` if valid (a seat, ``"public"`` or ``"all"``), else ``ValueError``."""
    if viewer in VIEWERS or (isinstance(viewer, (int, np.integer)) and 0 <= viewer < n_players):
        return viewer
    raise ValueError(f"render viewer must be a seat 0..{n_players - 1}, 'public' or 'all', got {viewer!r}")


def _cards(word) -> list[int]:
    return [int(c) for c in np.flatnonzero(unpack_bits(word, N_CARDS))]


def hand_views(core, state: State, game: int, viewer) -> list[list[tuple[str, str]]]:
    """Each seat's hand slot by slot as ``viewer`` sees it: ``(label, kind)``, kind card/tower/hidden."""
    st, b, n = state, game, core.n_players
    revealed = st.phase[b] != TOWER
    located = set(_cards(st.known[b, viewer])) if isinstance(viewer, (int, np.integer)) else set()
    views = []
    for h in range(n):
        items = [(card_key(c), "card", c) for c in _cards(st.hand[b, h])]
        for t in range(n):
            if st.tower_holder[b, t] == h and st.laid[b, t] >= 0:
                items.append((tower_key(int(st.laid[b, t]) >> 2), "tower", int(st.laid[b, t])))
        own = viewer == "all" or viewer == h
        row = []
        for _, kind, c in sorted(items):
            if kind == "tower":
                shown = revealed or own
                if not shown:  # FT-6: before the reveal another player's tower choice is hidden
                    row.append(("??", "hidden"))
                else:
                    row.append((f"T{(c >> 2) + 1}", "tower"))
            elif own or c in located:
                row.append((card_name(c), "card"))
            else:
                row.append(("??", "hidden"))
        views.append(row)
    return views


def _turn_line(core, st: State, b: int) -> str:
    rec = st.record[b]
    if rec[REC_ACTIVE] < 0:
        return "last turn: none yet"
    who = f"player_{rec[REC_ACTIVE]}"
    if rec[REC_TARGET] < 0:
        return f"last turn: {who} could ask nobody, passed"
    return (f"{'this' if rec[REC_OUTCOME] == 0 else 'last'} turn: {who} asked player_{rec[REC_TARGET]} on "
            f"'{SQUARE_NAMES[rec[REC_SQUARE]]}': {OUTCOME_NAMES[rec[REC_OUTCOME]]}")


def render_text(core, state: State, game: int = 0, viewer="public") -> str:
    """The game as text (the ``ansi`` render mode)."""
    st, b, n = state, game, core.n_players
    viewer = check_viewer(viewer, n)
    phase = int(st.phase[b])
    head = f"Flight Tycoon, {n} players — "
    if phase == OVER:
        head += "game over"
    else:
        seat = int(core.to_act(st.take([b]))[0])
        head += f"player_{seat} to decide: {PHASE_NAMES[phase]}"
    lines = [head, f"deck {int(np.bitwise_count(st.deck[b]))} · stock {int(st.stock[b])} · viewer {viewer}",
             "schedule map (tokens on square, base VP):"]
    vp_table = core.rules.vp_table
    cells = [f"{_SHORT_SQUARES[q]:>4} {int(st.tokens[b, q]):>2}t {vp_table[SQUARE_KIND[q]]:>2}vp" for q in range(N_SQUARES)]
    for i in range(0, N_SQUARES, 6):
        lines.append("  " + " | ".join(cells[i:i + 6]))
    views = hand_views(core, st, b, viewer)
    for h in range(n):
        marker = ">" if phase != OVER and h == int(core.to_act(st.take([b]))[0]) else " "
        lines.append(f"{marker} player_{h}  VP {int(st.vp[b, h]):>3}  hand [{' '.join(label for label, _ in views[h])}]")
    discards = " ".join(card_name(c) for c in _cards(st.discard[b])) or "none"
    lines.append(f"discards: {discards}")
    if phase != TOWER:
        lines.append("laid aside: " + " ".join(card_name(int(c)) for c in st.laid[b]))
    lines.append(_turn_line(core, st, b))
    return "\n".join(lines)


def render_image(core, state: State, game: int = 0, viewer="public") -> np.ndarray:
    """The game as an RGB image, ``uint8 (H, W, 3)`` (the ``rgb_array`` render mode)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.patches import Rectangle

    st, b, n = state, game, core.n_players
    viewer = check_viewer(viewer, n)
    fig = Figure(figsize=(9, 6), dpi=80)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 18)
    ax.set_ylim(0, 12)
    ax.axis("off")
    fig.patch.set_facecolor("#0b3d2e")
    text = render_text(core, st, b, viewer).split("\n")
    ax.text(0.3, 11.5, text[0], color="white", fontsize=11, weight="bold", va="center")
    ax.text(0.3, 11.0, text[1], color="#cfe8dc", fontsize=9, va="center")
    vp_table = core.rules.vp_table
    for q in range(N_SQUARES):  # the schedule map: 4 rows of 6 squares
        x, y = 0.3 + (q % 6) * 1.55, 9.9 - (q // 6) * 0.95
        ax.add_patch(Rectangle((x, y), 1.45, 0.85, facecolor="#e8e1c4", edgecolor="black", lw=0.8))
        ax.text(x + 0.07, y + 0.62, _SHORT_SQUARES[q], fontsize=7, va="center")
        ax.text(x + 1.38, y + 0.62, f"{vp_table[SQUARE_KIND[q]]}vp", fontsize=7, ha="right", va="center")
        for k in range(int(st.tokens[b, q])):
            ax.add_patch(Rectangle((x + 0.07 + (k % 8) * 0.17, y + 0.1 + (k // 8) * 0.17), 0.13, 0.13,
                                   facecolor="#1f4e9c", edgecolor="none"))
    colours = {"card": "white", "tower": "#c0392b", "hidden": "#6b7b8c"}
    views = hand_views(core, st, b, viewer)
    for h in range(n):
        y = 5.6 - h * 1.05
        ax.text(0.3, y + 0.35, f"player_{h}  VP {int(st.vp[b, h])}", color="white", fontsize=9, va="center")
        for i, (label, kind) in enumerate(views[h]):
            x = 3.2 + i * 0.62
            if x > 17.4:
                break
            ax.add_patch(Rectangle((x, y), 0.55, 0.75, facecolor=colours[kind], edgecolor="black", lw=0.6))
            ax.text(x + 0.275, y + 0.37, label, fontsize=7, ha="center", va="center",
                    color="white" if kind != "card" else "black")
    ax.text(9.8, 9.9 + 0.62, "discards", color="white", fontsize=9)
    for i, c in enumerate(_cards(st.discard[b])):
        x, y = 9.8 + (i % 12) * 0.66, 9.6 - (i // 12) * 0.5
        ax.add_patch(Rectangle((x, y), 0.6, 0.42, facecolor="#d9d9d9", edgecolor="black", lw=0.5))
        ax.text(x + 0.3, y + 0.21, card_name(c), fontsize=6, ha="center", va="center")
    ax.text(0.3, 0.35, text[-1], color="#cfe8dc", fontsize=9, va="center")
    fig.canvas.draw()
    image = np.asarray(fig.canvas.buffer_rgba())[:, :, :3].copy()
    return image
