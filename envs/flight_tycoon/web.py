"""Flight Tycoon on a web page (``aerodeck serve``): the table as HTML, and the board parts a move is made of.

The functions ``aerodeck serve`` calls for a game (the protocol is listed in ``aerodeck/serve/tables.py``).
``state`` is a batch of one game (``core.init([seed])``). A seat's page is built **only from that seat's
observation** (:func:`~envs.flight_tycoon.text.seen`: the FT-13 public facts and the FT-14 cards the
seat may know), never from the hidden state; a spectator of a recorded game (``seat=None``) sees each
hand as its owner observes it.

Clicks: a card of your hand is the tower to lay aside, the card to give or to discard (FT-6, FT-9,
FT-10); a request is a player then a square of the schedule map, in either order (FT-8).
"""

from __future__ import annotations

import dataclasses
from html import escape

from aerodeck.envs.flight_tycoon.actions import decode_action
from aerodeck.envs.flight_tycoon.rules import (
    AIRLINES, GIVE, N_SQUARES, SQUARE_CARDS, SQUARE_NAMES, card_key, card_name, landing_vp_table, month_of, suit_of, tower_key,
)
from aerodeck.envs.flight_tycoon.text import Seen, seen

#: The board's look (CSS, scoped under ``.board``).
STYLE = """
.board .ft-head { display:flex; gap:1.2em; flex-wrap:wrap; margin-bottom:.4em; }
.board .ft-map { display:grid; grid-template-columns:repeat(6, 104px); gap:4px; margin:.4em 0; }
.board .ft-square { border:1px solid #99a; border-radius:6px; padding:3px 5px; font-size:12px; background:#fbfbff; }
.board .ft-square .tok { color:#c33; letter-spacing:-2px; }
.board .ft-players { border-collapse:collapse; margin:.4em 0; }
.board .ft-players td { padding:3px 8px; border-bottom:1px solid #eee; font-size:13px; }
.board .ft-player.deciding td:first-child::before { content:"▶ "; color:#c80; }
.board .ft-player.me { background:#f3f8ee; }
.board .ft-cards { display:flex; gap:5px; flex-wrap:wrap; margin:.3em 0; }
.board .ft-card { width:40px; height:56px; border:1px solid #555; border-radius:5px; display:flex; flex-direction:column;
  align-items:center; justify-content:center; font-weight:bold; background:#fff; font-size:15px; }
.board .ft-card small { font-weight:normal; font-size:10px; }
.board .ft-card.tower { background:#ffe9e0; border-color:#c33; }
.board .ft-card.a0 { border-top:5px solid #2f6fd0; } .board .ft-card.a1 { border-top:5px solid #e26fb5; }
.board .ft-card.a2 { border-top:5px solid #2e9e4a; } .board .ft-card.a3 { border-top:5px solid #ef8a1f; }
.board .mini { display:inline-block; border:1px solid #aaa; border-radius:3px; padding:0 3px; margin:0 2px; font-size:12px; }
"""

_DECISIONS = ("tower", "request", "give", "discard")
_DECISION_WORDS = ("lay a card aside for your tower (FT-6)", "ask another player for a card on a square (FT-8)",
                   "choose the card to give (FT-9)", "choose the card of the colliding month to discard (FT-10)")


def _spectator(core, state) -> Seen:
    """What a spectator of a recording sees: each seat's hand and towers as that seat observes them."""
    views = [seen(core, state, h) for h in range(core.rules.n_players)]
    return dataclasses.replace(views[0], seat=-1, hands=tuple(v.hands[h] for h, v in enumerate(views)),
                               towers=tuple(v.towers[h] for h, v in enumerate(views)),
                               laid=frozenset().union(*(v.laid for v in views)))


def _card(card: int, part: bool = False) -> str:
    data = f' part" data-part="card:{card}' if part else ""
    return (f'<div class="ft-card a{suit_of(card)}{data}" title="month {month_of(card) + 1}, airline '
            f'{AIRLINES[suit_of(card)]}">{month_of(card) + 1}<small>{AIRLINES[suit_of(card)]}</small></div>')


def _hand(s: Seen, h: int, part: bool) -> str:
    items = [(card_key(c), _card(c, part)) for c in s.hands[h]]
    items += [(tower_key(m), f'<div class="ft-card tower" title="tower, month {m + 1}, slot {slot}">T{m + 1}'
                             f'<small>slot {slot}</small></div>') for m, slot in s.towers[h]]
    return '<div class="ft-cards">' + "".join(html for _, html in sorted(items)) + "</div>"


def board(core, state, seat=0) -> str:
    """The table as HTML, as ``seat`` sees it (its own observation only; ``None``: a spectator of a
    recording). Clickable parts carry ``data-part``: ``card:C`` (a card of the seat's hand),
    ``player:H`` (another player), ``square:Q`` (a square of the schedule map)."""
    s = _spectator(core, state) if seat is None else seen(core, state, seat)
    me = s.seat
    vp_now = landing_vp_table(core.rules)
    out = [f'<div class="ft-head"><span><b>{s.n} players</b>'
           + (f" · you are player_{me}" if me >= 0 else "") + "</span>",
           f"<span>deck {s.deck} cards</span><span>stock {s.stock} tokens</span>"]
    if s.decision < 0:
        out.append("<span><b>game over</b></span>")
    elif s.decider == me:
        out.append(f'<span style="color:#b60"><b>your decision:</b> {_DECISION_WORDS[s.decision]}</span>')
    else:
        out.append(f"<span>player_{s.decider} to decide: {_DECISIONS[s.decision]}</span>")
    out.append("</div><div><b>schedule map</b> <small>(tokens on the square · VP a landing there pays now)</small></div>"
               '<div class="ft-map">')
    for q in range(N_SQUARES):
        tokens = s.tokens[q]
        out.append(f'<div class="ft-square part" data-part="square:{q}" title="{escape(SQUARE_NAMES[q])}">'
                   f"<b>{escape(SQUARE_NAMES[q])}</b><br><span class=\"tok\">{'●' * tokens}</span>"
                   f" {tokens}t · {int(vp_now[q, tokens + 1])} VP</div>")
    out.append('</div><table class="ft-players">')
    for h in range(s.n):
        cls = " deciding" if h == s.decider else ""
        cls += " me" if h == me else ""
        part = f' part" data-part="player:{h}' if h != me and me >= 0 else ""
        name = f"player_{h}" + (" (you)" if h == me else "")
        out.append(f'<tr class="ft-player{cls}{part}"><td><b>{name}</b></td><td>{s.vp[h]} VP</td>'
                   f"<td>{s.hand_size[h]} in hand</td><td>")
        if h == me or seat is None:
            out.append(_hand(s, h, part=h == me and s.decider == me))
        else:
            out.append("".join(f'<span class="mini" style="color:#c33">T{m + 1} in slot {slot}</span>'
                               for m, slot in s.towers[h]))
            if s.hands[h]:
                out.append("known: " + "".join(f'<span class="mini">{card_name(c)}</span>' for c in sorted(s.hands[h])))
        out.append("</td></tr>")
    out.append("</table>")
    out.append("<div><b>discards</b> " + ("".join(f'<span class="mini">{card_name(c)}</span>' for c in sorted(s.discard))
                                         or "none") + "</div>")
    if s.laid:
        out.append("<div><b>laid aside for towers</b> "
                   + "".join(f'<span class="mini">{card_name(c)}</span>' for c in sorted(s.laid)) + "</div>")
    if s.turn_active >= 0:
        outcome = ("pending", "landed", "collided", "passed")[s.turn_outcome] if s.turn_outcome >= 0 else ""
        who = lambda h: "you" if h == me else f"player_{h}"  # noqa: E731
        if s.turn_target >= 0:
            out.append(f"<div><small>this turn: {who(s.turn_active)} asked {who(s.turn_target)} for "
                       f"'{escape(SQUARE_NAMES[s.turn_square])}': {outcome}</small></div>")
        else:
            out.append(f"<div><small>this turn: {who(s.turn_active)} {outcome}</small></div>")
    if me >= 0 and s.decision == GIVE and s.decider == me and s.turn_square >= 0:
        fits = sorted(c for c in s.hands[me] if SQUARE_CARDS[s.turn_square, c])
        out.append(f"<div><small>your cards that meet '{escape(SQUARE_NAMES[s.turn_square])}': "
                   + (" ".join(card_name(c) for c in fits) or "none") + "</small></div>")
    return "".join(out)


def parts(core, state, action: int) -> list[str]:
    """The board parts a move is made of: a card action, its card (``card:C``); a request, the player
    asked and the square (``player:H``, ``square:Q``)."""
    kind, *args = decode_action(int(action))
    if kind == "request":
        offset, square = args
        me = int(core.to_act(state)[0])
        return [f"player:{(me + offset) % core.rules.n_players}", f"square:{square}"]
    return [f"card:{args[0]}"]
