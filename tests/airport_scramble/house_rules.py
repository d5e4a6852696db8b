"""Broken Airport Scramble house rules (subclasses of its reference engine), each with what its one-line
error says: one raises, one empties the legal mask, one never ends."""

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
