"""Restricted play: the forbidden kinds are masked out, the fallback is counted, bad specs are refused."""

import numpy as np
import pytest

import envs
from agents.registry import make_agent
from agents.restricted import RestrictedAgent
from train.evaluate.loop import game_seeds, play_games

AS, FT = "airport-scramble", "flight-tycoon"


def play(game: str, spec: str, games: int = 40):
    """Play ``games`` games with the agent of ``spec``; the agent and the kinds of the actions it chose."""
    game_spec = envs.spec(game)
    core = game_spec.make_core(check_actions=False)
    agent = make_agent(game, spec, core.rules, seed=3)
    chosen = []

    class Kinds:  # a step observer: the kind of each action chosen, read before the step (by game number)
        def __init__(self):
            self.kinds = {}

        def on_start(self, core, state, ids):  # called again for the games dealt into finished rows
            self.kinds.update(zip(ids.tolist(), core.action_kinds(state)))

        def on_step(self, core, state, actions, rewards, ids):
            for game, action in zip(ids.tolist(), actions.tolist()):
                if self.kinds[game].max() >= 0:  # the game was still playing
                    chosen.append(int(self.kinds[game][action]))
            self.kinds.update(zip(ids.tolist(), core.action_kinds(state)))

    play_games(core, [agent], game_seeds(0, games), progress=False, make_view=game_spec.make_view,
               observers=[Kinds()])
    return agent, [core.actions.kinds[k] for k in chosen]


def test_a_forbidden_kind_is_never_chosen_and_the_rest_is_played():
    agent, kinds = play(AS, "restricted:base=heuristic,forbid=replace+stop_early")
    assert isinstance(agent, RestrictedAgent) and agent.forbid == ("replace", "stop_early")
    assert "replace" not in kinds and "stop_early" not in kinds
    assert {"fly", "play"} <= set(kinds)
    assert agent.fallbacks == 0 and agent.decisions == len(kinds)
    _, plain = play(AS, "heuristic")
    assert "replace" in plain  # the heuristic does replace when it may


def test_a_restriction_that_leaves_nothing_falls_back_to_the_full_mask_and_counts():
    # FT-16: a discard choice offers only cards of the colliding month, all of kind discard
    agent, kinds = play(FT, "restricted:base=heuristic,forbid=discard")
    assert agent.fallbacks == kinds.count("discard") > 0
    assert agent.decisions == len(kinds)


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


def test_restricted_play_needs_the_view():
    agent = make_agent(AS, "restricted:base=random,forbid=wait", envs.spec(AS).make_rules())
    with pytest.raises(ValueError, match="needs the games' view"):
        agent.act(np.zeros((1, 3), np.float32), np.ones((1, 3), bool))
