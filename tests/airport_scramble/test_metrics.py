"""The metric catalogue's recorder on hand-made games (AS rule numbers in each test)."""

import numpy as np
import pytest

from aerodeck.envs.airport_scramble.actions import KINDS, ActionLayout
from aerodeck.envs.airport_scramble.core import AirportScrambleCore
from aerodeck.envs.airport_scramble.metrics import CATALOGUE, STAGE_ROWS, TICKET_TURN_ROWS, Recorder, metrics
from aerodeck.envs.airport_scramble.position import make_position
from aerodeck.envs.airport_scramble.rules import AirportScrambleRules
from tests.common.recording import record_moves

RULES = AirportScrambleRules()
LAYOUT = ActionLayout.of(RULES)
# A pink row ATL-ORD-SFO through the centre and ZRH under ORD (AS-2 colours match on every side).
TABLE = {(4, 4): "ATL", (4, 5): "ORD", (4, 6): "SFO", (5, 5): "ZRH"}
K = {kind: i for i, kind in enumerate(KINDS)}


def play(positions, moves):
    """Load the positions, play ``moves`` (one action per game per step; None: the game sits the step
    out by waiting only if it is over) and return the recorder's result by metric."""
    core = AirportScrambleCore(RULES)
    state = core.load_positions(positions)
    result = record_moves(core, state, Recorder(core, len(positions)), moves)
    return core, state, result


def value(result, name, game=0):
    num, den = result[name]
    return num[game] / np.where(den[game] > 0, den[game], np.nan)


def test_a_whole_game_stop_early_completion_preplayed_line_removal_and_failure():
    # Ticket 1 ATL->ORD (3 turns) aboard at ATL; the only ticket left, 19 ORD->ZRH, is pre-played once
    # drawn (AS-15) and only the ATL-ORD-SFO row may be removed (ZRH alone stays connected).
    start = make_position(RULES, TABLE, ticket=1, aboard=True, ticket_deck=[19], set_aside=[])
    wait, remove_row = LAYOUT.wait, LAYOUT.line(0, 4, 4)
    moves = [[LAYOUT.fly(1, 1)], [remove_row]] + [[wait]] * 8  # AS-8 stop early (2 points) completes it
    core, state, result = play([start], moves)
    assert state.done[0] and state.score[0] == 1 and state.ticket[0] == 19  # AS-13: 19 failed after 4 turns
    assert value(result, "score") == 1 and value(result, "one_ticket") == 1 and value(result, "zero_tickets") == 0
    assert value(result, "won") == 0
    assert value(result, "turns") == 5  # the turn of the flight, then ticket 19's four turns of waiting
    assert value(result, "decisions") == 10
    assert value(result, "turns_per_ticket") == 1  # completed in its first turn
    assert value(result, "line_removals") == 1 and value(result, "preplayed") == 1
    assert value(result, "cards_in_play") == 1  # ZRH (AS-15: the row went back to the deck)
    completion = result["ticket_completion"]
    assert completion[0][0, 1] == 1 and completion[1][0, 1] == 1  # ticket 1: 1 of 1
    assert completion[0][0, 19] == 0 and completion[1][0, 19] == 1  # ticket 19: 0 of 1 (the pre-played draw is no attempt)
    by_turns = result["completion_by_turns"]
    assert by_turns[1][0, 2] == 1 and by_turns[1][0, 3] == 1  # a 3-turn and a 4-turn ticket attempted
    counts = result["action_mix_by_ticket_turn"][0][0].reshape(len(TICKET_TURN_ROWS), len(KINDS))
    expected = np.zeros_like(counts)
    expected[0, K["stop_early"]] = expected[0, K["remove_line"]] = 1
    expected[:4, K["wait"]] += 2  # two waits in each of ticket 19's turns 1..4
    assert (counts == expected).all()
    stage = result["action_mix_by_stage"][0][0].reshape(len(STAGE_ROWS), len(KINDS))
    assert stage[0, K["stop_early"]] == 1 and stage[1, K["remove_line"]] == 1 and stage[1, K["wait"]] == 8
    mix_num, mix_den = result["action_mix"]
    assert mix_num[0, K["wait"]] == 8 and (mix_den[0] == 10).all()
    cards_num, cards_den = result["cards_in_play_by_turn"]
    assert cards_num[0, :5].tolist() == [4, 1, 1, 1, 1] and cards_den[0, :6].tolist() == [1, 1, 1, 1, 1, 0]


def test_a_flight_of_the_full_reach_is_fly_and_passing_the_destination_completes_nothing():
    start = make_position(RULES, TABLE, ticket=1, aboard=True)
    _, state, result = play([start, start], [[LAYOUT.fly(1, 2), LAYOUT.wait]])
    assert state.score.tolist() == [0, 0] and state.points.tolist() == [1, 1]  # AS-8: full reach costs 1
    kinds = result["action_mix"][0]
    assert kinds[0, K["fly"]] == 1 and kinds[0, K["stop_early"]] == 0
    assert kinds[1, K["wait"]] == 1
    assert value(result, "turns").tolist() == [0]  # the turn goes on
    assert result["turns_per_ticket"][1][0, 0] == 0  # no ticket completed: undefined in this game


def test_a_game_won_by_emptying_the_ticket_deck():
    # AS-14: ticket 1 is the last; completing it and ending the turn draws from an empty deck.
    start = make_position(RULES, TABLE, ticket=1, aboard=True, ticket_deck=[])
    _, state, result = play([start], [[LAYOUT.fly(1, 1)]])
    assert state.done[0] and state.score[0] == 24
    assert value(result, "won") == 1 and value(result, "three_plus") == 1
    assert result["score_distribution"][0][0, -1] == 1  # the "10+" column
    assert result["ticket_completion"][1][0].sum() == 1  # only ticket 1 was attempted here


def test_finished_games_ignore_later_steps():
    start = make_position(RULES, TABLE, ticket=1, aboard=True, ticket_deck=[])
    _, _, result = play([start], [[LAYOUT.fly(1, 1)], [LAYOUT.wait], [LAYOUT.wait]])
    assert value(result, "decisions") == 1 and value(result, "turns") == 1


def test_the_catalogue_names_every_recorded_metric_with_its_width():
    core = AirportScrambleCore(RULES)
    result = Recorder(core, 3).result()
    assert list(result) == CATALOGUE.names()
    for m in CATALOGUE.metrics:
        num, den = result[m.name]
        assert num.shape == den.shape == (3, m.width), m.name
        assert m.rules.startswith("AS-") and m.definition and m.unit
    with pytest.raises(ValueError, match="unknown metric 'scroe'.*score"):
        CATALOGUE.metric("scroe")


def test_breakdowns_follow_the_edition():
    generated = AirportScrambleRules(edition="generated", n_tickets=10)
    assert len(next(m for m in metrics(generated) if m.name == "ticket_completion").columns) == 10
    assert [m.name for m in metrics(generated)] == CATALOGUE.names()
