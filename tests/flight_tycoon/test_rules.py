"""The components (FT-1, FT-3) and the rules object: every option with its default, validated with
errors that name the option."""

import numpy as np
import pytest

from aerodeck.envs.common.bits import unpack_bits
from aerodeck.envs.flight_tycoon.rules import (
    MONTH_BITS, MONTH_CARDS, SQUARE_BITS, SQUARE_CARDS, SQUARE_KIND, SQUARE_MONTHS, SUIT_BITS, TOWER_MEETS,
    FlightTycoonRules, card_name, month_of, suit_of,
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


def test_the_packed_card_tables_are_the_boolean_tables():
    assert np.array_equal(unpack_bits(MONTH_BITS, 48), MONTH_CARDS)
    assert np.array_equal(unpack_bits(SQUARE_BITS, 48), SQUARE_CARDS)
    assert np.array_equal(unpack_bits(SUIT_BITS, 48), np.arange(48)[None, :] % 4 == np.arange(4)[:, None])
    towers = unpack_bits(TOWER_MEETS, 48)  # FT-2: a tower, named by its laid id, meets a square by its month
    assert np.array_equal(towers, SQUARE_MONTHS[:, np.arange(48) // 4])
    assert not towers[20:].any() and np.array_equal(towers[:20], SQUARE_CARDS[:20])
    with pytest.raises(ValueError, match="read-only"):
        SQUARE_BITS[0] = 0


def test_defaults_are_draft_zero():
    rules = FlightTycoonRules()
    assert (rules.n_players, rules.hand_size, rules.tokens) == (4, 8, 30)
    assert rules.vp_table == (1, 5, 8, 10, 6)  # FT-3
    assert (rules.vp_sharing, rules.rank_step, rules.tower_giveable, rules.reward) == ("split", 2, False, "outcome")
    assert rules.label() == "default"


def test_options_parse_from_strings_and_toml(tmp_path):
    rules = FlightTycoonRules.from_strings(["n_players=5", "vp_table=1,2,3,4,5", "tower_giveable=on", "vp_sharing=rank"])
    assert (rules.n_players, rules.vp_table, rules.tower_giveable, rules.vp_sharing) == (5, (1, 2, 3, 4, 5), True, "rank")
    path = tmp_path / "variant.toml"
    path.write_text("[rules]\nn_players = 3\nhand_size = 10\nreward = \"vp\"\n")
    assert FlightTycoonRules.from_toml(path) == FlightTycoonRules(n_players=3, hand_size=10, reward="vp")
    assert "vp_sharing" in FlightTycoonRules.describe_options()


@pytest.mark.parametrize(
    "options, message",
    [
        ({"n_players": 2}, r"'n_players'.*3\.\.5"),  # FT-5
        ({"n_players": 6}, r"'n_players'.*3\.\.5"),
        ({"hand_size": 1}, r"'hand_size'"),
        ({"n_players": 5, "hand_size": 10}, r"'n_players' \(5\) and 'hand_size' \(10\) leave no deck.*below 48"),
        ({"n_players": 4, "hand_size": 12}, r"hand_size at most 11"),
        ({"tokens": 0}, r"'tokens'"),
        ({"vp_table": (1, 5, 8, 10)}, r"'vp_table'.*5 comma-separated integers.*single month, season"),
        ({"vp_table": "1,5,x,10,6"}, r"'vp_table'"),
        ({"vp_table": (1, 5, 8, 10, -6)}, r"'vp_table'.*0\.\.100"),
        ({"vp_sharing": "even"}, r"'vp_sharing'.*split, first_only, rank"),
        ({"rank_step": -1}, r"'rank_step'"),
        ({"reward": "score"}, r"'reward'.*outcome, vp"),
        ({"tower_giveable": "maybe"}, r"'tower_giveable'"),
        ({"n_player": 4}, r"unknown rule option 'n_player'.*did you mean 'n_players'"),
    ],
)
def test_bad_options_are_refused_naming_the_option(options, message):
    with pytest.raises(ValueError, match=message):
        FlightTycoonRules.from_options(**options)


@pytest.mark.parametrize("n, largest", [(3, 15), (4, 11), (5, 9)])
def test_the_largest_deal_that_leaves_a_deck_is_allowed(n, largest):  # FT-5
    assert FlightTycoonRules(n_players=n, hand_size=largest).hand_size == largest
    if largest < 15:
        with pytest.raises(ValueError, match="leave no deck"):
            FlightTycoonRules(n_players=n, hand_size=largest + 1)
