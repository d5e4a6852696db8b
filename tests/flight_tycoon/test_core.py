"""The batched core's contract: batches, branching, reseeding, finished games, and clear errors."""

import numpy as np
import pytest

from aerodeck.envs.common.batch import sample_legal
from aerodeck.envs.common.checks import IllegalActionError
from aerodeck.envs.common.core import Core
from aerodeck.envs.flight_tycoon.core import FlightTycoonCore
from aerodeck.envs.flight_tycoon.position import Position
from aerodeck.envs.flight_tycoon.rules import FlightTycoonRules
from aerodeck.envs.flight_tycoon.state import State

from .helpers import cards, random_states


def _play(core, st, rng, steps):
    for _ in range(steps):
        core.step(st, sample_legal(core.legal_mask(st), rng.random(st.batch_size)))


def test_a_game_depends_only_on_its_seed_not_its_place_in_the_batch():
    core = FlightTycoonCore(FlightTycoonRules())
    alone = core.init([77])
    crowd = core.init([5, 6, 77, 8])
    rng = np.random.default_rng(0)
    for _ in range(60):
        action = sample_legal(core.legal_mask(alone), rng.random(1))
        core.step(alone, action)
        others = sample_legal(core.legal_mask(crowd), np.full(4, 0.3))
        others[2] = action[0]
        core.step(crowd, others)
        assert core.snapshot(alone, 0) == core.snapshot(crowd, 2)


def test_copy_take_repeat_put_branch_games_independently():
    core = FlightTycoonCore(FlightTycoonRules())
    st = random_states(core, 6, seed=1, max_steps=30)
    copy = st.copy()
    _play(core, copy, np.random.default_rng(1), 5)
    assert not np.array_equal(copy.hand, st.hand) or not np.array_equal(copy.tokens, st.tokens)
    taken = st.take([4, 1])
    assert taken.batch_size == 2 and core.snapshot(taken, 0) == core.snapshot(st, 4)
    rep = st.repeat(3)
    assert rep.batch_size == 18 and all(core.snapshot(rep, 3 + i) == core.snapshot(st, 1) for i in range(3))
    st2 = st.copy()
    st2.put([0, 5], taken)
    assert core.snapshot(st2, 5) == core.snapshot(st, 1) and core.snapshot(st2, 1) == core.snapshot(st, 1)
    both = State.concatenate([taken, st])
    assert both.batch_size == 8 and core.snapshot(both, 2) == core.snapshot(st, 0)


def test_reseed_changes_the_future_draws_only():
    core = FlightTycoonCore(FlightTycoonRules())
    st = core.init(np.arange(64))
    _play(core, st, np.random.default_rng(2), 12)
    a, b = st.copy(), st.copy()
    core.reseed(b, np.arange(64) + 999)
    assert np.array_equal(a.hand, b.hand) and (b.counter == 0).all()
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    for _ in range(30):
        core.step(a, sample_legal(core.legal_mask(a), rng_a.random(64)))
        core.step(b, sample_legal(core.legal_mask(b), rng_b.random(64)))
    assert not np.array_equal(a.hand, b.hand)


def test_a_finished_game_ignores_its_action_and_keeps_its_state():
    core = FlightTycoonCore(FlightTycoonRules(tokens=2))
    st = core.init(np.arange(32))
    _play(core, st, np.random.default_rng(4), 80)
    assert st.done.all()
    before = st.copy()
    rewards = core.step(st, np.full(32, 999))
    assert not rewards.any() and np.array_equal(before.hand, st.hand)
    assert (core.to_act(st) == -1).all() and not core.legal_mask(st).any()


def test_games_selects_which_games_advance():
    core = FlightTycoonCore(FlightTycoonRules())
    st = core.init(np.arange(4))
    before = st.copy()
    actions = sample_legal(core.legal_mask(st), np.full(4, 0.5))
    core.step(st, actions, games=[1, 3])
    assert np.array_equal(st.hand[[0, 2]], before.hand[[0, 2]])
    assert not np.array_equal(st.hand[[1, 3]], before.hand[[1, 3]])


def test_observe_takes_one_seat_or_a_seat_per_game_and_a_subset_of_games():
    core = FlightTycoonCore(FlightTycoonRules(n_players=5))
    st = random_states(core, 20, seed=2)
    seats = np.arange(20) % 5
    per_game = core.observe(st, seats)
    for s in range(5):
        assert np.array_equal(per_game[seats == s], core.observe(st, s)[seats == s])
    sub = core.observe(st, seats[[3, 7]], games=[3, 7])
    assert np.array_equal(sub, per_game[[3, 7]])
    assert np.array_equal(core.legal_mask(st, games=[7, 3]), core.legal_mask(st)[[7, 3]])
    assert per_game.dtype == np.float32 and per_game.shape == (20, core.obs_size) == (20, 65 * 5 + 158)
    assert (per_game >= 0).all() and (per_game <= 1).all()


def test_illegal_actions_are_refused_naming_game_action_and_reason():
    core = FlightTycoonCore(FlightTycoonRules())
    st = core.init([1, 2])
    mask = core.legal_mask(st)
    actions = mask[:, :48].argmax(1)
    bad = int(np.flatnonzero(~mask[1, :48])[0])
    actions[1] = bad
    with pytest.raises(IllegalActionError, match=rf"game 1: action {bad} \(card .*\) is illegal: card .* is not in your hand"):
        core.step(st, actions)
    actions[1] = 60
    with pytest.raises(IllegalActionError, match="game 1: action 60 .*choose the card to lay aside for your tower"):
        core.step(st, actions)
    actions[1] = 500
    with pytest.raises(ValueError, match="game 1: action must be an integer in 0..119, got 500"):
        core.step(st, actions)


def test_a_request_to_a_player_without_real_cards_names_the_rule():
    position = Position(hands=[cards("1A 2B"), [], cards("5C"), cards("7D")], laid=cards("3A 4A 6A 8A"))
    core = FlightTycoonCore(FlightTycoonRules())
    st = core.load_positions([position])
    with pytest.raises(IllegalActionError, match="offset 1 holds no real card \\(FT-8\\)"):
        core.step(st, np.array([48]))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda c, s: c.step(s, np.zeros(3, np.int64)), r"actions must be integers of shape \(2,\) in 0..119"),
        (lambda c, s: c.step(s, np.zeros(2)), r"actions must be integers .*got float64"),
        (lambda c, s: c.observe(s, 4), r"seat must be in 0..3"),
        (lambda c, s: c.init([-1]), r"seeds must be an integer in 0..2\*\*64-1.*got -1"),
        (lambda c, s: c.init([]), r"non-empty 1-D"),
        (lambda c, s: c.init([1.5]), r"integer"),
        (lambda c, s: c.init([2**64]), r"0..2\*\*64-1"),
        (lambda c, s: c.reseed(s, [1, 2, 3]), r"seeds: one per game \(2\), got 3"),
        (lambda c, s: c.reset(s, [5], [1]), r"games must be indices into a batch of 2"),
        (lambda c, s: c.reset(s, [0, 1], [1]), r"games must be 1 integer indices"),
        (lambda c, s: c.restore({"hand": s.hand}), r"saved state does not fit this core: missing fields"),
    ],
)
def test_bad_inputs_get_clear_errors(call, message):
    core = FlightTycoonCore(FlightTycoonRules())
    with pytest.raises(ValueError, match=message):
        call(core, core.init([1, 2]))


def test_the_core_needs_a_rules_object():
    with pytest.raises(TypeError, match="FlightTycoonRules"):
        FlightTycoonCore({"n_players": 4})


@pytest.mark.parametrize(
    "position, message",
    [
        (Position(hands=[[0], [0], [], []], laid=[4, 8, 12, 16]), "exactly one place.*doubled \\[0\\]"),
        (Position(hands=[[], [], []], laid=[4, 8, 12]), "one entry per player"),
        (Position(hands=[[], [], [], []], laid=[None, 8, None, None]), "in order"),
        (Position(hands=[[], [], [], []], laid=[4, 8, 12, 16], tokens=[31] + [0] * 23), "stock"),
        (Position(hands=[[0], [], [], []], laid=[4, 8, 12, 16], known=[[], [5], [], []]), "cannot know card 5"),
        (Position(hands=[[], [], [], []], laid=[4, 8, 12, 16], tower_holders=[1, 1, 2, 3]), "tower_giveable"),
    ],
)
def test_bad_positions_are_refused(position, message):
    with pytest.raises(ValueError, match=message):
        FlightTycoonCore(FlightTycoonRules()).load_positions([position])


def test_observe_can_write_into_a_reused_buffer():
    core = FlightTycoonCore(FlightTycoonRules())
    st = random_states(core, 12, seed=6)
    buffer = np.full((12, core.obs_size), 7, np.float32)
    seats = np.arange(12) % 4
    assert core.observe(st, seats, out=buffer) is buffer
    assert np.array_equal(buffer, core.observe(st, seats))
    with pytest.raises(ValueError, match="C-contiguous float32 array of shape"):
        core.observe(st, seats, out=np.zeros((12, core.obs_size)))


@pytest.mark.parametrize("options", [{}, {"n_players": 3, "tower_giveable": True}, {"n_players": 5, "hand_size": 6}])
def test_observing_into_a_reused_buffer_equals_a_fresh_observation(options):
    """``observe(out=buffer)`` step after step rewrites only the card sets that changed and clears the
    towers and one-hots it set last time: through restarts (FT-5), other seats observed into the same
    buffer and a subset observed elsewhere, it equals a fresh observation every step; so does the
    legal mask written into a padded view (``legal_mask(out=...)``)."""
    core = FlightTycoonCore(FlightTycoonRules(**options), check_actions=False)
    rng = np.random.default_rng(11)
    B = 48
    st = core.init(np.arange(B))
    buffer = np.full((B, core.obs_size), 7, np.float32)  # garbage: the first call must overwrite it all
    mask_view = np.ones((B, core.n_actions + 3), bool)[:, :core.n_actions]
    for step in range(150):
        seat = np.maximum(core.to_act(st), 0)
        assert np.array_equal(core.legal_mask(st, out=mask_view), core.legal_mask(st))
        assert np.array_equal(core.observe(st, seat, out=buffer), core.observe(st, seat))
        if step % 7 == 0:  # another seat's view into the same buffer, then a subset into another one
            other = (seat + 1) % core.n_players
            assert np.array_equal(core.observe(st, other, out=buffer), core.observe(st, other))
            games = np.arange(0, B, 3)
            assert np.array_equal(core.observe(st, other[games], games=games, out=np.empty((games.size, core.obs_size),
                                  np.float32)), core.observe(st, other)[games])
        core.step(st, sample_legal(core.legal_mask(st), rng.random(B)))
        ended = np.flatnonzero(st.done)
        if ended.size:
            core.reset(st, ended, 1000 + step * B + ended)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_core_satisfies_the_protocol(n):
    core = FlightTycoonCore(FlightTycoonRules(n_players=n))
    assert isinstance(core, Core)
    assert core.n_players == n and core.n_actions == core.actions.n_actions == 48 + 24 * (n - 1)
    assert core.obs_size == core.observation.size == 65 * n + 158
    assert list(core.observation.blocks)[0] == "hand" and core.actions.kinds[core.actions.kinds.index("give")] == "give"


def test_reset_starts_new_games_in_place_of_the_chosen_ones_only():
    core = FlightTycoonCore(FlightTycoonRules())
    st = random_states(core, 5, seed=3)
    before = st.copy()
    seeds = np.array([40, 2**64 - 1], np.uint64)
    core.reset(st, [3, 1], seeds)
    fresh = core.init(seeds)
    assert core.snapshot(st, 3) == core.snapshot(fresh, 0) and core.snapshot(st, 1) == core.snapshot(fresh, 1)
    assert all(core.snapshot(st, b) == core.snapshot(before, b) for b in (0, 2, 4))


def test_save_and_restore_round_trip_a_batch_exactly(tmp_path):
    core = FlightTycoonCore(FlightTycoonRules(n_players=5, tower_giveable=True))
    st = random_states(core, 9, seed=5)
    np.savez(tmp_path / "batch.npz", **core.save(st))
    back = core.restore(dict(np.load(tmp_path / "batch.npz")))
    assert all(core.snapshot(back, b) == core.snapshot(st, b) for b in range(9))
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    _play(core, st, rng_a, 20)
    _play(core, back, rng_b, 20)
    assert all(core.snapshot(back, b) == core.snapshot(st, b) for b in range(9))
    with pytest.raises(ValueError, match="field 'hand'"):
        FlightTycoonCore(FlightTycoonRules(n_players=3)).restore(core.save(st))


def test_observe_defaults_to_the_seat_to_act():
    core = FlightTycoonCore(FlightTycoonRules())
    st = random_states(core, 30, seed=8)
    seat = np.maximum(core.to_act(st), 0)
    assert st.done.any() and not st.done.all()
    assert np.array_equal(core.observe(st), core.observe(st, seat))
    assert np.array_equal(core.observe(st, games=[7, 2]), core.observe(st, seat[[7, 2]], games=[7, 2]))


def test_action_kinds_follow_the_decision_and_mark_illegal_actions():  # FT-16
    core = FlightTycoonCore(FlightTycoonRules(n_players=3))
    st = random_states(core, 400, seed=0)
    kinds, mask = core.action_kinds(st), core.legal_mask(st)
    assert kinds.dtype == np.int8 and kinds.shape == mask.shape
    assert np.array_equal(kinds >= 0, mask)
    names = np.array(core.actions.kinds)
    for b in range(400):
        legal = np.flatnonzero(mask[b])
        if legal.size:
            assert set(names[kinds[b, legal]]) == {core.actions.kinds[st.phase[b]]}
            assert np.array_equal(names[kinds[b, legal]] == "request", legal >= 48)
    assert {core.actions.kinds[p] for p in st.phase[~st.done]} == set(core.actions.kinds)
