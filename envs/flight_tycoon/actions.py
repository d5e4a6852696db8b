"""The action indices of Flight Tycoon (FT-17) and why an action is illegal, as pure functions.

Actions 0–47 name a card (the tower to lay aside, the card to give or to discard: FT-6, FT-9,
FT-10); action ``48 + (t − 1)·24 + q`` requests square q from the player t seats clockwise
(FT-8). :class:`ActionLayout` is the core's ``actions`` attribute (``aerodeck.envs.common.core.ActionLayout``).
"""

from __future__ import annotations

from aerodeck.envs.flight_tycoon.rules import (
    DISCARD, GIVE, N_CARDS, N_SQUARES, OVER, PHASE_NAMES, REQUEST, SQUARE_NAMES, TOWER, FlightTycoonRules, card_name,
)

#: The decision kinds (FT-16), indexed by ``State.phase`` (``TOWER`` … ``DISCARD``): what a card action
#: is depends on the phase; a request action is always a request.
KINDS = PHASE_NAMES[:4]


class ActionLayout:
    """The actions of one player count: ``n_actions`` = 48 + 24·(n − 1) (96, 120, 144), ``kinds``
    (tower, request, give, discard; ``FlightTycoonCore.action_kinds`` indexes them), ``describe(a)``."""

    kinds = KINDS

    def __init__(self, rules: FlightTycoonRules) -> None:
        self.n_players = rules.n_players
        self.n_actions = n_actions(self.n_players)

    def describe(self, action: int) -> str:
        """The action in the game's words, e.g. ``"card 5B"`` or ``"ask +2 on odd months"``."""
        if not 0 <= action < self.n_actions:
            raise ValueError(f"action must be an integer in 0..{self.n_actions - 1}, got {action!r}")
        return action_name(action)


def n_actions(n_players: int) -> int:
    """48 card actions + 24 squares for each other seat (FT-17): 96, 120, 144 for 3, 4, 5 players."""
    return N_CARDS + N_SQUARES * (n_players - 1)


def request_action(offset: int, square: int) -> int:
    """The index of requesting from the player ``offset`` seats clockwise (1 … n−1) on ``square`` (FT-17)."""
    return N_CARDS + (offset - 1) * N_SQUARES + square


def decode_action(action: int) -> tuple:
    """``("card", card)`` or ``("request", offset, square)`` for an action index (FT-17)."""
    if action < N_CARDS:
        return ("card", action)
    offset, square = divmod(action - N_CARDS, N_SQUARES)
    return ("request", offset + 1, square)


def action_name(action: int) -> str:
    """A readable name of an action index, e.g. ``card 5B`` or ``ask +2 on odd months``."""
    kind, *args = decode_action(action)
    if kind == "card":
        return f"card {card_name(args[0])}"
    return f"ask +{args[0]} on {SQUARE_NAMES[args[1]]}"


def illegal_reason(kind: int, action: int, n_players: int, *, hand=(), square: int = -1, month: int = -1,
                   tower_cards=(), tower_giveable: bool = False) -> str:
    """Why ``action`` is illegal for a decision of ``kind`` (FT-16), in words.

    ``hand``: the real cards of the seat that decides; ``square``: the requested square (give);
    ``month``: the colliding 0-based month (discard); ``tower_cards``: the laid-aside ids naming the
    towers that seat holds. Call it only for an action the legal mask refuses.
    """
    total = n_actions(n_players)
    if not 0 <= action < total:
        return f"action {action} is outside 0..{total - 1}"
    prefix = f"action {action} ({action_name(action)}) is illegal: "
    if kind == OVER:
        return prefix + "the game is over"
    is_card = action < N_CARDS
    if kind == REQUEST:
        if is_card:
            return prefix + f"it is a request turn, choose a request (actions {N_CARDS}..{total - 1}) (FT-8)"
        return prefix + f"the player at offset {decode_action(action)[1]} holds no real card (FT-8)"
    if not is_card:
        what = {TOWER: "the card to lay aside for your tower (FT-6)", GIVE: "the card to give (FT-9)",
                DISCARD: "the card to discard (FT-10)"}[kind]
        return prefix + f"choose {what}, not a request"
    if action in tower_cards and kind == GIVE and tower_giveable:
        return prefix + f"your tower does not meet '{SQUARE_NAMES[square]}' and you hold a card that does (FT-9)"
    if action in tower_cards:
        return prefix + "the tower is never given (FT-9)" if kind == GIVE else prefix + "that card is your tower"
    if action not in hand:
        return prefix + f"card {card_name(action)} is not in your hand"
    if kind == GIVE:
        return prefix + f"card {card_name(action)} does not meet '{SQUARE_NAMES[square]}' and you hold a card that does (FT-9)"
    if kind == DISCARD:
        return prefix + f"card {card_name(action)} is not of month {month + 1}, the colliding month (FT-10)"
    return prefix + "not allowed now"
