"""Altimeter's own tests: the batched core plays exactly as the reference engine, the heuristic beats
random play, and the game passes aerodeck's contract (``aerodeck.testing.check_game``: every GameSpec
field)."""

from __future__ import annotations

import numpy as np
import pytest

from altimeter.core import AltimeterCore
from altimeter.heuristic import HeuristicAgent
from altimeter.reference import AltimeterGame
from altimeter.rules import AltimeterRules
from aerodeck.envs.common.batch import sample_legal
from aerodeck.testing import check_game

VARIANTS = [{}, {"n_values": 3, "copies": 1}, {"n_values": 13, "copies": 6, "tie": "hold"}]


@pytest.mark.parametrize("options", VARIANTS, ids=str)
def test_core_and_reference_play_the_same_games(options):
    rules = AltimeterRules(**options)
    core, seeds = AltimeterCore(rules), np.arange(40)
    state = core.init(seeds)
    games = [AltimeterGame(rules, int(s)) for s in seeds]
    rng = np.random.default_rng(0)
    while not state.done.all():
        mask = core.legal_mask(state)
        np.testing.assert_array_equal(mask, [g.legal() for g in games])
        np.testing.assert_array_equal(core.observe(state), np.array([g.observe() for g in games], np.float32))
        actions = np.maximum(sample_legal(mask, rng.random(len(games))), 0)
        rewards = core.step(state, actions)
        expected = [g.step(int(a)) if not g.done else 0 for g, a in zip(games, actions)]
        np.testing.assert_array_equal(rewards[:, 0], expected)
        np.testing.assert_array_equal(state.done, [g.done for g in games])
    np.testing.assert_array_equal(state.score, [g.score for g in games])


def test_the_return_of_a_game_is_its_score():
    core = AltimeterCore()
    state = core.init(np.arange(100))
    total = np.zeros(100)
    rng = np.random.default_rng(1)
    while not state.done.all():
        total += core.step(state, np.maximum(sample_legal(core.legal_mask(state), rng.random(100)), 0))[:, 0]
    np.testing.assert_array_equal(total, state.score)


def test_the_heuristic_scores_more_than_random_play_on_the_same_deals():
    core = AltimeterCore()
    scores = []
    for agent in (HeuristicAgent(rules=core.rules), None):
        state, rng = core.init(np.arange(500)), np.random.default_rng(2)
        while not state.done.all():
            mask = core.legal_mask(state)
            acts = agent.act(core.observe(state), mask) if agent else sample_legal(mask, rng.random(500))
            core.step(state, np.maximum(acts, 0))
        scores.append(state.score.mean())
    assert scores[0] > scores[1] + 1.0, scores


def test_an_illegal_landing_names_the_rule():
    core = AltimeterCore()
    state = core.init([0])
    with pytest.raises(ValueError, match=r"game 0: action 2 \(land\) is illegal: the pot is empty.*AL-3"):
        core.step(state, np.array([2]))


def test_the_game_passes_the_aerodeck_contract():
    """Every field of the GameSpec, under every variant (``aerodeck.testing``): the core protocol, the
    view, the envs, rendering, text, metrics, the agents of the ladder, the rules page."""
    results = check_game("altimeter")
    assert all(outcome == "passed" or outcome.startswith("skipped") for _, outcome in results)
