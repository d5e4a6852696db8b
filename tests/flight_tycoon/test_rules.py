"""The rules object: every option with its default, validated with errors that name the option."""

import pytest

from envs.flight_tycoon.rules import FlightTycoonRules


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
