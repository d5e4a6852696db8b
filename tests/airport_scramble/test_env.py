"""The Gymnasium environment: the checkers of Gymnasium and SB3, masks, illegal actions, rendering,
seeding; and MaskablePPO training on it unchanged."""

import copy
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest

from aerodeck import envs  # noqa: F401  (registers the id)
from aerodeck.envs.airport_scramble.core import AirportScrambleCore
from aerodeck.envs.airport_scramble.env import AirportScrambleEnv
from aerodeck.envs.airport_scramble.rules import AirportScrambleRules
from tests.airport_scramble.harness import choose, random_rules

ID = "aerodeck/AirportScramble-v0"


def test_gymnasium_env_checker_passes():
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(gym.make(ID, grid_size=5).unwrapped, skip_render_check=False)


def test_sb3_env_checker_passes():
    from stable_baselines3.common.env_checker import check_env

    check_env(AirportScrambleEnv(), warn=True)


def test_make_passes_rule_options_and_refuses_unknown_ones():
    env = gym.make(ID, grid_size=7, face_up=3, max_replace=3)
    assert env.unwrapped.rules == AirportScrambleRules(grid_size=7, face_up=3, max_replace=3)
    assert env.action_space.n == 4 * 6 + 5 * 49 + 7 + 1  # AS-19 with G=7, F=3
    with pytest.raises(ValueError, match="unknown rule option 'gridsize'"):
        gym.make(ID, gridsize=7)
    with pytest.raises(ValueError, match="on_illegal='ignore'.*terminate, raise"):
        gym.make(ID, on_illegal="ignore")
    with pytest.raises(ValueError, match="render_mode='human'"):
        AirportScrambleEnv(render_mode="human")


def test_mask_is_in_info_and_action_masks_and_matches_the_core():
    env = gym.make(ID)
    obs, info = env.reset(seed=4)
    core = AirportScrambleCore()
    state = core.init([4])
    assert np.array_equal(obs, core.observe(state)[0])
    assert np.array_equal(info["action_mask"], core.legal_mask(state)[0])
    assert np.array_equal(env.unwrapped.action_masks(), info["action_mask"])
    rng = np.random.default_rng(0)
    for _ in range(200):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        core.step(state, np.array([action]))
        assert np.array_equal(obs, core.observe(state)[0]) and np.array_equal(info["action_mask"], env.unwrapped.action_masks())
        if terminated:
            assert info["outcome"] in ("won", "failed") and not info["action_mask"].any()
            obs, info = env.reset(seed=5)
            state = core.init([5])


def test_illegal_action_terminates_with_minus_one_and_the_reason():
    env = gym.make(ID)
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert f"action {illegal} (fly N 1) is illegal" in info["illegal_action"] and "reach" in info["illegal_action"]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


@pytest.mark.parametrize("action, message", [(0, r"action 0 \(fly N 1\) is illegal: the plane's reach N is 0"),
                                             (534, r"action must be an integer in 0\.\.533, got 534"),
                                             ("x", r"action must be an integer in 0\.\.533, got 'x'")])
def test_illegal_action_raises_under_on_illegal_raise(action, message):
    env = gym.make(ID, on_illegal="raise")
    env.reset(seed=1)
    with pytest.raises(ValueError, match=message):
        env.step(action)


def test_render_ansi_and_rgb_array():
    env = gym.make(ID, render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    origin = env.unwrapped.rules.components.codes[env.unwrapped.core.components.ticket_origin[int(env.unwrapped._state.ticket[0])]]
    assert f"*{origin}:" in text and "face up:" in text and "score 0" in text
    env = gym.make(ID, render_mode="rgb_array")
    env.reset(seed=2)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3 and image.std() > 10


def test_reset_without_seed_is_reproducible_from_the_first_seed():
    a, b = gym.make(ID), gym.make(ID)
    a.reset(seed=7)
    b.reset(seed=7)
    oa, _ = a.reset()
    ob, _ = b.reset()
    assert np.array_equal(oa, ob)


def test_maskable_ppo_trains_on_the_single_env(tmp_path):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from sb3_contrib.common.wrappers import ActionMasker

    env = ActionMasker(AirportScrambleEnv(grid_size=5), lambda e: e.action_masks())
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, verbose=0)
    model.set_logger(configure(str(tmp_path), []))  # SB3 would make a log folder in /tmp
    model.learn(256)
    obs, info = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=info["action_mask"])
    assert info["action_mask"][action]


@pytest.mark.parametrize("on_illegal", ["terminate", "raise"])
@pytest.mark.parametrize("action", [1.0, True, np.float64("nan"), np.array([1, 2]), None, -1])
def test_malformed_actions_are_refused_naming_the_allowed_range(on_illegal, action):
    """Not an action at all (float, bool, NaN, several, none, out of range): ``ValueError`` whatever
    ``on_illegal`` says, never truncated; the episode goes on."""
    env = gym.make(ID, on_illegal=on_illegal)
    _, info = env.reset(seed=1)
    with pytest.raises(ValueError, match=r"action must be an integer in 0\.\.533"):
        env.step(action)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    env.step(legal)


@pytest.mark.parametrize("wrap", [np.int64, np.uint16, lambda a: np.array([a]), lambda a: np.array(a)])
def test_numpy_integers_and_one_element_arrays_are_actions(wrap):
    env, plain = gym.make(ID), gym.make(ID)
    _, info = env.reset(seed=2)
    plain.reset(seed=2)
    action = int(np.flatnonzero(info["action_mask"])[-1])
    obs, reward, *_ = env.step(wrap(action))
    expected, expected_reward, *_ = plain.step(action)
    assert np.array_equal(obs, expected) and reward == expected_reward


def test_reset_checks_the_seed_like_every_entry_point():
    env = gym.make(ID)
    for bad in (-1, 2**64, 1.5, True, "3"):
        with pytest.raises(ValueError, match=r"seed must be an integer in 0\.\.2\*\*64-1"):
            env.reset(seed=bad)
    a, _ = env.reset(seed=np.uint64(2**64 - 1))
    b, _ = gym.make(ID).reset(seed=2**64 - 1)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("clone", [copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env))])
def test_copies_made_mid_game_continue_like_the_original(clone):
    env = AirportScrambleEnv(grid_size=6)
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(4):  # a die shows at least 3 turns: the game is still on
        obs, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        assert not terminated
    twin = clone(env)
    assert np.array_equal(twin.action_masks(), env.action_masks())
    for _ in range(40):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, _, info = env.step(action)
        obs2, reward2, terminated2, _, info2 = twin.step(action)
        assert np.array_equal(obs, obs2) and reward == reward2 and terminated == terminated2
        assert np.array_equal(info["action_mask"], info2["action_mask"])
        if terminated:
            break
    assert env.core.snapshot(env._state, 0) == twin.core.snapshot(twin._state, 0)


@pytest.mark.parametrize("variant", range(12))
def test_the_env_plays_the_cores_game_step_by_step(variant):
    """The env runs one game on ``SingleGame`` (not the core): over random rule variants (small
    editions, so AS-15 line choices come up) its observations (bit for bit), masks, rewards, ends and
    positions equal the core's game of the same seed after every step."""
    r = np.random.default_rng(500 + variant)
    rules = random_rules(r) if variant else AirportScrambleRules()
    env, core = AirportScrambleEnv(rules=rules), AirportScrambleCore(rules)
    for seed in range(variant * 100, variant * 100 + 8):
        obs, info = env.reset(seed=seed)
        state = core.init([seed])
        while True:
            assert np.array_equal(obs.view(np.uint32), core.observe(state)[0].view(np.uint32))
            assert np.array_equal(info["action_mask"], core.legal_mask(state)[0])
            assert env.unwrapped._game.snapshot() == core.snapshot(state, 0)
            if state.done[0]:
                break
            action = choose(info["action_mask"], r, core.actions.n_fly)
            obs, reward, terminated, _, info = env.step(action)
            assert reward == core.step(state, np.array([action]))[0, 0] and terminated == state.done[0]


def test_rule_options_apply_on_top_of_a_rules_object():
    """As in every env (``aerodeck.envs.common.checks.rules_with_options``): ``rules`` plus options is
    ``rules.replace(**options)``; a rules object of another game is a ``TypeError``."""
    env = gym.make(ID, rules=AirportScrambleRules(grid_size=7), allow_wait=False)
    assert env.unwrapped.rules == AirportScrambleRules(grid_size=7, allow_wait=False)
    assert AirportScrambleEnv(rules=AirportScrambleRules(grid_size=5)).rules == AirportScrambleRules(grid_size=5)
    with pytest.raises(TypeError, match="rules must be an AirportScrambleRules"):
        AirportScrambleEnv(rules={"grid_size": 5})
