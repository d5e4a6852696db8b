"""One scenario per rule (FT-5 … FT-17), each played on both engines in lockstep (``Both`` checks
that the core and the reference agree on every field, mask and observation after every step)."""

import numpy as np
import pytest

from aerodeck.envs.common.rng import draw_below, game_key, stream
from aerodeck.envs.flight_tycoon.actions import request_action
from aerodeck.envs.flight_tycoon.observation import ObservationLayout
from aerodeck.envs.flight_tycoon.position import Position
from aerodeck.envs.flight_tycoon.rules import (
    COLLIDED, DISCARD, GIVE, LANDED, OVER, PASSED, REQUEST, SQUARE_NAMES, FlightTycoonRules,
)

from .helpers import Both, card, cards, revealed

# A four-player position after the reveal; towers: seat 0 month 4, seat 1 month 7, seat 2 month 12, seat 3 month 9.
HANDS = ["1A 3B 6C 9D", "2A 2B 5C 8A 11B", "1B 6A 6B 10C", "3A 5A 8B 12B"]
LAID = ["4A", "7A", "12A", "9A"]


def sq(name: str) -> int:
    return SQUARE_NAMES.index(name)


def block(game: Both, obs: np.ndarray, name: str) -> np.ndarray:
    return obs[ObservationLayout(game.rules).slice(name)]


def start(hands=HANDS, laid=LAID, rules=None, **kw) -> Both:
    return Both(rules or FlightTycoonRules(), revealed(hands, laid, **kw))


# --- set-up ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n, hand_size", [(3, 8), (4, 8), (5, 9), (3, 15)])
def test_ft5_deal_gives_each_seat_hand_size_cards_and_the_rest_is_the_deck(n, hand_size):
    """FT-5: deal gives each seat hand size cards and the rest is the deck."""
    game = Both(FlightTycoonRules(n_players=n, hand_size=hand_size), seed=11)
    snap = game.snap
    assert [len(h) for h in snap["hands"]] == [hand_size] * n
    assert len(snap["deck"]) == 48 - n * hand_size
    assert sorted(sum(snap["hands"], []) + snap["deck"]) == list(range(48))


def test_ft5_the_deal_draws_the_kth_remaining_card_of_the_seed_stream():
    """FT-5: the deal draws the kth remaining card of the seed stream."""
    game = Both(FlightTycoonRules(), seed=5)
    key, remaining = game_key(5), list(range(48))
    first = [remaining.pop(draw_below(stream(key, i), 48 - i)) for i in range(8)]
    assert game.snap["hands"][0] == sorted(first)


def test_ft6_tower_stands_first_within_its_month_and_is_hidden_until_the_reveal():
    """FT-6: tower stands first within its month and is hidden until the reveal."""
    position = Position(hands=[cards("2A 5A 5C 7B 9D"), cards("1A 3C 5B 8D 10A"), cards("2B 4A 6C 11A 12D"),
                               cards("1C 3A 6A 8A 12A")], laid=[None] * 4)
    game = Both(FlightTycoonRules(), position)
    before = [game.obs(s) for s in range(1, 4)]
    game.step(card("5C"))  # seat 0 lays 5C aside: its tower is month 5
    towers = block(game, game.obs(0), "towers").reshape(4, 12)
    assert towers[0, 4] == np.float32(2) * np.float32(1 / 48)  # slot 1: after 2A, before 5A
    assert block(game, game.obs(0), "laid")[card("5C")] == 1
    for seat, old in zip(range(1, 4), before):  # nobody else sees the choice (FT-6, FT-14)
        assert np.array_equal(np.delete(game.obs(seat), ObservationLayout(game.rules).slice("decider")),
                              np.delete(old, ObservationLayout(game.rules).slice("decider")))
    for c in ("3C", "6C", "12A"):
        game.step(card(c))
    assert game.phase == REQUEST  # all chose: the reveal
    seen = block(game, game.obs(2), "towers").reshape(4, 12)
    assert seen[(0 - 2) % 4, 4] > 0 and seen[(1 - 2) % 4, 2] > 0  # seat 0's month-5 tower, seat 1's month-3
    assert block(game, game.obs(2), "laid")[cards("5C 3C 6C 12A")].tolist() == [1, 1, 1, 1]
    assert card("5C") not in sum(game.snap["hands"], []) + game.snap["deck"]  # out of play


def test_ft7_a_random_seat_starts_and_turns_go_clockwise():
    """FT-7: a random seat starts and turns go clockwise."""
    game = Both(FlightTycoonRules(), seed=21)
    expected_start = draw_below(stream(game_key(21), 32), 4)  # the draw after the 32 dealt cards
    for _ in range(4):
        game.step(game.legal()[0])
    assert game.phase == REQUEST and game.to_act == expected_start
    while game.snap["record"]["outcome"] in (-1, 0):  # until the start player's turn is over
        game.step(game.legal()[0])
    assert game.snap["record"]["active"] == expected_start
    assert game.phase == REQUEST and game.to_act == (expected_start + 1) % 4


# --- a turn ---------------------------------------------------------------------------------------------

def test_ft8_only_players_holding_a_real_card_can_be_asked_on_any_square_even_with_tokens():
    """FT-8: only players holding a real card can be asked on any square even with tokens."""
    tokens = [0] * 24
    tokens[sq("even months")] = 3
    game = start(hands=["1A 3B", "", "1B 6A", "3A 5A"], tokens=tokens)
    mask = game.ref.legal_mask()
    assert not mask[:48].any()
    assert not mask[request_action(1, 0):request_action(2, 0)].any()  # seat 1 holds only its tower
    assert mask[request_action(2, 0):].all()
    game.step(request_action(2, sq("even months")))  # a square already holding tokens; 6A lands
    assert game.snap["tokens"][sq("even months")] == 4 and game.snap["vp"][0] == 10 // 4


def test_ft8_with_no_other_player_holding_a_real_card_the_turn_passes():
    """FT-8: with no other player holding a real card the turn passes."""
    game = start(hands=["1A 3B", "", "", ""], active=0)
    assert game.snap["record"] == {**game.snap["record"], "active": 0, "outcome": PASSED, "target": -1}
    assert game.to_act == 1 and game.phase == REQUEST  # seat 1 may ask seat 0
    assert block(game, game.obs(2), "turn_outcome").tolist() == [0, 0, 0, 1]


def test_ft9_the_target_chooses_among_its_matching_cards():
    """FT-9: the target chooses among its matching cards."""
    game = start()
    game.step(request_action(1, sq("month 2")))
    assert game.phase == GIVE and game.to_act == 1
    assert game.legal() == cards("2A 2B")


def test_ft9_a_single_matching_card_is_given_without_a_decision():
    """FT-9: a single matching card is given without a decision."""
    game = start()
    game.step(request_action(1, sq("month 5")))  # seat 1 holds 5C only
    assert card("5C") in game.snap["hands"][0]
    assert game.phase == REQUEST and game.to_act == 1


def test_ft9_without_a_matching_card_any_real_card_may_be_given_never_the_tower():
    """FT-9: without a matching card any real card may be given never the tower."""
    game = start()
    game.step(request_action(2, sq("month 12")))  # seat 2 holds only its month-12 tower
    assert game.phase == GIVE and game.legal() == cards("1B 6A 6B 10C")
    assert card("12A") not in game.legal()


def test_ft9_tower_giveable_lets_the_tower_meet_month_squares():
    """FT-9: tower giveable lets the tower meet month squares."""
    game = start(rules=FlightTycoonRules(tower_giveable=True))
    game.step(request_action(2, sq("month 12")))  # the tower is the only match: given without a decision
    snap = game.snap
    assert snap["tower_holders"] == [0, 1, 0, 3]  # it landed in seat 0's hand
    towers = block(game, game.obs(0), "towers").reshape(4, 12)
    assert towers[0, 3] > 0 and towers[0, 11] > 0
    assert snap["vp"][0] == 1


def test_ft9_tower_giveable_never_matches_an_airline_square_but_may_be_given_when_nothing_matches():
    """FT-9: tower giveable never matches an airline square but may be given when nothing matches."""
    game = start(hands=HANDS[:2] + ["6A 6B", HANDS[3]], rules=FlightTycoonRules(tower_giveable=True))
    game.step(request_action(2, sq("airline D")))
    assert game.legal() == sorted(cards("6A 6B 12A"))


def test_ft10_a_card_of_a_new_month_lands_at_its_sorted_slot_and_scores():
    """FT-10: a card of a new month lands at its sorted slot and scores."""
    game = start()
    game.step(request_action(1, sq("month 2")))
    game.step(card("2B"))
    snap = game.snap
    assert card("2B") in snap["hands"][0] and card("2B") not in snap["hands"][1]
    assert snap["record"]["outcome"] == LANDED
    assert (snap["record"]["give"], snap["record"]["land"]) == (1, 1)  # 2A [2B] 5C T7 … → 1A [2B] 3B T4 …
    assert snap["vp"][0] == 1 and snap["tokens"][sq("month 2")] == 1


def test_ft10_a_collision_discards_both_cards_returns_the_token_and_draws():
    """FT-10: a collision discards both cards returns the token and draws."""
    game = start(deck="7C 7D")
    game.step(request_action(3, sq("month 3")))  # 3A, forced; seat 0 holds 3B
    snap = game.snap
    assert snap["record"]["outcome"] == COLLIDED
    assert card("3A") in snap["discard"] and card("3B") in snap["discard"]
    assert snap["tokens"][sq("month 3")] == 0 and snap["stock"] == 30
    assert len(snap["deck"]) == 1 and len(snap["hands"][0]) == 4  # 4 − 1 + 1 drawn
    drawn = (set(cards("7C 7D")) - set(snap["deck"])).pop()
    assert drawn in snap["hands"][0]
    assert snap["record"]["discard"] == 1 and snap["record"]["draw"] >= 0


def test_ft10_a_drawn_card_is_not_checked_for_collision():
    """FT-10: a drawn card is not checked for collision."""
    game = start(deck="6D 9C")  # seat 0 holds 6C and 9D: either draw shares a month with it
    game.step(request_action(3, sq("month 3")))
    hand = game.snap["hands"][0]
    assert len(set(cards("6D 9C")) & set(hand)) == 1 and card("6C") in hand and card("9D") in hand


def test_ft2_ft10_a_collision_with_only_the_tower_discards_the_received_card_alone():
    """FT-2, FT-10: a collision with only the tower discards the received card alone."""
    game = start(hands=["1A 3B 6C 9D", "2A 4C 8A", HANDS[2], HANDS[3]], deck="7C 7D")
    game.step(request_action(1, sq("month 4")))  # 4C meets seat 0's month-4 tower
    snap = game.snap
    assert card("4C") in snap["discard"] and snap["tower_holders"][0] == 0
    assert snap["record"]["outcome"] == COLLIDED and snap["record"]["discard"] == -1
    assert len(snap["hands"][0]) == 5  # nothing left the hand, one card drawn


def test_ft10_with_several_cards_of_the_month_the_active_player_chooses_the_discard():
    """FT-10: with several cards of the month the active player chooses the discard."""
    game = start(hands=["1A 6C 6D 9D", "2A 6B 8A", "1B 6A 10C", HANDS[3]])
    game.step(request_action(1, sq("month 6")))  # 6B forced; seat 0 holds 6C and 6D
    assert game.phase == DISCARD and game.to_act == 0 and game.legal() == cards("6C 6D")
    game.step(card("6D"))
    assert {card("6B"), card("6D")} <= set(game.snap["discard"]) and card("6C") in game.snap["hands"][0]


def test_ft10_an_empty_deck_gives_nothing_to_draw():
    """FT-10: an empty deck gives nothing to draw."""
    game = start(deck="")
    game.step(request_action(3, sq("month 3")))
    assert len(game.snap["hands"][0]) == 3 and game.snap["record"]["draw"] == -1


@pytest.mark.parametrize(
    "sharing, step, gain",
    [("split", 2, 10 // 3), ("first_only", 2, 0), ("rank", 2, 10 - 2 * 2), ("rank", 4, 2), ("rank", 6, 0)],
)
def test_ft11_vp_sharing_on_a_square_that_already_holds_two_tokens(sharing, step, gain):
    """FT-11: vp sharing on a square that already holds two tokens."""
    tokens = [0] * 24
    tokens[sq("odd months")] = 2
    game = start(rules=FlightTycoonRules(vp_sharing=sharing, rank_step=step), tokens=tokens)
    game.step(request_action(1, sq("odd months")))  # seat 1 holds 5C and 11B
    game.step(card("5C"))
    assert game.snap["vp"][0] == gain


def test_ft11_the_first_token_scores_the_base_value_of_the_vp_table():
    """FT-11: the first token scores the base value of the vp table."""
    game = start(rules=FlightTycoonRules(vp_table=(2, 3, 4, 5, 7), vp_sharing="first_only"))
    game.step(request_action(1, sq("airline C")))  # seat 1: 5C is its only airline C card
    assert game.snap["vp"][0] == 7


def test_ft12_the_game_ends_when_the_deck_is_empty_at_the_end_of_a_turn():
    """FT-12: the game ends when the deck is empty at the end of a turn."""
    game = start(deck="7C")
    game.step(request_action(3, sq("month 3")))  # collision: the last card is drawn
    assert game.snap["done"] and game.phase == OVER


def test_ft12_the_game_ends_when_the_stock_is_empty():
    """FT-12: the game ends when the stock is empty."""
    tokens = [0] * 24
    tokens[sq("month 1")] = 29
    game = start(tokens=tokens)
    game.step(request_action(1, sq("month 5")))  # lands: the last token stays on the map
    assert game.snap["stock"] == 0 and game.snap["done"]


def test_ft12_a_collision_returns_the_last_token_and_the_game_goes_on():
    """FT-12: a collision returns the last token and the game goes on."""
    tokens = [0] * 24
    tokens[sq("month 1")] = 29
    game = start(tokens=tokens)
    game.step(request_action(3, sq("month 3")))
    assert game.snap["stock"] == 1 and not game.snap["done"]


def test_ft12_a_game_where_nobody_holds_a_real_card_ends():
    """FT-12: a game where nobody holds a real card ends."""
    game = start(hands=["", "", "", ""], vp=[0, 3, 0, 0])
    assert game.snap["done"]


@pytest.mark.parametrize(
    "hands, winners",
    [
        (["1A 3B 6C 9D", "2A 2B 5C 8A 11B", "1B", "3A 5A 8B"], [1]),  # VP tie 5–5: seat 1 holds more real cards
        (["1A 3B 6C 9D", "2A 2B 5C 8A", "1B", "3A 5A 8B"], [0, 1]),  # a tie on both: a shared win
    ],
)
def test_ft12_ft15_the_winner_by_vp_then_real_cards_then_a_shared_win(hands, winners):
    """FT-12, FT-15: the winner by vp then real cards then a shared win."""
    game = start(hands=hands, deck="", vp=[5, 5, 0, 0], active=2)
    rewards = game.step(request_action(1, sq("month 5")))  # seat 2 lands 5A (+1 VP); the deck is empty: over
    assert game.snap["done"] and game.snap["vp"] == [5, 5, 1, 0]
    expected = [1 / len(winners) if s in winners else -1 / 3 for s in range(4)]
    assert rewards.tolist() == pytest.approx(expected)
    assert rewards.dtype == np.float32


def test_ft15_outcome_rewards_sum_to_zero_with_one_winner():
    """FT-15: outcome rewards sum to zero with one winner."""
    game = start(deck="", vp=[9, 0, 0, 0])
    rewards = game.step(request_action(1, sq("month 5")))
    assert rewards.tolist() == pytest.approx([1, -1 / 3, -1 / 3, -1 / 3]) and abs(rewards.sum()) < 1e-6


def test_ft15_vp_rewards_pay_each_landing_at_once_and_nothing_at_the_end():
    """FT-15: vp rewards pay each landing at once and nothing at the end."""
    game = start(rules=FlightTycoonRules(reward="vp"), deck="")
    rewards = game.step(request_action(1, sq("airline C")))  # lands 5C on an airline square: 6 VP
    assert rewards.tolist() == [6, 0, 0, 0] and game.snap["done"]


# --- information and interface ----------------------------------------------------------------------

def test_ft13_ft14_slots_are_public_the_card_only_known_to_both_parties():
    """FT-13, FT-14: slots are public the card only known to both parties."""
    game = start()
    game.step(request_action(1, sq("month 2")))
    game.step(card("2B"))
    lay = ObservationLayout(game.rules)
    for seat in range(4):
        obs = game.obs(seat)
        slots = obs[lay.slice("turn_slots")]
        assert slots[0] == np.float32(2) * np.float32(1 / 48) and slots[1] == np.float32(2) * np.float32(1 / 48)
        hand = obs[lay.slice("hand")].reshape(4, 48)
        assert hand[(0 - seat) % 4, card("2B")] == (1 if seat in (0, 1) else 0)


def test_ft14_a_located_card_is_followed_when_it_changes_hands_again():
    """FT-14: a located card is followed when it changes hands again."""
    game = start()
    game.step(request_action(1, sq("month 2")))
    game.step(card("2B"))  # seat 1 gives 2B to seat 0
    game.step(request_action(1, sq("month 10")))  # seat 1 lands 10C from seat 2
    game.step(request_action(1, sq("month 12")))  # seat 2: 12B meets its tower, discarded
    game.step(request_action(1, sq("month 2")))  # seat 3 gets 2B from seat 0, forced: it lands
    assert card("2B") in game.snap["hands"][3]
    rows = {seat: block(game, game.obs(seat), "hand").reshape(4, 48)[(3 - seat) % 4, card("2B")] for seat in range(4)}
    assert rows == {0: 1, 1: 1, 2: 0, 3: 1}  # seat 1 followed it through public slots; seat 2 never saw it


def test_ft16_decision_kinds_are_announced_and_forced_steps_are_no_decisions():
    """FT-16: decision kinds are announced and forced steps are no decisions."""
    game = start(hands=["1A 6C 6D 9D", "2A 6B 8A", "1B 6A 10C", HANDS[3]])
    assert block(game, game.obs(2), "decision").tolist() == [0, 1, 0, 0]
    game.step(request_action(1, sq("month 6")))  # forced give, then a discard decision
    assert block(game, game.obs(2), "decision").tolist() == [0, 0, 0, 1]
    assert block(game, game.obs(2), "decider").tolist() == [0, 0, 1, 0]  # seat 0 is offset 2 from seat 2


def test_ft17_requests_name_the_target_by_its_offset_from_the_active_player():
    """FT-17: requests name the target by its offset from the active player."""
    game = start(active=2)
    game.step(request_action(3, sq("month 2")))  # offset 3 from seat 2 is seat 1
    assert game.snap["target"] == 1 and game.to_act == 1
    assert block(game, game.obs(2), "turn_target").tolist() == [0, 0, 0, 1]
