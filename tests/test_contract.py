"""The game contract, checked for every registered game (built in or plugged in) under its rule variants.

In the spirit of OpenSpiel's and Pgx's API tests: a game joins the suite only if its
:class:`~envs.registry.GameSpec` passes this file. It checks every field of the spec: the ``Core``
protocol of ``envs/common/core.py`` (determinism, batch invariance, finished games, masks,
observation bounds, batch operations, save/restore, bad input, action kinds) and the ``View`` under
each of ``spec.variants``; then, under the default rules, the protocols of ``envs/common/protocols.py``:
the single-game env (agreeing with the core, and passing Gymnasium's ``check_env`` or PettingZoo's
``api_test``), its Gymnasium registration, the SB3 VecEnv, rendering, the game in words, the metric
recorder, the end-of-game summary, the agent ladder, the docs page and the training config.
"""

from __future__ import annotations

import copy
import math
import pickle
import tomllib
import warnings

import numpy as np
import pytest

from aerodeck import envs
from aerodeck.envs.common.batch import sample_legal
from aerodeck.envs.common.checks import IllegalActionError
from aerodeck.envs.common.core import ActionLayout, Core, ObservationLayout, View
from aerodeck.envs.common.protocols import MetricRecorder, Policy, SB3VecEnv, SingleGameEnv, TextModule
from tests.test_docs import defined_ids

SPECS = envs.specs()
CASES = [(spec.id, dict(options)) for spec in SPECS for options in spec.variants]
IDS = [f"{spec.id}-{i}" for spec in SPECS for i in range(len(spec.variants))]
GAMES = [spec.id for spec in SPECS]
B = 24
MAX_STEPS = 4000


def play(core, seeds, steps: int, policy_seed: int = 0, state=None):
    """Random legal play: the trajectory (masks, observations, rewards, to_act) of ``steps`` steps."""
    state = core.init(seeds) if state is None else state
    rng = np.random.default_rng(policy_seed)
    trace = []
    for _ in range(steps):
        mask = core.legal_mask(state)
        actions = np.maximum(sample_legal(mask, rng.random(state.batch_size)), 0)
        trace.append((mask, core.observe(state), core.to_act(state), core.step(state, actions)))
    return state, trace


def rollout_to_end(core, state, rng) -> None:
    for _ in range(MAX_STEPS):
        if state.done.all():
            return
        mask = core.legal_mask(state)
        core.step(state, np.maximum(sample_legal(mask, rng.random(state.batch_size)), 0))
    raise AssertionError(f"games not over after {MAX_STEPS} random steps")


def assert_same_state(core, a, b) -> None:
    sa, sb = core.save(a), core.save(b)
    assert sa.keys() == sb.keys()
    for name in sa:
        np.testing.assert_array_equal(sa[name], sb[name], err_msg=name)


def assert_same_trace(a, b) -> None:
    """Two traces of ``play``: the same masks, observations, seats to act and rewards, step by step."""
    assert len(a) == len(b)
    for step_a, step_b in zip(a, b):
        for x, y in zip(step_a, step_b):
            np.testing.assert_array_equal(x, y)


@pytest.fixture(params=CASES, ids=IDS)
def case(request):
    game, options = request.param
    return envs.spec(game), envs.make_core(game, **options)


def test_an_unknown_game_is_refused_naming_the_registered_ones():
    with pytest.raises(ValueError, match=f"unknown game 'no-such-game'; available: {', '.join(envs.games())}"):
        envs.spec("no-such-game")


def test_core_satisfies_the_protocol(case):
    spec, core = case
    assert isinstance(core, Core)
    assert isinstance(core.actions, ActionLayout) and isinstance(core.observation, ObservationLayout)
    assert core.actions.n_actions == core.n_actions > 0
    assert core.observation.size == core.obs_size > 0
    assert core.n_players in spec.player_counts and core.n_players == spec.players(core.rules)
    blocks = sorted(core.observation.blocks.values(), key=lambda b: b.start)
    assert blocks[0].start == 0 and blocks[-1].stop == core.obs_size
    assert all(a.stop == b.start for a, b in zip(blocks, blocks[1:])), "observation blocks must tile the vector"
    assert len(set(core.actions.kinds)) == len(core.actions.kinds) > 0


def test_shapes_and_dtypes(case):
    _, core = case
    state = core.init(np.arange(B))
    mask, obs = core.legal_mask(state), core.observe(state)
    assert mask.dtype == bool and mask.shape == (B, core.n_actions)
    assert obs.dtype == np.float32 and obs.shape == (B, core.obs_size)
    to_act = core.to_act(state)
    assert to_act.dtype == np.int64 and to_act.shape == (B,)
    assert ((to_act >= 0) & (to_act < core.n_players)).all()
    rewards = core.step(state, np.maximum(sample_legal(mask, np.zeros(B)), 0))
    assert rewards.dtype == np.float32 and rewards.shape == (B, core.n_players)
    assert state.done.dtype == bool and state.done.shape == (B,)
    kinds = core.action_kinds(state)
    assert kinds.dtype == np.int8 and kinds.shape == (B, core.n_actions)


def test_determinism(case):
    _, core = case
    a, trace_a = play(core, np.arange(B), 60)
    b, trace_b = play(core, np.arange(B), 60)
    assert_same_state(core, a, b)
    assert_same_trace(trace_a, trace_b)


def test_batch_invariance(case):
    """A game's trajectory depends on its seed and actions, not on the batch it is stepped in."""
    _, core = case
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
            np.testing.assert_array_equal(core.legal_mask(one)[0], mask[i])
            np.testing.assert_array_equal(core.observe(one)[0], obs[i])
            np.testing.assert_array_equal(core.step(one, actions[i : i + 1])[0], rewards[i])
    for i, one in enumerate(alone):
        assert_same_state(core, together.take([i]), one)


def test_masks_non_empty_until_done_and_empty_after(case):
    _, core = case
    state = core.init(np.arange(B))
    rng = np.random.default_rng(2)
    for _ in range(MAX_STEPS):
        mask = core.legal_mask(state)
        np.testing.assert_array_equal(mask.any(axis=1), ~state.done)
        np.testing.assert_array_equal(core.to_act(state) == -1, state.done)
        if state.done.all():
            break
        core.step(state, np.maximum(sample_legal(mask, rng.random(B)), 0))
    assert state.done.all()


def test_a_finished_game_ignores_its_action(case):
    _, core = case
    state = core.init(np.arange(4))
    rollout_to_end(core, state, np.random.default_rng(3))
    before = core.save(state)
    for action in (0, core.n_actions - 1):
        rewards = core.step(state, np.full(4, action))
        assert not rewards.any()
    assert_same_state(core, core.restore(before), state)
    assert not core.legal_mask(state).any()


def test_observations_inside_the_declared_space(case):
    _, core = case
    state = core.init(np.arange(B))
    rng = np.random.default_rng(4)
    for _ in range(300):
        for seat in range(core.n_players):
            obs = core.observe(state, seat)
            assert np.isfinite(obs).all() and obs.min() >= 0.0 and obs.max() <= 1.0
        mask = core.legal_mask(state)
        if state.done.all():
            break
        core.step(state, np.maximum(sample_legal(mask, rng.random(B)), 0))


def test_observe_defaults_to_the_seat_to_act(case):
    _, core = case
    state, _ = play(core, np.arange(B), 3)
    live = np.flatnonzero(~state.done)
    assert live.size
    seats = np.where(state.done, 0, core.to_act(state))
    np.testing.assert_array_equal(core.observe(state)[live], core.observe(state, seats)[live])


def test_copy_take_repeat_put(case):
    _, core = case
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


def test_save_restore_round_trip_continues_identically(case, tmp_path):
    _, core = case
    state, _ = play(core, np.arange(B), 5)
    path = tmp_path / "saved.npz"
    np.savez(path, **core.save(state))
    with np.load(path) as data:
        restored = core.restore(dict(data))
    assert_same_state(core, restored, state)
    _, a = play(core, None, 30, policy_seed=9, state=state)
    _, b = play(core, None, 30, policy_seed=9, state=restored)
    assert_same_trace(a, b)


def test_restore_refuses_what_does_not_fit(case):
    _, core = case
    saved = core.save(core.init(np.arange(2)))
    name = next(iter(saved))
    with pytest.raises(ValueError, match="missing fields"):
        core.restore({k: v for k, v in saved.items() if k != name})
    bad = dict(saved)
    bad[name] = np.zeros((2, 99, 3), np.float64)
    with pytest.raises(ValueError, match=repr(name)):
        core.restore(bad)


def test_reset_starts_new_games_in_place(case):
    _, core = case
    state, _ = play(core, np.arange(5), 20)
    core.reset(state, [1, 3], [101, 103])
    fresh = core.init(np.array([101, 103]))
    assert_same_state(core, state.take([1, 3]), fresh)


def test_reseed_changes_only_the_future_draws(case):
    _, core = case
    state, _ = play(core, np.arange(B), 3)
    branch = state.copy()
    core.reseed(branch, np.arange(1000, 1000 + B))
    np.testing.assert_array_equal(core.legal_mask(branch), core.legal_mask(state))
    np.testing.assert_array_equal(core.observe(branch), core.observe(state))


@pytest.mark.parametrize("seeds", [[-1], [2**64], [1.5], [True], ["3"], [float("nan")], []])
def test_bad_seeds_get_the_same_clear_error(case, seeds):
    _, core = case
    with pytest.raises(ValueError, match=r"seeds? must be"):
        core.init(np.array(seeds, dtype=object) if seeds else np.array([], np.int64))


@pytest.mark.parametrize("actions", ["float", "shape", "range"])
def test_malformed_actions_get_a_clear_error(case, actions):
    _, core = case
    state = core.init(np.arange(3))
    bad = {"float": np.zeros(3), "shape": np.zeros(4, np.int64), "range": np.array([0, 0, core.n_actions])}[actions]
    before = core.save(state)
    with pytest.raises(ValueError, match="action"):
        core.step(state, bad)
    assert_same_state(core, core.restore(before), state)


def test_illegal_actions_are_refused_naming_game_action_and_reason(case):
    _, core = case
    state = core.init(np.arange(3))
    mask = core.legal_mask(state)
    illegal = int(np.flatnonzero(~mask[1])[0])
    actions = np.maximum(sample_legal(mask, np.zeros(3)), 0)
    actions[1] = illegal
    with pytest.raises(IllegalActionError, match="game 1") as err:
        core.step(state, actions)
    reason = core.explain_illegal(state, 1, illegal)
    assert reason and reason in str(err.value)
    assert core.explain_illegal(state, 1, int(np.flatnonzero(mask[1])[0])) is None


def test_action_kinds_cover_exactly_the_legal_actions(case):
    _, core = case
    state = core.init(np.arange(B))
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(200):
        mask, kinds = core.legal_mask(state), core.action_kinds(state)
        np.testing.assert_array_equal(kinds >= 0, mask)
        assert kinds.max() < len(core.actions.kinds)
        seen |= set(np.unique(kinds[kinds >= 0]).tolist())
        if state.done.all():
            break
        core.step(state, np.maximum(sample_legal(mask, rng.random(B)), 0))
    assert len(seen) >= 2


def test_describe_every_action(case):
    _, core = case
    texts = [core.actions.describe(a) for a in range(core.n_actions)]
    assert all(isinstance(t, str) and t for t in texts)
    assert len(set(texts)) == len(texts), "two actions share a description"


def test_view_hides_the_future(case):
    spec, core = case
    state, _ = play(core, np.arange(6), 3)
    live = np.flatnonzero(~state.done)
    state = state.take(live)
    view = spec.make_view(core, state, core.to_act(state))
    assert isinstance(view, View)
    assert view.batch_size == state.batch_size
    np.testing.assert_array_equal(view.legal_mask(), core.legal_mask(state))
    np.testing.assert_array_equal(view.observation(), core.observe(state))
    samples = view.determinize(np.arange(2 * state.batch_size), samples=2)
    assert samples.batch_size == 2 * state.batch_size
    # a determinization is consistent with what the seat sees: same observation and mask
    np.testing.assert_array_equal(core.observe(samples, np.repeat(view.seats, 2)), np.repeat(view.observation(), 2, axis=0))
    np.testing.assert_array_equal(core.legal_mask(samples), np.repeat(view.legal_mask(), 2, axis=0))
    # the kinds of the actions are public: the view's are every determinization's
    np.testing.assert_array_equal(view.action_kinds(), core.action_kinds(state))
    np.testing.assert_array_equal(core.action_kinds(samples), np.repeat(view.action_kinds(), 2, axis=0))


class EnvDriver:
    """One game through the env's own API (Gymnasium or PettingZoo AEC): observation and mask of
    the decision now, and per-seat rewards and the end flag after each step."""

    def __init__(self, env) -> None:
        self.env = env
        self.aec = hasattr(env, "agent_iter")

    def reset(self, seed: int):
        if self.aec:
            self.env.reset(seed=seed)
            return self.now()
        obs, info = self.env.reset(seed=seed)
        self.obs, self.mask = obs, info["action_mask"]
        return obs, self.mask

    def now(self):
        if self.aec:
            obs = self.env.last()[0]
            return obs["observation"], obs["action_mask"]
        return self.obs, self.mask

    def step(self, action: int):
        """Rewards ``float32 (n,)`` by absolute seat, and whether the game is over."""
        if self.aec:
            self.env.step(action)
            rewards = np.array([self.env.rewards[a] for a in self.env.possible_agents], np.float32)
            return rewards, all(self.env.terminations.values())
        self.obs, reward, term, trunc, info = self.env.step(action)
        self.mask = info["action_mask"]
        return np.array([reward], np.float32), term or trunc


def test_single_game_env_agrees_with_the_core(case):
    spec, core = case
    driver = EnvDriver(spec.make_env(rules=core.rules))
    state = core.init(np.array([11]))
    obs, mask = driver.reset(11)
    rng = np.random.default_rng(6)
    for _ in range(MAX_STEPS):
        np.testing.assert_array_equal(mask, core.legal_mask(state)[0])
        np.testing.assert_array_equal(obs, core.observe(state)[0])
        action = int(rng.choice(np.flatnonzero(mask)))
        rewards, done = driver.step(action)
        np.testing.assert_array_equal(rewards, core.step(state, np.array([action]))[0])
        assert done == bool(state.done[0])
        if done:
            return
        obs, mask = driver.now()
    raise AssertionError("game not over")


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_single_game_env_copies_continue_identically(case, how):
    spec, core = case
    original = EnvDriver(spec.make_env(rules=core.rules))
    obs, mask = original.reset(3)
    for _ in range(5):
        original.step(int(np.flatnonzero(mask)[0]))
        obs, mask = original.now()
    twin = EnvDriver(copy.deepcopy(original.env) if how == "deepcopy" else pickle.loads(pickle.dumps(original.env)))
    if not twin.aec:
        twin.obs, twin.mask = obs, mask
    for _ in range(30):
        twin_obs, twin_mask = twin.now()
        np.testing.assert_array_equal(twin_obs, obs)
        np.testing.assert_array_equal(twin_mask, mask)
        action = int(np.flatnonzero(mask)[-1])
        rewards, done = original.step(action)
        twin_rewards, twin_done = twin.step(action)
        np.testing.assert_array_equal(twin_rewards, rewards)
        assert twin_done == done
        if done:
            break
        obs, mask = original.now()


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, True, "3"])
def test_single_game_env_refuses_bad_seeds(case, seed):
    spec, core = case
    env = spec.make_env(rules=core.rules)
    with pytest.raises(ValueError, match="seed must be an integer in 0..2\\*\\*64-1"):
        env.reset(seed=seed)


def test_single_game_env_takes_numpy_actions_and_refuses_floats(case):
    spec, core = case
    env = spec.make_env(rules=core.rules, on_illegal="raise")
    if hasattr(env, "agent_iter"):
        env.reset(seed=0)
        mask = env.last()[0]["action_mask"]
    else:
        _, info = env.reset(seed=0)
        mask = info["action_mask"]
    legal = int(np.flatnonzero(mask)[0])
    for bad in (float(legal), np.float64(legal), True, float("nan")):
        with pytest.raises(ValueError, match=f"0..{core.n_actions - 1}"):
            env.step(bad)
    env.step(np.array([legal]))


# --- the rest of the spec, under the default rules -------------------------------------------------------


def legal_rollout(spec, core, games: int, steps: int, seed: int = 0):
    """Random legal play of ``games`` games for at most ``steps`` steps (to the end if sooner): the
    state, and each step's ``(state before, actions, rewards)``."""
    state = core.init(np.arange(seed, seed + games))
    rng = np.random.default_rng(seed)
    steps_taken = []
    for _ in range(steps):
        if state.done.all():
            break
        before = state.copy()
        actions = np.maximum(sample_legal(core.legal_mask(state), rng.random(games)), 0)
        steps_taken.append((before, actions, core.step(state, actions)))
    return state, steps_taken


@pytest.mark.parametrize("game", GAMES)
def test_spec_declares_a_consistent_game(game):
    spec = envs.spec(game)
    assert spec.title and spec.rule_prefix and spec.rule_ids
    assert spec.players() in spec.player_counts
    assert spec.opponent in spec.agent_names() and (spec.prior is None or spec.prior in spec.agent_names())
    assert spec.ladder, f"{game} declares no agent ladder"
    assert set(spec.render_modes) <= {"ansi", "rgb_array"}
    for options in spec.variants:
        spec.make_rules(**options)  # every variant is a valid rules object
    config = tomllib.loads(spec.training_config_path().read_text(encoding="utf-8"))
    assert {"train", "ppo", "policy"} <= set(config), f"{spec.training_config_path()} lacks a table"
    assert set(spec.padded_options) <= set(spec.rules_class().option_names())


@pytest.mark.parametrize("game", GAMES)
def test_a_declared_rule_general_config_names_a_variant_space_of_the_game(game):
    spec = envs.spec(game)
    if spec.general_config is None:
        pytest.skip(f"{game} declares no rule-general model")
    pytest.importorskip("sb3_contrib")
    from aerodeck.agents.variants import VariantSpace
    from aerodeck.train.learn.config import load_config

    space = VariantSpace(spec, load_config(spec.id, general=True).variants.ranges)  # every option varies in one layout
    assert space.embedding(space.draw(0, 0)).n_actions == spec.make_core(space.family).n_actions


@pytest.mark.parametrize("game", GAMES)
def test_docs_page_defines_every_rule_id(game):
    spec = envs.spec(game)
    missing = sorted(set(spec.rule_ids) - set(defined_ids(game)))
    assert not missing, f"{spec.docs_path()} does not define {', '.join(f'{spec.rule_prefix}-{n}' for n in missing)}"


@pytest.mark.parametrize("game", GAMES)
def test_single_game_env_passes_the_api_checker(game):
    """Gymnasium's ``check_env`` for a solo game's env, PettingZoo's ``api_test`` for an AEC env."""
    spec = envs.spec(game)
    env = spec.make_env()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checkers' advice (e.g. dict observations), not failures
        if hasattr(env, "agent_iter"):
            from pettingzoo.test import api_test

            api_test(env, num_cycles=20)
        else:
            from gymnasium.utils.env_checker import check_env

            assert isinstance(env, SingleGameEnv)
            check_env(env, skip_render_check=True)


@pytest.mark.parametrize("game", [g for g in GAMES if envs.spec(g).gym_id])
def test_gymnasium_id_makes_the_declared_env(game):
    import gymnasium

    spec = envs.spec(game)
    env = gymnasium.make(spec.gym_id)
    assert isinstance(env.unwrapped, type(spec.make_env()))
    if spec.vector is not None:
        vec = gymnasium.make_vec(spec.gym_id, num_envs=2, vectorization_mode="vector_entry_point")
        obs, info = vec.reset(seed=0)
        assert obs.shape == (2, spec.make_core().obs_size) and info["action_mask"].shape[0] == 2


@pytest.mark.parametrize("game", GAMES)
def test_sb3_vecenv_reports_episodes_and_masks(game):
    pytest.importorskip("stable_baselines3")
    spec = envs.spec(game)
    core = spec.make_core()
    venv = spec.make_sb3(4, seed=0)
    assert isinstance(venv, SB3VecEnv)
    obs = venv.reset()
    assert obs.shape == (4, core.obs_size) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    for _ in range(MAX_STEPS):
        masks = venv.action_masks()
        assert masks.shape == (4, core.n_actions) and masks.dtype == bool and masks.any(axis=1).all()
        obs, rewards, dones, infos = venv.step(sample_legal(masks, rng.random(4)))
        assert obs.shape == (4, core.obs_size) and rewards.shape == (4,) and dones.shape == (4,)
        for i in np.flatnonzero(dones):
            episode = infos[i]["episode"]
            assert math.isfinite(episode["r"]) and episode["l"] >= 1
            assert infos[i]["terminal_observation"].shape == (core.obs_size,)
        if dones.any():
            return
    raise AssertionError("no game ended")


@pytest.mark.parametrize("game", GAMES)
def test_env_renders_each_declared_mode(game):
    spec = envs.spec(game)
    for mode in spec.render_modes:
        env = spec.make_env(render_mode=mode)
        env.reset(seed=0)
        frame = env.render()
        if mode == "ansi":
            assert isinstance(frame, str) and frame.strip()
        else:
            assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
            assert frame.ndim == 3 and frame.shape[2] == 3 and min(frame.shape[:2]) > 0


@pytest.mark.parametrize("game", [g for g in GAMES if envs.spec(g).text is not None])
def test_text_parses_back_the_words_of_every_legal_move(game):
    """``parse(words(a)) == a`` for every legal move along a random game; the menu is the legal moves."""
    spec = envs.spec(game)
    text = spec.text_module()
    assert isinstance(text, TextModule)
    core = spec.make_core()
    state, steps = legal_rollout(spec, core, 1, 30, seed=5)
    for before, actions, _ in steps:
        legal = np.flatnonzero(core.legal_mask(before)[0]).tolist()
        assert sorted(a for a, _, _ in text.moves(core, before)) == legal
        for action in legal:
            assert text.parse(core, before, text.words(core, before, action)) == action
        after = before.copy()
        core.step(after, actions)
        assert all(isinstance(line, str) for line in text.events(core, before, after, int(actions[0]), 0))
    with pytest.raises(ValueError):
        text.parse(core, steps[0][0], "no such move 123")
    picture = text.picture(core, state)
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3


@pytest.mark.parametrize("game", [g for g in GAMES if envs.spec(g).metrics is not None])
def test_metric_recorder_gives_finite_ratios_for_every_metric(game):
    spec = envs.spec(game)
    core = spec.make_core()
    catalogue = spec.catalogue()
    G = 6
    recorder = catalogue.make_recorder(core, G, lineups=None if spec.solo else np.zeros((G, core.n_players), np.int64))
    assert isinstance(recorder, MetricRecorder)
    state = core.init(np.arange(G))
    recorder.on_start(core, state, np.arange(G))
    rng = np.random.default_rng(7)
    while not state.done.all():
        actions = np.maximum(sample_legal(core.legal_mask(state), rng.random(G)), 0)
        recorder.on_step(core, state, actions, core.step(state, actions), np.arange(G))
    result = recorder.result()
    for metric in catalogue.for_rules(core.rules):
        numerator, denominator = result[metric.name]
        assert numerator.shape == denominator.shape == (G, metric.width), metric.name
        assert np.isfinite(numerator).all() and np.isfinite(denominator).all(), metric.name
        assert (denominator >= 0).all(), metric.name


@pytest.mark.parametrize("game", [g for g in GAMES if envs.spec(g).summary is not None])
def test_summary_gives_scores_and_standings_per_seat(game):
    spec = envs.spec(game)
    core = spec.make_core()
    state = core.init(np.arange(4))
    rollout_to_end(core, state, np.random.default_rng(8))
    figures = spec.summary_of()(core, state)
    assert np.shape(figures["score"]) == np.shape(figures["standing"]) == (4, core.n_players)
    assert all(np.shape(v) == (4,) for items in figures["tallies"].values() for v in items.values())


LADDER = [(spec.id, agent) for spec in SPECS for agent in dict.fromkeys([*spec.ladder_agents(), spec.opponent])]


@pytest.mark.parametrize(("game", "agent"), LADDER, ids=[f"{g}-{a}" for g, a in LADDER])
def test_ladder_agents_make_legal_moves(game, agent):
    from aerodeck.agents.registry import make_agent

    spec = envs.spec(game)
    core = spec.make_core()
    try:
        player = make_agent(game, agent, core.rules, seed=0)
    except ValueError as err:
        if agent.partition(":")[0] == "ppo":  # a game may ship no trained model, or torch may be missing
            pytest.skip(str(err))
        raise
    assert isinstance(player, Policy)
    state = core.init(np.arange(4))
    for _ in range(3):
        masks = core.legal_mask(state)
        view = spec.make_view(core, state, core.to_act(state)) if player.needs_view else None
        actions = np.asarray(player.act(core.observe(state), masks, view))
        live = np.flatnonzero(masks.any(axis=1))
        assert actions.shape == (4,) and masks[live, actions[live]].all(), f"{agent} played an illegal move"
        core.step(state, np.where(masks.any(axis=1), actions, 0))
