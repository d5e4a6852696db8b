"""Per-game randomness: decision keys, the Agent helpers, and every agent's choice in a game being the
same wherever the game sits in the batch (shared/design.md, "Agents"): each game's agents in its
tests (``test_agent_streams.py``), from the positions of ``tests/agents/positions.py``."""

import numpy as np

from aerodeck.agents import streams
from aerodeck.agents.base import Agent
from aerodeck.agents.random import RandomAgent
from aerodeck.arena.loop import game_seeds


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

    from aerodeck.agents.base import act

    assert not Lowest.takes_keys and RandomAgent.takes_keys
    masks = np.array([[False, True, True]])
    assert act(Lowest(), None, masks, keys=np.zeros(1, np.uint64)).tolist() == [1]
