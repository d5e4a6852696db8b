"""The metric catalogue's recorder on hand-made games (FT rule numbers in each test)."""

import numpy as np
import pytest

from aerodeck.envs.flight_tycoon.actions import request_action
from aerodeck.envs.flight_tycoon.core import FlightTycoonCore
from aerodeck.envs.flight_tycoon.metrics import CATALOGUE, Recorder
from aerodeck.envs.flight_tycoon.position import Position
from aerodeck.envs.flight_tycoon.rules import FlightTycoonRules
from tests.common.recording import record_moves

RULES = FlightTycoonRules(n_players=3)


def card(month: int, suit: int = 0) -> int:
    """FT-1: card id (month − 1) · 4 + suit."""
    return (month - 1) * 4 + suit


def rest(*used) -> list[int]:
    """Every card not in ``used``: the discard pile, so that the deck is empty (FT-12 ends the game at
    the end of the first turn)."""
    return sorted(set(range(48)) - set(used))


def play(positions, moves, lineups=None, focus=0, start=None):
    core = FlightTycoonCore(RULES)
    state = core.load_positions(positions)
    if start is not None:
        state.start[:] = start
    return state, record_moves(core, state, Recorder(core, len(positions), lineups=lineups, focus=focus), moves)


def value(result, name, game=0, column=0):
    num, den = result[name]
    return num[game, column] / den[game, column] if den[game, column] > 0 else None


def test_a_landing_scores_its_square_and_the_deck_ends_the_game():
    # Towers of months 1, 2, 3; seat 0 asks seat 1 for month 11 and gets its only card: no month-11
    # card or tower in seat 0's hand, so it lands (FT-10) for 1 VP (FT-11); the deck is empty (FT-12).
    hands = [[card(6)], [card(11)], [card(12)]]
    laid = [card(1), card(2), card(3)]
    position = Position(hands, laid, deck=[], discard=rest(*sum(hands, []), *laid))
    state, result = play([position], [[request_action(1, 10)]])
    assert state.done[0]
    assert value(result, "landings") == 1 and value(result, "collisions") == 0
    assert value(result, "game_length") == 1 and value(result, "decisions") == 1
    vp_num, vp_den = result["vp_by_square"]
    assert vp_num[0, 10] == 1 and vp_den[0, 10] == 1 and vp_num[0].sum() == 1
    assert result["landings_by_square"][0][0, 10] == 1
    assert value(result, "vp_concentration") == 1  # all VP from one square
    assert value(result, "vp_margin") == 1 and value(result, "tie_rate") == 0
    assert value(result, "first_player_win") == 1  # seat 0 started (FT-7) and won
    assert [value(result, "end_cause", column=c) for c in range(3)] == [0, 1, 0]  # deck, not stock
    assert value(result, "lead_changes") == 0  # the first leader is no change
    assert value(result, "skill_gap") is None  # one agent: no mixed table


def test_a_tower_blocks_the_last_real_card_of_its_month():
    # Seat 0's tower is month 1; cards 2 and 3 of month 1 are discarded, so seat 1's card(1, 1) is the
    # month's last real card. Asked for month 1, seat 1 must give it; it collides with the tower alone
    # (FT-10: the received card alone is discarded).
    hands = [[card(6)], [card(1, 1), card(11)], [card(12)]]
    laid = [card(1, 0), card(2), card(3)]
    position = Position(hands, laid, deck=[], discard=rest(*sum(hands, []), *laid))
    state, result = play([position], [[request_action(1, 0)]])
    assert state.done[0]
    assert value(result, "collisions") == 1 and value(result, "landings") == 0
    assert value(result, "tower_blocks") == 1
    assert value(result, "last_card_collisions") == 1  # 1 collided of 1 such give
    assert value(result, "vp_concentration") is None  # no VP scored: undefined


def test_lead_changes_and_seat_positions_count_from_the_starting_player():
    # Seat 1 starts (FT-7). It lands month 12 (1 VP), seat 2 lands a card of months 1-6 (8 VP): the lead
    # passes from seat 1 to seat 2; seat 0 then lands month 11 (1 VP). Seat 2 wins from position 2.
    hands = [[card(11, 1)], [card(6), card(11)], [card(12)]]
    laid = [card(1), card(2), card(3)]
    position = Position(hands, laid, deck=[], discard=rest(*sum(hands, []), *laid), active=1, start=1)
    moves = [[request_action(1, 11)]]  # seat 1 asks seat 2 for month 12 and the game ends (deck empty)
    state, result = play([position], moves)
    assert state.done[0] and value(result, "first_player_win") == 1
    parked = [0] * 23 + [27]  # 27 tokens on airline D: the stock's last 3 end the game (FT-12)
    longer = Position(hands, laid, deck=[card(7, 2)], discard=rest(*sum(hands, []), *laid, card(7, 2)),
                      tokens=parked, active=1, start=1)
    moves = [[request_action(1, 11)], [request_action(2, 16)], [request_action(2, 10)]]
    state, result = play([longer], moves)
    assert state.done[0] and state.vp[0].tolist() == [1, 1, 8]
    assert value(result, "lead_changes") == 1
    assert value(result, "win_by_position", column=1) == 1  # seat 2 is second from the start
    assert value(result, "first_player_win") == 0 and value(result, "win_by_position", column=3) is None


def test_skill_gap_is_the_focus_agents_share_of_the_win_in_mixed_tables_only():
    hands = [[card(6)], [card(11)], [card(12)]]
    laid = [card(1), card(2), card(3)]
    position = Position(hands, laid, deck=[], discard=rest(*sum(hands, []), *laid))
    lineups = np.array([[0, 1, 1], [1, 0, 1], [0, 0, 0]])  # seat 0 wins every game
    _, result = play([position] * 3, [[request_action(1, 10)] * 3], lineups=lineups, focus=0)
    assert [value(result, "skill_gap", game=g) for g in range(3)] == [1, 0, None]


def test_the_catalogue_names_every_recorded_metric_with_its_width():
    result = Recorder(FlightTycoonCore(RULES), 2).result()
    assert list(result) == CATALOGUE.names()
    for m in CATALOGUE.metrics:
        assert result[m.name][0].shape == result[m.name][1].shape == (2, m.width), m.name
        assert m.rules.startswith("FT-") and m.definition and m.unit
    with pytest.raises(ValueError, match="lineups must be"):
        Recorder(FlightTycoonCore(RULES), 2, lineups=np.zeros((2, 4)))


def test_a_given_tower_is_not_counted_as_a_last_real_card():
    # FT-9 with tower_giveable: a give may hand over the tower, which is no real card; the recorder once
    # read the missing card as index 64 and failed (IndexError) on such a step.
    from aerodeck.agents.random import RandomAgent
    from aerodeck.arena.loop import game_seeds, play_games

    rules = FlightTycoonRules(tower_giveable=True)
    core = FlightTycoonCore(rules, check_actions=False)
    recorder = Recorder(core, 300)
    play_games(core, [RandomAgent(0)], game_seeds(11, 300), progress=False, observers=[recorder])
    assert (recorder.last_collided <= recorder.last_gives).all()
    assert recorder.last_gives.sum() > 0  # the games did give last real cards
    numerator, denominator = recorder.result()["last_card_collisions"]
    assert np.isfinite(numerator).all() and np.isfinite(denominator).all()
