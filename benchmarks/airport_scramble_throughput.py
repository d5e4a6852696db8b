"""Airport Scramble throughput: game steps per second of random legal play, masks and observations
included, for the reference engine, the Gymnasium env, Gymnasium's SyncVectorEnv of single envs and
the batched core at several batch sizes; each figure with its ratio to the reference engine's rate
measured in the same run.

    .venv/bin/python benchmarks/airport_scramble_throughput.py [--seconds 3] [--repeats 3]

Each configuration runs ``--repeats`` times for ``--seconds`` each and keeps its best rate (other
processes on the machine only ever slow a run down). Writes
``benchmarks/results/airport_scramble_throughput.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from agents.random import RandomAgent
from envs.airport_scramble.core import AirportScrambleCore
from envs.airport_scramble.env import AirportScrambleEnv
from envs.airport_scramble.reference import ReferenceGame
from envs.airport_scramble.rules import AirportScrambleRules
from envs.common.batch import padded_mask

RESULTS = Path(__file__).parent / "results" / "airport_scramble_throughput.json"


def timed(play_chunk, seconds: float) -> float:
    """Steps per second of ``play_chunk() -> steps`` called repeatedly for about ``seconds``."""
    play_chunk()  # warm up
    steps, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        steps += play_chunk()
    return steps / elapsed


def reference(rules: AirportScrambleRules):
    r = np.random.default_rng(0)
    seed = iter(range(10**9))
    game = ReferenceGame(rules, next(seed))

    def chunk() -> int:
        nonlocal game
        for _ in range(50):
            mask = game.legal_mask()
            game.observe()
            game.step(int(r.choice(np.flatnonzero(mask))))
            if game.done:
                game = ReferenceGame(rules, next(seed))
        return 50

    return chunk


def gym_env(rules: AirportScrambleRules):
    env = AirportScrambleEnv(rules=rules)
    agent = RandomAgent(0)
    obs, info = env.reset(seed=0)

    def chunk() -> int:
        nonlocal obs, info
        for _ in range(50):
            obs, _, terminated, _, info = env.step(agent.act_one(obs, info["action_mask"]))
            if terminated:
                obs, info = env.reset()
        return 50

    return chunk


def sync_vector(rules: AirportScrambleRules, n: int = 16):
    from gymnasium.vector import SyncVectorEnv

    envs = SyncVectorEnv([lambda: AirportScrambleEnv(rules=rules) for _ in range(n)])
    agent = RandomAgent(0)
    obs, info = envs.reset(seed=0)

    def chunk() -> int:
        nonlocal obs, info
        for _ in range(10):
            # Next-step autoreset: a row that just ended is reset by this step (its action is ignored
            # and its mask is empty), so give it any action.
            masks = info["action_mask"].copy()
            masks[~masks.any(axis=1), 0] = True
            obs, _, _, _, info = envs.step(agent.act(obs, masks))
        return 10 * n

    return chunk


def core(rules: AirportScrambleRules, batch: int):
    engine = AirportScrambleCore(rules, check_actions=False)  # the raw core: the agent plays legal actions
    agent = RandomAgent(0)
    state = engine.init(np.arange(batch))
    next_seed = batch
    mask_buffer, mask = padded_mask(batch, engine.n_actions)  # sample_legal reads the buffer without a copy
    obs = np.zeros((batch, engine.obs_size), np.float32)
    rounds = max(1, 4096 // batch)

    def chunk() -> int:
        nonlocal next_seed
        for _ in range(rounds):
            engine.legal_mask(state, out=mask)
            engine.observe(state, out=obs)
            engine.step(state, agent.act(obs, mask_buffer))
            ended = np.flatnonzero(state.done)
            if ended.size:
                engine.reset(state, ended, np.arange(next_seed, next_seed + ended.size))
                next_seed += ended.size
        return rounds * batch

    return chunk


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement (default 3)")
    parser.add_argument("--repeats", type=int, default=3, help="measurements per configuration; the best counts")
    parser.add_argument("--batches", default="1,64,1024,4096", help="core batch sizes (default 1,64,1024,4096)")
    parser.add_argument("--out", default=str(RESULTS), help="JSON output file")
    args = parser.parse_args(argv)
    rules = AirportScrambleRules()
    configs = [("reference engine", lambda: reference(rules)), ("gymnasium env", lambda: gym_env(rules)),
               ("SyncVectorEnv x16", lambda: sync_vector(rules))]
    configs += [(f"core B={b}", lambda b=b: core(rules, b)) for b in map(int, args.batches.split(","))]
    from tqdm import tqdm

    rates: dict[str, list[float]] = {}
    for name, make in tqdm(configs, desc="measuring", leave=False):
        chunk = make()
        rates[name] = [timed(chunk, args.seconds) for _ in range(args.repeats)]
    best = {name: max(values) for name, values in rates.items()}
    ref = best["reference engine"]
    rows = [{"config": name, "steps_per_second": best[name], "ratio_to_reference": best[name] / ref, "runs": rates[name]}
            for name in best]
    result = {"rules": rules.to_dict(), "seconds": args.seconds, "repeats": args.repeats,
              "machine": platform.platform(), "processor": platform.processor(), "results": rows,
              "targets": {"core B=4096 steps/s": 1_000_000, "core B=4096 / reference": 200}}
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Airport Scramble: random legal play, masks and observations included")
    table.add_column("configuration")
    table.add_column("steps/s (best)", justify="right")
    table.add_column("× reference", justify="right")
    table.add_column("spread of runs", justify="right")
    for row in rows:
        spread = f"{min(row['runs']):,.0f} – {max(row['runs']):,.0f}"
        table.add_row(row["config"], f"{row['steps_per_second']:,.0f}", f"{row['ratio_to_reference']:,.1f}", spread)
    Console().print(table)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"written to {out}")
    return result


if __name__ == "__main__":
    main()
