"""The batched learner view: one learning seat per game, opponents (plain callables) on the whole batch."""

import subprocess
import sys

import numpy as np
import pytest

from aerodeck.agents.base import Agent
from aerodeck.agents.random import RandomAgent
from aerodeck.envs.common.batch import sample_legal
from aerodeck.envs.flight_tycoon.rules import FlightTycoonRules
from aerodeck.envs.flight_tycoon.learner import LearnerGames, game_outcome


class Recorder(RandomAgent):
    """A random agent that records the masks it was shown."""

    def act(self, observations, masks, view=None):
        self.seen = getattr(self, "seen", 0) + masks.shape[0]
        self.calls = getattr(self, "calls", 0) + 1
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
    recorder = Recorder(1)
    view = LearnerGames(64, opponents=recorder.act, n_players=5)
    obs, masks = view.reset()
    assert obs.shape == (64, 483) and masks.shape == (64, 144)
    for _ in range(80):
        assert view.action_masks().any(1).all()
        assert (view.core.to_act(view.state) == view.learner).all()
        view.step(sample_legal(view.action_masks(), np.random.default_rng(0).random(64)))
    assert recorder.seen > 64 * 80


def test_finished_games_restart_at_once_with_their_last_observation_in_info():
    view = LearnerGames(32, seed=3)
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
    view = LearnerGames(40, learner_seat="rotate", n_players=4)
    view.reset()
    assert np.bincount(view.learner, minlength=4).tolist() == [10, 10, 10, 10]
    fixed = LearnerGames(8, learner_seat=2)
    fixed.reset()
    assert (fixed.learner == 2).all()


def test_vp_rewards_reach_the_learner_when_its_card_lands_during_an_opponents_give():
    view = LearnerGames(64, reward="vp", seed=1)
    view.reset()
    rewards, dones, infos = _run(view, 120)
    assert rewards.sum() > 0
    assert sum(i["vp"][0] for i in infos) <= rewards.sum()


def test_the_same_seeds_and_agents_replay_the_same_games():
    a = LearnerGames(16, opponents=[RandomAgent(1).act, RandomAgent(2).act, RandomAgent(3).act], seed=9)
    b = LearnerGames(16, opponents=[RandomAgent(1).act, RandomAgent(2).act, RandomAgent(3).act], seed=9)
    assert np.array_equal(a.reset()[0], b.reset()[0])
    ra, da, _ = _run(a, 40)
    rb, db, _ = _run(b, 40)
    assert np.array_equal(ra, rb) and np.array_equal(da, db)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"num_envs": 0}, "num_envs must be a positive integer"),
        ({"num_envs": 4, "learner_seat": 4}, "learner_seat must be a seat 0..3"),
        ({"num_envs": 4, "opponents": [RandomAgent().act]}, "sequence of 3 callables"),
        ({"num_envs": 4, "opponents": "random"}, "opponents must be a callable"),
        ({"num_envs": 4, "opponents": RandomAgent()}, "opponents must be a callable"),
        ({"num_envs": 4, "seed": -1}, r"seed must be an integer in 0..2\*\*64-1"),
        ({"num_envs": 4, "hand_size": 20}, "'hand_size'"),
        ({"num_envs": 4, "rules": FlightTycoonRules(), "n_players": 3}, "either a rules object or rule options"),
    ],
)
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        LearnerGames(**kwargs)


def test_stable_baselines3_vecenv_with_action_masks(tmp_path):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from sb3_contrib.common.maskable.utils import get_action_masks

    from aerodeck.envs.flight_tycoon.sb3 import FlightTycoonSB3VecEnv

    venv = FlightTycoonSB3VecEnv(8, n_players=3, seed=2)
    obs = venv.reset()
    assert obs.shape == (8, 353) and get_action_masks(venv).shape == (8, 96)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=0)
    model.set_logger(configure(str(tmp_path), []))  # SB3 would make a log folder in /tmp
    model.learn(64)
    actions, _ = model.predict(obs, action_masks=get_action_masks(venv))
    assert get_action_masks(venv)[np.arange(8), actions].all()


def test_agents_follow_the_shared_protocol():
    assert isinstance(RandomAgent(), Agent)


def test_seed_replays_the_deals_from_the_next_reset():
    view = LearnerGames(8, seed=1)
    first = view.reset()[0]
    view.step(view.action_masks().argmax(1))
    view.seed(1)
    assert np.array_equal(view.reset()[0], first)


def test_an_ended_games_info_has_the_learners_rank_and_win_share():  # FT-12, FT-15
    view = LearnerGames(48, seed=4, n_players=4)
    view.reset()
    rewards, dones, infos = _run(view, 150)
    assert len(infos) > 48
    for reward, info in zip(rewards[dones], infos):
        assert 1 <= info["rank"] <= 4 and (info["win_share"] > 0) == (info["rank"] == 1)
        assert reward == pytest.approx(info["win_share"] if info["rank"] == 1 else -1 / 3)
        assert (info["vp"] > info["vp"][0]).sum() <= info["rank"] - 1  # only better seats rank ahead
    assert {i["rank"] for i in infos} >= {1, 2, 3}


@pytest.mark.parametrize(
    "standings, seat, rank, share",
    [([5, 9, 2], 1, 1, 1.0), ([5, 9, 2], 0, 2, 0.0), ([9, 9, 2, 9], 3, 1, 1 / 3), ([9, 9, 2, 9], 2, 4, 0.0),
     ([3, 7, 7, 1], 0, 3, 0.0)],
)
def test_ranks_share_the_best_place_of_a_tie(standings, seat, rank, share):
    assert game_outcome(np.array(standings), seat) == (rank, share)


def test_bound_methods_of_one_agent_decide_together():
    one, three = Recorder(1), Recorder(1)
    a = LearnerGames(16, opponents=one.act, seed=2)
    b = LearnerGames(16, opponents=[three.act, three.act, three.act], seed=2)
    for view in (a, b):
        view.reset()
        _run(view, 30)
    assert three.calls == one.calls and three.seen == one.seen


def test_envs_never_import_agents_or_train():
    code = ("import sys, envs.flight_tycoon.learner, envs.flight_tycoon.sb3, envs.flight_tycoon.env, envs.flight_tycoon_v0; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'agents', 'train'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_sb3_vecenv_reports_monitor_episodes_with_rank_and_win_share():
    pytest.importorskip("stable_baselines3")
    from aerodeck.envs.flight_tycoon.sb3 import FlightTycoonSB3VecEnv

    venv = FlightTycoonSB3VecEnv(16, n_players=3, seed=7)
    venv.reset()
    rng = np.random.default_rng(0)
    ended = []
    for _ in range(120):
        _, rewards, dones, infos = venv.step(sample_legal(venv.action_masks(), rng.random(16)))
        ended += [(r, i) for r, d, i in zip(rewards, dones, infos) if d]
    assert len(ended) > 16
    for reward, info in ended:
        assert info["episode"]["r"] == pytest.approx(reward) and info["episode"]["l"] >= 1  # outcome rewards: at the end
        assert {"terminal_observation", "rank", "win_share", "vp", "learner_seat"} <= set(info)
    assert venv.seed(3) == [3] * 16
    with pytest.raises(ValueError, match="seed must be"):
        venv.seed(-3)
