"""Test helpers for house rules: the shipped examples, and broken house rules written to a folder."""

from __future__ import annotations

import textwrap
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "house_rules"


def house_file(tmp_path: Path, body: str, name: str = "rules.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


BROKEN = {
    "raises": """
        from aerodeck.envs.airport_scramble.reference import ReferenceGame
        class Raises(ReferenceGame):
            def end_turn(self):
                raise RuntimeError("the die fell off the table")
        """,
    "empty": """
        from aerodeck.envs.airport_scramble.reference import ReferenceGame
        class Empty(ReferenceGame):
            def legal_mask(self):
                mask = super().legal_mask()
                return mask & False if self.points == 1 else mask
        """,
    "endless": """
        from aerodeck.envs.airport_scramble.reference import ReferenceGame
        class Endless(ReferenceGame):
            max_decisions = 150
            def end_turn(self):  # AS-13 without its die: no ticket ever fails, and the tickets come round again
                self.points = self.rules.action_points
                self.redraw_used = False
                if self.ticket < 0:
                    if not self.ticket_deck:
                        self.ticket_deck = set(range(self.comp.n_tickets))
                    self.draw_ticket()
        """,
}
WHAT = {"raises": "RuntimeError in step: the die fell off the table",
        "empty": "no legal action (an empty legal mask) in a game that is not over",
        "endless": "the game has not ended after 150 decisions"}
