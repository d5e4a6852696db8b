"""Warm-start teacher play in one process and in several: seconds, games/s and the speed-up.

``aerodeck train``'s warm start plays the teacher's games in chunks of ``[warm_start] play_batch``
(``aerodeck.train.warm_start.play_teacher``); ``workers`` processes share the chunks. This times the game's default
teacher (``aerodeck.train.config.default_config``; ``--teacher`` another agent spec) over ``--games`` games with 1 and with ``--workers``
processes, in alternating rounds so that both see the same machine load, and checks that both give
the same decisions. Writes ``teacher_play-<game>.json`` under ``--out`` (default ``out/benchmarks/``).

    .venv/bin/python benchmarks/teacher_play.py airport-scramble --games 128 --play-batch 32
    .venv/bin/python benchmarks/teacher_play.py flight-tycoon --games 512 --play-batch 128
    .venv/bin/python benchmarks/teacher_play.py airport-scramble --games 128 --play-batch 32 --teacher expert
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from aerodeck import envs  # noqa: E402
from aerodeck.agents.ppo import Inputs  # noqa: E402
from aerodeck.train.config import default_config  # noqa: E402
from aerodeck.train.warm_start import joined, play_teacher  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=envs.games())
    parser.add_argument("--games", type=int, default=128, help="teacher games per timing (default 128)")
    parser.add_argument("--play-batch", type=int, default=32, help="games per chunk (default 32)")
    parser.add_argument("--workers", type=int, default=2, help="processes to compare with one (default 2)")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds (default 2)")
    parser.add_argument("--teacher", help="the teacher's agent spec (default: the training config's, "
                                          "[warm_start] teacher)")
    parser.add_argument("--out", type=Path, default=Path("out") / "benchmarks",
                        help="output folder (default out/benchmarks)")
    args = parser.parse_args(argv)

    game = envs.spec(args.game)
    rules = game.make_rules()
    config = default_config(args.game)
    warm = dataclasses.replace(config.warm_start, games=args.games, play_batch=args.play_batch,
                               teacher=args.teacher or config.warm_start.teacher)
    policy = config.policy
    inputs = Inputs.make(args.game, rules, policy.sees_mask, policy.prior or None, policy.prior_units,
                         policy.prior_ties, policy.prior_ranks).to_dict()
    seconds: dict[int, list[float]] = {1: [], args.workers: []}
    decisions = {}
    for _ in range(args.rounds):
        for workers in seconds:
            start = time.perf_counter()
            decisions[workers] = joined(play_teacher(args.game, rules, warm, inputs, 0, config.ppo.gamma, args.games,
                                                     workers=workers))
            seconds[workers].append(time.perf_counter() - start)
    same = all(np.array_equal(decisions[1][k], decisions[args.workers][k]) for k in decisions[1])
    print(f"{args.game}: teacher {warm.teacher!r}, {args.games} games in chunks of {args.play_batch}, "
          f"{len(decisions[1]['actions']):,} decisions; the same decisions in both: {same}")
    for workers, times in seconds.items():
        best = min(times)
        print(f"  {workers} process{'es' * (workers > 1)}: {best:.1f} s (best of {len(times)}; median "
              f"{statistics.median(times):.1f} s), {args.games / best:.1f} games/s")
    print(f"  speed-up with {args.workers}: {min(seconds[1]) / min(seconds[args.workers]):.2f}x")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"teacher_play-{args.game}.json"
    path.write_text(json.dumps({
        "benchmark": "teacher_play", "game": args.game, "teacher": warm.teacher, "games": args.games,
        "play_batch": args.play_batch, "decisions": len(decisions[1]["actions"]), "same_decisions": bool(same),
        "seconds": {str(w): times for w, times in seconds.items()},
        "games_per_second": {str(w): args.games / min(times) for w, times in seconds.items()},
    }, indent=2))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
