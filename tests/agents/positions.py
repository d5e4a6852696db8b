"""Positions for the tests of an agent's choice in a game being the same wherever the game sits in
the batch (``test_agent_streams.py`` of each game's tests)."""

import numpy as np

from aerodeck import envs
from aerodeck.agents import streams
from aerodeck.agents.random import RandomAgent
from aerodeck.agents.registry import make_agent
from aerodeck.arena.loop import game_seeds


def position(game: str, steps: int):
    """12 unfinished games of ``game`` after ``steps`` random decisions: spec, core, state, seeds,
    decision numbers."""
    spec = envs.spec(game)
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


def check_choices_do_not_depend_on_the_place_in_the_batch(game: str, steps: int, spec_text: str):
    """The choices of the agent ``spec_text`` in the games of :func:`position`: the same shuffled, and
    for a game alone."""
    spec, core, state, seeds, decisions = position(game, steps)
    agent = make_agent(game, spec_text, core.rules, seed=5)
    keys = streams.decision_keys(agent.key, seeds, decisions)
    together = choices(spec, core, state, agent, keys)
    order = np.random.default_rng(0).permutation(12)
    shuffled = choices(spec, core, state.take(order), agent, keys[order])
    alone = [choices(spec, core, state.take([i]), agent, keys[[i]])[0] for i in (0, 7)]
    assert np.array_equal(shuffled, together[order])
    assert alone == [together[0], together[7]]
