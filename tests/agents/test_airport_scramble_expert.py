"""The Airport Scramble expert agent: legal under rule variants drawn from the games' ranges (and under
variants no shipped network can lay out), the same games for any batch size, typed knobs, and a
network that only proposes candidates (the rollouts under the rules in play decide). The expert has no
compiled code of its own: its rollouts run the compiled heuristic and core, whose decisions are held to
the uncompiled paths by ``test_airport_scramble_heuristic_same_decisions.py`` and the cores' tests."""

from __future__ import annotations

import numpy as np
import pytest

from aerodeck import envs
from aerodeck.agents.airport_scramble.expert import ExpertAgent, merge_candidates, shipped_guide
from aerodeck.agents.registry import make_agent
from aerodeck.envs.airport_scramble.rules import AirportScrambleRules
from aerodeck.arena.loop import game_seeds
from tests.agents.played import drawn_variants, same_games_in_any_batch
from tests.agents.test_airport_scramble_agents import play_checked as play_checked_as


AS_OTHER = [AirportScrambleRules(edition="generated", n_colors=2, plain_per_color=2, n_tickets=10, deck_seed=3,
                                 grid_size=5, ticket_turns=(2, 6)),
            AirportScrambleRules(grid_size=15, face_up=6, max_replace=3, preplayed_rule="redraw")]


def play_some_as(rules, agent, n_games: int, steps: int, seed: int = 0) -> int:
    """Play ``steps`` decisions of ``n_games`` Airport Scramble games (drawn variants can be long),
    asserting that every live game's action is legal; the decisions checked."""
    from aerodeck.envs.airport_scramble.core import AirportScrambleCore
    from aerodeck.envs.airport_scramble.view import AirportScrambleView

    core = AirportScrambleCore(rules)
    state = core.init(game_seeds(seed, n_games))
    checked = 0
    for _ in range(steps):
        if state.done.all():
            break
        masks = core.legal_mask(state)
        actions = agent.act(core.observe(state), masks, AirportScrambleView(core, state))
        live = np.flatnonzero(~state.done)
        bad = live[~masks[live, actions[live]]]
        assert bad.size == 0, f"expert chose an illegal action in {rules.label()}: {core.actions.describe(actions[bad[0]])}"
        core.step(state, actions)
        checked += live.size
    return checked


@pytest.mark.parametrize("rules", drawn_variants("airport-scramble", None, 3, 49) + AS_OTHER, ids=lambda r: r.label())
def test_the_airport_scramble_expert_plays_legal_moves_under_rule_variants(rules):
    agent = make_agent("airport-scramble", "expert:rollouts=2", rules, seed=5)
    assert play_some_as(rules, agent, 4, 80, seed=3) > 4


@pytest.mark.long
@pytest.mark.parametrize("rules", drawn_variants("airport-scramble", None, 3, 49), ids=lambda r: r.label())
def test_the_airport_scramble_expert_plays_whole_games_of_rule_variants(rules):
    agent = make_agent("airport-scramble", "expert:rollouts=2", rules, seed=5)
    _, checked = play_checked_as(rules, agent, 6, seed=3)
    assert checked > 6


def test_the_expert_plays_the_same_games_in_any_batch():
    same_games_in_any_batch("airport-scramble", "expert:rollouts=3", 6)


def test_the_candidates_are_merged_in_order_each_action_once():
    groups = [(np.array([[5], [7]]), np.array([[True], [True]])),
              (np.array([[5, 9], [1, 2]]), np.array([[True, True], [False, True]])),
              (np.array([[9, 4, 3], [7, 8, 6]]), np.array([[True, True, True], [True, True, False]]))]
    cand, valid = merge_candidates(groups, 3)
    assert cand.tolist() == [[5, 9, 4], [7, 2, 8]]
    assert valid.all()
    cand, valid = merge_candidates([(np.array([[4, 4]]), np.array([[True, True]]))], 2)
    assert cand.tolist() == [[4, 4]] and valid.tolist() == [[True, False]]


def test_the_heuristic_choice_is_always_a_candidate_and_the_network_proposes_the_rest():
    rules = AirportScrambleRules()
    expert = ExpertAgent(rules=rules, candidates=3, guided=2)
    assert expert.proposer is not None  # the shipped model of the standard rules
    core = envs.spec("airport-scramble").make_core(rules)
    state = core.init(game_seeds(4, 32))
    from aerodeck.agents.airport_scramble.planning import Table

    obs, masks = core.observe(state), core.legal_mask(state)
    cand, valid, best = expert.proposed(Table.from_observations(expert.geo, obs), obs, masks)
    assert np.array_equal(cand[:, 0], best)
    assert masks[np.arange(32)[:, None], cand][valid].all()


def test_a_variant_no_network_can_lay_out_is_searched_on_the_heuristic_candidates():
    rules = AS_OTHER[0]
    assert shipped_guide(rules) is None or shipped_guide(rules).rules == rules
    assert ExpertAgent(rules=rules, guide="off").proposer is None


@pytest.mark.parametrize("spec, message", [
    ("expert:rollouts=0", "rollouts"),
    ("expert:guided=-1", "guided"),
    ("expert:depth=2", "no knob 'depth'"),
])
def test_bad_expert_knobs_are_refused_naming_the_knob(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent("airport-scramble", spec, AirportScrambleRules())


@pytest.mark.long
def test_the_airport_scramble_expert_scores_above_the_heuristic():
    from aerodeck.arena.loop import play_solo
    from aerodeck.stats.estimates import mean_ci

    game = envs.spec("airport-scramble")
    core = game.make_core()
    seeds = game_seeds(49, 2000)
    scores = [play_solo(core, make_agent(game.id, spec, core.rules, seed=1), seeds, progress=False,
                        make_view=game.make_view) for spec in ("heuristic", "expert")]
    assert mean_ci(scores[1] - scores[0]).low > 0
