"""The contract's checks of the single-game env (Gymnasium or PettingZoo AEC), under each of the
spec's rule variants: each is ``check(spec, core)`` with the core of that variant to compare with."""

from __future__ import annotations

import copy
import pickle

import numpy as np

from aerodeck.testing.contract import MAX_STEPS, contract_check, raises


# --- the single-game env, under each variant -----------------------------------------------------


class EnvDriver:
    """One game through the env's own API (Gymnasium or PettingZoo AEC): observation and mask of
    the decision now, and per-seat rewards and the end flag after each step."""

    def __init__(self, env) -> None:
        self.env = env
        self.aec = hasattr(env, "agent_iter")

    def reset(self, seed: int):
        """``(observation float32 (O,), mask bool (A,))`` of the first decision."""
        if self.aec:
            self.env.reset(seed=seed)
            return self.now()
        obs, info = self.env.reset(seed=seed)
        self.obs, self.mask = obs, info["action_mask"]
        return obs, self.mask

    def now(self):
        """``(observation, mask)`` of the decision now."""
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


@contract_check("env_agrees_with_core", "env", "variant")
def env_agrees_with_core(spec, core):
    """The single-game env plays the game ``core.init([seed])`` plays: masks, observations, rewards, end."""
    driver = EnvDriver(spec.make_env(rules=core.rules))
    state = core.init(np.array([11]))
    obs, mask = driver.reset(11)
    rng = np.random.default_rng(6)
    for step in range(MAX_STEPS):
        np.testing.assert_array_equal(mask, core.legal_mask(state)[0], err_msg=f"step {step}: the env's mask")
        np.testing.assert_array_equal(obs, core.observe(state)[0], err_msg=f"step {step}: the env's observation")
        action = int(rng.choice(np.flatnonzero(mask)))
        rewards, done = driver.step(action)
        np.testing.assert_array_equal(rewards, core.step(state, np.array([action]))[0], err_msg=f"step {step}: rewards")
        assert done == bool(state.done[0]), f"step {step}: the env says done={done}, the core {bool(state.done[0])}"
        if done:
            return
        obs, mask = driver.now()
    raise AssertionError(f"the game is not over after {MAX_STEPS} steps")


@contract_check("env_copies", "env", "variant")
def env_copies(spec, core):
    """A deep copy and a pickled copy of a game in progress continue identically."""
    for how in ("deepcopy", "pickle"):
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
            np.testing.assert_array_equal(twin_obs, obs, err_msg=f"{how}: observation")
            np.testing.assert_array_equal(twin_mask, mask, err_msg=f"{how}: mask")
            action = int(np.flatnonzero(mask)[-1])
            rewards, done = original.step(action)
            twin_rewards, twin_done = twin.step(action)
            np.testing.assert_array_equal(twin_rewards, rewards, err_msg=f"{how}: rewards")
            assert twin_done == done, f"{how}: the copy ends otherwise"
            if done:
                break
            obs, mask = original.now()


@contract_check("env_bad_seeds", "env", "variant")
def env_bad_seeds(spec, core):
    """The env's ``reset`` refuses a seed that is not an integer in ``0..2**64-1``."""
    env = spec.make_env(rules=core.rules)
    for seed in (-1, 2**64, 1.5, True, "3"):
        with raises(ValueError, r"seed must be an integer in 0..2\*\*64-1", f"reset(seed={seed!r})"):
            env.reset(seed=seed)


@contract_check("env_action_types", "env", "variant")
def env_action_types(spec, core):
    """The env takes numpy integer actions and refuses floats, booleans and NaN naming the range."""
    env = spec.make_env(rules=core.rules, on_illegal="raise")
    if hasattr(env, "agent_iter"):
        env.reset(seed=0)
        mask = env.last()[0]["action_mask"]
    else:
        _, info = env.reset(seed=0)
        mask = info["action_mask"]
    legal = int(np.flatnonzero(mask)[0])
    for bad in (float(legal), np.float64(legal), True, float("nan")):
        with raises(ValueError, f"0..{core.n_actions - 1}", f"step({bad!r})"):
            env.step(bad)
    env.step(np.array([legal]))
