"""The contract's checks of the batched core and the view, under each of the spec's rule variants:
each is ``check(spec, core)`` with the core built for one variant."""

from __future__ import annotations

import io
import re

import numpy as np

from aerodeck.envs.common.batch import sample_legal
from aerodeck.envs.common.checks import IllegalActionError
from aerodeck.envs.common.core import ActionLayout, Core, ObservationLayout, View
from aerodeck.testing.contract import (B, MAX_STEPS, assert_same_state, assert_same_trace, contract_check, expect, play,
                                       raises, rollout_to_end)


# --- the core, under each variant ----------------------------------------------------------------


@contract_check("core_protocol", "core", "variant")
def core_protocol(spec, core):
    """The core satisfies the ``Core`` protocol; layouts, players and action kinds are consistent."""
    assert isinstance(core, Core), f"{type(core).__name__} does not satisfy aerodeck.envs.common.core.Core"
    assert isinstance(core.actions, ActionLayout) and isinstance(core.observation, ObservationLayout)
    assert core.actions.n_actions == core.n_actions > 0
    assert core.observation.size == core.obs_size > 0
    expect(core.n_players in spec.player_counts and core.n_players == spec.players(core.rules), "player_counts",
           f"the core has {core.n_players} players; player_counts {spec.player_counts}, "
           f"players(rules) {spec.players(core.rules)}")
    blocks = sorted(core.observation.blocks.values(), key=lambda b: b.start)
    assert blocks[0].start == 0 and blocks[-1].stop == core.obs_size, "observation blocks must cover the vector"
    assert all(a.stop == b.start for a, b in zip(blocks, blocks[1:])), "observation blocks must tile the vector"
    assert len(set(core.actions.kinds)) == len(core.actions.kinds) > 0, "action kinds must be distinct and not none"


@contract_check("shapes_and_dtypes", "core", "variant")
def shapes_and_dtypes(spec, core):
    """Masks ``bool (B, A)``, observations ``float32 (B, O)``, ``to_act``, rewards, ``done`` and kinds."""
    state = core.init(np.arange(B))
    mask, obs = core.legal_mask(state), core.observe(state)
    assert mask.dtype == bool and mask.shape == (B, core.n_actions), f"legal_mask: {mask.dtype} {mask.shape}"
    assert obs.dtype == np.float32 and obs.shape == (B, core.obs_size), f"observe: {obs.dtype} {obs.shape}"
    to_act = core.to_act(state)
    assert to_act.dtype == np.int64 and to_act.shape == (B,), f"to_act: {to_act.dtype} {to_act.shape}"
    assert ((to_act >= 0) & (to_act < core.n_players)).all(), "to_act out of range"
    rewards = core.step(state, np.maximum(sample_legal(mask, np.zeros(B)), 0))
    assert rewards.dtype == np.float32 and rewards.shape == (B, core.n_players), f"step: {rewards.dtype} {rewards.shape}"
    assert state.done.dtype == bool and state.done.shape == (B,), f"done: {state.done.dtype} {state.done.shape}"
    kinds = core.action_kinds(state)
    assert kinds.dtype == np.int8 and kinds.shape == (B, core.n_actions), f"action_kinds: {kinds.dtype} {kinds.shape}"


@contract_check("determinism", "core", "variant")
def determinism(spec, core):
    """The same seeds and actions give the same states, masks, observations and rewards."""
    a, trace_a = play(core, np.arange(B), 60)
    b, trace_b = play(core, np.arange(B), 60)
    assert_same_state(core, a, b)
    assert_same_trace(trace_a, trace_b)


@contract_check("batch_invariance", "core", "variant")
def batch_invariance(spec, core):
    """A game's trajectory depends on its seed and actions, not on the batch it is stepped in."""
    seeds = np.array([7, 2**64 - 1, 0, 123456789012345678], np.uint64)
    together = core.init(seeds)
    alone = [core.init(seeds[i : i + 1]) for i in range(len(seeds))]
    rng = np.random.default_rng(1)
    for _ in range(80):
        mask = core.legal_mask(together)
        actions = np.maximum(sample_legal(mask, rng.random(len(seeds))), 0)
        obs = core.observe(together)
        rewards = core.step(together, actions)
        for i, one in enumerate(alone):
            np.testing.assert_array_equal(core.legal_mask(one)[0], mask[i], err_msg=f"seed {seeds[i]}: mask")
            np.testing.assert_array_equal(core.observe(one)[0], obs[i], err_msg=f"seed {seeds[i]}: observation")
            np.testing.assert_array_equal(core.step(one, actions[i : i + 1])[0], rewards[i], err_msg=f"seed {seeds[i]}: rewards")
    for i, one in enumerate(alone):
        assert_same_state(core, together.take([i]), one)


@contract_check("masks_until_done", "core", "variant")
def masks_until_done(spec, core):
    """A mask is non-empty until the game is over and empty after; ``to_act`` is -1 exactly then; games end."""
    state = core.init(np.arange(B))
    rng = np.random.default_rng(2)
    for _ in range(MAX_STEPS):
        mask = core.legal_mask(state)
        np.testing.assert_array_equal(mask.any(axis=1), ~state.done, err_msg="a legal move exactly while not done")
        np.testing.assert_array_equal(core.to_act(state) == -1, state.done, err_msg="to_act -1 exactly when done")
        if state.done.all():
            break
        core.step(state, np.maximum(sample_legal(mask, rng.random(B)), 0))
    assert state.done.all(), f"games not over after {MAX_STEPS} random steps"


@contract_check("finished_game", "core", "variant")
def finished_game(spec, core):
    """A finished game ignores its action, rewards nothing and keeps its state."""
    state = core.init(np.arange(4))
    rollout_to_end(core, state, np.random.default_rng(3))
    before = core.save(state)
    for action in (0, core.n_actions - 1):
        rewards = core.step(state, np.full(4, action))
        assert not rewards.any(), f"a finished game rewarded action {action}"
    assert_same_state(core, core.restore(before), state)
    assert not core.legal_mask(state).any()


@contract_check("observation_bounds", "core", "variant")
def observation_bounds(spec, core):
    """Every seat's observation is finite and inside ``[0, 1]`` along random games."""
    state = core.init(np.arange(B))
    rng = np.random.default_rng(4)
    for _ in range(300):
        for seat in range(core.n_players):
            obs = core.observe(state, seat)
            assert np.isfinite(obs).all() and obs.min() >= 0.0 and obs.max() <= 1.0, \
                f"seat {seat}'s observation outside [0, 1]: min {obs.min()}, max {obs.max()}"
        mask = core.legal_mask(state)
        if state.done.all():
            break
        core.step(state, np.maximum(sample_legal(mask, rng.random(B)), 0))


@contract_check("observe_default_seat", "core", "variant")
def observe_default_seat(spec, core):
    """``observe(state)`` is the observation of the seat to act."""
    state, _ = play(core, np.arange(B), 3)
    live = np.flatnonzero(~state.done)
    assert live.size, "every game over after 3 moves"
    seats = np.where(state.done, 0, core.to_act(state))
    np.testing.assert_array_equal(core.observe(state)[live], core.observe(state, seats)[live])


@contract_check("batch_operations", "core", "variant")
def batch_operations(spec, core):
    """``copy`` (not sharing arrays), ``take``, ``repeat`` and ``put`` move whole games."""
    state, _ = play(core, np.arange(6), 3)
    dup = state.copy()
    assert_same_state(core, dup, state)
    core.step(dup, np.maximum(sample_legal(core.legal_mask(dup), np.zeros(6)), 0))
    assert any((core.save(dup)[k] != core.save(state)[k]).any() for k in core.save(state)), "copy shares arrays"
    picked = state.take([4, 1])
    assert_same_state(core, picked.take([0]), state.take([4]))
    rep = state.take([2]).repeat(3)
    assert rep.batch_size == 3
    for i in range(3):
        assert_same_state(core, rep.take([i]), state.take([2]))
    target = state.copy()
    target.put([0, 5], picked)
    assert_same_state(core, target.take([0]), state.take([4]))
    assert_same_state(core, target.take([5]), state.take([1]))
    assert_same_state(core, target.take([3]), state.take([3]))


@contract_check("save_restore", "core", "variant")
def save_restore(spec, core):
    """``save`` → ``.npz`` → ``restore`` gives the same state, which plays on identically."""
    state, _ = play(core, np.arange(B), 5)
    buffer = io.BytesIO()
    np.savez(buffer, **core.save(state))
    buffer.seek(0)
    with np.load(buffer) as data:
        restored = core.restore(dict(data))
    assert_same_state(core, restored, state)
    _, a = play(core, None, 30, policy_seed=9, state=state)
    _, b = play(core, None, 30, policy_seed=9, state=restored)
    assert_same_trace(a, b)


@contract_check("restore_refuses", "core", "variant")
def restore_refuses(spec, core):
    """``restore`` refuses missing fields and a field of the wrong shape, naming it."""
    saved = core.save(core.init(np.arange(2)))
    name = next(iter(saved))
    with raises(ValueError, "missing fields", f"restore without the field {name!r}"):
        core.restore({k: v for k, v in saved.items() if k != name})
    bad = dict(saved)
    bad[name] = np.zeros((2, 99, 3), np.float64)
    with raises(ValueError, re.escape(repr(name)), f"restore with a field {name!r} of the wrong shape"):
        core.restore(bad)


@contract_check("reset_in_place", "core", "variant")
def reset_in_place(spec, core):
    """``reset(state, games, seeds)`` starts new games in place of some: as ``init`` of those seeds."""
    state, _ = play(core, np.arange(5), 20)
    core.reset(state, [1, 3], [101, 103])
    assert_same_state(core, state.take([1, 3]), core.init(np.array([101, 103])))


@contract_check("reseed", "core", "variant")
def reseed(spec, core):
    """``reseed`` changes only the future draws: the mask and observation now stay."""
    state, _ = play(core, np.arange(B), 3)
    branch = state.copy()
    core.reseed(branch, np.arange(1000, 1000 + B))
    np.testing.assert_array_equal(core.legal_mask(branch), core.legal_mask(state))
    np.testing.assert_array_equal(core.observe(branch), core.observe(state))


#: Seeds every entry point refuses (the one seed check of ``aerodeck.envs.common.checks``).
BAD_SEEDS = ([-1], [2**64], [1.5], [True], ["3"], [float("nan")], [])


@contract_check("bad_seeds", "core", "variant")
def bad_seeds(spec, core):
    """``init`` refuses negative, too large, fractional, boolean, text, NaN and empty seeds alike."""
    for seeds in BAD_SEEDS:
        with raises(ValueError, r"seeds? must be", f"init({seeds!r})"):
            core.init(np.array(seeds, dtype=object) if seeds else np.array([], np.int64))


@contract_check("malformed_actions", "core", "variant")
def malformed_actions(spec, core):
    """``step`` refuses float actions, a wrong shape and an out-of-range action before any game moves."""
    state = core.init(np.arange(3))
    for what, bad in (("float actions", np.zeros(3)), ("actions of the wrong shape", np.zeros(4, np.int64)),
                      ("an out-of-range action", np.array([0, 0, core.n_actions]))):
        before = core.save(state)
        with raises(ValueError, "action", f"step with {what}"):
            core.step(state, bad)
        assert_same_state(core, core.restore(before), state)


@contract_check("illegal_actions", "core", "variant")
def illegal_actions(spec, core):
    """An illegal action raises ``IllegalActionError`` naming the game and ``explain_illegal``'s reason."""
    state = core.init(np.arange(3))
    mask = core.legal_mask(state)
    illegal = int(np.flatnonzero(~mask[1])[0])
    actions = np.maximum(sample_legal(mask, np.zeros(3)), 0)
    actions[1] = illegal
    with raises(IllegalActionError, "game 1", f"step with the illegal action {illegal} in game 1") as err:
        core.step(state, actions)
    reason = core.explain_illegal(state, 1, illegal)
    assert reason and reason in str(err.value), f"explain_illegal gives {reason!r}, the error says {err.value}"
    assert core.explain_illegal(state, 1, int(np.flatnonzero(mask[1])[0])) is None, "explain_illegal of a legal action"


@contract_check("action_kinds", "core", "variant")
def action_kinds(spec, core):
    """``action_kinds`` is ≥ 0 exactly on the legal actions, and random games see at least two kinds."""
    state = core.init(np.arange(B))
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(200):
        mask, kinds = core.legal_mask(state), core.action_kinds(state)
        np.testing.assert_array_equal(kinds >= 0, mask, err_msg="action_kinds >= 0 exactly where legal")
        assert kinds.max() < len(core.actions.kinds)
        seen |= set(np.unique(kinds[kinds >= 0]).tolist())
        if state.done.all():
            break
        core.step(state, np.maximum(sample_legal(mask, rng.random(B)), 0))
    assert len(seen) >= 2, f"random games saw only the action kinds {sorted(seen)}"


@contract_check("describe_actions", "core", "variant")
def describe_actions(spec, core):
    """Every action has a description of its own."""
    texts = [core.actions.describe(a) for a in range(core.n_actions)]
    assert all(isinstance(t, str) and t for t in texts), "an action without a description"
    assert len(set(texts)) == len(texts), "two actions share a description"


@contract_check("view", "view", "variant")
def view(spec, core):
    """The view shows the seat's mask and observation; its determinizations agree with them."""
    state, _ = play(core, np.arange(6), 3)
    state = state.take(np.flatnonzero(~state.done))
    seen = spec.make_view(core, state, core.to_act(state))
    assert isinstance(seen, View), f"{type(seen).__name__} does not satisfy aerodeck.envs.common.core.View"
    assert seen.batch_size == state.batch_size
    np.testing.assert_array_equal(seen.legal_mask(), core.legal_mask(state))
    np.testing.assert_array_equal(seen.observation(), core.observe(state))
    samples = seen.determinize(np.arange(2 * state.batch_size), samples=2)
    assert samples.batch_size == 2 * state.batch_size
    # a determinization is consistent with what the seat sees: same observation and mask
    np.testing.assert_array_equal(core.observe(samples, np.repeat(seen.seats, 2)), np.repeat(seen.observation(), 2, axis=0))
    np.testing.assert_array_equal(core.legal_mask(samples), np.repeat(seen.legal_mask(), 2, axis=0))
    # the kinds of the actions are public: the view's are every determinization's
    np.testing.assert_array_equal(seen.action_kinds(), core.action_kinds(state))
    np.testing.assert_array_equal(core.action_kinds(samples), np.repeat(seen.action_kinds(), 2, axis=0))
