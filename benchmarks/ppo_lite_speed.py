"""Training speed of the one-file masked PPO (``train/ppo_lite.py``) against sb3-contrib's MaskablePPO with
the same network (2 x 256 tanh, separate actor and critic), rollout (256 games x 32 steps), minibatches
(2,048) and epochs (2), on Airport Scramble's standard task, one torch thread each, in one process.

    python benchmarks/ppo_lite_speed.py --steps 131072 --rounds 2

Each round trains each of the two from scratch for ``--steps`` env steps (no evaluation beyond the
first), alternating, so a change of the machine's load falls on both; it prints each run's env steps per
second and the share of its wall time spent stepping the env, then the medians and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import torch

STEPS = 131_072


def lite(steps: int, seed: int) -> tuple[float, float]:
    """(steps/s, env share) of one ppo-lite run."""
    from aerodeck.train import ppo_lite

    with tempfile.TemporaryDirectory() as out:
        args = ppo_lite.Args(task="as-standard-v0", seed=seed, total_steps=steps, out=out, eval_every=10 ** 12,
                             eval_games=16, anneal_lr=False)
        began = time.perf_counter()
        summary = ppo_lite.train(args)
        return summary["steps"] / (time.perf_counter() - began), summary["env_share"]


def sb3(steps: int, seed: int) -> tuple[float, float]:
    """(steps/s, env share) of one MaskablePPO run with the same settings."""
    from sb3_contrib import MaskablePPO

    from aerodeck.bench.tasks import task

    env = task("as-standard-v0").make_sb3_env(256, seed)
    spent = [0.0]
    step_wait = env.step_wait

    def timed():
        tick = time.perf_counter()
        out = step_wait()
        spent[0] += time.perf_counter() - tick
        return out

    env.step_wait = timed
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=2048, n_epochs=2, learning_rate=3e-4, gamma=0.99,
                        gae_lambda=0.95, clip_range=0.2, ent_coef=0.01, seed=seed, device="cpu",
                        policy_kwargs={"net_arch": {"pi": [256, 256], "vf": [256, 256]},
                                       "activation_fn": torch.nn.Tanh})
    began = time.perf_counter()
    model.learn(steps)
    wall = time.perf_counter() - began
    return model.num_timesteps / wall, spent[0] / wall


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    got = {"ppo-lite": [], "sb3": []}
    for r in range(args.rounds):
        for name, fn in (("ppo-lite", lite), ("sb3", sb3)):
            sps, share = fn(args.steps, seed=r + 1)
            got[name].append(sps)
            print(f"round {r + 1}: {name:8s} {sps:8,.0f} env steps/s, env {100 * share:4.1f} % of its wall time", flush=True)
    a, b = statistics.median(got["ppo-lite"]), statistics.median(got["sb3"])
    print(f"median: ppo-lite {a:,.0f} steps/s, sb3 MaskablePPO {b:,.0f} steps/s; ratio ppo-lite / sb3 = {a / b:.2f}")


if __name__ == "__main__":
    main()
