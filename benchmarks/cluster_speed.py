"""Past one process: what Ray and RLlib cost and give, measured in one run.

1. ``aerodeck bench`` of a search agent on the solo game: local (one process) against ``--backend ray`` on
   a local Ray of ``--cpus`` CPUs; games/s of each, their ratio, and whether every figure is the same.
2. The warm start's teacher (the solo game's ``[warm_start] teacher``) in one process: teacher games/s per
   core, and what a day of teacher play gives on 64 and 512 cores at that pace (cores × games/s per core
   × 86,400 s: the projection assumes the cluster keeps every core busy, which the Ray row of part 1
   measures on ``--cpus`` cores); what a game's decisions take in memory (a run holds them all until it
   clones them) and in ``warm_start.npz``, and how soon the cores fill 128 GiB of a driver's memory.
3. The multi-player game's env under RLlib: our ``MultiAgentEnv`` over the batched core against RLlib's
   ``PettingZooEnv`` wrapper of the game's PettingZoo env; env steps/s of random legal play through each.
4. RLlib's PPO against SB3's MaskablePPO on the solo game, the same budget of env steps and the same
   settings (16 games stepped at once, 1,024 steps per update, minibatches of 256, 4 epochs, a 128×128
   tanh network, one torch thread); env steps/s of each (building the algorithm not counted) and the ratio.

    .venv/bin/python benchmarks/cluster_speed.py [--games 60] [--teacher-games 24] [--steps 8192] [--cpus 2]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from aerodeck import envs


#: The driver's memory the projection of part 2 assumes a run may fill with teacher decisions.
MEMORY = 128 * 2**30


def solo_game():
    return next(s for s in envs.specs() if s.solo and s.core_class().__module__.startswith("aerodeck.envs."))


def multi_game():
    return next(s for s in envs.specs() if not s.solo and s.core_class().__module__.startswith("aerodeck.envs."))


def bench_speed(games: int, cpus: int) -> None:
    from aerodeck.agents.registry import make_agent
    from aerodeck.bench.bench import bench_solo
    from aerodeck.arena.loop import agent_seed
    from aerodeck.arena.backends import RayBackend

    spec = solo_game()
    rules = spec.rules_class()()
    agent = make_agent(spec.id, "search", rules, seed=agent_seed(0, 0))
    began = time.perf_counter()
    local = bench_solo(spec, rules, ["search"], [agent], [games], 0, progress=False)
    local_s = time.perf_counter() - began
    backend = RayBackend(num_cpus=cpus)
    bench_solo(spec, rules, ["search"], [agent], [min(games, 2 * cpus)], 1, progress=False, backend=backend)  # warm
    began = time.perf_counter()
    remote = bench_solo(spec, rules, ["search"], [agent], [games], 0, progress=False, backend=backend)
    ray_s = time.perf_counter() - began
    same = local["agents"]["search"]["mean_score"] == remote["agents"]["search"]["mean_score"]
    print(f"1. bench, search on {spec.id}, {games} games: local {games / local_s:.2f} games/s ({local_s:.1f} s), "
          f"--backend ray on {cpus} CPUs {games / ray_s:.2f} games/s ({ray_s:.1f} s): ray/local {local_s / ray_s:.2f}x; "
          f"figures the same: {same}")


def teacher_speed(games: int) -> float:
    from aerodeck.agents.ppo import Inputs
    from aerodeck.train.config import default_config
    from aerodeck.train.warm_start import joined, play_teacher, save_decisions

    spec = solo_game()
    rules = spec.rules_class()()
    config = default_config(spec.id)
    policy = config.policy
    inputs = Inputs.make(spec.id, rules, policy.sees_mask, policy.prior or None, policy.prior_units,
                         policy.prior_ties, policy.prior_ranks).to_dict()
    play_teacher(spec.id, rules, config.warm_start, inputs, 0, config.ppo.gamma, 2, chunk=2)  # warm up (compiles)
    began = time.perf_counter()
    parts = play_teacher(spec.id, rules, config.warm_start, inputs, 0, config.ppo.gamma, games, chunk=games)
    seconds = time.perf_counter() - began
    rate = games / seconds
    decisions = sum(len(p["actions"]) for p in parts)
    data = joined(parts)
    in_memory = sum(v.nbytes for v in data.values()) / games
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "warm_start.npz"
        save_decisions(path, data, {"games": games})
        on_disk = path.stat().st_size / games
    fits = int(MEMORY / in_memory)
    print(f"2. teacher {config.warm_start.teacher!r} on {spec.id}: {games} games, {decisions:,} decisions in "
          f"{seconds:.1f} s on one core: {rate:.3f} teacher games/s per core; {in_memory / 1e3:.1f} kB a game in "
          f"memory (a run holds them all until cloning: {fits:,} games in {MEMORY / 2**30:.0f} GiB), "
          f"{on_disk / 1e3:.2f} kB a game in warm_start.npz")
    for cores in (64, 512):
        per_day = rate * cores * 86_400
        print(f"   {cores} cores: {rate * cores:,.1f} games/s, {per_day:,.0f} teacher games a day "
              f"({per_day * on_disk / 1e9:,.0f} GB of warm_start.npz); {MEMORY / 2**30:.0f} GiB of decisions "
              f"in {fits / (rate * cores) / 60:.0f} minutes")
    return rate


def multi_agent_env_speed(steps: int) -> None:
    from aerodeck.train.rllib import multi_agent_env

    spec = multi_game()
    rules = spec.rules_class()()
    rng = np.random.default_rng(0)

    def run(env, mask_key: str, count: int | None = None) -> float:
        if count is None:
            run(env, mask_key, 500)  # warm up: compiled kernels load on first use
        count = count or steps
        obs, _ = env.reset(seed=0)
        began, done = time.perf_counter(), 0
        while done < count:
            (agent, view), = obs.items()
            action = int(rng.choice(np.flatnonzero(np.asarray(view[mask_key]) > 0)))
            obs, _, terminated, truncated, _ = env.step({agent: action})
            done += 1
            if terminated["__all__"] or truncated["__all__"]:
                obs, _ = env.reset()
            else:
                obs = {a: o for a, o in obs.items() if not terminated.get(a)}
        return count / (time.perf_counter() - began)

    ours = run(multi_agent_env({"game": spec.id, "rules": rules, "seed": 0, "env": "core"}), "action_mask")
    wrapped = run(multi_agent_env({"game": spec.id, "rules": rules, "seed": 0, "env": "pettingzoo"}), "action_mask")
    print(f"3. {spec.id} env under RLlib, {steps:,} random legal steps: MultiAgentEnv over the core {ours:,.0f} "
          f"steps/s, RLlib's PettingZooEnv wrapper {wrapped:,.0f} steps/s: {ours / wrapped:.2f}x")


def ppo_speed(steps: int) -> None:
    import torch
    from sb3_contrib import MaskablePPO

    from aerodeck.train import rllib

    torch.set_num_threads(1)
    spec = solo_game()
    rules = spec.rules_class()()
    setup = rllib.Setup(env_runners=0, envs_per_runner=16, batch=1024, minibatch=256, epochs=4, hidden=(128, 128))
    algo, seconds, sampled = rllib.timed_train(spec.id, rules, setup, steps)
    algo.stop()
    rl_rate = sampled / seconds
    venv = spec.make_sb3(16, rules=rules, seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=256, n_epochs=4, learning_rate=3e-4, gamma=0.99,
                        ent_coef=0.01, policy_kwargs={"net_arch": [128, 128], "activation_fn": torch.nn.Tanh},
                        seed=0, device="cpu")
    began = time.perf_counter()
    model.learn(total_timesteps=steps)
    sb3_seconds = time.perf_counter() - began
    sb3_rate = model.num_timesteps / sb3_seconds
    print(f"4. PPO on {spec.id}, {steps:,} env steps: RLlib {rl_rate:,.0f} env steps/s ({sampled:,} in {seconds:.1f} s), "
          f"SB3 MaskablePPO {sb3_rate:,.0f} env steps/s ({model.num_timesteps:,} in {sb3_seconds:.1f} s): "
          f"RLlib/SB3 {rl_rate / sb3_rate:.2f}x")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=60, help="search games of part 1 (default 60)")
    p.add_argument("--teacher-games", type=int, default=24, help="teacher games of part 2 (default 24)")
    p.add_argument("--env-steps", type=int, default=20_000, help="env steps of part 3 (default 20,000)")
    p.add_argument("--steps", type=int, default=8192, help="PPO env steps of part 4 (default 8,192)")
    p.add_argument("--cpus", type=int, default=2, help="the local Ray's CPUs (default 2)")
    args = p.parse_args()
    import ray

    try:
        bench_speed(args.games, args.cpus)
        teacher_speed(args.teacher_games)
        multi_agent_env_speed(args.env_steps)
        ppo_speed(args.steps)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
