"""The reference engine: one game of Airport Scramble in plain Python, to be read next to the rules.

Slow on purpose: it is the oracle that the batched core (``core.py``) is tested against, field by
field, after every step. Rule numbers (AS-n) refer to ``shared/rules/airport-scramble.md``.

**Hook methods** — a house rule (``docs/designers.md``, "Write a house rule") is a subclass of
:class:`ReferenceGame` that overrides some of these; each is called at one point of the rules:

- ``set_up()`` — AS-6: the first ticket, the die, the table and the face-up slots.
- ``legal_mask()`` — AS-8 … AS-11, AS-15, AS-18: the legal actions of the decision now.
- ``flight_stops(path)`` — AS-12: the cells of a flight (``path``, the cells flown over in order,
  the last one where the plane ends) where the passenger may board or be delivered.
- ``arrive(cell)`` — AS-12: the passenger boards or is delivered at ``cell``; returns the reward.
- ``complete_ticket()`` — AS-16 scoring: the ticket is completed; returns the reward.
- ``end_turn()`` — AS-13: the die goes down, the end check (a failed ticket), the next turn's points.
- ``draw_ticket()`` — AS-14 (the end check when the deck is empty) and AS-15.

Draw randomness only with ``random_below(n)`` / ``draw_airport()`` / ``draw_ticket_card()`` (the game's
counter-based stream), so a game stays a function of its seed and its actions. A hook may name what
it did in the game's log (``aerodeck replay``, ``aerodeck play``) with ``note(text)``; the reward a
hook returns is the reward of the decision. A house-ruled game still going after
``max_decisions`` decisions (a class attribute, default 10,000) is stopped as an error.
"""

from __future__ import annotations

import numpy as np

from aerodeck.envs.airport_scramble.actions import (
    FLY, PLAY, REMOVE_LINE, REPLACE, STEPS, ActionLayout, choosable_lines, explain_illegal, fly_cost,
    lines, misfit, on_frontier, reach, replace_blocked,
)
from aerodeck.envs.airport_scramble.observation import ObservationLayout, scaled
from aerodeck.envs.airport_scramble.position import LINE_CHOICE, TURN_ACTION, Position
from aerodeck.envs.airport_scramble.rules import AirportScrambleRules
from aerodeck.envs.common import rng
from aerodeck.envs.common.checks import IllegalActionError, check_seed


class ReferenceGame:
    """One game: ``legal_mask()``, ``observe()``, ``step(action) -> reward`` with the core's semantics.

    It holds the fields of a :class:`Position` as plain Python values, so the legality functions of
    ``actions.py`` read it directly (``explain_illegal(rules, game, action)``).
    """

    def __init__(self, rules: AirportScrambleRules, seed: int = 0) -> None:
        self._bind(rules)
        self.key = rng.game_key(check_seed(seed))
        self.counter = 0
        self.notes: list[str] = []
        self.set_up()

    def _bind(self, rules: AirportScrambleRules) -> None:
        self.rules = rules
        self.comp = rules.components
        self.actions = ActionLayout.of(rules)
        self.observation = ObservationLayout(rules)
        self.G = rules.grid_size

    @classmethod
    def from_position(cls, rules: AirportScrambleRules, position: Position) -> ReferenceGame:
        """A game in the given position (tests build positions with ``make_position``)."""
        game = cls.__new__(cls)
        game._bind(rules)
        game.notes = []
        game.grid = [list(row) for row in position.grid]
        game.plane = tuple(position.plane)
        game.slots = list(position.slots)
        game.deck = set(position.deck)
        game.ticket_deck = set(position.ticket_deck)
        for name in ("ticket", "die", "points", "aboard", "phase", "redraw_used", "score", "done", "key", "counter"):
            setattr(game, name, getattr(position, name))
        return game

    def snapshot(self) -> Position:
        """The game's full state (what ``AirportScrambleCore.snapshot`` gives for a game of the core)."""
        return Position(
            grid=tuple(tuple(row) for row in self.grid),
            plane=tuple(self.plane),
            slots=tuple(self.slots),
            deck=frozenset(self.deck),
            ticket_deck=frozenset(self.ticket_deck),
            ticket=self.ticket,
            die=self.die,
            points=self.points,
            aboard=self.aboard,
            phase=self.phase,
            redraw_used=self.redraw_used,
            score=self.score,
            done=self.done,
            key=self.key,
            counter=self.counter,
        )

    # --- randomness (AS-17, docs/architecture.md) --------------------------------------------------

    def random_below(self, n: int) -> int:
        """A uniform integer in ``0 … n−1`` from the game's stream (the next draw of its counter)."""
        value = rng.draw_below(rng.stream(self.key, self.counter), n)
        self.counter += 1
        return value

    def draw_airport(self) -> int:
        """Draw the k-th remaining airport card by id (the same, in distribution, as the top card)."""
        card = sorted(self.deck)[self.random_below(len(self.deck))]
        self.deck.remove(card)
        return card

    def draw_ticket_card(self) -> int:
        """Draw the k-th remaining ticket by id (AS-14)."""
        ticket = sorted(self.ticket_deck)[self.random_below(len(self.ticket_deck))]
        self.ticket_deck.remove(ticket)
        return ticket

    def note(self, text: str) -> None:
        """Name what a hook did (e.g. ``"delivered in flight (house rule)"``) in the game's log."""
        self.notes.append(text)

    # --- set-up (AS-6) ------------------------------------------------------------------------------

    def set_up(self) -> None:
        """Hook, AS-6: the first ticket and the die, the origin at the centre under the plane, the
        destination in slot 0, the other slots filled; the passenger aboard."""
        G, F = self.G, self.rules.face_up
        self.grid = [[-1] * G for _ in range(G)]
        self.deck = set(range(self.comp.n_cards))
        self.ticket_deck = set(range(self.comp.n_tickets))
        # AS-6: draw the first ticket and set the die; it never triggers AS-15.
        self.ticket = self.draw_ticket_card()
        self.die = self.rules.turns_on_die[self.ticket]
        origin, destination = self._ticket_airports()
        self.deck -= {origin, destination}
        centre = G // 2
        self.grid[centre][centre] = origin
        self.plane = (centre, centre)
        self.slots = [-1] * F
        self.slots[0] = destination
        for s in range(1, F):  # slots 1 .. F-1 in order; a slot stays empty if the deck is empty
            if self.deck:
                self.slots[s] = self.draw_airport()
        self.aboard = True  # AS-6: the passenger boards at once
        self.points = self.rules.action_points
        self.phase = TURN_ACTION
        self.redraw_used = False
        self.score = 0
        self.done = False

    # --- what the table looks like --------------------------------------------------------------------

    def _ticket_airports(self) -> tuple[int, int]:
        return self.comp.ticket_origin[self.ticket], self.comp.ticket_destination[self.ticket]

    def _cell_of(self, card: int) -> tuple[int, int] | None:
        for r in range(self.G):
            for c in range(self.G):
                if self.grid[r][c] == card:
                    return (r, c)
        return None

    # --- decisions (AS-18, AS-19) ---------------------------------------------------------------------

    def legal_mask(self) -> np.ndarray:
        """Hook, AS-8 … AS-11, AS-15: ``bool (n_actions,)``, exactly the legal actions of the decision
        to be made now (none once the game is over; at least one while it is not)."""
        L, rules = self.actions, self.rules
        mask = np.zeros(L.n_actions, dtype=bool)
        if self.done:
            return mask
        if self.phase == LINE_CHOICE:  # AS-15: only a line may be chosen
            for orientation, r, c, _ in choosable_lines(self):
                mask[L.line(orientation, r, c)] = True
            return mask
        for d in range(4):  # AS-8
            full = reach(self, d)
            for k in range(1, full + 1):
                mask[L.fly(d, k)] = fly_cost(rules, k, full) <= self.points
        frontier = [(r, c) for r in range(self.G) for c in range(self.G) if on_frontier(self, r, c)]
        for s, card in enumerate(self.slots):  # AS-9
            if card >= 0:
                for r, c in frontier:
                    mask[L.play(s, r, c)] = misfit(rules, self, card, r, c) is None
        for m in range(1, L.n_replace + 1):  # AS-10
            mask[L.replace(m)] = replace_blocked(rules, self, m) is None
        # AS-11: wait costs 1 (always affordable: a turn ends at 0 points).
        mask[L.wait] = rules.allow_wait or not mask.any()
        return mask

    def explain_illegal(self, action: int) -> str | None:
        """Why ``action`` is illegal now (a sentence), or None if it is legal (``actions.explain_illegal``)."""
        return explain_illegal(self.rules, self, action)

    # --- playing --------------------------------------------------------------------------------------

    def step(self, action: int) -> float:
        """Play one legal action; return the reward (+1 per completed ticket, AS-16).

        A finished game ignores its action (reward 0); an illegal action raises
        :class:`~envs.common.checks.IllegalActionError`.
        """
        self.notes = []
        if self.done:
            return 0.0
        reason = self.explain_illegal(action)
        if reason is not None:
            raise IllegalActionError(f"action {action} ({self._describe(action)}) is illegal: {reason}")
        kind, *args = self.actions.decode(action)
        if kind == REMOVE_LINE:
            self._remove_line(*args)
            return 0.0
        reward = 0.0
        if kind == FLY:
            d, k = args
            self.points -= fly_cost(self.rules, k, reach(self, d))
            reward = self._fly(d, k)
        elif kind == PLAY:
            self.points -= 1
            self._play(*args)
        elif kind == REPLACE:
            self.points -= self.rules.replace_cost
            self._replace(args[0])
        else:
            self.points -= 1  # AS-11 wait
        if self.points == 0:  # AS-7
            self.end_turn()
        return reward

    def _describe(self, action: int) -> str:
        try:
            return self.actions.describe(action)
        except ValueError:
            return "unknown"

    def _fly(self, d: int, k: int) -> float:
        """AS-8 and AS-12."""
        dr, dc = STEPS[d]
        r, c = self.plane
        path = [(r + dr * j, c + dc * j) for j in range(1, k + 1)]
        self.plane = path[-1]
        return sum(self.arrive(cell) for cell in self.flight_stops(path))

    def flight_stops(self, path: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Hook, AS-12: the cells of a flight where the passenger may board or be delivered, in order.
        ``path``: the cells flown over, the last the one where the plane ends. The end only, or every
        cell with the option ``pickup_in_flight``."""
        return path if self.rules.pickup_in_flight else path[-1:]

    def arrive(self, cell: tuple[int, int]) -> float:
        """Hook, AS-12: boarding at the origin, completing at the destination; returns the reward."""
        if self.ticket < 0:
            return 0.0
        origin, destination = self._ticket_airports()
        card = self.grid[cell[0]][cell[1]]
        if not self.aboard and card == origin:
            self.aboard = True
        elif self.aboard and card == destination:
            return self.complete_ticket()
        return 0.0

    def complete_ticket(self) -> float:
        """Hook, AS-12 and AS-16 (scoring): the ticket is completed — score +1, the ticket set aside (the
        next is drawn at the start of the next turn, AS-13); returns the reward (+1)."""
        self.score += 1  # AS-16
        self.ticket = -1
        self.die = 0
        self.aboard = False
        return 1.0

    def _play(self, slot: int, r: int, c: int) -> None:
        """AS-9: place the card and refill its slot at once (it stays empty if the deck is empty)."""
        self.grid[r][c] = self.slots[slot]
        self.slots[slot] = self.draw_airport() if self.deck else -1

    def _replace(self, slot_mask: int) -> None:
        """AS-10: draw the replacements (slot order), then shuffle the chosen cards back."""
        chosen = [s for s in range(self.rules.face_up) if slot_mask >> s & 1]
        returned = [self.slots[s] for s in chosen]
        for s in chosen:
            self.slots[s] = self.draw_airport()
        self.deck |= set(returned)

    def end_turn(self) -> None:
        """Hook, AS-13 (a turn's end and the end check): the die goes down for an open ticket — at 0
        the game is over (AS-16) —, else the next turn's points; a completed ticket is followed by a
        new draw (``draw_ticket``)."""
        if self.ticket >= 0:
            self.die -= 1
            if self.die == 0:
                self.done = True  # AS-16: the ticket failed
                return
        self.points = self.rules.action_points
        self.redraw_used = False
        if self.ticket < 0:
            self.draw_ticket()

    def draw_ticket(self) -> None:
        """Hook, AS-14 (the end check: an empty ticket deck ends the game, won) and AS-15 (the
        pre-played ticket rule), then AS-12's board-on-draw."""
        if not self.ticket_deck:
            self.done = True  # AS-14/16: every ticket was completed
            return
        self.ticket = self.draw_ticket_card()
        self.die = self.rules.turns_on_die[self.ticket]
        self.aboard = False
        origin, destination = self._ticket_airports()
        preplayed = self._cell_of(origin) is not None and self._cell_of(destination) is not None
        if preplayed and self.rules.preplayed_rule == "remove_line":
            if choosable_lines(self):  # else: no line may be chosen, the ticket is kept
                self.ticket_deck.add(self.ticket)
                self.ticket, self.die = -1, 0
                self.phase = LINE_CHOICE
                return
        elif preplayed and self.rules.preplayed_rule == "redraw" and not self.redraw_used:
            self.ticket_deck.add(self.ticket)
            self.redraw_used = True
            self.ticket = self.draw_ticket_card()
            self.die = self.rules.turns_on_die[self.ticket]
        if self.rules.board_on_draw and self.grid[self.plane[0]][self.plane[1]] == self._ticket_airports()[0]:
            self.aboard = True

    def _remove_line(self, orientation: int, r: int, c: int) -> None:
        """AS-15: shuffle the line's cards back, relocate the plane, draw a new ticket."""
        cells = next(line[3] for line in lines(self) if line[:3] == (orientation, r, c))
        for rr, cc in cells:
            self.deck.add(self.grid[rr][cc])
            self.grid[rr][cc] = -1
        if self.grid[self.plane[0]][self.plane[1]] < 0:
            pr, pc = self.plane
            remaining = [(rr, cc) for rr in range(self.G) for cc in range(self.G) if self.grid[rr][cc] >= 0]
            self.plane = min(remaining, key=lambda cell: (abs(cell[0] - pr) + abs(cell[1] - pc), cell[0], cell[1]))
        self.phase = TURN_ACTION
        self.draw_ticket()

    # --- what the player sees (AS-17) -----------------------------------------------------------------

    def observe(self) -> np.ndarray:
        """``float32 (obs_size,)``, laid out as ``ObservationLayout`` (docs/airport-scramble.md)."""
        lay, comp = self.observation, self.comp
        obs = np.zeros(lay.size, dtype=np.float32)
        colour = lay.color_values  # colour c is colour[c + 1]; 0 = no card

        def put(name: str, index: int, value) -> None:
            obs[lay.blocks[name].start + index] = value

        for r in range(self.G):
            for c in range(self.G):
                card = self.grid[r][c]
                if card >= 0:
                    put("cell_hv", 2 * (r * self.G + c), colour[comp.card_h[card] + 1])
                    put("cell_hv", 2 * (r * self.G + c) + 1, colour[comp.card_v[card] + 1])
                    put("card_place", card, lay.place_values[1 + r * self.G + c])  # AS-17: where each card is
        put("plane", self.plane[0] * self.G + self.plane[1], 1.0)
        for s, card in enumerate(self.slots):
            if card >= 0:
                put("slot_hv", 2 * s, colour[comp.card_h[card] + 1])
                put("slot_hv", 2 * s + 1, colour[comp.card_v[card] + 1])
                put("card_place", card, lay.place_values[1 + self.G**2 + s])
        if self.ticket >= 0:
            for name, card in zip(("origin", "destination"), self._ticket_airports()):
                cell = self._cell_of(card)
                if cell is not None:
                    put(f"{name}_cell", cell[0] * self.G + cell[1], 1.0)
                    put(f"{name}_place", 0, 1.0)
                elif card in self.slots:
                    put(f"slot_{name}", self.slots.index(card), 1.0)
                    put(f"{name}_place", 1, 1.0)
                else:
                    put(f"{name}_place", 2, 1.0)
                put(f"{name}_hv", 0, colour[comp.card_h[card] + 1])
                put(f"{name}_hv", 1, colour[comp.card_v[card] + 1])
        put("die", 0, scaled(self.die, lay.die_scale))
        put("points", 0, scaled(self.points, self.rules.action_points))
        put("aboard", 0, float(self.aboard))
        put("ticket_active", 0, float(self.ticket >= 0))
        put("line_choice", 0, float(self.phase == LINE_CHOICE))
        put("redraw_used", 0, float(self.redraw_used))
        put("deck_size", 0, scaled(len(self.deck), comp.n_cards))
        put("ticket_deck_size", 0, scaled(len(self.ticket_deck), comp.n_tickets))
        put("score", 0, scaled(self.score, comp.n_tickets))
        for card in self.deck:
            put("deck", card, 1.0)
        for ticket in self.ticket_deck:
            put("ticket_deck", ticket, 1.0)
        return obs
