"""Per-game randomness: decision keys, the Agent helpers, and every agent's choice in a game being the
same wherever the game sits in the batch (shared/design.md, "Agents")."""

import numpy as np
import pytest

import envs
from agents import streams
from agents.base import Agent
from agents.random import RandomAgent
from agents.registry import make_agent
from train.evaluate.loop import game_seeds

AS, FT = "airport-scramble", "flight-tycoon"


def test_a_decision_key_changes_with_the_game_the_agent_and_the_decision():
    seeds = game_seeds(4, 3)
    keys = streams.decision_keys(7, seeds, np.zeros(3, np.int64))
    assert keys.dtype == np.uint64 and len(set(keys.tolist())) == 3
    assert not np.array_equal(keys, streams.decision_keys(8, seeds, np.zeros(3, np.int64)))
    assert not np.array_equal(keys, streams.decision_keys(7, seeds, np.ones(3, np.int64)))
    assert np.array_equal(keys[1:], streams.decision_keys(7, seeds[1:], np.zeros(2, np.int64)))


def test_the_parts_of_a_decisions_stream_do_not_overlap_and_uniforms_stay_inside_0_1():
    keys = streams.decision_keys(1, game_seeds(0, 500), np.arange(500))
    first, second = streams.draws(keys, 8, 0), streams.draws(keys, 8, 1)
    assert first.shape == (500, 8) and not np.isin(first, second).any()
    assert np.array_equal(streams.draws(keys, 3, 1), second[:, :3])  # a part's values don't depend on k
    u = streams.uniforms(keys, 40)
    assert u.dtype == np.float64 and 0 < u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.01
    half = streams.uniforms(keys, 41, dtype=np.float32)  # two 24-bit uniforms per stream value
    assert half.dtype == np.float32 and half.shape == (500, 41) and 0 <= half.min() and half.max() < 1
    assert abs(half.mean() - 0.5) < 0.01 and len(np.unique(half)) > 0.99 * half.size


def test_without_keys_an_agent_draws_from_its_generator_and_its_seed_sets_its_key():
    a, b, c = Agent(seed=3), Agent(seed=3), Agent(seed=4)
    assert a.key == b.key != c.key
    assert np.array_equal(a.uniform(None, (2, 5)), b.uniform(None, (2, 5)))
    keys = streams.decision_keys(a.key, game_seeds(0, 2), np.zeros(2, np.int64))
    assert np.array_equal(a.uniform(keys, (2, 5)), c.uniform(keys, (2, 5)))  # the keys alone decide


def test_an_agent_whose_act_takes_no_keys_is_called_without_them():
    class Lowest(Agent):  # written before decision keys
        def act(self, observations, masks, view=None):
            return np.argmax(masks, axis=1)

    from agents.base import act

    assert not Lowest.takes_keys and RandomAgent.takes_keys
    masks = np.array([[False, True, True]])
    assert act(Lowest(), None, masks, keys=np.zeros(1, np.uint64)).tolist() == [1]


#: Random decisions before the position tested (random play ends Airport Scramble games early).
STEPS = {AS: 2, FT: 9}


def position(game: str):
    """12 unfinished games of ``game`` after ``STEPS[game]`` random decisions: spec, core, state, seeds,
    decision numbers."""
    spec, steps = envs.spec(game), STEPS[game]
    core = spec.make_core(check_actions=False)
    seeds = game_seeds(9, 12)
    state = core.init(seeds)
    walker = RandomAgent(seed=2)
    for _ in range(steps):
        core.step(state, walker.act(None, core.legal_mask(state)))
    assert not state.done.any()
    return spec, core, state, seeds, np.full(12, steps)


def choices(spec, core, state, agent, keys):
    seats = np.maximum(core.to_act(state), 0)
    obs = core.observe(state) if core.n_players == 1 else core.observe(state, seats)
    view = spec.make_view(core, state, seats) if agent.needs_view else None
    return agent.act(obs, core.legal_mask(state), view, keys=keys)


AGENTS = [(AS, "random"), (AS, "search:candidates=2,rollouts=2,horizon=4"), (FT, "random"),
          (FT, "heuristic:noise=5"), (FT, "search:samples=2,candidates=2,horizon=4")]


@pytest.mark.parametrize("game,spec_text", AGENTS)
def test_an_agents_choice_in_a_game_does_not_depend_on_its_place_in_the_batch(game, spec_text):
    spec, core, state, seeds, decisions = position(game)
    agent = make_agent(game, spec_text, core.rules, seed=5)
    keys = streams.decision_keys(agent.key, seeds, decisions)
    together = choices(spec, core, state, agent, keys)
    order = np.random.default_rng(0).permutation(12)
    shuffled = choices(spec, core, state.take(order), agent, keys[order])
    alone = [choices(spec, core, state.take([i]), agent, keys[[i]])[0] for i in (0, 7)]
    assert np.array_equal(shuffled, together[order])
    assert alone == [together[0], together[7]]


@pytest.mark.parametrize("game,spec_text", [(AS, "search:candidates=3,rollouts=3,horizon=60"),
                                             (FT, "search:samples=3,candidates=3,horizon=6")])
def test_a_search_values_its_rollouts_the_same_wherever_the_game_sits(game, spec_text):
    spec, core, state, seeds, decisions = position(game)
    agent = make_agent(game, spec_text, core.rules, seed=1)
    keys = streams.decision_keys(agent.key, seeds, decisions)
    seats = np.maximum(core.to_act(state), 0)
    masks = core.legal_mask(state)
    cand = np.argsort(~masks, axis=1, kind="stable")[:, :3]  # each game's first three legal actions
    valid = np.take_along_axis(masks, cand, 1)

    def values(rows):
        view = spec.make_view(core, state.take(rows), seats[rows])
        if game == AS:  # the games searched, then their candidates
            return agent.evaluate(view, np.arange(rows.size), cand[rows], valid[rows], keys[rows])
        return agent.evaluate(view, cand[rows], valid[rows], keys[rows])

    order = np.arange(12)[::-1]
    together = values(np.arange(12))
    assert np.array_equal(values(order), together[order]) and np.ptp(together) > 0
