"""The batched environments: Gymnasium's VectorEnv (vector entry point) and the SB3 VecEnv, with
same-step autoreset, masks in infos, and MaskablePPO training on the SB3 VecEnv unchanged."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from aerodeck import envs  # noqa: F401
from aerodeck.envs.airport_scramble.core import AirportScrambleCore
from aerodeck.envs.airport_scramble.sb3 import AirportScrambleSB3VecEnv
from aerodeck.envs.airport_scramble.vector import AirportScrambleVectorEnv

ID = "aerodeck/AirportScramble-v0"


def random_actions(masks, rng):
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def test_make_vec_uses_the_native_vector_env():
    envs_ = gym.make_vec(ID, num_envs=4, vectorization_mode="vector_entry_point", grid_size=6)
    assert isinstance(envs_.unwrapped, AirportScrambleVectorEnv)
    assert envs_.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, info = envs_.reset(seed=3)
    assert obs.shape == (4, envs_.single_observation_space.shape[0]) and info["action_mask"].shape == (4, envs_.single_action_space.n)
    assert envs_.unwrapped.rules.grid_size == 6


def test_vector_env_matches_the_core_and_autoresets_in_the_same_step():
    env = AirportScrambleVectorEnv(num_envs=8)
    core = AirportScrambleCore()
    obs, info = env.reset(seed=10)
    state = core.init(np.arange(10, 18))
    assert np.array_equal(obs, core.observe(state))
    rng = np.random.default_rng(0)
    ended_seen = 0
    for _ in range(60):
        actions = random_actions(info["action_mask"], rng)
        core.step(state, actions)
        final = core.observe(state)
        obs, rewards, terminated, truncated, info = env.step(actions)
        assert not truncated.any()
        for i in np.flatnonzero(terminated):
            ended_seen += 1
            assert info["_final_obs"][i] and np.array_equal(info["final_obs"][i], final[i])
            assert info["final_info"]["outcome"][i] in ("won", "failed")
            state.put([i], env.games.state.take([i]))  # follow the env into its new game
        live = ~terminated
        assert np.array_equal(obs[live], core.observe(state)[live])
        assert np.array_equal(info["action_mask"], env.action_masks())
        assert all(info["action_mask"][i].any() for i in range(8))
    assert ended_seen > 0


def test_vector_env_illegal_actions():
    env = AirportScrambleVectorEnv(num_envs=3)
    _, info = env.reset(seed=0)
    actions = random_actions(info["action_mask"], np.random.default_rng(0))
    actions[1] = int(np.flatnonzero(~info["action_mask"][1])[0])
    obs, rewards, terminated, _, info = env.step(actions)
    assert rewards[1] == -1.0 and terminated[1] and "env 1: action" in info["final_info"]["illegal_action"][1]
    assert info["final_info"]["outcome"][1] == "illegal" and info["action_mask"][1].any()
    strict = AirportScrambleVectorEnv(num_envs=2, on_illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match=r"env 0: action 0 \(fly N 1\) is illegal"):
        strict.step(np.array([0, 0]))
    with pytest.raises(ValueError, match=r"actions must be integers of shape \(2,\)"):
        strict.step(np.array([0]))
    with pytest.raises(ValueError, match=r"seed must be an integer in 0\.\.2\*\*64-1.*got -1"):
        AirportScrambleSB3VecEnv(num_envs=2, seed=-1).reset()
    with pytest.raises(ValueError, match="needs 2 seeds"):
        strict.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match=r"seed must be at most 2\*\*64-2 with 2 envs"):
        strict.reset(seed=2**64 - 1)
    with pytest.raises(ValueError, match=r"seed must be an integer in 0\.\.2\*\*64-1.*got 1\.5"):
        strict.reset(seed=1.5)


def test_sb3_vec_env_gives_terminal_observations_and_masks_through_env_method():
    env = AirportScrambleSB3VecEnv(num_envs=6, seed=1)
    obs = env.reset()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(60):
        masks = np.stack(env.env_method("action_masks"))
        assert np.array_equal(masks, env.action_masks()) and env.has_attr("action_masks")
        obs, rewards, dones, infos = env.step(random_actions(masks, rng))
        for i in np.flatnonzero(dones):
            ended += 1
            assert infos[i]["terminal_observation"].shape == obs[i].shape
            assert infos[i]["episode"]["l"] >= 1 and "TimeLimit.truncated" in infos[i]
            assert infos[i]["episode"]["r"] == infos[i]["score"] and infos[i]["outcome"] in ("won", "failed")
            assert infos[i]["episode"]["t"] >= 0
    assert ended > 0
    assert env.env_method("action_masks", indices=[2])[0].shape == (534,)


def test_maskable_ppo_trains_on_the_sb3_vec_env(tmp_path):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    env = AirportScrambleSB3VecEnv(num_envs=8, seed=0, grid_size=5)
    assert is_masking_supported(env) and get_action_masks(env).shape == (8, env.action_space.n)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, verbose=0)
    model.set_logger(configure(str(tmp_path), []))  # SB3 would make a log folder in /tmp
    model.learn(512)
    assert model.num_timesteps >= 256


def test_gymnasium_record_episode_statistics_composes_with_the_native_vector_env():
    """Gymnasium's conventions: the vector env emits no ``episode`` of its own, so the wrapper's
    ``info["episode"]`` (same-step autoreset) holds each ended game's return and length."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    envs_ = RecordEpisodeStatistics(gym.make_vec(ID, num_envs=4, vectorization_mode="vector_entry_point", grid_size=5))
    _, info = envs_.reset(seed=2)
    rng = np.random.default_rng(2)
    returns, lengths, ended = np.zeros(4), np.zeros(4, int), 0
    for _ in range(80):
        _, rewards, terminated, truncated, info = envs_.step(random_actions(info["action_mask"], rng))
        returns += rewards
        lengths += 1
        for i in np.flatnonzero(terminated):
            ended += 1
            assert info["_episode"][i] and info["episode"]["l"][i] == lengths[i]
            assert info["episode"]["r"][i] == returns[i] == info["final_info"]["score"][i]
        returns[terminated], lengths[terminated] = 0, 0
    assert ended > 0 and len(envs_.return_queue) == ended


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec_with_next_step_autoreset_gives_an_empty_mask_on_the_reset_step(mode):
    """Gymnasium's sync/async vector envs reset a row on the step after its game ended: that row's
    mask is all False and its action is ignored (docs/airport-scramble.md shows how to sample)."""
    kwargs = {"grid_size": 5} if mode == "sync" else {"grid_size": 5, "vector_kwargs": {"context": "spawn"}}
    envs_ = gym.make_vec(ID, num_envs=3, vectorization_mode=mode, **kwargs)
    twin = gym.make_vec(ID, num_envs=3, vectorization_mode=mode, **kwargs)
    assert envs_.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    _, info = envs_.reset(seed=4)
    twin.reset(seed=4)
    rng = np.random.default_rng(4)
    ended = np.zeros(3, bool)
    resets = 0
    for _ in range(60):
        mask = info["action_mask"]
        assert np.array_equal(~mask.any(axis=1), ended)  # empty exactly on the reset step
        actions = np.array([0 if e else rng.choice(np.flatnonzero(m)) for m, e in zip(mask, ended)])
        other = actions.copy()
        other[ended] = 7  # any action: the reset step ignores it
        resets += ended.sum()
        obs, _, terminated, truncated, info = envs_.step(actions)
        twin_obs, *_ = twin.step(other)
        assert np.array_equal(obs, twin_obs)
        ended = terminated | truncated
    assert resets > 0
    envs_.close()
    twin.close()
