"""Flight Tycoon house rule: the last seat gets one extra card at the deal (a catch-up for playing last).

FT-7: a random player starts and turns go clockwise, so the *last* seat to play is the one just before
the starting player — known only once the start is drawn, after the hands are dealt (FT-5). The extra
card is therefore dealt after the start is drawn, from the deck, before the towers are chosen (FT-6)::

    aerodeck compare flight-tycoon --players 5 --house catchup:examples/house_rules/catchup.py:LastSeatExtraCard \\
        --metric win_by_position --judges heuristic --games 2000
"""

from aerodeck.envs.flight_tycoon.reference import ReferenceGame


class LastSeatExtraCard(ReferenceGame):
    """FT-5 and FT-7 as the engine plays them, then one more card from the deck for the seat that plays last."""

    def deal(self):
        super().deal()  # FT-5 hands, the deck; FT-7 the starting player (self.start)
        last = (self.start - 1) % self.n
        self.hands[last] = sorted(self.hands[last] + [self.take_random(self.deck)])
        self.note(f"player_{last} plays last: one extra card at the deal (house rule LastSeatExtraCard)")
