"""The Flight Tycoon expert agent: legal under rule variants drawn from the games' ranges (and under
variants no shipped network can lay out), the same games for any batch size, typed knobs, and a
network that only proposes candidates (the rollouts under the rules in play decide). The expert has no
compiled code of its own: its rollouts run the compiled heuristic and core, whose decisions are held to
the uncompiled paths by ``test_airport_scramble_heuristic_same_decisions.py`` and the cores' tests."""

from __future__ import annotations

import pytest

from aerodeck.agents.registry import make_agent
from aerodeck.envs.flight_tycoon.rules import FlightTycoonRules
from tests.agents.played import drawn_variants, same_games_in_any_batch
from tests.agents.test_flight_tycoon_agents import play_checked as play_checked_ft


@pytest.mark.parametrize("rules", drawn_variants("flight-tycoon", 4, 2, 49) + [FlightTycoonRules(n_players=3),
                                                                              FlightTycoonRules(n_players=5)],
                         ids=lambda r: r.label())
def test_the_flight_tycoon_expert_plays_legal_moves_under_rule_variants(rules):
    expert = make_agent("flight-tycoon", "expert:samples=2", rules, seed=5)
    other = make_agent("flight-tycoon", "heuristic", rules, seed=6)
    checked, _ = play_checked_ft(rules, [expert, other], 4, seed=11)
    assert checked > 4 * 10


def test_the_expert_plays_the_same_games_in_any_batch():
    same_games_in_any_batch("flight-tycoon", "expert:samples=2,horizon=8", 4)


def test_the_flight_tycoon_expert_leads_with_the_network_only_under_its_rules():
    from aerodeck.agents.flight_tycoon.expert import ExpertAgent as FlightExpert

    assert FlightExpert(rules=FlightTycoonRules()).lead == "network"
    varied = drawn_variants("flight-tycoon", 4, 1, 49)[0]
    assert varied != FlightTycoonRules() and FlightExpert(rules=varied).lead == "heuristic"
    assert FlightExpert(rules=FlightTycoonRules(), guide="off").lead == "heuristic"


@pytest.mark.parametrize("spec, message", [
    ("expert:samples=0", "samples"),
    ("expert:rollouts=4", "no knob 'rollouts'"),
    ("expert:lead=random", "lead"),
])
def test_bad_expert_knobs_are_refused_naming_the_knob(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent("flight-tycoon", spec, FlightTycoonRules())
