"""Warm-start teacher play in one process and in several: seconds, games/s and the speed-up.

``aerodeck train``'s warm start plays the teacher's games in chunks of ``[warm_start] play_batch``
(``train.learn.train.play_teacher``); ``workers`` processes share the chunks. This times the game's default
teacher (its ``train/learn/configs/<game>.toml``) over ``--games`` games with 1 and with ``--workers``
processes, in alternating rounds so that both see the same machine load, and checks that both give
the same decisions.

    .venv/bin/python benchmarks/teacher_play.py airport-scramble --games 128 --play-batch 32
    .venv/bin/python benchmarks/teacher_play.py flight-tycoon --games 512 --play-batch 128
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import envs  # noqa: E402
from train.learn.train import default_config, play_teacher  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=envs.games())
    parser.add_argument("--games", type=int, default=128, help="teacher games per timing (default 128)")
    parser.add_argument("--play-batch", type=int, default=32, help="games per chunk (default 32)")
    parser.add_argument("--workers", type=int, default=2, help="processes to compare with one (default 2)")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds (default 2)")
    args = parser.parse_args()

    game = envs.spec(args.game)
    config = default_config(args.game)
    warm = {**config["warm_start"], "games": args.games, "play_batch": args.play_batch}
    policy = config["policy"]
    inputs = {"mask": policy["sees_mask"], "prior": policy["prior"], "prior_units": policy["prior_units"],
              "prior_ties": policy["prior_ties"]}
    seconds: dict[int, list[float]] = {1: [], args.workers: []}
    decisions = {}
    for _ in range(args.rounds):
        for workers in seconds:
            start = time.perf_counter()
            decisions[workers] = play_teacher(args.game, game.make_rules(), warm, inputs, 0, config["ppo"]["gamma"],
                                              workers)
            seconds[workers].append(time.perf_counter() - start)
    same = all(np.array_equal(decisions[1][k], decisions[args.workers][k]) for k in decisions[1])
    print(f"{args.game}: teacher {warm['teacher']!r}, {args.games} games in chunks of {args.play_batch}, "
          f"{len(decisions[1]['actions']):,} decisions; the same decisions in both: {same}")
    for workers, times in seconds.items():
        best = min(times)
        print(f"  {workers} process{'es' * (workers > 1)}: {best:.1f} s (best of {len(times)}; median "
              f"{statistics.median(times):.1f} s), {args.games / best:.1f} games/s")
    print(f"  speed-up with {args.workers}: {min(seconds[1]) / min(seconds[args.workers]):.2f}x")


if __name__ == "__main__":
    main()
