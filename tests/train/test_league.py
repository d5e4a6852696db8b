"""The self-play league of multi-player games, and the VecEnvs' episode records PPO reads."""

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from aerodeck import envs  # noqa: E402
from aerodeck.envs.common.batch import sample_legal  # noqa: E402
from tests.games import MULTI  # noqa: E402
from aerodeck.train.config import default_config  # noqa: E402

GAMES = envs.games()


def league(seed, **changes):
    """A league of snapshots, the heuristic and random players (``changes``: other ``[league]`` settings)."""
    from aerodeck.train.league import League

    game = MULTI
    config = default_config(MULTI.id).replace("league", **{"self": 0.35, "heuristic": 0.6, "random": 0.05, **changes})
    return League(game, game.make_rules(), config.league, seed)


def tiny_policy():
    from sb3_contrib import MaskablePPO

    game = MULTI
    return MaskablePPO("MlpPolicy", game.make_sb3(4, seed=0), n_steps=8, batch_size=32, seed=0, device="cpu",
                       policy_kwargs={"net_arch": [8]}).policy


def test_the_opponent_draws_are_repeated_by_the_seed():
    policy = tiny_policy()
    a, b, c = league(7), league(7), league(8)
    for pool in (a, b, c):
        pool.add_snapshot(policy, 0)
    draws = [np.concatenate([pool.assign(64) for _ in range(5)]) for pool in (a, b, c)]
    assert (draws[0] == draws[1]).all() and (draws[0] != draws[2]).any()
    assert set(draws[0]) == {0, 1, 2}  # heuristic, random and the snapshot all play


def test_snapshots_are_frozen_while_the_learner_trains():
    import torch

    policy = tiny_policy()
    pool = league(0)
    snapshot = pool.add_snapshot(policy, 0)
    before = [p.detach().clone() for p in snapshot.policy.parameters()]
    learner_before = [p.detach().clone() for p in policy.parameters()]
    optimizer = torch.optim.SGD(policy.parameters(), lr=0.5)
    x = torch.rand(32, policy.observation_space.shape[0])
    for _ in range(3):
        loss = policy.value_net(policy.mlp_extractor.forward_critic(x)).square().mean() \
            + policy.action_net(policy.mlp_extractor.forward_actor(x)).square().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert any(not torch.equal(p, q) for p, q in zip(policy.parameters(), learner_before))
    assert all(torch.equal(p, q) for p, q in zip(snapshot.policy.parameters(), before))
    assert not any(p.requires_grad for p in snapshot.policy.parameters())


def test_prioritized_sampling_favours_the_opponents_beaten_least_and_uniform_does_not():
    for sampling, favoured in (("prioritized", True), ("uniform", False)):
        pool = league(0, sampling=sampling, heuristic=0.5, random=0.5, self=0.0)
        names = [m.name for m in pool.members]
        heuristic, random = names.index("heuristic"), names.index("random")
        infos = [{"opponent": heuristic, "win_share": 0.1}] * 200 + [{"opponent": random, "win_share": 0.9}] * 200
        pool.record(infos, np.ones(len(infos), bool))
        p = pool.probabilities()
        assert bool(p[heuristic] > 2 * p[random]) == favoured
        assert np.isclose(p.sum(), 1.0)


def test_the_pool_keeps_pool_size_snapshots():
    policy = tiny_policy()
    pool = league(0, pool_size=2)
    for steps in range(4):
        pool.add_snapshot(policy, steps)
    active = [m.name for m in pool.members if m.kind == "self" and m.active]
    assert active == ["self@2", "self@3"]
    p = pool.probabilities()
    assert all(p[i] == 0 for i, m in enumerate(pool.members) if not m.active)


def test_every_opponent_kind_acts_in_one_batched_call_per_round():
    calls = []

    def opponent(name):
        def act(obs, masks, view=None):
            calls.append(name)
            return sample_legal(masks, np.random.default_rng(len(calls)).random(len(masks)))
        return act

    rng = np.random.default_rng(0)
    drawn = []

    def assign(count):
        drawn.append(rng.integers(0, 2, count))
        return drawn[-1]

    venv = MULTI.make_sb3(64, seed=0, opponents=[opponent("a"), opponent("b")], assign=assign)
    step = venv.view.core.step

    def marked_step(*args, **kwargs):  # a round of opponent decisions ends with one step of the core
        calls.append("|")
        return step(*args, **kwargs)

    venv.view.core.step = marked_step
    venv.reset()
    played = set()
    for _ in range(30):
        masks = venv.action_masks()
        _, _, dones, infos = venv.step(sample_legal(masks, rng.random(len(masks))))
        for i in np.flatnonzero(dones):
            played.add(infos[i]["opponent"])
    rounds = "".join(calls).split("|")
    assert all(len(set(r)) == len(r) for r in rounds) and {"a", "b"} <= set("".join(rounds))
    assert played == {0, 1}


# --- the VecEnvs' episode records ---------------------------------------------------------------------------


@pytest.mark.parametrize("game_id", GAMES)
def test_the_vecenvs_episode_records_match_the_games_played(game_id):
    game = envs.spec(game_id)
    venv = game.make_sb3(32, seed=4)
    venv.reset()
    rng = np.random.default_rng(0)
    returns, lengths, ended = np.zeros(32), np.zeros(32, np.int64), 0
    n = game.default_players
    while ended < 100:
        masks = venv.action_masks()
        _, rewards, dones, infos = venv.step(sample_legal(masks, rng.random(32)))
        returns += rewards
        lengths += 1
        for i in np.flatnonzero(dones):
            episode = infos[i]["episode"]
            assert episode["r"] == pytest.approx(returns[i]) and episode["l"] == lengths[i] and episode["t"] >= 0
            if game.solo:  # AS-16: +1 per completed ticket, the score
                assert episode["r"] == infos[i]["score"]
            else:  # FT-15 outcome: the winners share +1, the others get −1/(n−1)
                share = infos[i]["win_share"]
                assert episode["r"] == pytest.approx(share if share > 0 else -1 / (n - 1))
                assert (infos[i]["rank"] == 1) == (share > 0)
            ended += 1
        returns[dones], lengths[dones] = 0, 0
