"""``aerodeck train`` end to end on tiny budgets, its config and errors, the league, and the VecEnvs'
episode records."""

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import envs  # noqa: E402
from envs.common.batch import sample_legal  # noqa: E402
from train import cli  # noqa: E402
from train.learn.train import default_config, load_config  # noqa: E402

GAMES = envs.games()

TINY = """
[train]
num_envs = 16
eval_every = 512
eval_games = 16
checkpoint_every = 512
[ppo]
n_steps = 16
batch_size = 128
n_epochs = 1
[policy]
net_arch = [16]
[warm_start]
teacher = "heuristic"
games = 8
epochs = 1
workers = 1
"""
TINY_LEAGUE = """
[league]
snapshot_every = 1
pool_size = 2
"""


def tiny_config(folder, game_id):
    path = folder / "tiny.toml"
    path.write_text(TINY + (TINY_LEAGUE if "league" in default_config(game_id) else ""))
    return path


def train(*argv):
    return cli.main(["train", *map(str, argv), "--no-progress"])


@pytest.fixture(scope="module", params=GAMES)
def tiny_run(request, tmp_path_factory):
    """A tiny run of each game: 1,024 steps, then 512 more with --resume."""
    folder = tmp_path_factory.mktemp(request.param)
    config = tiny_config(folder, request.param)
    out = folder / "run"
    assert train(request.param, "--steps", 1024, "--config", config, "--out", out, "--seed", 3) == 0
    first = json.loads((out / "last.json").read_text())
    events = sorted(p.name for p in (out / "tb").iterdir())
    assert train(request.param, "--steps", 512, "--out", out, "--resume") == 0
    return request.param, out, first, events


def test_a_run_writes_event_files_checkpoints_and_sidecars(tiny_run):
    game_id, out, first, events = tiny_run
    assert events and all(name.startswith("events.out.tfevents") for name in events)
    for name in ("config.toml", "evaluations.csv", "best.zip", "best.json", "last.zip", "last.json", "warm_start.npz"):
        assert (out / name).is_file(), name
    assert (out / "checkpoints" / "step-512.zip").is_file() and (out / "checkpoints" / "step-512.json").is_file()
    game = envs.spec(game_id)
    assert first["game"] == game_id and first["steps"] == 1024
    assert first["rules"] == game.make_rules().to_dict()
    assert first["layout"]["observation_size"] == game.make_core().obs_size
    assert first["layout"]["n_actions"] == game.make_core().n_actions
    assert len(first["layout"]["fingerprint"]) == 16
    assert first["inputs"]["mask"] is True and first["aerodeck_version"]
    assert first["command"].startswith("aerodeck train") or first["command"].startswith(f"aerodeck train {game_id}")
    assert first["config"]["ppo"]["n_steps"] == 16
    assert first["warm_start"]["games"] == 8 and 0 <= first["warm_start"]["held_out_accuracy"] <= 1
    rows = (out / "evaluations.csv").read_text().splitlines()
    assert rows[1].startswith("0,")  # the warm-started policy is evaluated before PPO moves it
    evaluation = first["evaluation"]
    assert evaluation["low"] <= evaluation["value"] <= evaluation["high"]
    assert evaluation["figure"] == ("mean_score" if game.solo else "win_rate")


def test_event_files_hold_the_rollout_evaluation_and_throughput_curves(tiny_run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    _, out, _, _ = tiny_run
    tags = set()
    for path in (out / "tb").iterdir():
        events = EventAccumulator(str(path))
        events.Reload()
        tags |= set(events.Tags()["scalars"])
    expected = {"rollout/ep_rew_mean", "train/entropy_loss", "train/value_loss", "time/env_steps_per_s",
                "time/env_share", "warm_start/accuracy", "warm_start/held_out_accuracy"}
    assert expected <= tags
    assert any(tag.startswith("eval/") for tag in tags)


def test_resume_continues_from_the_last_checkpoint(tiny_run):
    _, out, first, events = tiny_run
    last = json.loads((out / "last.json").read_text())
    assert last["steps"] == first["steps"] + 512
    assert last["config"] == first["config"] and last["rules"] == first["rules"]
    assert len(list((out / "tb").iterdir())) > len(events)  # a new event file beside the first


def test_the_trained_model_plays_legal_moves_in_bench(tiny_run, tmp_path):
    game_id, out, _, _ = tiny_run
    extra = [] if envs.spec(game_id).solo else ["--agent", "random", "--players", "4"]
    assert cli.main(["bench", game_id, "--agent", f"ppo:path={out / 'best.zip'}", *extra, "--games", "40",
                     "--out", str(tmp_path / "bench"), "--no-progress"]) == 0  # bench refuses illegal actions
    result = json.loads((tmp_path / "bench" / "results.json").read_text())
    assert result["agents"][f"ppo:path={out / 'best.zip'}"]["games"] >= 40


def test_a_run_reuses_the_teachers_decisions_saved_by_an_earlier_run(tiny_run, tmp_path, capsys):
    game_id, out, first, _ = tiny_run
    saved = out / "warm_start.npz"
    assert saved.is_file()
    config = tiny_config(tmp_path, game_id)
    config.write_text(config.read_text().replace("[warm_start]\n", f"[warm_start]\ndecisions = {str(saved)!r}\n"))
    assert train(game_id, "--steps", 16, "--config", config, "--out", tmp_path / "again", "--seed", 3) == 0
    again = json.loads((tmp_path / "again" / "last.json").read_text())["warm_start"]
    assert again["decisions_from"] == str(saved) and not (tmp_path / "again" / "warm_start.npz").exists()
    assert again["decisions"] == first["warm_start"]["decisions"]
    assert again["play_seconds"] == first["warm_start"]["play_seconds"]  # the budget they cost, kept
    # made for another run: refused, naming what differs
    assert train(game_id, "--steps", 16, "--config", config, "--out", tmp_path / "other", "--seed", 4) == 2
    assert "was made for another run: teacher_seed (file 3, this run 4)" in capsys.readouterr().err
    assert not (tmp_path / "other").exists()  # a run that fails to set up leaves no folder behind
    broken = tmp_path / "broken.npz"
    broken.write_bytes(saved.read_bytes()[:500])
    config.write_text(config.read_text().replace(str(saved), str(broken)))
    assert train(game_id, "--steps", 16, "--config", config, "--out", tmp_path / "broken", "--seed", 3) == 2
    assert "not the teacher's decisions written by aerodeck train" in capsys.readouterr().err


def test_an_output_folder_in_use_is_refused_without_resume(tiny_run, capsys):
    game_id, out, _, _ = tiny_run
    assert train(game_id, "--steps", 16, "--out", out) == 2
    assert "--resume" in capsys.readouterr().err


def test_resume_needs_a_run_and_keeps_its_rules(tmp_path, capsys):
    assert train("airport-scramble", "--steps", 16, "--out", tmp_path / "none", "--resume") == 2
    assert "last.zip" in capsys.readouterr().err
    assert train("airport-scramble", "--steps", 16, "--out", tmp_path, "--resume", "--rule", "grid_size=7") == 2
    assert "own rules" in capsys.readouterr().err


@pytest.mark.parametrize("text, message", [
    ("[ppo]\nlearning_rat = 0.1\n", "has no key 'learning_rat'"),
    ("[ppo]\nn_epochs = 1.5\n", "n_epochs must be int"),
    ("[optimizer]\nlr = 1\n", "unknown table [optimizer]"),
    ("[ppo]\nbatch_size = 0\n", "batch_size must be at least 1"),
    ("[policy]\nactivation = \"gelu\"\n", "activation must be one of"),
    ("[policy]\nprior_ties = \"last\"\n", "prior_ties must be one of even, first"),
    ("[warm_start]\nplay_batch = 0\n", "play_batch must be at least 1"),
    ("[warm_start]\nworkers = 0\n", "workers must be at least 1"),
    ("[ppo\n", "not valid TOML"),
    ("[policy]\nprior_ranks = 16\n", "prior_ranks must be from 0 to 15"),
])
def test_a_bad_config_is_refused_naming_the_key(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ValueError) as err:
        load_config("airport-scramble", path)
    assert message in str(err.value)


def test_a_config_changes_only_what_it_names(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("[ppo]\nlearning_rate = 1\n[train]\nnum_envs = 8\n")
    config, default = load_config("airport-scramble", path), default_config("airport-scramble")
    assert config["ppo"]["learning_rate"] == 1.0 and config["train"]["num_envs"] == 8
    config["ppo"]["learning_rate"], config["train"]["num_envs"] = default["ppo"]["learning_rate"], default["train"]["num_envs"]
    assert config == default


# --- the league ----------------------------------------------------------------------------------------


def league(seed, **changes):
    from train.learn.league import League

    game = envs.spec("flight-tycoon")
    config = {**default_config("flight-tycoon")["league"], **changes}
    return League(game, game.make_rules(), config, seed)


def tiny_policy():
    from sb3_contrib import MaskablePPO

    game = envs.spec("flight-tycoon")
    return MaskablePPO("MlpPolicy", game.make_sb3(4, seed=0), n_steps=8, batch_size=32, seed=0, device="cpu",
                       policy_kwargs={"net_arch": [8]}).policy


def teacher_data(game_id, teacher, opponent=None, games=6):
    from agents.ppo import Inputs
    from agents.registry import make_agent
    from train.evaluate.loop import game_seeds
    from train.learn.train import teacher_decisions

    game = envs.spec(game_id)
    rules = game.make_rules()
    core = game.make_core(rules)
    inputs = Inputs.make(game_id, rules, mask=True, prior="heuristic")
    return core, teacher_decisions(core, make_agent(game_id, teacher, rules, seed=1), game_seeds(4, games), inputs,
                                   0.99, batch_size=4, opponent=opponent and make_agent(game_id, opponent, rules, seed=2),
                                   make_view=game.make_view)


def test_a_teacher_in_one_seat_gives_that_seats_decisions_only():
    pure = "heuristic:noise=0"  # without tie-breaking noise: the same play whoever's seed
    _, every = teacher_data("flight-tycoon", pure)
    core, one = teacher_data("flight-tycoon", pure, pure)
    assert set(np.unique(every["seats"])) == set(range(core.n_players))
    assert (one["seats"] == one["games"] % core.n_players).all()  # game i: the teacher sits in seat i mod n
    taught = every["seats"] == every["games"] % core.n_players
    for key in ("actions", "returns", "games", "inputs", "masks"):
        np.testing.assert_array_equal(np.sort(one[key], axis=0), np.sort(every[key][taught], axis=0), err_msg=key)
    # FT-15 outcome reward, paid at the end and discounted: -1/(n - 1) for a loser up to +1 for a sole winner
    assert ((one["returns"] >= -1 / 3 - 1e-6) & (one["returns"] <= 1)).all()


@pytest.mark.parametrize("game_id, teacher", [("airport-scramble", "search:rollouts=2,candidates=2,horizon=8"),
                                              ("flight-tycoon", "search:samples=2,candidates=2,horizon=4")])
def test_a_search_teacher_plays_legal_moves_through_its_view(game_id, teacher):
    core, data = teacher_data(game_id, teacher, None if envs.spec(game_id).solo else "random", games=4)
    assert len(data["actions"]) > 0
    assert data["masks"][np.arange(len(data["actions"])), data["actions"]].all()
    assert data["inputs"].shape[1] == core.obs_size + 2 * core.n_actions


@pytest.mark.parametrize("game_id, teacher", [("airport-scramble", "search:rollouts=2,candidates=2,horizon=8"),
                                              ("flight-tycoon", "search:samples=2,candidates=2,horizon=4")])
def test_the_teachers_games_are_the_same_in_one_process_or_two(game_id, teacher):
    from train.learn.train import default_config, play_teacher

    game = envs.spec(game_id)
    warm = {**default_config(game_id)["warm_start"], "teacher": teacher, "games": 6, "play_batch": 2}
    inputs = {"mask": True, "prior": "heuristic", "prior_units": 4.0, "prior_ties": "first"}
    chunks = []
    one = play_teacher(game_id, game.make_rules(), warm, inputs, 3, 0.99, workers=1, done=chunks.append)
    two = play_teacher(game_id, game.make_rules(), warm, inputs, 3, 0.99, workers=2)
    assert chunks == [2, 2, 2]
    for key in one:
        np.testing.assert_array_equal(one[key], two[key], err_msg=key)
    np.testing.assert_array_equal(np.unique(one["games"]), np.arange(6))  # numbered across the chunks
    if warm["opponent"]:  # game i: the teacher in seat i mod n, in every chunk
        assert (one["seats"] == one["games"] % game.make_core().n_players).all()


def test_a_teacher_that_cannot_be_made_stops_the_play_in_the_workers_too():
    from train.learn.train import default_config, play_teacher

    warm = {**default_config("airport-scramble")["warm_start"], "teacher": "grandmaster", "games": 8, "play_batch": 2}
    with pytest.raises(ValueError, match="grandmaster"):
        play_teacher("airport-scramble", envs.spec("airport-scramble").make_rules(), warm,
                     {"mask": True, "prior": None, "prior_units": 4.0, "prior_ties": "even"}, 0, 0.99, workers=2)


def test_behaviour_cloning_reports_held_out_accuracy_from_before_the_first_pass(tmp_path):
    from sb3_contrib import MaskablePPO

    from agents.ppo import Inputs
    from train.learn.train import learner_env, warm_start

    game = envs.spec("airport-scramble")
    core, data = teacher_data(game.id, "heuristic", games=40)
    data["inputs"] = data["inputs"][:, :core.obs_size + core.n_actions]  # observation + mask: no prior
    venv = learner_env(game.make_sb3(4, rules=game.make_rules(), seed=0), Inputs(mask=True))
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=32, policy_kwargs={"net_arch": [32]}, seed=0)
    calls = []
    result = warm_start(model, data, 3, 64, 3e-3, 0, log=lambda *a: calls.append(a), holdout=0.25)
    assert [c[0] for c in calls] == [0, 1, 2, 3] and np.isnan(calls[0][1])
    assert len(result) == 3 and all(0 <= a <= 1 and 0 <= h <= 1 for a, h in result)
    assert result[-1][0] > calls[0][3]  # it learnt something from the teacher


@pytest.mark.parametrize("learn", [False, True])
def test_the_prior_scale_is_learnt_only_when_the_config_says_so(learn):
    import torch
    from sb3_contrib import MaskablePPO

    from agents.ppo import Inputs, PriorPolicy
    from train.learn.train import learner_env, warm_start

    game = envs.spec("airport-scramble")
    rules = game.make_rules()
    core, data = teacher_data(game.id, "random", games=8)  # departs from the prior: the scale is pulled
    venv = learner_env(game.make_sb3(4, rules=rules, seed=0), Inputs.make(game.id, rules, mask=True, prior="heuristic"))
    kwargs = {"net_arch": [16], "prior_scale": 32.0, "learn_prior_scale": learn}
    model = MaskablePPO(PriorPolicy, venv, n_steps=8, batch_size=32, policy_kwargs=kwargs, seed=0)
    head = model.policy.action_net
    before = [p.detach().clone() for p in model.policy.parameters()]
    warm_start(model, data, 1, 64, 1e-2, 0)
    assert (head.log_scale.item() != pytest.approx(np.log(32.0))) == learn
    assert sum(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters())) > 1  # the rest learns


def test_saved_decisions_are_reread_for_a_student_that_reads_other_inputs():
    from agents.ppo import Inputs
    from train.learn.train import reread_inputs

    game = envs.spec("airport-scramble")
    rules = game.make_rules()
    core, data = teacher_data(game.id, "heuristic", games=4)  # saved with the heuristic's scores as prior
    saved = Inputs.make(game.id, rules, mask=True, prior="heuristic")
    assert reread_inputs(data, saved.to_dict(), saved, core.obs_size) is data["inputs"]
    ranks = Inputs.make(game.id, rules, mask=True, prior="heuristic", prior_ranks=4)
    reread = reread_inputs(data, saved.to_dict(), ranks, core.obs_size)
    np.testing.assert_array_equal(reread, ranks(data["inputs"][:, :core.obs_size], data["masks"]))
    assert not np.array_equal(reread, data["inputs"])
    plain = reread_inputs(data, saved.to_dict(), Inputs(), core.obs_size)
    np.testing.assert_array_equal(plain, data["inputs"][:, :core.obs_size])


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

    venv = envs.spec("flight-tycoon").make_sb3(64, seed=0, opponents=[opponent("a"), opponent("b")], assign=assign)
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


@pytest.mark.parametrize("game_id", GAMES)
def test_the_readmes_quick_config_loads_for_every_game(game_id):
    from pathlib import Path

    config = load_config(game_id, Path(__file__).parents[3] / "examples" / "train-quick.toml")
    assert config["warm_start"]["teacher"] == "heuristic" and config["warm_start"]["opponent"] == ""
