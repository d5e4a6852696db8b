"""The batched core: invariants under random play, determinism, batch independence, the State
operations search agents use, and its errors."""

import numpy as np
import pytest

from envs.airport_scramble.core import AirportScrambleCore
from envs.airport_scramble.rules import AirportScrambleRules
from envs.common.batch import sample_legal
from tests.airport_scramble.harness import check_invariants, random_rules


def play(core, state, steps, seed, check=False):
    """Random legal play (per-game generators so choices do not depend on the batch); returns the
    trajectory of (actions, rewards) per step."""
    gens = [np.random.default_rng([seed, int(k)]) for k in state.key]
    trajectory = []
    for _ in range(steps):
        mask = core.legal_mask(state)
        obs = core.observe(state)
        if check:
            check_invariants(core, state, mask)
            assert obs.dtype == np.float32 and obs.min() >= 0 and obs.max() <= 1
        actions = sample_legal(mask, np.array([g.random() for g in gens]))
        actions[state.done] = 0
        trajectory.append((actions.copy(), core.step(state, actions), obs))
    return trajectory


@pytest.mark.parametrize("variant", range(8))
def test_invariants_hold_every_step_of_random_play(variant):
    """Every card in one place, live games have a legal action, die/points in range, the network
    connected and matching, derived fields consistent (see harness.check_invariants)."""
    rules = AirportScrambleRules() if variant == 0 else random_rules(np.random.default_rng(variant))
    core = AirportScrambleCore(rules)
    state = core.init(np.arange(256) + 1000 * variant)
    play(core, state, 60, variant, check=True)


def test_same_seed_same_game():
    core = AirportScrambleCore()
    a, b = core.init([5, 6]), core.init([5, 6])
    ta, tb = play(core, a, 30, 1), play(core, b, 30, 1)
    for (xa, ra, oa), (xb, rb, ob) in zip(ta, tb):
        assert np.array_equal(xa, xb) and np.array_equal(ra, rb) and np.array_equal(oa, ob)


def test_a_game_plays_the_same_alone_and_inside_a_batch_of_1000():
    """Randomness is an input: the trajectory depends only on the game's seed."""
    core = AirportScrambleCore(AirportScrambleRules(preplayed_rule="redraw"))
    seeds = np.arange(1000) * 7 + 3
    alone = play(core, core.init(seeds[500:501]), 40, 9)
    inside = play(core, core.init(seeds), 40, 9)
    for (xa, ra, oa), (xb, rb, ob) in zip(alone, inside):
        assert xa[0] == xb[500] and ra[0] == rb[500] and np.array_equal(oa[0], ob[500])


def test_copy_take_repeat_put_make_independent_games():
    core = AirportScrambleCore()
    state = core.init(np.arange(4))
    twin = state.copy()
    play(core, state, 5, 0)
    assert not np.array_equal(state.counter, twin.counter)
    two = twin.take([1, 3])
    assert two.batch_size == 2 and core.position(two, 1) == core.position(twin, 3)
    many = two.repeat(3)
    assert many.batch_size == 6 and core.position(many, 4) == core.position(two, 1)
    state.put([0], two.take([0]))
    assert core.position(state, 0) == core.position(twin, 1)


def test_load_and_position_round_trip():
    core = AirportScrambleCore(AirportScrambleRules(grid_size=5))
    state = core.init(np.arange(16))
    play(core, state, 10, 2)
    again = core.load([core.position(state, i) for i in range(16)])
    for f in ("grid", "slots", "deck", "location", "row_bits", "col_bits", "cell_values", "counter", "key"):
        assert np.array_equal(getattr(again, f), getattr(state, f)), f
    assert np.array_equal(again.nb[:, :25], state.nb[:, :25])  # the last column is scratch
    assert np.array_equal(core.legal_mask(again), core.legal_mask(state))
    assert np.array_equal(core.observe(again), core.observe(state))


def test_finished_games_ignore_their_actions():
    core = AirportScrambleCore()
    state = core.init([1, 2])
    state.done[0] = True
    before = core.position(state, 0)
    rewards = core.step(state, np.array([core.layout.wait, core.layout.wait]))
    assert core.position(state, 0) == before and rewards[0] == 0
    assert not core.legal_mask(state)[0].any()


def test_reseed_changes_future_draws_only():
    core = AirportScrambleCore()
    a = core.init([1])
    b = a.copy()
    core.reseed(b, [99])
    assert np.array_equal(a.grid, b.grid) and b.counter[0] == 0
    with pytest.raises(ValueError, match="reseed needs 1 seeds"):
        core.reseed(b, [1, 2])


@pytest.mark.parametrize(
    "seeds, message",
    [
        ([-1], "non-negative"),
        ([1.5], "integers"),
        ([], "non-empty"),
        ([[1, 2]], "1-D"),
        (np.array(["a"], dtype=object), "not an integer"),
        (np.array([2**64], dtype=object), "outside"),
    ],
)
def test_bad_seeds_are_refused(seeds, message):
    with pytest.raises(ValueError, match=message):
        AirportScrambleCore().init(seeds)


def test_bad_action_batches_are_refused():
    core = AirportScrambleCore()
    state = core.init([1, 2])
    with pytest.raises(ValueError, match="shape"):
        core.step(state, np.array([1]))
    with pytest.raises(ValueError, match="integers"):
        core.step(state, np.array([1.0, 2.0]))
