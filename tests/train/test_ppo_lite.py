"""The one-file masked PPO (train/ppo_lite.py): a tiny run writes a model that plays in bench as
ppo-lite:path=…, its evaluations go to eval.csv, a stopped run continues from its checkpoint, masked
logits never pick an illegal action, and Flight Tycoon's shaped reward and opponent curriculum run."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import torch

from aerodeck.agents import ppo_lite as agent_module
from aerodeck.agents.registry import describe_kinds, make_agent
from aerodeck.bench.tasks import task
from aerodeck.cli import main as cli
from aerodeck.train import ppo_lite

#: The game of the solo task the runs train on, and of the multi-player task.
SOLO, MULTI = task("as-standard-v0").game, task("ft4-heuristic-v0").game
TINY = dict(num_envs=32, num_steps=16, minibatch_size=256, hidden="32,32", eval_games=16, threads=1)


def rows(path) -> list[dict]:
    return list(csv.DictReader(open(path)))


def test_a_tiny_run_saves_a_model_that_plays_in_bench(tmp_path):
    out = tmp_path / "run"
    summary = ppo_lite.train(ppo_lite.Args(task="as-standard-v0", seed=3, total_steps=1024, eval_every=512,
                                           out=str(out), **TINY))
    assert summary["steps"] == 1024
    assert [int(r["steps"]) for r in rows(out / "eval.csv")] == [0, 512, 1024]
    assert (out / "tb").is_dir() and any((out / "tb").iterdir())  # TensorBoard scalars
    assert "ppo-lite:path=" in describe_kinds(SOLO)
    model = out / "model.pt"
    assert cli.main(["bench", SOLO, "--agent", f"ppo-lite:path={model}", "--agent", "random",
                     "--games", "20", "--no-progress", "--out", str(tmp_path / "bench")]) == 0
    result = json.loads((tmp_path / "bench" / "results.json").read_text())
    assert f"ppo-lite:path={model}" in json.dumps(result)
    # the saved model plays as the run's own last evaluation did (greedy, the same deals)
    agent = make_agent(SOLO, f"ppo-lite:path={model}", task("as-standard-v0").rules)
    again = ppo_lite.evaluate(task("as-standard-v0"), agent, 16)
    assert again["raw"] == pytest.approx(float(rows(out / "eval.csv")[-1]["raw"]), abs=1e-5)


def test_a_stopped_run_continues_from_its_checkpoint(tmp_path, capsys):
    out = tmp_path / "run"
    ppo_lite.train(ppo_lite.Args(task="as-standard-v0", seed=1, total_steps=512, eval_every=512, out=str(out), **TINY))
    first = rows(out / "eval.csv")
    summary = ppo_lite.train(ppo_lite.Args(task="as-standard-v0", seed=1, total_steps=1024, eval_every=512,
                                           out=str(out), **TINY))
    assert "resuming" in capsys.readouterr().out
    assert summary["steps"] == 1024  # 512 more, not 1024 more
    assert rows(out / "eval.csv")[:len(first)] == first and int(rows(out / "eval.csv")[-1]["steps"]) == 1024


def test_masked_logits_never_choose_an_illegal_action():
    net = agent_module.ActorCritic(5, 4, (8,))
    with torch.no_grad():
        net.actor[-1].bias[:] = torch.tensor([100.0, 0, 0, 0])  # the network prefers action 0
    masks = torch.tensor([[False, True, False, True], [True, False, False, False]])
    with torch.no_grad():
        probs = torch.distributions.Categorical(logits=net.logits(torch.zeros(2, 5), masks)).probs
    assert probs[0, 0] == 0 and probs[0, [1, 3]].sum() == pytest.approx(1.0) and probs[1, 0] == pytest.approx(1.0)


def test_a_model_of_another_game_is_refused(tmp_path):
    out = tmp_path / "run"
    ppo_lite.train(ppo_lite.Args(task="as-standard-v0", total_steps=512, eval_every=512, out=str(out), **TINY))
    with pytest.raises(ValueError, match=f"{SOLO} model"):
        make_agent(MULTI, f"ppo-lite:path={out / 'model.pt'}", task("ft4-heuristic-v0").rules)
    (tmp_path / "x.pt").write_bytes(b"not a model")
    with pytest.raises(ValueError, match="not a ppo-lite model"):
        make_agent(SOLO, f"ppo-lite:path={tmp_path / 'x.pt'}")


def test_flight_tycoon_trains_on_the_lead_reward_against_an_opponent_curriculum():
    t = task("ft4-heuristic-v0")
    lead = ppo_lite.Env(t, 1, seed=2, reward="lead", opponents="random>heuristic", curriculum_steps=10_000)
    plain = ppo_lite.Env(t, 1, seed=2, reward="outcome", opponents="random>heuristic", curriculum_steps=10_000)
    assert lead.env.rules.reward == "outcome" and (lead.assign(64) == 0).all()  # the curriculum starts at random
    start, extra, rng = float(lead.lead[0]), 0.0, np.random.default_rng(0)
    while True:  # the same game in both (same deals, same opponents, same actions)
        assert (lead.masks == plain.masks).all()
        action = np.array([rng.choice(np.flatnonzero(lead.masks[0]))])
        _, _, r_lead, done, ended = lead.step(action)
        _, _, r_plain, _, _ = plain.step(action)
        extra += float(r_lead[0] - r_plain[0])
        if done[0]:
            break
    vp = lead.env.state.vp  # the next game's; the finished game's VP came in its info
    final = ended[0]
    assert 0 <= final[1] <= 1 and vp.shape == (1, 4)
    # the shaping sums to lead_scale x (the learner's final lead over the best other seat - its lead at its first decision)
    info_vp = lead.last_final_vp
    assert extra == pytest.approx(0.1 * ((info_vp[0] - info_vp[1:].max()) - start), abs=1e-4)
    lead.steps = 5_000
    assert 0.4 < lead.assign(4000).mean() < 0.6  # halfway through the curriculum: half the games against each
