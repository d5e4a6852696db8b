"""Pictures of one game: a text table (``ansi``) and an RGB image (``rgb_array``, drawn with matplotlib).

Both take the rules and a :class:`Position` (``core.snapshot(state, i)`` or ``game.snapshot()``).
"""

from __future__ import annotations

import numpy as np

from aerodeck.envs.airport_scramble.position import LINE_CHOICE, Position
from aerodeck.envs.airport_scramble.rules import COLOR_LETTERS, COLOR_NAMES, AirportScrambleRules

#: Screen colours of the route colours (AS-1), in COLOR_NAMES order.
PALETTE = ("#2f6fd0", "#e26fb5", "#8a4fc0", "#2e9e4a", "#ef8a1f", "#1fb5b5")


def _status(rules: AirportScrambleRules, p: Position) -> list[str]:
    comp = rules.components
    if p.ticket >= 0:
        ticket = f"ticket {comp.describe_ticket(p.ticket)} · die {p.die}"
        ticket += " · passenger aboard" if p.aboard else " · passenger waiting"
    elif p.phase == LINE_CHOICE:
        ticket = "pre-played ticket: choose a line to remove (AS-15)"
    else:
        ticket = "ticket completed; the next is drawn at the start of the next turn"
    state = "game over" if p.done else f"points {p.points}/{rules.action_points}"
    return [
        f"Airport Scramble · score {p.score} · {state}",
        ticket,
        f"airport deck {len(p.deck)} cards · ticket deck {len(p.ticket_deck)} tickets",
    ]


def render_ansi(rules: AirportScrambleRules, p: Position) -> str:
    """The table as text: each card as ``CODE:hv`` (H and V colour letters, see below), ``*`` on
    the plane's card, ``o``/``d`` on the ticket's origin/destination."""
    comp = rules.components
    G = rules.grid_size
    origin = comp.ticket_origin[p.ticket] if p.ticket >= 0 else -1
    destination = comp.ticket_destination[p.ticket] if p.ticket >= 0 else -1

    def card_text(card: int) -> str:
        return f"{comp.codes[card]}:{COLOR_LETTERS[comp.card_h[card]]}{COLOR_LETTERS[comp.card_v[card]]}"

    lines = _status(rules, p)
    lines.append("    " + "".join(f"{c:^9}" for c in range(G)))
    for r in range(G):
        cells = []
        for c in range(G):
            card = p.grid[r][c]
            if card < 0:
                cells.append(f"{'.':^9}")
                continue
            mark = "*" if (r, c) == tuple(p.plane) else " "
            tag = "o" if card == origin else "d" if card == destination else " "
            cells.append(f"{mark}{card_text(card)}{tag}")
        lines.append(f"{r:>3} " + "".join(cells))
    slots = "  ".join(f"[{s}] {card_text(card) if card >= 0 else '---'}" for s, card in enumerate(p.slots))
    lines.append("face up: " + slots)
    lines.append("colours: " + ", ".join(f"{COLOR_LETTERS[i]} {COLOR_NAMES[i]}" for i in range(comp.n_colors)))
    return "\n".join(lines) + "\n"


def render_rgb(rules: AirportScrambleRules, p: Position, dpi: int = 80) -> np.ndarray:
    """The table as an image, ``uint8 (H, W, 3)``: cards with a horizontal band of their H colour
    and a vertical band of their V colour, their codes, the plane, the face-up slots, the ticket."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, Rectangle

    comp = rules.components
    G, F = rules.grid_size, rules.face_up
    origin = comp.ticket_origin[p.ticket] if p.ticket >= 0 else -1
    destination = comp.ticket_destination[p.ticket] if p.ticket >= 0 else -1
    fig = Figure(figsize=(9, 7), dpi=dpi)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0.02, 0.02, 0.70, 0.86))
    side = fig.add_axes((0.74, 0.02, 0.24, 0.86))
    for a in (ax, side):
        a.set_axis_off()
    ax.set_xlim(0, G)
    ax.set_ylim(G, 0)
    ax.set_aspect("equal")

    def draw_card(axes, x: float, y: float, card: int, size: float = 1.0) -> None:
        pad = 0.06 * size
        axes.add_patch(Rectangle((x + pad, y + pad), size - 2 * pad, size - 2 * pad, facecolor="#f4f1e8", edgecolor="#555555"))
        band = 0.22 * size
        axes.add_patch(Rectangle((x + pad, y + (size - band) / 2), size - 2 * pad, band, color=PALETTE[comp.card_h[card]]))
        axes.add_patch(Rectangle((x + (size - band) / 2, y + pad), band, size - 2 * pad, color=PALETTE[comp.card_v[card]]))
        axes.text(x + size / 2, y + 0.25 * size, comp.codes[card], ha="center", va="center", fontsize=9 * size,
                  weight="bold", bbox={"facecolor": "#f4f1e8", "edgecolor": "none", "pad": 0.5})

    for r in range(G):
        for c in range(G):
            ax.add_patch(Rectangle((c, r), 1, 1, fill=False, edgecolor="#dddddd", linewidth=0.5))
            card = p.grid[r][c]
            if card >= 0:
                draw_card(ax, c, r, card)
                if card in (origin, destination):
                    ax.add_patch(Rectangle((c + 0.03, r + 0.03), 0.94, 0.94, fill=False, linewidth=2.5,
                                           edgecolor="#d62728" if card == destination else "#ff9900"))
    pr, pc = p.plane
    ax.add_patch(Circle((pc + 0.5, pr + 0.72), 0.14, color="#111111"))
    ax.text(pc + 0.5, pr + 0.72, "P", ha="center", va="center", color="white", fontsize=8, weight="bold")
    # Side panel: status, ticket, face-up slots.
    side.set_xlim(0, 3)
    side.set_ylim(6 + 1.2 * F, 0)
    side.set_aspect("equal")
    for i, line in enumerate(_status(rules, p)):
        fig.text(0.02, 0.97 - 0.03 * i, line, fontsize=10, va="top")
    side.text(0, 0.5, "ticket", fontsize=10, weight="bold")
    if p.ticket >= 0:
        draw_card(side, 0.0, 1.0, origin, 1.2)
        side.text(1.5, 1.6, "→", fontsize=16, ha="center", va="center")
        draw_card(side, 1.8, 1.0, destination, 1.2)
        side.text(0, 3.0, f"die {p.die} · {'aboard' if p.aboard else 'waiting'}", fontsize=10)
    side.text(0, 4.0, "face-up slots", fontsize=10, weight="bold")
    for s, card in enumerate(p.slots):
        side.text(0, 5.0 + s * 1.2 + 0.6, str(s), fontsize=10, va="center")
        if card >= 0:
            draw_card(side, 0.4, 5.0 + s * 1.2, card, 1.1)
    canvas.draw()
    image = np.asarray(canvas.buffer_rgba())[:, :, :3].copy()
    return image
