"""Restricted play of Airport Scramble: the forbidden kinds are masked out, the base agent's knobs pass
through, bad specs are refused (``aerodeck.agents.restricted``)."""

import pytest

from aerodeck import envs
from aerodeck.agents.registry import make_agent
from aerodeck.agents.restricted import RestrictedAgent
from tests.agents.restricted_play import play

AS = "airport-scramble"


def test_a_forbidden_kind_is_never_chosen_and_the_rest_is_played():
    agent, kinds = play(AS, "restricted:base=heuristic,forbid=replace+stop_early")
    assert isinstance(agent, RestrictedAgent) and agent.forbid == ("replace", "stop_early")
    assert "replace" not in kinds and "stop_early" not in kinds
    assert {"fly", "play"} <= set(kinds)
    assert agent.fallbacks == 0 and agent.decisions == len(kinds)
    _, plain = play(AS, "heuristic")
    assert "replace" in plain  # the heuristic does replace when it may


def test_base_knobs_pass_through_and_bad_specs_are_refused():
    rules = envs.spec(AS).make_rules()
    agent = make_agent(AS, "restricted:base=heuristic,forbid=wait,cycle=off", rules)
    assert agent.base.name == "heuristic" and agent.name == "restricted(heuristic without wait)"
    for spec, message in [
        ("restricted:forbid=wait", "needs base=AGENT and forbid=KIND"),
        ("restricted:base=heuristic", "needs base=AGENT and forbid=KIND"),
        ("restricted:base=heuristic,forbid=teleport", "forbid='teleport' is not an action kind of this game; "
                                                      "kinds: fly, stop_early, play, replace, wait, remove_line"),
        ("restricted:base=heuristic,forbid=", "forbid names no action kind"),
        ("restricted:base=restricted,forbid=wait", "cannot itself be restricted"),
        ("restricted:base=random,forbid=wait,cycle=1", "has no knob 'cycle'"),
        ("restricted:base=genius,forbid=wait", "unknown agent 'genius'"),
    ]:
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            make_agent(AS, spec, rules)
