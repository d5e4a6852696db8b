"""The components of Flight Tycoon (FT-1 … FT-4) and the action indices (FT-17), shared by every module.

Cards are ids 0–47 (FT-1: id = (month − 1)·4 + suit); inside the code months are 0-based (0 = January).
A hand is sorted by month, then suit, with a tower first within its month (FT-6). That order is the
order of the *sort key* below: a real card's key is ``5·month + 1 + suit``, a tower's ``5·month``, so
"slot" (a card's 0-based position in its holder's hand) is the number of items with a smaller key.
"""

from __future__ import annotations

import numpy as np

N_CARDS = 48
N_MONTHS = 12
N_SUITS = 4
N_SQUARES = 24
AIRLINES = "ABCD"

# Decision kinds (FT-16) and the engine's phase after the game: the values of ``State.phase``.
TOWER, REQUEST, GIVE, DISCARD, OVER = range(5)
PHASE_NAMES = ("tower", "request", "give", "discard", "over")

# Outcome of the turn record (FT-13 "the outcome"); -1 = no turn recorded yet.
PENDING, LANDED, COLLIDED, PASSED = range(4)
OUTCOME_NAMES = ("pending", "landed", "collided", "passed")

# FT-3: the kind of each square (an index into ``vp_table``) and its name.
SINGLE, SEASON, HALF, PARITY, AIRLINE = range(5)
SQUARE_KIND = np.array([SINGLE] * 12 + [SEASON] * 4 + [HALF] * 2 + [PARITY] * 2 + [AIRLINE] * 4, dtype=np.int64)
SQUARE_NAMES = (
    tuple(f"month {m}" for m in range(1, 13))
    + ("spring 3-5", "summer 6-8", "autumn 9-11", "winter 12-2", "months 1-6", "months 7-12", "odd months", "even months")
    + tuple(f"airline {a}" for a in AIRLINES)
)
_SEASONS = ((3, 4, 5), (6, 7, 8), (9, 10, 11), (12, 1, 2))


def month_of(card: int) -> int:
    """The 0-based month of a card id (FT-1)."""
    return card // N_SUITS


def suit_of(card: int) -> int:
    """The suit (airline) 0–3 of a card id (FT-1)."""
    return card % N_SUITS


def card_name(card: int) -> str:
    """``"12C"``: the month 1–12 and the airline letter."""
    return f"{month_of(card) + 1}{AIRLINES[suit_of(card)]}"


def card_key(card: int) -> int:
    """A real card's sort key in a hand (FT-6: by month, then suit, after the month's tower)."""
    return 5 * month_of(card) + 1 + suit_of(card)


def tower_key(month: int) -> int:
    """A tower's sort key in a hand (FT-6: first within its 0-based month)."""
    return 5 * month


def _square_months(square: int) -> tuple[int, ...]:
    """The 1-based months a square accepts (FT-3); empty for the airline squares."""
    if square < 12:
        return (square + 1,)
    if square < 16:
        return _SEASONS[square - 12]
    if square < 18:
        return tuple(range(1, 7)) if square == 16 else tuple(range(7, 13))
    if square < 20:
        return tuple(range(1, 13, 2)) if square == 18 else tuple(range(2, 13, 2))
    return ()


#: ``bool (24, 12)``: the square accepts the (0-based) month — what a tower matches (FT-2: a tower is a month).
SQUARE_MONTHS = np.zeros((N_SQUARES, N_MONTHS), dtype=bool)
#: ``bool (24, 48)``: the card meets the square's condition (FT-3).
SQUARE_CARDS = np.zeros((N_SQUARES, N_CARDS), dtype=bool)
for _q in range(N_SQUARES):
    for _m in _square_months(_q):
        SQUARE_MONTHS[_q, _m - 1] = True
    for _c in range(N_CARDS):
        SQUARE_CARDS[_q, _c] = SQUARE_MONTHS[_q, month_of(_c)] if _q < 20 else suit_of(_c) == _q - 20
#: ``bool (12, 48)``: the cards of each month.
MONTH_CARDS = np.zeros((N_MONTHS, N_CARDS), dtype=bool)
MONTH_CARDS[np.arange(N_CARDS) // N_SUITS, np.arange(N_CARDS)] = True
SQUARE_CARDS.setflags(write=False)
SQUARE_MONTHS.setflags(write=False)
MONTH_CARDS.setflags(write=False)


def square_accepts(square: int, card: int) -> bool:
    """Whether a real card meets the condition of a square (FT-3)."""
    return bool(SQUARE_CARDS[square, card])


# --- FT-17 action indices ------------------------------------------------------------------------

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


def landing_vp_table(rules) -> np.ndarray:
    """FT-11: ``int64 (24, tokens + 2)``, [q, k] the VP of a landing on square q that makes k tokens
    there, the new one included, under ``rules.vp_sharing`` (``rules``: a ``FlightTycoonRules``)."""
    base = np.asarray(rules.vp_table, np.int64)[SQUARE_KIND][:, None]
    k = np.arange(rules.tokens + 2)[None, :]
    if rules.vp_sharing == "split":
        return base // np.maximum(k, 1)
    if rules.vp_sharing == "first_only":
        return np.where(k == 1, base, 0)
    return np.maximum(base - (k - 1) * rules.rank_step, 0)  # rank

