"""The batched training view: one learning seat per game, opponents from agents/ on the whole batch."""

import numpy as np
import pytest

from agents.base import Agent
from agents.random import RandomAgent
from envs.common.batch import sample_legal
from envs.flight_tycoon.rules import FlightTycoonRules
from envs.flight_tycoon.training import SelfPlay


class Recorder(RandomAgent):
    """A random agent that records the masks it was shown."""

    def act(self, observations, masks, view=None):
        self.seen = getattr(self, "seen", 0) + masks.shape[0]
        assert masks.any(1).all() and observations.shape[0] == masks.shape[0]
        return super().act(observations, masks, view)


def _run(view, steps, seed=0):
    rng = np.random.default_rng(seed)
    rewards, dones, infos = [], [], []
    for _ in range(steps):
        obs, r, d, info = view.step(sample_legal(view.action_masks(), rng.random(view.num_envs)))
        rewards.append(r)
        dones.append(d)
        infos.extend(i for i in info if i)
    return np.array(rewards), np.array(dones), infos


def test_every_game_waits_for_its_learner_with_a_legal_action():
    view = SelfPlay(64, opponents=Recorder(1), n_players=5)
    obs, masks = view.reset()
    assert obs.shape == (64, 483) and masks.shape == (64, 144)
    for _ in range(80):
        assert view.action_masks().any(1).all()
        assert (view.core.to_act(view.state) == view.learner).all()
        view.step(sample_legal(view.action_masks(), np.random.default_rng(0).random(64)))
    assert view.opponents[0].seen > 64 * 80


def test_finished_games_restart_at_once_with_their_last_observation_in_info():
    view = SelfPlay(32, seed=3)
    view.reset()
    rewards, dones, infos = _run(view, 150)
    assert dones.sum() > 32
    assert len(infos) == dones.sum()
    assert all(i["terminal_observation"].shape == (view.observation_size,) for i in infos)
    final = rewards[dones]
    allowed = np.array([1, 1 / 2, 1 / 3, 1 / 4, -1 / 3])
    assert np.isclose(final[:, None], allowed[None, :], atol=1e-6).any(1).all()  # FT-15
    assert not rewards[~dones].any()  # outcome rewards only at the end


def test_rotating_learner_seats_cover_every_seat():
    view = SelfPlay(40, learner_seat="rotate", n_players=4)
    view.reset()
    assert np.bincount(view.learner, minlength=4).tolist() == [10, 10, 10, 10]
    fixed = SelfPlay(8, learner_seat=2)
    fixed.reset()
    assert (fixed.learner == 2).all()


def test_vp_rewards_reach_the_learner_when_its_card_lands_during_an_opponents_give():
    view = SelfPlay(64, reward="vp", seed=1)
    view.reset()
    rewards, dones, infos = _run(view, 120)
    assert rewards.sum() > 0
    assert sum(i["vp"][0] for i in infos) <= rewards.sum()


def test_the_same_seeds_and_agents_replay_the_same_games():
    a = SelfPlay(16, opponents=[RandomAgent(1), RandomAgent(2), RandomAgent(3)], seed=9)
    b = SelfPlay(16, opponents=[RandomAgent(1), RandomAgent(2), RandomAgent(3)], seed=9)
    assert np.array_equal(a.reset()[0], b.reset()[0])
    ra, da, _ = _run(a, 40)
    rb, db, _ = _run(b, 40)
    assert np.array_equal(ra, rb) and np.array_equal(da, db)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"num_envs": 0}, "num_envs must be a positive integer"),
        ({"num_envs": 4, "learner_seat": 4}, "learner_seat must be a seat 0..3"),
        ({"num_envs": 4, "opponents": [RandomAgent()]}, "sequence of 3 Agents"),
        ({"num_envs": 4, "opponents": "random"}, "opponents must be an Agent"),
        ({"num_envs": 4, "hand_size": 20}, "'hand_size'"),
        ({"num_envs": 4, "rules": FlightTycoonRules(), "n_players": 3}, "either a rules object or rule options"),
    ],
)
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SelfPlay(**kwargs)


def test_stable_baselines3_vecenv_with_action_masks():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    from envs.flight_tycoon.sb3 import FlightTycoonVecEnv

    venv = FlightTycoonVecEnv(8, n_players=3, seed=2)
    obs = venv.reset()
    assert obs.shape == (8, 353) and get_action_masks(venv).shape == (8, 96)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=0)
    model.learn(64)
    actions, _ = model.predict(obs, action_masks=get_action_masks(venv))
    assert get_action_masks(venv)[np.arange(8), actions].all()


def test_agents_follow_the_shared_protocol():
    assert isinstance(RandomAgent(), Agent)


def test_seed_replays_the_deals_from_the_next_reset():
    view = SelfPlay(8, seed=1)
    first = view.reset()[0]
    view.step(view.action_masks().argmax(1))
    view.seed(1)
    assert np.array_equal(view.reset()[0], first)
