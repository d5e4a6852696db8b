"""A game position to start from — both engines accept it (scenario tests, puzzles, analysis)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from aerodeck.envs.flight_tycoon.rules import N_CARDS, N_SQUARES, FlightTycoonRules, month_of


@dataclasses.dataclass
class Position:
    """Where every card, tower and token is, and whose turn it is.

    ``hands``: the real cards of each seat. ``laid``: each seat's laid-aside card (FT-6), ``None`` for a
    seat that has not chosen yet — then the game is in the tower phase and the first such seat chooses
    (seats choose in order 0, 1, …); otherwise the towers are revealed and it is ``active``'s turn.
    ``deck``: ``None`` means every card not placed elsewhere. ``tokens``: per square (24), default none;
    ``stock`` defaults to the rest of ``rules.tokens``. ``tower_holders``: who holds each seat's tower
    (default its owner; ``None`` = discarded, only with ``tower_giveable``). ``known``: for each seat,
    cards in other hands it can locate (it gave, received or once held them), besides its own hand and
    the public cards.
    """

    hands: Sequence[Sequence[int]]
    laid: Sequence[int | None]
    deck: Sequence[int] | None = None
    discard: Sequence[int] = ()
    tokens: Sequence[int] | None = None
    stock: int | None = None
    vp: Sequence[int] | None = None
    active: int = 0
    start: int = 0
    tower_holders: Sequence[int | None] | None = None
    known: Sequence[Sequence[int]] | None = None

    def normalized(self, rules: FlightTycoonRules) -> Position:
        """A copy with every default filled in; ``ValueError`` naming the problem if it is not a position."""
        n = rules.n_players
        if len(self.hands) != n or len(self.laid) != n:
            raise ValueError(f"position: hands and laid need one entry per player ({n})")
        hands = [sorted(int(c) for c in h) for h in self.hands]
        laid = [None if c is None else int(c) for c in self.laid]
        placed = [c for h in hands for c in h] + [c for c in laid if c is not None] + [int(c) for c in self.discard]
        deck = sorted(set(range(N_CARDS)) - set(placed)) if self.deck is None else sorted(int(c) for c in self.deck)
        everything = placed + deck
        if sorted(everything) != list(range(N_CARDS)):
            missing = sorted(set(range(N_CARDS)) - set(everything))
            doubled = sorted({c for c in everything if everything.count(c) > 1})
            raise ValueError(f"position: every card 0–47 must be in exactly one place (missing {missing}, doubled {doubled})")
        chosen = [c is not None for c in laid]
        if not all(chosen):
            first = chosen.index(False)
            if any(chosen[first:]):
                raise ValueError("position: seats choose their towers in order 0, 1, …; a later seat chose before an earlier one")
        tokens = [0] * N_SQUARES if self.tokens is None else [int(t) for t in self.tokens]
        if len(tokens) != N_SQUARES or min(tokens) < 0:
            raise ValueError("position: tokens needs 24 non-negative counts, one per square")
        stock = rules.tokens - sum(tokens) if self.stock is None else int(self.stock)
        if stock < 0 or stock + sum(tokens) != rules.tokens:
            raise ValueError(f"position: stock + tokens on the map must equal the 'tokens' option ({rules.tokens})")
        holders = list(range(n)) if self.tower_holders is None else [None if h is None else int(h) for h in self.tower_holders]
        if len(holders) != n or any(h is not None and not 0 <= h < n for h in holders):
            raise ValueError("position: tower_holders needs one seat (or None) per tower")
        if holders != list(range(n)) and not rules.tower_giveable:
            raise ValueError("position: towers change hands only with the rule option 'tower_giveable'")
        if not all(chosen) and holders != list(range(n)):
            raise ValueError("position: towers move only after the reveal")
        for h in range(n):  # FT-10: a tower can only have landed where no card of its month stood
            months = [month_of(laid[t]) for t in range(n) if holders[t] == h and laid[t] is not None]
            if len(months) != len(set(months)):
                raise ValueError(f"position: seat {h} holds two towers of one month")
        known = [[] for _ in range(n)] if self.known is None else [sorted(int(c) for c in k) for k in self.known]
        for seat, cards in enumerate(known):
            for c in cards:
                if not any(c in hands[h] for h in range(n) if h != seat):
                    raise ValueError(f"position: seat {seat} cannot know card {c}: it is not in another player's hand")
        if not all(chosen) and any(known):
            raise ValueError("position: nobody can locate other players' cards before the reveal")
        if not 0 <= self.active < n or not 0 <= self.start < n:
            raise ValueError(f"position: active and start must be seats 0..{n - 1}")
        vp = [0] * n if self.vp is None else [int(v) for v in self.vp]
        if len(vp) != n:
            raise ValueError(f"position: vp needs one entry per player ({n})")
        active = chosen.index(False) if not all(chosen) else self.active
        return Position(hands, laid, deck, sorted(int(c) for c in self.discard), tokens, stock, vp, active,
                        self.start, holders, known)
