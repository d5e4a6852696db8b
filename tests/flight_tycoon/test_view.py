"""The look-ahead view (``aerodeck.envs.common.core.View``): observations, masks and determinizations only."""

import numpy as np
import pytest

from aerodeck import envs
from aerodeck.envs.common.core import View
from aerodeck.envs.flight_tycoon.core import FlightTycoonCore
from aerodeck.envs.flight_tycoon.env import env
from aerodeck.envs.flight_tycoon.rules import FlightTycoonRules
from aerodeck.envs.flight_tycoon.view import FlightTycoonView

from .helpers import random_states


def test_a_seat_view_offers_observations_masks_and_determinizations_only():
    core = FlightTycoonCore(FlightTycoonRules())
    st = random_states(core, 30, seed=15)
    games = np.flatnonzero(~st.done)[:10]
    seats = core.to_act(st)[games]
    view = FlightTycoonView(core, st, seats, games)
    assert np.array_equal(view.observation(), core.observe(st, seats, games=games))
    assert np.array_equal(view.legal_mask(), core.legal_mask(st)[games])
    worlds = view.determinize(np.arange(games.size * 4), samples=4)
    assert worlds.batch_size == games.size * 4
    assert np.array_equal(core.observe(worlds, np.repeat(seats, 4)), np.repeat(view.observation(), 4, axis=0))
    assert not hasattr(view, "state") and not hasattr(view, "hand")
    assert isinstance(view, View) and view.rules is core.rules and view.batch_size == games.size


def test_determinize_takes_a_subset_of_the_views_games():
    core = FlightTycoonCore(FlightTycoonRules(n_players=5))
    st = random_states(core, 20, seed=4)
    games = np.flatnonzero(~st.done)[:6]
    seats = core.to_act(st)[games]
    view = FlightTycoonView(core, st, seats, games)
    some = view.determinize(np.arange(6) + 50, samples=3, games=[4, 1])
    seeds = np.zeros(18, np.int64)
    seeds[12:15], seeds[3:6] = [50, 51, 52], [53, 54, 55]  # the same seeds for the same games
    every = view.determinize(seeds, samples=3)
    assert all(core.snapshot(some, r) == core.snapshot(every, 12 + r) for r in range(3))  # view game 4: rows 12..14
    assert all(core.snapshot(some, 3 + r) == core.snapshot(every, 3 + r) for r in range(3))  # view game 1: rows 3..5
    assert np.array_equal(core.observe(some, np.repeat(seats[[4, 1]], 3)), np.repeat(view.observation()[[4, 1]], 3, axis=0))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda v: v.determinize(np.arange(5)), r"seeds: one per sample \(4 games × 1\), got 5"),
        (lambda v: v.determinize(np.arange(4), samples=0), r"samples must be a positive integer"),
        (lambda v: v.determinize([0], games=[4]), r"games must be indices 0..3 into the view"),
        (lambda v: v.determinize([-1, 0, 0, 0]), r"seeds must be an integer in 0..2\*\*64-1"),
    ],
)
def test_bad_determinize_arguments_are_refused(call, message):
    core = FlightTycoonCore(FlightTycoonRules())
    view = FlightTycoonView(core, core.init(np.arange(4)), 0)
    with pytest.raises(ValueError, match=message):
        call(view)


def test_the_registry_builds_the_view_of_the_aec_env_for_the_seat_to_act():
    aec = env(n_players=3)
    aec.reset(seed=6)
    for _ in range(5):
        aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))
    view = envs.view_of_env(aec)
    seat = int(aec.agent_selection.split("_")[1])
    assert isinstance(view, FlightTycoonView) and view.seats.tolist() == [seat]
    assert np.array_equal(view.observation()[0], aec.observe(aec.agent_selection)["observation"])
    assert np.array_equal(view.legal_mask()[0], aec.observe(aec.agent_selection)["action_mask"].astype(bool))
