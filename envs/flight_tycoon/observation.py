"""The observation vector of one seat, block by block (shared by both engines, the envs and the docs).

Seats are relative to the observer: offset 0 = me, 1 = next clockwise, … (FT-17). Every entry lies in
[0, 1]: bits, one-hots, and counts divided by the largest value they can take (``scales``).
The vector holds only what the seat may know (FT-13, FT-14); see ``docs/flight-tycoon.md``. It leaves one thing
out: the slot at which a card the seat can locate stands in another hand (a player who follows every move can
tell it; the search's sampler, ``knowledge.py``, honours it; a policy reading this vector does not see it).
"""

from __future__ import annotations

import numpy as np

from aerodeck.envs.common.layout import Block, blocks_table, stack_blocks
from aerodeck.envs.flight_tycoon.rules import N_CARDS, N_MONTHS, N_SQUARES, FlightTycoonRules

#: Divisor of hand sizes, deck size and slots ((slot + 1) / 48; 0 = none).
CARD_SCALE = 48


def inverse(scale: int) -> np.float32:
    """The float32 factor of a scaled count: an entry is ``float32(count) * inverse(scale)`` (both engines)."""
    return np.float32(1.0 / scale)


class ObservationLayout:
    """The blocks of the observation for ``n`` players (``size`` = 65·n + 158: 353, 418, 483): the
    core's ``observation`` attribute (``aerodeck.envs.common.core.ObservationLayout``)."""

    def __init__(self, rules: FlightTycoonRules) -> None:
        n = rules.n_players
        self.n_players = n
        #: divisor of VP totals: the most VP a game can give (every token landed on the best square).
        self.vp_scale = max(1, rules.tokens * max(rules.vp_table))
        #: divisor of token counts (per square and the stock).
        self.token_scale = rules.tokens
        specs = [
            ("hand", n * N_CARDS,
             "[t·48 + c]: card c is in the hand of offset t — offset 0: my hand; others: cards I can locate "
             "there (I gave, received or once held them, FT-14)"),
            ("discard", N_CARDS, "[c]: card c is in the discard pile (FT-13)"),
            ("laid", N_CARDS, "[c]: card c was laid aside for a tower: mine from my choice, everyone's after the reveal (FT-6)"),
            ("towers", n * N_MONTHS,
             "[t·12 + m]: (slot + 1)/48 of the tower of month m+1 in the hand of offset t, 0 if none "
             "(my own from my choice; every tower after the reveal, FT-13)"),
            ("hand_size", n, "[t]: cards in the hand of offset t, towers included, / 48 (FT-13)"),
            ("vp", n, "[t]: VP of offset t / vp_scale (FT-13)"),
            ("tokens", N_SQUARES, "[q]: tokens on square q / tokens (FT-13)"),
            ("deck", 1, "cards in the deck / 48 (FT-13)"),
            ("stock", 1, "tokens in the stock / tokens (FT-13)"),
            ("decision", 4, "one-hot kind of the decision now: tower, request, give, discard (all 0 when over)"),
            ("decider", n, "one-hot offset of the seat that decides now (all 0 when over)"),
            ("turn_active", n, "one-hot offset of the active player of the current or last turn (FT-13)"),
            ("turn_target", n, "one-hot offset of that turn's target (none if the turn passed)"),
            ("turn_square", N_SQUARES, "one-hot square requested in that turn"),
            ("turn_outcome", 4, "one-hot outcome of that turn: pending, landed, collided, passed (FT-13)"),
            ("turn_slots", 4,
             "(slot + 1)/48 of that turn's card movements, 0 if none: slot the given card was taken from (target), "
             "slot it landed in, slot of the active player's discarded card, slot the drawn card went into (FT-13)"),
        ]
        self.blocks, self.size = stack_blocks(specs)

    def __getitem__(self, name: str) -> Block:
        return self.blocks[name]

    def slice(self, name: str) -> slice:
        """The index range of a block."""
        return self.blocks[name].slice

    def describe(self) -> str:
        """A Markdown table of the blocks (index range, name, meaning)."""
        return blocks_table(self.blocks)
