"""Both games under RLlib's PPO (train/rllib.py): the envs over the batched core (each seat its own
observation, the legal mask, next-step autoreset), the masking module, a tiny run of each game with
every action legal (default suite), and, over a short run, a learner better than random play by a
test at the 1e-4 level (``-m long``)."""

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
pytest.importorskip("torch")

import ray  # noqa: E402

from aerodeck.train import rllib  # noqa: E402
from tests.games import MULTI, SOLO  # noqa: E402

MULTI_RULES = {MULTI.players_option: 3}
TINY = rllib.Setup(envs_per_runner=4, batch=256, minibatch=128, epochs=1, hidden=(16,), seed=3)


def rules_of(game):
    return game.make_rules() if game.solo else game.make_rules(**MULTI_RULES)


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_the_solo_vector_env_deals_each_rows_next_game_on_the_step_after_it_ends():
    env = rllib.CoreVectorEnv(SOLO.id, SOLO.make_rules(), num_envs=3, seed=5)
    obs, _ = env.reset()
    core = SOLO.make_core(SOLO.make_rules())
    mine = core.init(rllib.training_deals(5, 3))
    np.testing.assert_array_equal(obs["observation"], core.observe(mine))
    rng = np.random.default_rng(0)
    ended_once = False
    for _ in range(400):
        masks = obs["action_mask"] > 0
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        was_over = env.ended.copy()
        obs, rewards, terminated, truncated, _ = env.step(actions)
        assert not truncated.any() and (rewards[was_over] == 0).all() and not terminated[was_over].any()
        np.testing.assert_array_equal(obs["action_mask"] > 0, env.core.legal_mask(env.state))
        ended_once |= terminated.any()
    assert ended_once and env.dealt > 3


def test_an_illegal_action_is_refused_by_name():
    env = rllib.CoreVectorEnv(SOLO.id, SOLO.make_rules(), num_envs=2)
    obs, _ = env.reset()
    illegal = np.argmin(obs["action_mask"], axis=1)
    assert (obs["action_mask"][np.arange(2), illegal] == 0).all()
    with pytest.raises(ValueError, match="RLlib chose an illegal action"):
        env.step(illegal)


@pytest.mark.parametrize("kind", ["pettingzoo", "core"])
def test_each_seat_sees_only_its_own_observation_and_gets_its_rewards(kind):
    env = rllib.multi_agent_env({"game": MULTI.id, "rules": rules_of(MULTI), "seed": 8, "env": kind})
    obs, _ = env.reset(seed=11)
    core = MULTI.make_core(rules_of(MULTI))
    mine = core.init([11] if kind == "pettingzoo" else rllib.training_deals(11, 1))  # the env's first game
    rng = np.random.default_rng(1)
    seats_seen, returns, paid = set(), np.zeros(core.n_players), np.zeros(core.n_players)
    while True:
        (agent, view), = obs.items()
        seat = int(core.to_act(mine)[0])
        assert agent == rllib.agent_id(seat)
        np.testing.assert_array_equal(view["observation"], core.observe(mine, np.array([seat]))[0])
        np.testing.assert_array_equal(view["action_mask"] > 0, core.legal_mask(mine)[0])
        others = [core.observe(mine, np.array([s]))[0] for s in range(core.n_players) if s != seat]
        assert all(not np.array_equal(view["observation"], o) for o in others)  # not another seat's view
        seats_seen.add(seat)
        action = int(rng.choice(np.flatnonzero(view["action_mask"])))
        returns += core.step(mine, np.array([action]))[0]
        obs, rewards, terminated, _, _ = env.step({agent: action})
        for a, r in rewards.items():
            paid[int(a.rsplit("_", 1)[1])] += r
        if terminated["__all__"]:
            assert set(obs) == set(env.possible_agents)  # every seat's last view, to end its episode
            break
    assert seats_seen == set(range(core.n_players)) and env.taken > 0
    np.testing.assert_allclose(paid, returns)  # each seat's rewards reach it, none lost


def test_the_learner_env_plays_the_opponents_inside_and_shows_the_learner_its_own_seat():
    """Against fixed opponents: every observation is the learner's seat's (the seat of game k is k mod n),
    the opponents' moves are made inside the env (each step ends on the learner's turn), games end and are
    dealt anew, and an illegal action is refused."""
    rules = rules_of(MULTI)
    env = rllib.LearnerVectorEnv(MULTI.id, rules, num_envs=4, seed=6, opponents=["random"])
    obs, _ = env.reset()
    n, rng = env.core.n_players, np.random.default_rng(2)
    assert env.learner.tolist() == [k % n for k in range(4)]
    ended = 0
    for _ in range(300):
        to_act = env.core.to_act(env.state)
        waiting = ~env.ended
        assert (to_act[waiting] == env.learner[waiting]).all()  # the opponents have moved: the learner's turn
        np.testing.assert_array_equal(obs["observation"][waiting],
                                      env.core.observe(env.state, env.learner)[waiting])
        masks = obs["action_mask"] > 0
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        obs, _, terminated, _, _ = env.step(actions)
        ended += int(terminated.sum())
    assert ended > 0 and env.taken > 0 and env.dealt > 4
    with pytest.raises(ValueError, match="illegal action"):
        live = np.flatnonzero(~env.ended)
        bad = np.argmin(obs["action_mask"], axis=1)
        assert (obs["action_mask"][live, bad[live]] == 0).all()
        env.step(bad)


def test_an_illegal_multi_player_action_is_refused():
    env = rllib.multi_agent_env({"game": MULTI.id, "rules": rules_of(MULTI)})
    obs, _ = env.reset(seed=3)
    (agent, view), = obs.items()
    with pytest.raises(ValueError, match="illegal action"):
        env.step({agent: int(np.argmin(view["action_mask"]))})


def test_the_module_never_prefers_or_samples_an_illegal_action():
    import torch
    from ray.rllib.core.columns import Columns

    env = rllib.CoreVectorEnv(SOLO.id, SOLO.make_rules(), num_envs=64, seed=2)
    obs, _ = env.reset()
    module = rllib.masked_module_class()(observation_space=env.single_observation_space,
                                         action_space=env.single_action_space,
                                         model_config={"fcnet_hiddens": [8], "head_fcnet_hiddens": []})
    batch = {Columns.OBS: {k: torch.as_tensor(v) for k, v in obs.items()}}
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    legal = torch.as_tensor(obs["action_mask"] > 0)
    assert legal[torch.arange(64), logits.argmax(-1)].all()
    drawn = torch.distributions.Categorical(logits=logits).sample((50,))
    assert legal.gather(1, drawn.T).all()


def taken(algo, game) -> int:
    """The actions the driver's env runner played (each checked legal by the env)."""
    env = algo.env_runner.env
    return env.unwrapped.taken if game.solo else sum(e.unwrapped.taken for e in env.envs)


@pytest.mark.parametrize("game", [SOLO, MULTI], ids=lambda g: g.id)
def test_a_tiny_rllib_run_plays_legal_actions_only(game, local_ray):
    algo, result = rllib.train_iterations(game.id, rules_of(game), TINY, iterations=1)
    try:
        assert rllib.env_steps(result) >= TINY.batch
        assert taken(algo, game) >= TINY.batch  # every one legal: the env refuses an illegal action
        figures = rllib.against_random(game.id, rules_of(game), rllib.policy_module(algo), 12)
        assert "rllib" in figures["agents"]
    finally:
        algo.stop()


@pytest.mark.long
@pytest.mark.parametrize("game, iterations", [(SOLO, 4), (MULTI, 10)], ids=lambda x: getattr(x, "id", str(x)))
def test_a_short_rllib_run_beats_random_play(game, iterations, local_ray):
    """The learner's greedy play against random play on 600 fixed deals: a solo game's paired mean score
    difference, a multi-player game's win rate against the fair share 1/n; each must clear its null
    hypothesis (no better than random) at p < 1e-4, so a learner that has not improved fails all but
    never by chance."""
    setup = rllib.Setup(envs_per_runner=16, batch=2048, minibatch=256, epochs=4, lr=1e-3, seed=1)
    algo, _ = rllib.train_iterations(game.id, rules_of(game), setup, iterations=iterations)
    try:
        report = rllib.against_random(game.id, rules_of(game), rllib.policy_module(algo), 600)
    finally:
        algo.stop()
    if game.solo:
        gap = report["comparisons"][0]["mean_score_difference"]
        assert gap["value"] > 0 and gap["p_value"] < 1e-4, gap
    else:
        rate = report["agents"]["rllib"]["win_rate"]
        assert rate["value"] > 1 / 3 and rate["p_value"] < 1e-4, rate


def test_the_command_trains_self_play_and_saves_a_checkpoint_with_its_evaluations(tmp_path, capsys, local_ray):
    assert rllib.main([MULTI.id, "--players", "3", "--steps", "256", "--batch", "256", "--envs-per-runner", "2",
                       "--eval-games", "12", "--out", str(tmp_path / "run")]) == 0
    err = capsys.readouterr().err
    assert "self-play" in err and "evaluation at 0 steps" in err
    assert (tmp_path / "run" / "last" / "rllib_checkpoint.json").is_file()
    assert (tmp_path / "run" / "evaluations.csv").read_text().count("\n") >= 3  # header, the first, the last
    assert ray.is_initialized()  # the caller's Ray is left running
