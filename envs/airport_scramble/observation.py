"""The observation vector's layout (AS-17: everything the player may know), shared by both engines."""

from __future__ import annotations

import numpy as np

from aerodeck.envs.airport_scramble.rules import DIE_SIDES, AirportScrambleRules
from aerodeck.envs.common.layout import Block, stack_blocks


class ObservationLayout:
    """The flat float32 observation, block by block (all values in [0, 1]).

    Colours are written as ``(colour + 1) / n_colors`` (0 = no card), where each card lies as
    ``(1 + place) / (G² + F)`` (place: its cell index, or G² + its slot; 0 = in the deck); counts as
    ``count / maximum``. ``blocks[name].slice`` gives a block's indices;
    ``docs/airport-scramble.md`` shows the table at the default rules.
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
            ("die", 1, f"die / {DIE_SIDES + rules.ticket_turn_bonus} (8 + ticket_turn_bonus; 0 while no ticket "
             "is current)" if rules.ticket_turn_bonus else "die / 8 (0 while no ticket is current)"),
            ("points", 1, "action points left / action_points"),
            ("aboard", 1, "1 if the passenger is aboard"),
            ("ticket_active", 1, "1 if a ticket is current (not yet completed)"),
            ("line_choice", 1, "1 in the AS-15 line-choice phase (only remove-line actions are legal)"),
            ("redraw_used", 1, "1 if the AS-15 redraw was used this turn"),
            ("deck_size", 1, "cards in the airport deck / n_cards"),
            ("ticket_deck_size", 1, "tickets in the ticket deck / n_tickets"),
            ("score", 1, "completed tickets / n_tickets"),
            ("deck", N, "per airport card id: 1 if it is in the airport deck (its contents, not its order)"),
            ("card_place", N, "per airport card id: where it lies, (1 + cell) / (G² + F) on cell r·G + c, "
             "(1 + G² + slot) / (G² + F) face up, 0 in the airport deck"),
            ("ticket_deck", T, "per ticket id: 1 if it is in the ticket deck"),
        ]
        self.blocks: dict[str, Block]
        self.blocks, self.size = stack_blocks(spec)
        self.n_colors, self.n_cards = comp.n_colors, N
        #: float32 (n_colors + 1,): the value of colour c is ``color_values[c + 1]``; index 0 = no card.
        self.color_values = scaled(np.arange(comp.n_colors + 1), comp.n_colors)
        #: The scale of ``card_place``: G² cells then F slots (a place p is written (p + 1) / place_scale).
        self.place_scale = G2 + F
        #: float32 (G² + F + 1,): the value of place p is ``place_values[p + 1]``; index 0 = in the deck.
        self.place_values = scaled(np.arange(G2 + F + 1), G2 + F)
        self.die_scale = DIE_SIDES + rules.ticket_turn_bonus  # AS-3: the die reads up to 8 + the bonus

    def describe_index(self, index: int) -> str:
        """What observation index ``index`` holds, e.g. ``cell_hv[12]``."""
        for block in self.blocks.values():
            if block.start <= index < block.stop:
                return f"{block.name}[{index - block.start}]" if block.size > 1 else block.name
        raise IndexError(index)


def scaled(values, n: int) -> np.ndarray:
    """``values / n`` computed in float32 (both engines use this, so observations agree bit for bit)."""
    return np.asarray(values).astype(np.float32) / np.float32(n)
