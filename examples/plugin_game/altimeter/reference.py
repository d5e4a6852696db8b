"""Altimeter's reference engine: one game in plain Python, written to be read next to ``rules.md``.

Slow on purpose; it is the oracle the batched core is tested against (the same draws: the k-th
remaining card by altitude, k from the game's stream, ``aerodeck.envs.common.rng``).
"""

from __future__ import annotations

from altimeter.rules import AltimeterRules
from aerodeck.envs.common.rng import draw_below, game_key, stream

CLIMB, DESCEND, LAND = 0, 1, 2


class AltimeterGame:
    """One game: ``AltimeterGame(rules, seed)``; ``legal()``, ``step(action) -> reward``, ``observe()``."""

    def __init__(self, rules: AltimeterRules, seed: int) -> None:
        self.rules = rules
        self.key, self.counter = game_key(seed), 0
        self.remaining = [rules.copies] * rules.n_values  # AL-1: remaining[v - 1] cards of altitude v
        self.pot = self.score = 0
        self.done = False
        self.altitude = self.draw()  # AL-2

    def draw(self) -> int:
        """AL-1/AL-8: the k-th remaining card by altitude, k uniform below the cards left."""
        k = draw_below(stream(self.key, self.counter), sum(self.remaining))
        self.counter += 1
        for value, count in enumerate(self.remaining, start=1):
            if k < count:
                self.remaining[value - 1] -= 1
                return value
            k -= count
        raise AssertionError("drew from an empty deck")

    def legal(self) -> list[bool]:
        """AL-3: climb below the top altitude, descend above 1, land with points in the pot."""
        if self.done:
            return [False, False, False]
        return [self.altitude < self.rules.n_values, self.altitude > 1, self.pot > 0]

    def step(self, action: int) -> int:
        """Play ``action`` (legal); the points it banks (AL-7)."""
        assert self.legal()[action], f"illegal action {action}"
        if action == LAND:  # AL-5
            banked, self.pot = self.pot, 0
            self.score += banked
            return banked
        card = self.draw()  # AL-4
        right = card > self.altitude if action == CLIMB else card < self.altitude
        if right:
            self.pot += 1
        elif not (card == self.altitude and self.rules.tie == "hold"):
            self.pot = 0
        self.altitude = card
        if sum(self.remaining) == 0:  # AL-6
            banked, self.pot = self.pot, 0
            self.score += banked
            self.done = True
            return banked
        return 0

    def observe(self) -> list[float]:
        """The observation, entry by entry as the core lays it out."""
        r = self.rules
        one_hot = [1.0 if v == self.altitude else 0.0 for v in range(1, r.n_values + 1)]
        return one_hot + [c / r.copies for c in self.remaining] + [
            self.pot / r.deck_size, self.score / r.deck_size, sum(self.remaining) / r.deck_size]
