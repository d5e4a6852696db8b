"""RLlib's PPO against SB3's MaskablePPO on the solo game, in one run: env steps per second of training.

Both train the same network (128×128 tanh, separate policy and value nets reading the observation; the
mask applied to the logits) with the same PPO settings (games stepped at once, env steps per update,
minibatch, epochs, learning rate) on the same batched core, one torch thread each; building the
algorithm is not timed. Each configuration is timed ``--repeats`` times, the configurations interleaved
(SB3, then each RLlib setting, then SB3 again …) so that a change of the machine's load hits all of them
alike; a ratio is taken within one repeat (RLlib's rate over the SB3 rate of the same repeat) and the
median ratio is printed.

- ``--load``: the same again with one competing process burning a CPU (started and stopped by this
  script), printed as its own table.
- ``--profile``: cProfile of one RLlib run of the first setting; the functions with the most own time and
  where the time goes by part (env steps, the module's forward passes, connectors, the learner's
  update, the rest), written to ``--out`` as well.

    .venv/bin/python benchmarks/rllib_speed.py [--steps 4096] [--repeats 3] [--load] [--profile]
        [--setting RUNNERS,ENVS,BATCH ...]

A setting is ``env runners, games per runner, env steps per update[, torch threads]`` (runners 0: the
driver samples; threads default 1, 0: torch's own choice, one per core). SB3 runs on one torch thread.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import multiprocessing
import pstats
import statistics
import time

#: The RLlib settings timed by default: the driver stepping 16 games (as SB3) with torch on one thread and on
#: one per core (torch's own choice), 64 and 256 games at once, and one env runner actor stepping 64.
SETTINGS = ("0,16,1024", "0,16,1024,0", "0,64,1024", "0,256,2048", "1,64,1024")
#: torch's own choice of threads in this process (one per core), read before the script sets 1.
TORCH_THREADS = 0
#: SB3's games stepped at once and steps per update (the default setting's).
SB3_ENVS, SB3_BATCH = 16, 1024


def solo_spec():
    from aerodeck import envs

    return next(s for s in envs.specs() if s.solo)


def sb3_rate(steps: int, envs: int = SB3_ENVS, batch: int = SB3_BATCH) -> float:
    """SB3 MaskablePPO's env steps per second over ``steps`` env steps (model built before the clock)."""
    import torch
    from sb3_contrib import MaskablePPO

    spec = solo_spec()
    venv = spec.make_sb3(envs, rules=spec.rules_class()(), seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=batch // envs, batch_size=256, n_epochs=4, learning_rate=3e-4,
                        gamma=0.99, ent_coef=0.01, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [128, 128], "activation_fn": torch.nn.Tanh})
    began = time.perf_counter()
    model.learn(total_timesteps=steps)
    return model.num_timesteps / (time.perf_counter() - began)


def setup_of(text: str):
    from aerodeck.train import rllib

    runners, envs, batch, *threads = (int(x) for x in text.split(","))
    return rllib.Setup(env_runners=runners, envs_per_runner=envs, batch=batch, minibatch=256, epochs=4,
                       hidden=(128, 128), threads=(threads[0] or TORCH_THREADS) if threads else 1)


def rllib_rate(steps: int, setting: str) -> float:
    """RLlib PPO's env steps per second over at least ``steps`` env steps (built before the clock)."""
    from aerodeck.train import rllib

    spec = solo_spec()
    import torch

    try:
        algo, seconds, sampled = rllib.timed_train(spec.id, spec.rules_class()(), setup_of(setting), steps)
        algo.stop()
    finally:
        torch.set_num_threads(1)  # (a setting of torch's own choice changed it)
    return sampled / seconds


def burn(stop) -> None:
    """Burn one CPU until ``stop`` is set."""
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x += 1


@contextlib.contextmanager
def competitor(on: bool):
    """One process burning a CPU while the block runs (``on``), else nothing."""
    if not on:
        yield
        return
    stop = multiprocessing.Event()
    proc = multiprocessing.Process(target=burn, args=(stop,), daemon=True)
    proc.start()
    try:
        yield
    finally:
        stop.set()
        proc.join(5)
        if proc.is_alive():
            proc.kill()


def table(steps: int, repeats: int, settings: list[str], loaded: bool) -> None:
    """Time SB3 and every RLlib setting ``repeats`` times, interleaved; print rates and ratios."""
    rates = {"sb3": [], **{s: [] for s in settings}}
    with competitor(loaded):
        for r in range(repeats):
            rates["sb3"].append(sb3_rate(steps))
            for s in settings:
                rates[s].append(rllib_rate(steps, s))
            print(f"  repeat {r + 1}: SB3 {rates['sb3'][-1]:,.0f} steps/s; "
                  + "; ".join(f"RLlib {s} {rates[s][-1]:,.0f}" for s in settings), flush=True)
    label = "with one competing CPU-bound process" if loaded else "no competitor started"
    print(f"\n{label}: env steps/s over {steps:,} steps, median of {repeats} (ratio: RLlib over SB3 of the same repeat)")
    print(f"  {'SB3 MaskablePPO, 16 games, 1,024 per update':48s} {statistics.median(rates['sb3']):8,.0f}")
    for s in settings:
        ratios = [a / b for a, b in zip(rates[s], rates["sb3"])]
        runners, envs, batch, *threads = s.split(",")
        name = f"RLlib, {runners} runners, {envs} games, {int(batch):,} per update" + \
            (f", torch's {TORCH_THREADS} threads" if threads and threads[0] == "0" else "")
        print(f"  {name:48s} {statistics.median(rates[s]):8,.0f}   {statistics.median(ratios):.2f}x "
              f"(repeats {', '.join(f'{x:.2f}' for x in ratios)})")


#: Where RLlib's time goes, by the file of the function (own time).
PARTS = (("env steps (our core and env)", ("aerodeck/", "envs/", "train/rllib.py")),
         ("module forward passes (torch)", ("torch/nn/", "torch/_tensor", "torch/functional", "torch/distributions")),
         ("connectors (env-to-module, module-to-env)", ("rllib/connectors/",)),
         ("episodes and metrics", ("rllib/env/single_agent_episode", "rllib/env/utils/infinite_lookback_buffer",
                                   "rllib/utils/metrics/", "rllib/env/single_agent_env_runner")),
         ("learner update (loss, optimizer, batches)", ("rllib/core/learner", "rllib/algorithms/ppo/", "torch/optim",
                                                       "torch/autograd")),
         ("tree, numpy conversions", ("tree/", "numpy/", "rllib/utils/numpy", "rllib/utils/spaces", "gymnasium/")))


def profile(steps: int, setting: str, out: str | None) -> None:
    """cProfile of one RLlib run of ``setting``; the top functions by own time and the parts of :data:`PARTS`."""
    from aerodeck.train import rllib

    spec = solo_spec()
    algo = rllib.ppo_config(spec.id, spec.rules_class()(), setup_of(setting)).build_algo()
    prof = cProfile.Profile()
    sampled, began = 0, time.perf_counter()
    prof.enable()
    while sampled < steps:
        sampled = rllib.env_steps(algo.train())
    prof.disable()
    seconds = time.perf_counter() - began
    algo.stop()
    stats = pstats.Stats(prof)
    total = sum(v[2] for v in stats.stats.values())
    parts = {name: 0.0 for name, _ in PARTS}
    parts["the rest"] = 0.0
    for (file, _, function), (_, _, own, _, _) in stats.stats.items():
        if file == "~" and "torch" in function:  # a torch kernel called from Python (forward, backward, sampling)
            name = "torch kernels (forward, backward, sampling)"
        else:
            name = next((n for n, keys in PARTS if any(k in file for k in keys)), "the rest")
        parts[name] = parts.get(name, 0.0) + own
    text = io.StringIO()
    print(f"profile of RLlib {setting}: {sampled:,} env steps in {seconds:.1f} s ({sampled / seconds:,.0f} steps/s "
          f"under the profiler); own time by part:", file=text)
    for name, own in sorted(parts.items(), key=lambda kv: -kv[1]):
        print(f"  {name:45s} {own:7.2f} s  {100 * own / total:5.1f} %", file=text)
    stats.stream = text
    print("\nthe 25 functions with the most own time:", file=text)
    stats.sort_stats("tottime").print_stats(25)
    print(text.getvalue())
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(text.getvalue())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=4096, help="env steps timed per configuration (default 4,096)")
    p.add_argument("--repeats", type=int, default=3, help="timings of each configuration (default 3)")
    p.add_argument("--setting", dest="settings", action="append", metavar="RUNNERS,ENVS,BATCH[,THREADS]",
                   help=f"an RLlib setting (repeat; default {' '.join(SETTINGS)})")
    p.add_argument("--load", action="store_true", help="also time everything with one CPU-burning competitor")
    p.add_argument("--profile", action="store_true", help="profile one RLlib run of the first setting")
    p.add_argument("--out", help="with --profile: also write the profile to this file")
    p.add_argument("--cpus", type=int, default=2, help="the local Ray's CPUs (default 2)")
    args = p.parse_args()
    import logging

    import ray
    import torch

    global TORCH_THREADS
    TORCH_THREADS = torch.get_num_threads()
    torch.set_num_threads(1)
    settings = args.settings or list(SETTINGS)
    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    try:
        table(args.steps, args.repeats, settings, loaded=False)
        if args.load:
            table(args.steps, args.repeats, settings, loaded=True)
        if args.profile:
            profile(args.steps, settings[0], args.out)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
