"""Airport Scramble in words, for a person at the terminal: typed moves, the numbered menu, the screen.

The functions ``aerodeck play`` and ``aerodeck replay`` call for a game (the protocol is listed in
``aerodeck/watch/play.py``). ``state`` is a batch of one game (``core.init([seed])``). The player may know
everything but the order of the decks (AS-17), so the screen shows the whole table.

Moves are typed in the game's words; rows and columns count from 0 at the top left (AS-5), as on
the screen::

    fly E            fly east as far as the cards go (the full reach, 1 point, AS-8)
    fly E 2          fly 2 cells east, stopping early (1 + stop_early_cost points)
    play 2 at 3,5    the card of face-up slot 2 onto row 3, column 5 (AS-9); also: play JFK at 3,5
    replace 1,3      swap the cards of slots 1 and 3 for new ones from the deck (AS-10)
    wait             spend a point doing nothing (AS-11)
    remove row 4 from 2      AS-15: the horizontal line of row 4 whose first card is in column 2
    remove column 3 from 1   AS-15: the vertical line of column 3 whose first card is in row 1
"""

from __future__ import annotations

import re

import numpy as np
from rich.console import Group
from rich.text import Text

from aerodeck.envs.airport_scramble.actions import DIRECTIONS, FLY, PLAY, REMOVE_LINE, REPLACE, STEPS, fly_cost, lines, reach
from aerodeck.envs.airport_scramble.position import LINE_CHOICE
from aerodeck.envs.airport_scramble.render import PALETTE, render_rgb
from aerodeck.envs.airport_scramble.rules import COLOR_LETTERS, COLOR_NAMES
from aerodeck.envs.common.house import house_notes

#: The typed moves (shown by ``help``).
HELP = __doc__.split("::", 1)[1].strip("\n")

_DIRECTION_WORDS = {"n": 0, "north": 0, "up": 0, "e": 1, "east": 1, "right": 1,
                    "s": 2, "south": 2, "down": 2, "w": 3, "west": 3, "left": 3}
_VERBS = ("fly", "play", "replace", "wait", "remove")


def _table(core, state):
    """Game 0 of ``state`` as a :class:`~envs.airport_scramble.position.Position`."""
    return core.snapshot(state, 0)


def _code(core, card: int) -> str:
    return core.rules.components.codes[card]


# --- moves in words ----------------------------------------------------------------------------------

def words(core, state, action: int) -> str:
    """The words that name ``action`` now (what :func:`parse` reads back), e.g. ``"fly E"`` for a
    flight of the full reach, ``"fly E 2"`` for one stopping early, ``"play 2 at 3,5"``."""
    kind, *args = core.actions.decode(action)
    if kind == FLY:
        d, k = args
        return f"fly {DIRECTIONS[d]}" if k == reach(_table(core, state), d) else f"fly {DIRECTIONS[d]} {k}"
    if kind == PLAY:
        s, r, c = args
        return f"play {s} at {r},{c}"
    if kind == REPLACE:
        return "replace " + ",".join(str(s) for s in range(core.rules.face_up) if args[0] >> s & 1)
    if kind == REMOVE_LINE:
        o, r, c = args
        return f"remove row {r} from {c}" if o == 0 else f"remove column {c} from {r}"
    return "wait"


def note(core, state, action: int) -> str:
    """What ``action`` does on this table, in a few words (the menu's second column)."""
    p = _table(core, state)
    comp = core.rules.components
    kind, *args = core.actions.decode(action)
    if kind == FLY:
        d, k = args
        target = _landing(p, d, k)
        cost = fly_cost(core.rules, k, reach(p, d))
        where = f"to {_code(core, target)}" if target >= 0 else "off the cards"
        return f"{where}, {cost} point{'s' * (cost != 1)}" + (_ticket_role(core, p, target) if target >= 0 else "")
    if kind == PLAY:
        s, r, c = args
        card = p.slots[s]
        return f"{comp.describe_card(card)}{_ticket_role(core, p, card)}" if card >= 0 else "empty slot"
    if kind == REPLACE:
        back = [p.slots[s] for s in range(core.rules.face_up) if args[0] >> s & 1]
        named = ",".join(_code(core, c) for c in back if c >= 0)
        return f"{named} back, {core.rules.replace_cost} points"
    if kind == REMOVE_LINE:
        for o, r, c, cells in lines(p):
            if (o, r, c) == tuple(args):
                return " ".join(_code(core, p.grid[rr][cc]) for rr, cc in cells) + " back into the deck"
        return "no line there"
    return "1 point"


def _landing(p, direction: int, distance: int) -> int:
    """The card a flight of ``distance`` cells in ``direction`` ends on, or -1 (off the cards or the grid)."""
    (dr, dc), (r, c) = STEPS[direction], p.plane
    r, c = r + dr * distance, c + dc * distance
    return p.grid[r][c] if 0 <= r < len(p.grid) and 0 <= c < len(p.grid) else -1


def _ticket_role(core, p, card: int) -> str:
    """`` (ticket origin)`` / `` (ticket destination)`` or ``""``."""
    if p.ticket < 0:
        return ""
    comp = core.rules.components
    if card == comp.ticket_origin[p.ticket]:
        return " (ticket origin)"
    if card == comp.ticket_destination[p.ticket]:
        return " (ticket destination)"
    return ""


def moves(core, state) -> list[tuple[int, str, str]]:
    """The legal moves now in menu order (AS-19 index order): ``(action, words, note)``."""
    legal = np.flatnonzero(core.legal_mask(state)[0])
    return [(int(a), words(core, state, int(a)), note(core, state, int(a))) for a in legal]


def parse(core, state, line: str) -> int:
    """The action index the typed words name (legal or not: the caller checks the mask and asks
    ``core.explain_illegal`` why). ``ValueError`` saying what is wrong with words that name no action."""
    p = _table(core, state)
    rules, layout = core.rules, core.actions
    G, F = rules.grid_size, rules.face_up
    tokens = re.findall(r"[a-z]+|\d+", line.lower())
    if not tokens:
        raise ValueError("no move given")
    verb, rest = tokens[0], tokens[1:]

    def number(token: str, what: str, lo: int, hi: int) -> int:
        if not token.isdigit() or not lo <= int(token) <= hi:
            raise ValueError(f"{what} must be a number {lo}..{hi}, got {token!r}")
        return int(token)

    def done(used: int) -> None:
        if len(rest) > used:
            raise ValueError(f"unexpected {' '.join(rest[used:])!r} after the move")

    if verb == "fly":
        if not rest or rest[0] not in _DIRECTION_WORDS:
            raise ValueError("fly needs a direction: N, E, S or W (then an optional distance), e.g. 'fly E' or 'fly E 2'")
        d = _DIRECTION_WORDS[rest[0]]
        if len(rest) == 1:
            return layout.fly(d, max(reach(p, d), 1))  # no reach: the engine says why it is illegal
        k = number(rest[1], "the distance", 1, G - 1)
        done(2)
        return layout.fly(d, k)
    if verb == "play":
        if rest and rest[0].isalpha() and rest[0] != "at":
            code = rest[0].upper()
            face_up = [s for s, card in enumerate(p.slots) if card >= 0 and _code(core, card) == code]
            if not face_up:
                shown = ", ".join(f"{s}: {_code(core, c)}" for s, c in enumerate(p.slots) if c >= 0) or "none"
                raise ValueError(f"{code} is not face up (face-up slots {shown})")
            slot = face_up[0]
        elif rest:
            slot = number(rest[0], "the slot", 0, F - 1)
        else:
            slot = -1
        cell = [t for t in rest[1:] if t != "at"]
        if slot < 0 or len(cell) < 2:
            raise ValueError("play needs a slot (or a face-up card's code) and a cell, e.g. 'play 2 at 3,5'")
        r, c = number(cell[0], "the row", 0, G - 1), number(cell[1], "the column", 0, G - 1)
        if len(cell) > 2:
            raise ValueError(f"unexpected {' '.join(cell[2:])!r} after the cell")
        return layout.play(slot, r, c)
    if verb == "replace":
        if not rest:
            raise ValueError(f"replace needs the slots to swap, e.g. 'replace 1,3' (slots 0..{F - 1})")
        slots = [number(t, "a slot", 0, F - 1) for t in rest]
        if len(set(slots)) != len(slots):
            raise ValueError("a slot is named twice")
        return layout.replace(sum(1 << s for s in slots))
    if verb == "wait":
        done(0)
        return layout.wait
    if verb == "remove":
        words_ = [t for t in rest if t not in ("the", "line", "from", "at")]
        if not words_ or words_[0] not in ("row", "column", "col"):
            raise ValueError("remove needs a row or a column, e.g. 'remove row 4 from 2' or 'remove column 3 from 1'")
        orientation = 0 if words_[0] == "row" else 1
        if len(words_) < 2:
            raise ValueError(f"remove {words_[0]} needs its number, e.g. 'remove {words_[0]} 4'")
        along = number(words_[1], f"the {'row' if orientation == 0 else 'column'}", 0, G - 1)
        if len(words_) > 3:
            raise ValueError(f"unexpected {' '.join(words_[3:])!r} after the line")
        if len(words_) == 3:
            first = number(words_[2], "the first cell", 0, G - 1)
        else:  # the one line of that row (column), if only one
            starts = [(r, c) for o, r, c, _ in lines(p) if o == orientation and (r if o == 0 else c) == along]
            if len(starts) != 1:
                name = "row" if orientation == 0 else "column"
                where = "no line" if not starts else f"{len(starts)} lines"
                raise ValueError(f"{name} {along} has {where}; say where it starts, e.g. 'remove {name} {along} from 2'")
            first = starts[0][1] if orientation == 0 else starts[0][0]
        r, c = (along, first) if orientation == 0 else (first, along)
        return layout.line(orientation, r, c)
    raise ValueError(f"unknown move {verb!r}; moves: {', '.join(_VERBS)} (type 'help' for examples)")


def undo_refusal(core, before, after) -> str | None:
    """Why the move from ``before`` to ``after`` cannot be taken back, or None if it can: only a move
    that drew nothing (no random value used, AS-17) and left points in the turn (AS-13) shows no hidden
    card — a fly or a wait, or a play once the deck is empty (nothing refills the slot, AS-9)."""
    b, a = _table(core, before), _table(core, after)
    if a.counter != b.counter:
        return "a card or a ticket was drawn: taking the move back would show what the deck holds (AS-17)"
    if a.done or a.points >= b.points or a.phase != b.phase:
        return "the turn is over (AS-13): only a move within the turn can be taken back"
    return None


# --- what happened --------------------------------------------------------------------------------

def events(core, before, after, action: int, seat=0) -> list[str]:
    """What the move ``action`` from ``before`` to ``after`` did, in the game's words (the log)."""
    b, a = _table(core, before), _table(core, after)
    comp = core.rules.components
    out = [words(core, before, action)]
    kind = core.actions.decode(action)[0]
    if kind == FLY and a.plane != b.plane:
        out[0] += f" → {_code(core, a.grid[a.plane[0]][a.plane[1]])}"
    if kind == PLAY:
        out[0] += f": {_code(core, b.slots[core.actions.decode(action)[1]])}"
    drawn = [card for card in a.slots if card >= 0 and card not in b.slots]
    if drawn:
        out.append("face up: " + ", ".join(_code(core, card) for card in drawn) + " drawn from the deck")
    path = _flown_over(core, b, action) if kind == FLY else []
    if a.ticket == b.ticket and a.aboard and not b.aboard:
        origin = core.rules.components.ticket_origin[b.ticket]
        early = core.rules.pickup_in_flight and any(b.grid[r][c] == origin for r, c in path)
        out.append("the passenger boards in flight (AS-12, pickup_in_flight)" if early else "the passenger boards")
    if a.score > b.score:
        destination = core.rules.components.ticket_destination[b.ticket] if b.ticket >= 0 else -1
        early = core.rules.pickup_in_flight and any(b.grid[r][c] == destination for r, c in path)
        out.append(f"delivered in flight (AS-12, pickup_in_flight) (+1): score {a.score}" if early
                   else f"ticket completed (+1): score {a.score}")
    if a.phase == LINE_CHOICE and b.phase != LINE_CHOICE:
        out.append("the new ticket is pre-played (both airports in play): choose a line to remove (AS-15)")
    if a.ticket >= 0 and a.ticket != b.ticket:
        out.append(f"new ticket: {comp.describe_ticket(a.ticket)}" + (" (the passenger is aboard)" if a.aboard else ""))
    if a.ticket == b.ticket >= 0 and a.die < b.die and not a.done:
        out.append(f"turn over: the die goes down to {a.die}")
    if a.done:
        out.append("game over: " + ("every ticket completed" if a.ticket < 0 else "the ticket failed (the die ran out)"))
    return out + house_notes(core, after)


def _flown_over(core, p, action: int) -> list[tuple[int, int]]:
    """The cells a flight passes over before the one it ends on (AS-8), from the table ``p`` before it."""
    _, d, k = core.actions.decode(action)
    (dr, dc), (r, c) = STEPS[d], p.plane
    return [(r + dr * j, c + dc * j) for j in range(1, k)]


def summary(core, state, seat=0, names=None) -> Text:
    """The end of the game in a few lines (AS-16)."""
    p = _table(core, state)
    comp = core.rules.components
    if not p.done:
        how = "the game was left unfinished"
    elif p.ticket < 0:
        how = "every ticket completed (AS-14)"
    else:
        how = f"the ticket {comp.describe_ticket(p.ticket)} failed (AS-13)"
    return Text(f"Game over: {how}.\nScore: {p.score} ticket{'s' * (p.score != 1)} completed "
                f"of {comp.n_tickets}.")


def why(core, state, action: int) -> str:
    """What ``action`` does for the ticket, in words (the hint's reason)."""
    p = _table(core, state)
    comp = core.rules.components
    kind, *args = core.actions.decode(action)
    if p.ticket < 0:
        return note(core, state, action)
    origin, destination = comp.ticket_origin[p.ticket], comp.ticket_destination[p.ticket]
    if kind == FLY:
        target = _landing(p, *args)
        if target < 0:
            return note(core, state, action)
        if target == destination and p.aboard:
            return f"lands on {_code(core, target)} with the passenger aboard: the ticket is completed"
        if target == origin and not p.aboard:
            return f"lands on {_code(core, target)}, the ticket's origin: the passenger boards"
        return f"moves the plane to {_code(core, target)} on the way to " + _code(core, destination if p.aboard else origin)
    if kind == PLAY:
        s, r, c = args
        card = p.slots[s]
        if card in (origin, destination):
            return f"puts the ticket's {'origin' if card == origin else 'destination'} {_code(core, card)} in play at {r},{c}"
        return f"plays {_code(core, card)} at {r},{c}: it links the network towards the ticket's airports"
    if kind == REPLACE:
        missing = [_code(core, c) for c in (origin, destination) if c in p.deck]
        return ("looks for " + " and ".join(missing) + ", still in the deck" if missing
                else "swaps face-up cards that do not help for fresh ones")
    if kind == REMOVE_LINE:
        return "removes a line that does not carry the plane: " + note(core, state, action)
    return "nothing else helps with the points left"


# --- the screen ----------------------------------------------------------------------------------

def _colour(colour: int) -> str:
    return PALETTE[colour % len(PALETTE)]


def _card(core, card: int, mark: str = " ", tag: str = " ", plane: bool = False) -> Text:
    """A card as ``CODE:hv`` in its colours (H colour on the code, each letter in its colour)."""
    comp = core.rules.components
    h, v = comp.card_h[card], comp.card_v[card]
    text = Text(mark, style="bold reverse" if plane else "")
    text.append(comp.codes[card], style=f"bold {_colour(h)}" + (" reverse" if plane else ""))
    text.append(":")
    text.append(COLOR_LETTERS[h], style=_colour(h))
    text.append(COLOR_LETTERS[v], style=_colour(v))
    text.append(tag, style="bold red" if tag.strip() else "")
    return text


def screen(core, state, seat=0, log=(), names=None) -> Group:
    """The table as a person sees it: status, ticket and die, action points, deck counts, the grid
    (``*`` on the plane's card, ``O``/``D`` on the ticket's origin/destination, ``+`` where a
    face-up card may be played), the face-up row, and the lines of ``log`` (a solo game: ``seat`` is 0,
    ``names`` unused)."""
    p = _table(core, state)
    rules, comp = core.rules, core.rules.components
    G = rules.grid_size
    playable = set()
    for a in np.flatnonzero(core.legal_mask(state)[0]):
        kind, *args = core.actions.decode(int(a))
        if kind == PLAY:
            playable.add((args[1], args[2]))
    origin = comp.ticket_origin[p.ticket] if p.ticket >= 0 else -1
    destination = comp.ticket_destination[p.ticket] if p.ticket >= 0 else -1
    parts: list = []
    head = Text("Airport Scramble", style="bold")
    head.append(f" · score {p.score}/{comp.n_tickets}")
    head.append(f" · airport deck {len(p.deck)} cards · ticket deck {len(p.ticket_deck)} tickets")
    parts.append(head)
    if p.ticket >= 0:
        ticket = Text("ticket ")
        ticket.append(_code(core, origin), style=f"bold {_colour(comp.card_h[origin])}")
        ticket.append(" → ")
        ticket.append(_code(core, destination), style=f"bold {_colour(comp.card_h[destination])}")
        ticket.append(f" · die {p.die} · passenger {'aboard' if p.aboard else 'waiting at ' + _code(core, origin)}")
    elif p.phase == LINE_CHOICE:
        ticket = Text("pre-played ticket: choose a line to remove (AS-15)", style="bold")
    else:
        ticket = Text("ticket completed; the next is drawn at the start of the next turn")
    parts.append(ticket)
    if p.done:
        parts.append(Text("game over", style="bold"))
    else:
        points = Text("action points ")
        points.append("●" * p.points, style="bold green")
        points.append("○" * (rules.action_points - p.points), style="dim")
        points.append(f" {p.points}/{rules.action_points}")
        parts.append(points)
    parts.append(Text("     " + "".join(f"{c:^9}" for c in range(G)), style="dim"))
    for r in range(G):
        row = Text(f"{r:>3}  ", style="dim")
        for c in range(G):
            card = p.grid[r][c]
            if card < 0:
                row.append(f"{'+' if (r, c) in playable else '.':^9}", style="green" if (r, c) in playable else "dim")
                continue
            on_plane = (r, c) == tuple(p.plane)
            tag = "O" if card == origin else "D" if card == destination else " "
            row.append_text(_card(core, card, "*" if on_plane else " ", tag, plane=on_plane))
            row.append(" ")
        parts.append(row)
    slots = Text("face up ")
    for s, card in enumerate(p.slots):
        slots.append(f" [{s}]")
        if card < 0:
            slots.append(" ---   ")
        else:
            tag = "O" if card == origin else "D" if card == destination else " "
            slots.append_text(_card(core, card, " ", tag))
    parts.append(slots)
    legend = Text("colours ", style="dim")
    for i in range(comp.n_colors):
        legend.append(f"{COLOR_LETTERS[i]} {COLOR_NAMES[i]}  ", style=_colour(i))
    legend.append("· CODE:hv H and V colour · * plane · O/D ticket origin/destination · + playable", style="dim")
    parts.append(legend)
    if log:
        parts.append(Text("log:", style="dim"))
        parts.extend(Text("  " + line) for line in log)
    return Group(*parts)


def replay_screen(core, state, log=()) -> Group:
    """A recorded game's table (the player's view is the whole table, AS-17)."""
    return screen(core, state, 0, log)


def picture(core, state) -> np.ndarray:
    """The table as the env's ``rgb_array`` render draws it: ``uint8 (H, W, 3)``."""
    return render_rgb(core.rules, _table(core, state))
