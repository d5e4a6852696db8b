"""The Flight Tycoon rules: the components (FT-1 … FT-4) and every rule option of
``shared/rules/flight-tycoon.md``, validated.

Cards are ids 0–47 (FT-1: id = (month − 1)·4 + suit); inside the code months are 0-based (0 = January).
A hand is sorted by month, then suit, with a tower first within its month (FT-6). That order is the
order of the *sort key* below: a real card's key is ``5·month + 1 + suit``, a tower's ``5·month``, so
"slot" (a card's 0-based position in its holder's hand) is the number of items with a smaller key.
Sets of cards are packed ``uint64`` words, bit c = card c (``aerodeck.envs.common.bits``); the packed tables
below are built here once and shared by the engines, the sampler and the agents.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from aerodeck.envs.common.bits import BIT, pack_bits
from aerodeck.envs.common.options import RuleOptions, choice, flag, integer, integers, option

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

#: ``uint64 (48,)``: the one-card set of each card id.
CARD_BITS = BIT[:N_CARDS]
#: ``uint64``: every card.
ALL_CARDS = np.uint64((1 << N_CARDS) - 1)
#: ``int64 (48,)``: the 0-based month and the suit (airline) of each card id (FT-1).
CARD_MONTH = np.arange(N_CARDS) // N_SUITS
CARD_SUIT = np.arange(N_CARDS) % N_SUITS
#: ``uint64 (12,)`` the cards of each month; ``uint64 (4,)`` of each airline; ``uint64 (24,)`` the cards
#: meeting each square (FT-3).
MONTH_BITS = pack_bits(MONTH_CARDS)
SUIT_BITS = pack_bits(CARD_SUIT[None, :] == np.arange(N_SUITS)[:, None])
SQUARE_BITS = pack_bits(SQUARE_CARDS)
#: ``uint64 (24,)``: the laid-aside ids whose tower meets each square (FT-2: a tower counts as its month).
TOWER_MEETS = pack_bits(SQUARE_MONTHS[:, CARD_MONTH])
for _table in (SQUARE_KIND, CARD_MONTH, CARD_SUIT, MONTH_BITS, SUIT_BITS, SQUARE_BITS, TOWER_MEETS):
    _table.setflags(write=False)


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


VP_TABLE_ORDER = "single month, season, half-year, odd/even, airline"


@dataclasses.dataclass(frozen=True)
class FlightTycoonRules(RuleOptions):
    """Rule options of Flight Tycoon (defaults = the notebook's draft 0).

    Build with ``FlightTycoonRules(n_players=5)``, ``from_strings(["vp_sharing=rank"])`` or
    ``from_toml(path)``; an unknown option or a bad value raises ``ValueError`` naming it.
    """

    game = "Flight Tycoon"

    n_players: int = option(4, integer(3, 5), "players around the table (FT-5)")
    hand_size: int = option(8, integer(2, 15), "cards dealt to each player (FT-5)")
    tokens: int = option(30, integer(1, 200), "route tokens in the stock (FT-4)")
    vp_table: tuple = option(
        (1, 5, 8, 10, 6), integers(0, 100, length=5), f"base VP of the squares: {VP_TABLE_ORDER} (FT-3)"
    )
    vp_sharing: str = option(
        "split", choice("split", "first_only", "rank"), "how tokens on one square share its VP (FT-11)"
    )
    rank_step: int = option(2, integer(0, 100), "VP lost per earlier token with vp_sharing=rank (FT-11)")
    tower_giveable: bool = option(False, flag(), "a target may give its tower as a card of its month (FT-9)")
    reward: str = option("outcome", choice("outcome", "vp"), "outcome: ±1 at the end; vp: each landing's VP (FT-15)")

    def __post_init__(self) -> None:
        try:
            super().__post_init__()
        except ValueError as err:
            if "'vp_table'" in str(err):  # say which value is which
                raise ValueError(f"{err}, in the order {VP_TABLE_ORDER}") from None
            raise

    def check(self) -> None:
        """FT-5: the deal must leave a deck (``n_players × hand_size < 48``)."""
        if self.n_players * self.hand_size >= 48:
            raise ValueError(
                f"rule options 'n_players' ({self.n_players}) and 'hand_size' ({self.hand_size}) leave no deck: "
                f"n_players × hand_size = {self.n_players * self.hand_size} must be below 48 (FT-5); "
                f"allowed: hand_size at most {47 // self.n_players} for {self.n_players} players"
            )
