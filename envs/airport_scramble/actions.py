"""Action indices (AS-19) and why an action is illegal, shared by both engines and the environments.

:class:`ActionLayout` encodes, decodes and describes action indices. The ``explain_illegal`` family
are pure functions of the rules and one game's table — a :class:`~envs.airport_scramble.position.Position`
or anything with its fields (``grid``, ``plane``, ``slots``, ``deck``, ``points``, ``phase``, ``done``;
the reference engine passes itself) — so the environments explain a refused action without building
an engine, and the reference engine decides legality with the same sentences.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from aerodeck.envs.airport_scramble.position import LINE_CHOICE
from aerodeck.envs.airport_scramble.rules import AirportScrambleRules

DIRECTIONS = "NESW"
#: AS-8 direction steps (row, column) for N, E, S, W.
STEPS = ((-1, 0), (0, 1), (1, 0), (0, -1))
ORIENTATIONS = ("horizontal", "vertical")

#: The kinds of decision (``Core.action_kinds`` indexes them): a flight of the full reach, a flight
#: stopping short of it (AS-8), a play (AS-9), a replace (AS-10), a wait (AS-11), an AS-15 line removal.
KINDS = ("fly", "stop_early", "play", "replace", "wait", "remove_line")
FLY, STOP_EARLY, PLAY, REPLACE, WAIT, REMOVE_LINE = KINDS


@dataclasses.dataclass(frozen=True)
class ActionLayout:
    """AS-19: the action blocks and their offsets for grid size ``G`` and ``F`` face-up slots.

    ``fly(d, k) = d(G-1) + k-1``; ``play(s, r, c) = play_offset + sG² + rG + c``;
    ``replace(m) = replace_offset + m-1``; ``line(o, r, c) = line_offset + oG² + rG + c``; ``wait``.
    """

    grid_size: int
    face_up: int
    kinds: ClassVar[tuple[str, ...]] = KINDS

    @classmethod
    def of(cls, rules: AirportScrambleRules) -> ActionLayout:
        """The layout of a rules object."""
        return cls(rules.grid_size, rules.face_up)

    @property
    def n_fly(self) -> int:
        return 4 * (self.grid_size - 1)

    @property
    def play_offset(self) -> int:
        return self.n_fly

    @property
    def replace_offset(self) -> int:
        return self.play_offset + self.face_up * self.grid_size**2

    @property
    def n_replace(self) -> int:
        return 2**self.face_up - 1

    @property
    def line_offset(self) -> int:
        return self.replace_offset + self.n_replace

    @property
    def wait(self) -> int:
        return self.line_offset + 2 * self.grid_size**2

    @property
    def n_actions(self) -> int:
        return self.wait + 1

    def fly(self, direction: int, distance: int) -> int:
        """Index of flying ``distance`` (1..G-1) cells in ``direction`` (0 N, 1 E, 2 S, 3 W)."""
        return direction * (self.grid_size - 1) + distance - 1

    def play(self, slot: int, row: int, col: int) -> int:
        """Index of playing the card of ``slot`` onto cell (``row``, ``col``)."""
        return self.play_offset + slot * self.grid_size**2 + row * self.grid_size + col

    def replace(self, slot_mask: int) -> int:
        """Index of replacing the slots of ``slot_mask`` (bit i = slot i, 1 .. 2^F-1)."""
        return self.replace_offset + slot_mask - 1

    def line(self, orientation: int, row: int, col: int) -> int:
        """Index of removing the line (0 horizontal, 1 vertical) whose first cell is (``row``, ``col``)."""
        return self.line_offset + orientation * self.grid_size**2 + row * self.grid_size + col

    def decode(self, action: int) -> tuple:
        """``(kind, *args)``: ``("fly", d, k)``, ``("play", s, r, c)``, ``("replace", m)``,
        ``("remove_line", o, r, c)`` or ``("wait",)``; ``ValueError`` outside ``0..n_actions-1``.
        (Whether a flight stops early depends on the table: :func:`reach`.)"""
        a = int(action)
        G = self.grid_size
        if not 0 <= a < self.n_actions:
            raise ValueError(f"action {action!r} is outside 0..{self.n_actions - 1}")
        if a < self.play_offset:
            return (FLY, a // (G - 1), a % (G - 1) + 1)
        if a < self.replace_offset:
            rel = a - self.play_offset
            return (PLAY, rel // G**2, rel % G**2 // G, rel % G)
        if a < self.line_offset:
            return (REPLACE, a - self.replace_offset + 1)
        if a < self.wait:
            rel = a - self.line_offset
            return (REMOVE_LINE, rel // G**2, rel % G**2 // G, rel % G)
        return (WAIT,)

    def describe(self, action: int) -> str:
        """A short human-readable name, e.g. ``fly E 3``, ``play slot 1 at (4, 5)``."""
        kind, *args = self.decode(action)
        if kind == FLY:
            return f"fly {DIRECTIONS[args[0]]} {args[1]}"
        if kind == PLAY:
            return f"play slot {args[0]} at ({args[1]}, {args[2]})"
        if kind == REPLACE:
            slots = [str(i) for i in range(self.face_up) if args[0] >> i & 1]
            return f"replace slot{'s' if len(slots) > 1 else ''} {','.join(slots)}"
        if kind == REMOVE_LINE:
            return f"remove the {ORIENTATIONS[args[0]]} line from ({args[1]}, {args[2]})"
        return "wait"

    def index_kinds(self) -> np.ndarray:
        """``int8 (n_actions,)``: the kind (index into ``kinds``) of every action index, flights as
        ``fly`` (a flight stops early or not depending on the reach: ``Core.action_kinds``)."""
        out = np.empty(self.n_actions, np.int8)
        out[: self.play_offset] = KINDS.index(FLY)
        out[self.play_offset : self.replace_offset] = KINDS.index(PLAY)
        out[self.replace_offset : self.line_offset] = KINDS.index(REPLACE)
        out[self.line_offset : self.wait] = KINDS.index(REMOVE_LINE)
        out[self.wait] = KINDS.index(WAIT)
        return out


# --- why an action is illegal: pure functions of the rules and one game's table ----------------------

def card_at(p, r: int, c: int) -> int:
    """The card at (r, c) of ``p.grid``, or -1 if the cell is empty or outside the grid (AS-5)."""
    grid = p.grid
    return grid[r][c] if 0 <= r < len(grid) and 0 <= c < len(grid) else -1


def reach(p, direction: int) -> int:
    """AS-8: the consecutive occupied cells starting next to the plane in ``direction``."""
    dr, dc = STEPS[direction]
    r, c = p.plane
    n = 0
    while card_at(p, r + dr * (n + 1), c + dc * (n + 1)) >= 0:
        n += 1
    return n


def fly_cost(rules: AirportScrambleRules, distance: int, full_reach: int) -> int:
    """AS-8: the full reach costs 1, stopping early 1 + ``stop_early_cost``."""
    return 1 if distance == full_reach else 1 + rules.stop_early_cost


def misfit(rules: AirportScrambleRules, p, card: int, r: int, c: int) -> str | None:
    """AS-9: why ``card`` may not go on (r, c), or None if it may."""
    comp = rules.components
    if p.grid[r][c] >= 0:
        return f"cell ({r}, {c}) is occupied"
    h, v = comp.card_h[card], comp.card_v[card]
    neighbours = 0
    for dr, dc, side in ((0, -1, "left"), (0, 1, "right"), (-1, 0, "upper"), (1, 0, "lower")):
        other = card_at(p, r + dr, c + dc)
        if other < 0:
            continue
        neighbours += 1
        if dr == 0 and comp.card_h[other] != h:
            return f"its H colour does not match the {side} neighbour {comp.codes[other]}"
        if dc == 0 and comp.card_v[other] != v:
            return f"its V colour does not match the {side} neighbour {comp.codes[other]}"
    if neighbours == 0:
        return f"cell ({r}, {c}) is not next to a card in play"
    return None


def on_frontier(p, r: int, c: int) -> bool:
    """An empty cell next to a card in play (a card might go there, AS-9)."""
    return p.grid[r][c] < 0 and any(card_at(p, r + dr, c + dc) >= 0 for dr, dc in STEPS)


def replace_blocked(rules: AirportScrambleRules, p, slot_mask: int) -> str | None:
    """AS-10: why replacing the slots of ``slot_mask`` is not allowed, or None if it is."""
    chosen = [s for s in range(rules.face_up) if slot_mask >> s & 1]
    if len(chosen) > rules.max_replace:
        return f"it swaps {len(chosen)} cards but max_replace is {rules.max_replace}"
    empty = [s for s in chosen if p.slots[s] < 0]
    if empty:
        return f"slot {empty[0]} is empty"
    if len(p.deck) < len(chosen):
        return f"the airport deck holds {len(p.deck)} card(s), fewer than the {len(chosen)} chosen"
    if rules.replace_cost > p.points:
        return f"it costs {rules.replace_cost} points but {p.points} are left"
    return None


def lines(p) -> list[tuple[int, int, int, list[tuple[int, int]]]]:
    """AS-15: every line, a maximal horizontal or vertical run of two or more cards:
    ``(orientation, first row, first column, cells)``."""
    G = len(p.grid)
    found = []
    for orientation, (dr, dc) in ((0, (0, 1)), (1, (1, 0))):
        for r in range(G):
            for c in range(G):
                if p.grid[r][c] < 0 or card_at(p, r - dr, c - dc) >= 0:
                    continue  # empty, or not the first cell of its run
                cells = [(r, c)]
                while card_at(p, cells[-1][0] + dr, cells[-1][1] + dc) >= 0:
                    cells.append((cells[-1][0] + dr, cells[-1][1] + dc))
                if len(cells) >= 2:
                    found.append((orientation, r, c, cells))
    return found


def line_blocked(p, cells: list[tuple[int, int]]) -> str | None:
    """AS-15: why removing these cells is not allowed, or None if it is."""
    G = len(p.grid)
    remaining = {(r, c) for r in range(G) for c in range(G) if p.grid[r][c] >= 0} - set(cells)
    if not remaining:
        return "no card would remain"
    start = min(remaining)
    seen, todo = {start}, [start]
    while todo:
        r, c = todo.pop()
        for dr, dc in STEPS:
            nxt = (r + dr, c + dc)
            if nxt in remaining and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    if seen != remaining:
        return "the remaining cards would not all be connected"
    return None


def choosable_lines(p) -> list[tuple[int, int, int, list[tuple[int, int]]]]:
    """AS-15: the lines that may be removed now."""
    return [line for line in lines(p) if line_blocked(p, line[3]) is None]


def _other_action_legal(rules: AirportScrambleRules, p) -> bool:
    """AS-11: a fly, play or replace is legal in the turn-action phase."""
    for d in range(4):
        n = reach(p, d)
        if any(fly_cost(rules, k, n) <= p.points for k in range(1, n + 1)):
            return True
    G = len(p.grid)
    frontier = [(r, c) for r in range(G) for c in range(G) if on_frontier(p, r, c)]
    if any(misfit(rules, p, card, r, c) is None for card in p.slots if card >= 0 for r, c in frontier):
        return True
    return any(replace_blocked(rules, p, m) is None for m in range(1, 2**rules.face_up))


def explain_illegal(rules: AirportScrambleRules, p, action: int) -> str | None:
    """Why ``action`` is illegal in the game ``p`` now (a sentence naming the rule's reason), or
    None if it is legal."""
    layout = ActionLayout.of(rules)
    try:
        kind, *args = layout.decode(action)
    except ValueError as err:
        return str(err)
    if p.done:
        return "the game is over"
    if p.phase == LINE_CHOICE and kind != REMOVE_LINE:
        return "a line must be chosen first (AS-15 line choice)"
    if kind == FLY:
        d, k = args
        n = reach(p, d)
        if k > n:
            return f"the plane's reach {DIRECTIONS[d]} is {n}"
        cost = fly_cost(rules, k, n)
        return f"it costs {cost} points but {p.points} are left" if cost > p.points else None
    if kind == PLAY:
        s, r, c = args
        if p.slots[s] < 0:
            return f"slot {s} is empty"
        return misfit(rules, p, p.slots[s], r, c)
    if kind == REPLACE:
        return replace_blocked(rules, p, args[0])
    if kind == REMOVE_LINE:
        if p.phase != LINE_CHOICE:
            return "lines are chosen only after a pre-played ticket (AS-15)"
        for orientation, r, c, cells in lines(p):
            if (orientation, r, c) == tuple(args):
                return line_blocked(p, cells)
        return "no line starts at that cell"
    if not rules.allow_wait and _other_action_legal(rules, p):  # AS-11
        return "allow_wait is off and another action is legal"
    return None
