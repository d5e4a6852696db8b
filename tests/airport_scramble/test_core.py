"""The batched core: invariants under random play, determinism, batch independence, the State
operations search agents use, and its errors."""

import numpy as np
import pytest

from aerodeck.envs.airport_scramble.actions import KINDS
from aerodeck.envs.airport_scramble.core import AirportScrambleCore
from aerodeck.envs.airport_scramble.position import make_position
from aerodeck.envs.airport_scramble.rules import AirportScrambleRules
from aerodeck.envs.common.batch import sample_legal
from aerodeck.envs.common.checks import IllegalActionError
from tests.airport_scramble.harness import check_invariants, choose, random_rules


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
    assert two.batch_size == 2 and core.snapshot(two, 1) == core.snapshot(twin, 3)
    many = two.repeat(3)
    assert many.batch_size == 6 and core.snapshot(many, 4) == core.snapshot(two, 1)
    state.put([0], two.take([0]))
    assert core.snapshot(state, 0) == core.snapshot(twin, 1)


def test_load_positions_and_snapshot_round_trip():
    core = AirportScrambleCore(AirportScrambleRules(grid_size=5))
    state = core.init(np.arange(16))
    play(core, state, 10, 2)
    again = core.load_positions([core.snapshot(state, i) for i in range(16)])
    for f in ("grid", "slots", "deck", "location", "row_bits", "col_bits", "cell_values", "counter", "key"):
        assert np.array_equal(getattr(again, f), getattr(state, f)), f
    assert np.array_equal(again.nb[:, :25], state.nb[:, :25])  # the last column is scratch
    assert np.array_equal(core.legal_mask(again), core.legal_mask(state))
    assert np.array_equal(core.observe(again), core.observe(state))


def test_finished_games_ignore_their_actions():
    core = AirportScrambleCore()
    state = core.init([1, 2])
    state.done[0] = True
    before = core.snapshot(state, 0)
    rewards = core.step(state, np.array([core.actions.wait, core.actions.wait]))
    assert core.snapshot(state, 0) == before and rewards[0, 0] == 0
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
        ([-1], r"0\.\.2\*\*64-1.*got -1"),
        ([1.5], r"0\.\.2\*\*64-1.*1\.5"),
        ([], "non-empty"),
        ([[1, 2]], r"0\.\.2\*\*64-1.*\[1, 2\]"),
        (np.array(["a"], dtype=object), r"0\.\.2\*\*64-1.*got 'a'"),
        (np.array([2**64], dtype=object), r"0\.\.2\*\*64-1.*got 18446744073709551616"),
    ],
)
def test_bad_seeds_are_refused(seeds, message):
    """One seed check everywhere (envs.common.checks): the message names the allowed range."""
    with pytest.raises(ValueError, match=message):
        AirportScrambleCore().init(seeds)


def test_bad_action_batches_are_refused():
    core = AirportScrambleCore()
    state = core.init([1, 2])
    with pytest.raises(ValueError, match="shape"):
        core.step(state, np.array([1]))
    with pytest.raises(ValueError, match="integers"):
        core.step(state, np.array([1.0, 2.0]))


def test_the_core_satisfies_the_protocol_shapes():
    """One seat; rewards float32 (B, 1); to_act 0, -1 when over; observe validates the seat."""
    core = AirportScrambleCore()
    state = core.init([1, 2, 3])
    assert core.n_players == 1 and core.actions.kinds == KINDS
    assert core.observation.size == core.obs_size and core.actions.n_actions == core.n_actions
    rewards = core.step(state, np.full(3, core.actions.wait))
    assert rewards.dtype == np.float32 and rewards.shape == (3, 1)
    state.done[1] = True
    assert core.to_act(state).tolist() == [0, -1, 0] and core.to_act(state).dtype == np.int64
    assert np.array_equal(core.observe(state, seat=0), core.observe(state))
    with pytest.raises(ValueError, match="one seat"):
        core.observe(state, seat=1)


def test_step_refuses_an_illegal_action_naming_the_game_the_action_and_why():
    core = AirportScrambleCore()
    state = core.init([1, 2])
    before = [core.snapshot(state, i) for i in range(2)]
    with pytest.raises(IllegalActionError, match=r"game 1: action 0 \(fly N 1\) is illegal: the plane's reach N is 0"):
        core.step(state, np.array([core.actions.wait, 0]))
    assert [core.snapshot(state, i) for i in range(2)] == before  # nothing was played
    with pytest.raises(ValueError, match=r"game 0: action must be an integer in 0\.\.533, got 534"):
        core.step(state, np.array([534, 0]))
    state.done[1] = True  # a finished game's action is not looked at
    finished = core.snapshot(state, 1)
    core.step(state, np.array([core.actions.wait, 10**6]))
    assert core.snapshot(state, 1) == finished


def test_explain_illegal_is_none_exactly_for_legal_actions():
    core = AirportScrambleCore(AirportScrambleRules(grid_size=5))
    state = core.init([4])
    play(core, state, 6, 1)
    mask = core.legal_mask(state)[0]
    for action in range(core.n_actions):
        assert (core.explain_illegal(state, 0, action) is None) == mask[action], core.actions.describe(action)


def test_action_kinds_tell_a_flight_that_stops_early_from_a_full_one():
    """AS-8: with the reach E of 2, fly E 1 stops early and fly E 2 is a full flight."""
    rules = AirportScrambleRules()
    p = make_position(rules, {(4, 3): "HND", (4, 4): "NRT", (4, 5): "KIX", (4, 6): "ICN"}, plane=(4, 4),
                      ticket=5, slots=["PEK"])
    core = AirportScrambleCore(rules)
    state = core.load_positions([p])
    kinds = core.action_kinds(state)[0]
    L = core.actions
    assert kinds.dtype == np.int8
    assert KINDS[kinds[L.fly(1, 1)]] == "stop_early" and KINDS[kinds[L.fly(1, 2)]] == "fly"
    assert KINDS[kinds[L.fly(3, 1)]] == "fly" and kinds[L.fly(0, 1)] == -1
    assert KINDS[kinds[L.play(0, 4, 7)]] == "play" and KINDS[kinds[L.wait]] == "wait"
    assert np.array_equal(kinds >= 0, core.legal_mask(state)[0])


def test_save_and_restore_round_trip_and_refuse_other_rules():
    core = AirportScrambleCore()
    state = core.init(np.arange(8))
    play(core, state, 12, 3)
    again = core.restore(core.save(state))
    assert all(core.snapshot(again, i) == core.snapshot(state, i) for i in range(8))
    assert np.array_equal(core.observe(again), core.observe(state))
    small = AirportScrambleCore(AirportScrambleRules(grid_size=5))
    with pytest.raises(ValueError, match="field 'grid'"):
        small.restore(core.save(state))


@pytest.mark.parametrize("variant", range(4))
def test_observing_into_a_reused_buffer_equals_a_fresh_observation(variant):
    """``observe(out=buffer)`` and ``legal_mask(out=buffer)`` step after step, over random variants,
    restarts (AS-6) and line choices (AS-15): each equals a fresh one every step, garbage in the buffer
    or a padded view (rows not adjacent) included."""
    r = np.random.default_rng(700 + variant)
    rules = random_rules(r) if variant else AirportScrambleRules()
    core = AirportScrambleCore(rules, check_actions=False)
    B = 64
    state = core.init(np.arange(B))
    buffer = np.full((B, core.obs_size), 7.0, np.float32)  # garbage: the first call must overwrite it all
    padded = np.full((B, core.obs_size + 3), 7.0, np.float32)[:, :core.obs_size]
    mask_view = np.ones((B, core.n_actions + 5), bool)[:, :core.n_actions]
    for step in range(120):
        fresh = core.observe(state)
        assert np.array_equal(core.observe(state, out=buffer), fresh)
        if step % 40 == 0:
            assert np.array_equal(core.observe(state, out=padded), fresh)
        mask = core.legal_mask(state)
        assert np.array_equal(core.legal_mask(state, out=mask_view), mask)
        actions = np.array([choose(m, r, core.actions.n_fly) if m.any() else 0 for m in mask])
        core.step(state, actions)
        ended = np.flatnonzero(state.done)
        if ended.size:
            core.reset(state, ended, np.arange(ended.size) + 1000 * (step + 1))
