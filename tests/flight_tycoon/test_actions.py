"""The components (FT-1, FT-3) and the action indices (FT-17)."""

import numpy as np

from envs.flight_tycoon.board import (
    SQUARE_CARDS, SQUARE_KIND, SQUARE_MONTHS, action_name, card_name, decode_action, month_of, n_actions,
    request_action, suit_of,
)

from .helpers import card


def test_card_ids_are_month_and_suit():  # FT-1
    assert card("1A") == 0 and card("12D") == 47 and card("5C") == 18
    assert all((month_of(c) + 1, suit_of(c)) == ((c // 4) + 1, c % 4) for c in range(48))
    assert card_name(18) == "5C"


def test_square_conditions_match_the_schedule_map():  # FT-3
    counts = SQUARE_CARDS.sum(1)
    assert counts[:12].tolist() == [4] * 12  # single month
    assert counts[12:16].tolist() == [12] * 4  # seasons of three months
    assert counts[16:20].tolist() == [24] * 4  # half-years, odd, even
    assert counts[20:].tolist() == [12] * 4  # airlines
    winter = np.flatnonzero(SQUARE_CARDS[15]) // 4 + 1
    assert sorted(set(winter)) == [1, 2, 12]
    assert set(np.flatnonzero(SQUARE_CARDS[18]) // 4 + 1) == {1, 3, 5, 7, 9, 11}
    assert set(np.flatnonzero(SQUARE_CARDS[22]) % 4) == {2}
    assert not SQUARE_MONTHS[20:].any()  # a tower (a month) never meets an airline square
    assert SQUARE_KIND.tolist() == [0] * 12 + [1] * 4 + [2] * 2 + [3] * 2 + [4] * 4


def test_action_indices_follow_ft17():
    assert [n_actions(n) for n in (3, 4, 5)] == [96, 120, 144]
    assert request_action(1, 0) == 48 and request_action(2, 5) == 48 + 24 + 5
    assert decode_action(7) == ("card", 7)
    assert decode_action(request_action(3, 23)) == ("request", 3, 23)
    assert action_name(request_action(1, 18)) == "ask +1 on odd months"
