"""The differential test: the reference engine and the core, on the same seeds with random legal
actions over random rule variants, agree on positions, masks, observations, rewards and ends after
every step (``harness.play_both``), with the invariants checked every step.

The long version (``pytest -m long``) compares AS_DIFF_STEPS game steps (default 1,000,000), split
into AS_DIFF_CHUNKS chunks (default 8) so that ``-n 2`` runs them in parallel. Every round steps all
16 games of a batch (ended games restart at once), so a chunk compares exactly
16 * ceil(AS_DIFF_STEPS / AS_DIFF_CHUNKS / 16) rounded up to whole rounds: 125,008 steps a chunk,
1,000,064 in all at the defaults.
"""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aerodeck.envs.airport_scramble.rules import AirportScrambleRules
from tests.airport_scramble.harness import play_both, random_rules

LONG_STEPS = int(os.environ.get("AS_DIFF_STEPS", 1_000_000))
CHUNKS = int(os.environ.get("AS_DIFF_CHUNKS", 8))


def test_engines_agree_at_default_rules():
    assert play_both(AirportScrambleRules(), list(range(16)), 60, np.random.default_rng(0)) == 960


@pytest.mark.parametrize("variant", range(10))
def test_engines_agree_on_random_rule_variants(variant):
    r = np.random.default_rng(100 + variant)
    play_both(random_rules(r), [variant * 1000 + i for i in range(8)], 60, r)


@pytest.mark.parametrize("bonus", [2, 8])
def test_engines_agree_with_a_ticket_turn_bonus(bonus):
    """AS-3 ``ticket_turn_bonus``: longer tickets, the same game in both engines (a small generated
    edition too, where tickets get pre-played)."""
    r = np.random.default_rng(bonus)
    play_both(AirportScrambleRules(ticket_turn_bonus=bonus), list(range(8)), 80, r)
    small = AirportScrambleRules(ticket_turn_bonus=bonus, edition="generated", n_colors=2, plain_per_color=3,
                                 n_tickets=6, deck_seed=bonus, grid_size=5)
    play_both(small, list(range(8, 16)), 80, r)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    grid_size=st.integers(3, 7),
    face_up=st.integers(1, 5),
    action_points=st.integers(1, 4),
    stop_early_cost=st.integers(0, 2),
    allow_wait=st.booleans(),
    board_on_draw=st.booleans(),
    pickup_in_flight=st.booleans(),
    preplayed_rule=st.sampled_from(["remove_line", "redraw", "off"]),
    small_edition=st.booleans(),
    seed=st.integers(0, 2**32),
)
def test_engines_agree_for_any_rules(grid_size, face_up, action_points, stop_early_cost, allow_wait,
                                     board_on_draw, pickup_in_flight, preplayed_rule, small_edition, seed):
    options = dict(grid_size=grid_size, face_up=face_up, max_replace=face_up, action_points=action_points,
                   replace_cost=min(2, action_points),  # a replace must be playable (rules check)
                   stop_early_cost=stop_early_cost, allow_wait=allow_wait, board_on_draw=board_on_draw,
                   pickup_in_flight=pickup_in_flight, preplayed_rule=preplayed_rule)
    if small_edition:
        options.update(edition="generated", n_colors=2, plain_per_color=3, n_tickets=6, ticket_turns=(4, 8), deck_seed=seed % 97)
    play_both(AirportScrambleRules(**options), [seed, seed + 1, seed + 2, seed + 3], 40, np.random.default_rng(seed))


@pytest.mark.long
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_engines_agree_for_a_million_steps(chunk):
    """AS_DIFF_STEPS steps in all, this chunk's share, on fresh random variants."""
    r = np.random.default_rng([2024, chunk])
    target = -(-LONG_STEPS // CHUNKS)
    compared = 0
    variant = 0
    while compared < target:
        rules = random_rules(r) if variant % 5 else AirportScrambleRules()
        seeds = [chunk * 10**9 + variant * 1000 + i for i in range(16)]
        compared += play_both(rules, seeds, min(200, -(-(target - compared) // 16)), r)
        variant += 1
    print(f"chunk {chunk}: {compared} steps compared over {variant} rule variants")
