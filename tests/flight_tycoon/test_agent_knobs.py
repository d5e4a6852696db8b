"""Flight Tycoon's agent knobs: a bad one is refused naming the agent, the knob and what is allowed;
the values are typed by the declaration (``aerodeck.agents.registry``)."""

import pytest

from aerodeck.agents.registry import knob_values, make_agent


@pytest.mark.parametrize(
    "game, spec, message",
    [
        # Before: margin=nan and land_bonus=abc failed with messages that did not name the knob.
        ("flight-tycoon", "search:margin=nan", r"agent 'search' \(flight-tycoon\): knob 'margin' must be a finite number"),
        ("flight-tycoon", "heuristic:land_bonus=abc", r"agent 'heuristic' \(flight-tycoon\): knob 'land_bonus' must be a finite number"),
        ("flight-tycoon", "search:horizon=-1", r"knob 'horizon' must be an integer >= 0"),
        ("flight-tycoon", "heuristic:depth=3", r"agent 'heuristic' \(flight-tycoon\) has no knob 'depth'; its knobs: land_bonus, noise"),
        ("flight-tycoon", "genius", r"unknown agent 'genius' for flight-tycoon; available: random, heuristic, search"),
    ],
)
def test_a_bad_knob_is_refused_naming_the_agent_the_knob_and_what_is_allowed(game, spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(game, spec)


def test_knob_values_are_typed_by_the_declaration():
    typed = knob_values("flight-tycoon", "search", {"samples": "4", "ahead": "1", "gate": " 0.5 "})
    assert typed == {"samples": 4, "ahead": 1.0, "gate": 0.5}
    assert type(typed["samples"]) is int and type(typed["ahead"]) is float
    agent = make_agent("flight-tycoon", "search:samples=4,candidates=3,horizon=0")
    assert (agent.samples, agent.candidates, agent.horizon) == (4, 3, 0)
