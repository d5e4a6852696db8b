"""The game's log names the rule that fired: a delivery short of the flight's end is "delivered in flight
(AS-12 …)" under ``pickup_in_flight=on``, and a house rule's own note (``note(text)``) joins the log of
the decision where its hook fired — on the very steps where the built-in option delivers in flight."""

from __future__ import annotations

import numpy as np

from aerodeck import envs
from aerodeck.agents.base import act
from aerodeck.agents.registry import make_agent
from aerodeck.envs.airport_scramble import text
from aerodeck.envs.common.house import HouseRule, with_house
from tests.common.house_rules import EXAMPLES

SPEC = envs.spec("airport-scramble")


def logs(rules, seeds) -> list[list[str]]:
    """Each step's log lines (``text.events``) of the heuristic's games on ``seeds``, one game at a time."""
    core = SPEC.make_core(rules)
    agent = make_agent(SPEC.id, "heuristic", rules, seed=0)
    out = []
    for seed in seeds:
        state = core.init([seed])
        while not state.done[0]:
            before = state.copy()
            action = int(act(agent, core.observe(state), core.legal_mask(state))[0])
            core.step(state, np.array([action]))
            out.append(text.events(core, before, state, action))
    return out


def test_a_delivery_in_flight_is_named_with_its_rule_and_a_house_rule_names_itself_on_the_same_steps():
    seeds = range(40, 56)
    option = logs(SPEC.make_rules(pickup_in_flight=True), seeds)
    house = logs(with_house(SPEC.make_rules(), HouseRule.parse(f"{EXAMPLES}/delivery_in_flight.py:DeliveryInFlight")),
                 seeds)
    assert len(option) == len(house)
    in_flight = [i for i, lines in enumerate(option) if any(ln.startswith("delivered in flight (AS-12") for ln in lines)]
    noted = [i for i, lines in enumerate(house) if "delivered in flight (house rule DeliveryInFlight)" in lines]
    assert in_flight and in_flight == noted
    completed = [i for i, lines in enumerate(option) if any("(+1): score" in ln for ln in lines)]
    assert set(in_flight) < set(completed)  # the other completions end their flights on the destination
    plain = logs(SPEC.make_rules(), seeds[:4])
    assert not any("in flight" in ln for lines in plain for ln in lines)
