"""One game's full state as plain Python values: what both engines export and load.

Tests build scenarios with :func:`make_position` and load them into either engine
(``ReferenceGame.from_position`` / ``AirportScrambleCore.load_positions``); the differential test
compares the :class:`Position` each engine exports (``snapshot``) after every step.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence

from aerodeck.envs.airport_scramble.rules import AirportScrambleRules
from aerodeck.envs.common import rng

TURN_ACTION, LINE_CHOICE = 0, 1  # AS-18: the two kinds of decision (the game's phase)


@dataclasses.dataclass(frozen=True)
class Position:
    """Everything about one game (the hidden deck order does not exist: draws are k-th remaining).

    ``grid[r][c]`` is a card id or -1; ``plane`` is (row, col); ``slots[s]`` a card id or -1;
    ``deck`` / ``ticket_deck`` the ids in the airport / ticket deck; ``ticket`` the current ticket
    or -1 (completed, or during the AS-15 line choice); ``die`` its turns left (0 without a ticket);
    ``points`` action points left; ``phase`` :data:`TURN_ACTION` or :data:`LINE_CHOICE`;
    ``key``/``counter`` the random stream (AS-17, docs/architecture.md).
    """

    grid: tuple[tuple[int, ...], ...]
    plane: tuple[int, int]
    slots: tuple[int, ...]
    deck: frozenset[int]
    ticket_deck: frozenset[int]
    ticket: int
    die: int
    points: int
    aboard: bool
    phase: int
    redraw_used: bool
    score: int
    done: bool
    key: int
    counter: int

    def cards_in_play(self) -> dict[int, tuple[int, int]]:
        """Card id -> (row, col) of every card on the table."""
        return {card: (r, c) for r, row in enumerate(self.grid) for c, card in enumerate(row) if card >= 0}


def make_position(
    rules: AirportScrambleRules,
    cards: Mapping[tuple[int, int], str | int],
    *,
    plane: tuple[int, int] | None = None,
    slots: Sequence[str | int | None] = (),
    ticket: int | None = None,
    die: int | None = None,
    points: int | None = None,
    aboard: bool = False,
    phase: int = TURN_ACTION,
    redraw_used: bool = False,
    deck: Iterable[str | int] | None = None,
    ticket_deck: Iterable[int] | None = None,
    set_aside: Iterable[int] | None = None,
    done: bool = False,
    seed: int = 0,
    counter: int = 0,
) -> Position:
    """Build a :class:`Position` by hand (for scenario tests and examples).

    ``cards`` maps (row, col) to a card code or id; ``slots`` lists the face-up cards (codes/ids,
    ``None`` = empty; padded to ``face_up`` with empty slots). By default the airport deck holds every
    card not on the table or face up; the completed tickets (``set_aside``; the score is their number)
    are those neither current nor in ``ticket_deck`` (no ticket is completed if neither is given);
    the die shows the ticket's turns; the plane stands on the first card given; the turn has all its
    action points.
    """
    comp = rules.components
    G, F = rules.grid_size, rules.face_up
    grid = [[-1] * G for _ in range(G)]
    placed: list[int] = []
    for (r, c), card in cards.items():
        if not (0 <= r < G and 0 <= c < G):
            raise ValueError(f"cell ({r}, {c}) is outside the {G}x{G} grid (AS-5)")
        grid[r][c] = comp.card(card)
        placed.append(grid[r][c])
    face_up = [-1 if s is None else comp.card(s) for s in slots]
    if len(face_up) > F:
        raise ValueError(f"{len(face_up)} slots given but face_up is {F}")
    face_up += [-1] * (F - len(face_up))
    used = placed + [s for s in face_up if s >= 0]
    if len(set(used)) != len(used):
        raise ValueError("a card is placed twice (every card is in exactly one place)")
    deck_ids = set(range(comp.n_cards)) - set(used) if deck is None else {comp.card(c) for c in deck}
    if deck_ids & set(used):
        raise ValueError("a card is both in the deck and on the table or face up")
    if plane is None:
        plane = next(iter(cards))
    if grid[plane[0]][plane[1]] < 0:
        raise ValueError(f"the plane at {plane} must stand on a card")
    current = -1 if ticket is None else ticket
    every = set(range(comp.n_tickets))
    if ticket_deck is None:
        set_aside = set(set_aside or ())
        tickets = every - set_aside - {current}
    else:
        tickets = set(ticket_deck)
        set_aside = every - tickets - {current} if set_aside is None else set(set_aside)
    return Position(
        grid=tuple(tuple(row) for row in grid),
        plane=(int(plane[0]), int(plane[1])),
        slots=tuple(face_up),
        deck=frozenset(deck_ids),
        ticket_deck=frozenset(tickets),
        ticket=current,
        die=(rules.turns_on_die[current] if current >= 0 else 0) if die is None else die,
        points=rules.action_points if points is None else points,
        aboard=aboard,
        phase=phase,
        redraw_used=redraw_used,
        score=len(set_aside),
        done=done,
        key=rng.game_key(seed),
        counter=counter,
    )
