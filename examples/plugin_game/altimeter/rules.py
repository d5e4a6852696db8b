"""Altimeter's rules object: every option of ``rules.md`` with its default, validated on construction."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from aerodeck.envs.common.options import RuleOptions, choice, integer, option

#: The tie rules (AL-4): an equal card crashes the pot, or holds it.
TIES = ("crash", "hold")


@dataclasses.dataclass(frozen=True)
class AltimeterRules(RuleOptions):
    """Altimeter's rule options (AL-1, AL-4)."""

    game: ClassVar[str] = "altimeter"

    n_values: int = option(9, integer(3, 13), "altitudes on the cards: 1..n_values (AL-1)")
    copies: int = option(4, integer(1, 6), "cards of each altitude in the deck (AL-1)")
    tie: str = option("crash", choice(*TIES), "an equal card crashes the pot or holds it (AL-4)")

    @property
    def deck_size(self) -> int:
        """The cards in the deck (AL-1)."""
        return self.n_values * self.copies
