"""Airport Scramble on a web page (``aerodeck serve``): the table as HTML, and the board parts a move is made of.

The functions ``aerodeck serve`` calls for a game (the protocol is listed in ``aerodeck/serve/tables.py``).
``state`` is a batch of one game (``core.init([seed])``). The player may know everything but the order
of the decks (AS-17), so the page shows the whole table: the grid with the plane, the ticket and its
die, the action points, the face-up slots and the deck counts.

Clicks: a card of the grid the plane can fly to is a flight there (AS-8); a face-up slot then an empty
cell is a play (AS-9); replacing (AS-10), waiting (AS-11) and removing a line (AS-15) are chosen from
the list of moves beside the board.
"""

from __future__ import annotations

from html import escape

from aerodeck.envs.airport_scramble.actions import FLY, PLAY, STEPS
from aerodeck.envs.airport_scramble.position import LINE_CHOICE
from aerodeck.envs.airport_scramble.render import PALETTE
from aerodeck.envs.airport_scramble.rules import COLOR_LETTERS, COLOR_NAMES

#: The board's look (CSS, scoped under ``.board``).
STYLE = """
.board .as-head { display:flex; gap:1.2em; flex-wrap:wrap; margin-bottom:.5em; }
.board .as-grid { display:grid; gap:3px; margin:.4em 0; }
.board .as-cell { width:52px; height:52px; border:1px dashed #dde; border-radius:6px; position:relative;
  display:flex; align-items:center; justify-content:center; color:#c4c4d0; font-size:9px; }
.board .as-card { width:48px; height:48px; color:#222; border:1px solid #666; border-radius:6px; background:#f4f1e8;
  position:relative; overflow:hidden; }
.board .as-card .h { position:absolute; left:0; right:0; top:40%; height:20%; }
.board .as-card .v { position:absolute; top:0; bottom:0; left:40%; width:20%; }
.board .as-card .code { position:absolute; left:3px; top:2px; font-weight:bold; font-size:11px;
  background:#f4f1e8; padding:0 2px; border-radius:3px; }
.board .as-card.origin { outline:3px solid #ff9900; } .board .as-card.destination { outline:3px solid #d62728; }
.board .as-plane { position:absolute; right:1px; bottom:0; font-size:19px; line-height:1; }
.board .as-slots { display:flex; gap:8px; align-items:flex-end; margin:.4em 0; }
.board .as-slot { display:flex; flex-direction:column; align-items:center; font-size:12px; }
.board .as-empty { width:48px; height:48px; border:1px dashed #bbb; border-radius:6px; }
.board .as-ticket { display:flex; gap:6px; align-items:center; }
.board .as-legend { max-width:500px; font-size:12px; } .board .as-legend span { margin-right:.8em; }
"""


def _table(core, state):
    return core.snapshot(state, 0)


def _card(core, card: int, classes: str = "", plane: bool = False) -> str:
    comp = core.rules.components
    h, v = PALETTE[comp.card_h[card] % len(PALETTE)], PALETTE[comp.card_v[card] % len(PALETTE)]
    title = escape(comp.describe_card(card))
    return (f'<div class="as-card {classes}" title="{title}"><div class="h" style="background:{h}"></div>'
            f'<div class="v" style="background:{v}"></div><span class="code">{escape(comp.codes[card])}</span>'
            + ('<span class="as-plane" aria-label="plane">✈</span>' if plane else "") + "</div>")


def board(core, state, seat=0) -> str:
    """The table as HTML (AS-17: the player sees it all; ``seat`` is 0 or ``None`` for a spectator).
    Clickable parts carry ``data-part``: ``cell:R,C`` for a grid cell, ``slot:S`` for a face-up slot."""
    p = _table(core, state)
    rules, comp = core.rules, core.rules.components
    G = rules.grid_size
    origin = comp.ticket_origin[p.ticket] if p.ticket >= 0 else -1
    destination = comp.ticket_destination[p.ticket] if p.ticket >= 0 else -1
    out = ['<div class="as-head">',
           f'<span><b>score</b> <span data-field="score">{p.score}</span>/{comp.n_tickets}</span>']
    if p.done:
        out.append("<span><b>game over</b></span>")
    else:
        dots = "●" * p.points + "○" * (rules.action_points - p.points)
        out.append(f'<span><b>action points</b> <span style="color:#2e9e4a">{dots}</span> {p.points}/{rules.action_points}</span>')
    out.append(f"<span>airport deck {len(p.deck)} · ticket deck {len(p.ticket_deck)}</span></div>")
    if p.ticket >= 0:
        out.append('<div class="as-ticket"><b>ticket</b>' + _card(core, origin) + " → " + _card(core, destination)
                   + f"<span>die {p.die} · passenger {'aboard' if p.aboard else 'waiting at ' + escape(comp.codes[origin])}"
                   + "</span></div>")
    elif p.phase == LINE_CHOICE:
        out.append("<div><b>pre-played ticket:</b> choose a line to remove (AS-15)</div>")
    else:
        out.append("<div>ticket completed; the next is drawn at the start of the next turn</div>")
    out.append(f'<div class="as-grid" style="grid-template-columns:repeat({G}, 52px)">')
    for r in range(G):
        for c in range(G):
            card = p.grid[r][c]
            inner = "" if card < 0 else _card(core, card, "origin" if card == origin else
                                              "destination" if card == destination else "", (r, c) == tuple(p.plane))
            out.append(f'<div class="as-cell part" data-part="cell:{r},{c}" title="row {r}, column {c}">{inner}</div>')
    out.append("</div><div class=\"as-slots\"><b>face up</b>")
    for s, card in enumerate(p.slots):
        inner = '<div class="as-empty"></div>' if card < 0 else _card(
            core, card, "origin" if card == origin else "destination" if card == destination else "")
        out.append(f'<div class="as-slot part" data-part="slot:{s}">{inner}<span>slot {s}</span></div>')
    out.append('</div><div class="as-legend">')
    for i in range(comp.n_colors):
        out.append(f'<span style="color:{PALETTE[i % len(PALETTE)]}">■ {COLOR_LETTERS[i]} {escape(COLOR_NAMES[i])}</span>')
    out.append("<span>bands: horizontal = H colour, vertical = V colour · ✈ the plane · orange/red frame: "
               "the ticket's origin/destination</span></div>")
    return "".join(out)


def parts(core, state, action: int) -> list[str]:
    """The board parts a move is made of, in the order they are clicked: a flight, the cell it lands on
    (``cell:R,C``); a play, its slot and its cell (``slot:S``, ``cell:R,C``); other moves none (they
    are chosen from the list)."""
    kind, *args = core.actions.decode(int(action))
    if kind == FLY:
        d, k = args  # every flight lands on its own cell (AS-8: one direction, one distance)
        (dr, dc), (r, c) = STEPS[d], _table(core, state).plane
        return [f"cell:{r + dr * k},{c + dc * k}"]
    if kind == PLAY:
        s, r, c = args
        return [f"slot:{s}", f"cell:{r},{c}"]
    return []
