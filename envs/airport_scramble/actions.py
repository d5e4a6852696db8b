"""Action indices (AS-19) and the observation vector's layout, shared by both engines and the envs."""

from __future__ import annotations

import dataclasses

import numpy as np

from envs.airport_scramble.rules import DIE_SIDES, AirportScrambleRules
from envs.common.layout import Block, stack_blocks

DIRECTIONS = "NESW"
#: AS-8 direction steps (row, column) for N, E, S, W.
STEPS = ((-1, 0), (0, 1), (1, 0), (0, -1))
ORIENTATIONS = ("horizontal", "vertical")

FLY, PLAY, REPLACE, LINE, WAIT = "fly", "play", "replace", "line", "wait"


@dataclasses.dataclass(frozen=True)
class ActionLayout:
    """AS-19: the action blocks and their offsets for grid size ``G`` and ``F`` face-up slots.

    ``fly(d, k) = d(G-1) + k-1``; ``play(s, r, c) = play_offset + sG² + rG + c``;
    ``replace(m) = replace_offset + m-1``; ``line(o, r, c) = line_offset + oG² + rG + c``; ``wait``.
    """

    grid_size: int
    face_up: int

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
        ``("line", o, r, c)`` or ``("wait",)``; ``ValueError`` outside ``0..n_actions-1``."""
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
            return (LINE, rel // G**2, rel % G**2 // G, rel % G)
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
        if kind == LINE:
            return f"remove the {ORIENTATIONS[args[0]]} line from ({args[1]}, {args[2]})"
        return "wait"


class ObservationLayout:
    """The flat float32 observation, segment by segment (all values in [0, 1]).

    Colours are written as ``(colour + 1) / n_colors`` (0 = no card); counts as ``count / maximum``.
    ``docs/airport_scramble.md`` lists every index; ``segment(name)`` gives a segment's slice.
    """

    def __init__(self, rules: AirportScrambleRules) -> None:
        comp = rules.components
        G2, F, N, T = rules.grid_size**2, rules.face_up, comp.n_cards, comp.n_tickets
        spec = [
            ("cell_hv", 2 * G2, "per cell (row-major) two values: the H and the V colour of its card, 0 if empty"),
            ("plane", G2, "per cell: 1 where the plane stands"),
            ("origin_cell", G2, "per cell: 1 where the current ticket's origin card lies (if in play)"),
            ("destination_cell", G2, "per cell: 1 where the current ticket's destination card lies (if in play)"),
            ("slot_hv", 2 * F, "per face-up slot two values: the H and the V colour of its card, 0 if empty"),
            ("slot_origin", F, "per face-up slot: 1 if it holds the current ticket's origin"),
            ("slot_destination", F, "per face-up slot: 1 if it holds the current ticket's destination"),
            ("origin_hv", 2, "the current ticket's origin card: H colour, V colour (0 without a ticket)"),
            ("destination_hv", 2, "the current ticket's destination card: H colour, V colour"),
            ("origin_place", 3, "the origin card is: in play, face up, in the airport deck (one-hot; 0 without a ticket)"),
            ("destination_place", 3, "the destination card is: in play, face up, in the airport deck"),
            ("die", 1, "die / 8 (0 while no ticket is current)"),
            ("points", 1, "action points left / action_points"),
            ("aboard", 1, "1 if the passenger is aboard"),
            ("ticket_active", 1, "1 if a ticket is current (not yet completed)"),
            ("line_choice", 1, "1 in the AS-15 line-choice phase (only remove-line actions are legal)"),
            ("redraw_used", 1, "1 if the AS-15 redraw was used this turn"),
            ("deck_size", 1, "cards in the airport deck / n_cards"),
            ("ticket_deck_size", 1, "tickets in the ticket deck / n_tickets"),
            ("score", 1, "completed tickets / n_tickets"),
            ("deck", N, "per airport card id: 1 if it is in the airport deck (its contents, not its order)"),
            ("ticket_deck", T, "per ticket id: 1 if it is in the ticket deck"),
        ]
        self.segments: dict[str, Block]
        self.segments, self.size = stack_blocks(spec)
        self.n_colors = comp.n_colors
        #: float32 (n_colors + 1,): the value of colour c is ``color_values[c + 1]``; index 0 = no card.
        self.color_values = scaled(np.arange(comp.n_colors + 1), comp.n_colors)
        self.die_scale = DIE_SIDES

    def segment(self, name: str) -> slice:
        """The slice of segment ``name``."""
        return self.segments[name].slice

    def describe_index(self, index: int) -> str:
        """What observation index ``index`` holds, e.g. ``cell_h[12]``."""
        for seg in self.segments.values():
            if seg.start <= index < seg.stop:
                return f"{seg.name}[{index - seg.start}]" if seg.size > 1 else seg.name
        raise IndexError(index)


def scaled(values, n: int) -> np.ndarray:
    """``values / n`` computed in float32 (both engines use this, so observations agree bit for bit)."""
    return np.asarray(values).astype(np.float32) / np.float32(n)
