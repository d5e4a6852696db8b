"""``aerodeck run``: the main job on built-in defaults.

1. Plays a batch of Airport Scramble games with the random agent on the batched core and prints a
   score summary (mean with 95% confidence interval, the score distribution, games and steps per
   second).
2. The agent ladder on small budgets (``--no-ladder`` skips it): ``aerodeck bench`` of random <
   heuristic < search on Airport Scramble (the same rule options), and of heuristic vs three random
   players and search vs three heuristic players in 4-player Flight Tycoon, seat-rotated. Tables on
   the terminal; JSON, CSV and plots under ``--out``. The README's results table comes from the same
   benches at full budgets.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

from agents.random import RandomAgent
from envs.airport_scramble.core import AirportScrambleCore
from envs.airport_scramble.rules import AirportScrambleRules
from train.bench import add_rules_arguments, load_rules


def add_parser(subparsers) -> None:
    """Register ``aerodeck run``."""
    parser = subparsers.add_parser(
        "run",
        help="the main job: random Airport Scramble games summarised, then the agent ladder of both games",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="rule options:\n" + AirportScrambleRules.describe_options(),
    )
    parser.add_argument("--games", type=int, default=20_000, help="games to play (default 20000)")
    parser.add_argument("--batch", type=int, default=4096, help="games played at once (default 4096)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games and the agent (default 0)")
    add_rules_arguments(parser)
    parser.add_argument("--json", metavar="FILE", help="also write the summary as JSON")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--no-ladder", action="store_true", help="only the random games, no agent ladder")
    parser.add_argument("--out", type=Path, default=Path("out/run"),
                        help="folder of the ladder's benches (default out/run)")
    parser.set_defaults(func=run)


#: The agent ladder: (output folder, ``aerodeck bench`` arguments). Small budgets — about a minute.
LADDER = [
    ("airport-scramble", ["airport-scramble", "--agent", "random", "--agent", "heuristic:games=2000",
                          "--agent", "search:games=100", "--games", "10000"]),
    ("flight-tycoon-heuristic-vs-random", ["flight-tycoon", "--players", "4", "--agent", "heuristic", "--agent", "random",
                                           "--lineup", "heuristic,random,random,random", "--games", "2000"]),
    ("flight-tycoon-search-vs-heuristic", ["flight-tycoon", "--players", "4", "--agent", "search", "--agent", "heuristic",
                                           "--lineup", "search,heuristic,heuristic,heuristic", "--games", "200"]),
]


def play_random(rules: AirportScrambleRules, games: int, batch: int, seed: int, progress: bool = True) -> dict:
    """Play ``games`` games (game i from seed ``seed * 2**32 + i``) with :class:`RandomAgent`,
    ``batch`` at a time. Returns ``scores``, ``lengths`` (int arrays, by game), ``won`` (bool array),
    ``seconds`` and ``steps``."""
    if games < 1 or batch < 1:
        raise ValueError("--games and --batch must be positive")
    core = AirportScrambleCore(rules)
    agent = RandomAgent(seed)
    batch = min(batch, games)
    base = seed * 2**32
    state = core.init(np.arange(batch) + base)
    game_of_row = np.arange(batch)
    started = batch
    lengths_now = np.zeros(batch, np.int64)
    scores = np.zeros(games, np.int64)
    lengths = np.zeros(games, np.int64)
    won = np.zeros(games, bool)
    finished = 0
    steps = 0
    width = -(-core.n_actions // 8) * 8
    mask_buffer = np.zeros((batch, width), bool)
    mask = mask_buffer[:, : core.n_actions]
    obs = np.zeros((batch, core.obs_size), np.float32)
    live = np.ones(batch, bool)
    bar = _progress(games, progress)
    start = time.perf_counter()
    while finished < games:
        core.legal_mask(state, out=mask)
        core.observe(state, out=obs)
        core.step(state, agent.act(obs, mask_buffer)[: batch])
        steps += int(live.sum())
        lengths_now += live
        ended = np.flatnonzero(state.done & live)
        if ended.size:
            ids = game_of_row[ended]
            scores[ids] = state.score[ended]
            lengths[ids] = lengths_now[ended]
            won[ids] = state.ticket[ended] < 0
            finished += ended.size
            bar.update(ended.size)
            fresh = ended[: max(0, games - started)]
            if fresh.size:
                core.reset(state, fresh, np.arange(started, started + fresh.size) + base)
                game_of_row[fresh] = np.arange(started, started + fresh.size)
                lengths_now[fresh] = 0
                started += fresh.size
            live[ended[fresh.size :]] = False
    bar.close()
    return {"scores": scores, "lengths": lengths, "won": won, "seconds": time.perf_counter() - start, "steps": steps}


def _progress(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, unit="game", desc="playing", disable=not enabled, leave=False)


def summarise(result: dict, rules: AirportScrambleRules) -> dict:
    """Mean score with a 95% confidence interval (normal approximation), distribution, speed."""
    scores = result["scores"]
    n = len(scores)
    mean = float(scores.mean())
    half = 1.96 * float(scores.std(ddof=1)) / math.sqrt(n) if n > 1 else float("nan")
    values, counts = np.unique(scores, return_counts=True)
    return {
        "rules": rules.to_dict(),
        "label": rules.label(),
        "agent": "random",
        "games": n,
        "mean_score": mean,
        "ci95": [mean - half, mean + half],
        "median_score": float(np.median(scores)),
        "max_score": int(scores.max()),
        "won": int(result["won"].sum()),
        "distribution": {int(v): int(c) for v, c in zip(values, counts)},
        "mean_length": float(result["lengths"].mean()),
        "seconds": result["seconds"],
        "games_per_second": n / result["seconds"],
        "steps_per_second": result["steps"] / result["seconds"],
    }


def print_summary(summary: dict) -> None:
    """The summary as tables on the terminal."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    lo, hi = summary["ci95"]
    console.print(f"[bold]Airport Scramble[/bold] · rules: {summary['label']} · agent: random")
    console.print(
        f"{summary['games']} games · mean score {summary['mean_score']:.3f} "
        f"(95% CI {lo:.3f} – {hi:.3f}) · median {summary['median_score']:g} · best {summary['max_score']} · "
        f"won {summary['won']} · mean length {summary['mean_length']:.1f} decisions"
    )
    table = Table(title="score distribution")
    table.add_column("score", justify="right")
    table.add_column("games", justify="right")
    table.add_column("share", justify="right")
    table.add_column("")
    top = max(summary["distribution"].values())
    for score, count in summary["distribution"].items():
        share = count / summary["games"]
        table.add_row(str(score), str(count), f"{share:.1%}", "█" * max(1, round(30 * count / top)))
    console.print(table)
    console.print(
        f"{summary['games_per_second']:,.0f} games/s · {summary['steps_per_second']:,.0f} steps/s "
        f"({summary['seconds']:.2f} s)"
    )


def run(args: argparse.Namespace) -> int:
    """Entry point of ``aerodeck run``."""
    from train.report import check_output_folder

    rules = load_rules("airport-scramble", args.rules, args.rule_items, args.table)
    if args.json:
        check_output_folder(Path(args.json).parent)
    if not args.no_ladder:
        check_output_folder(args.out)
    result = play_random(rules, args.games, args.batch, args.seed, progress=not args.no_progress)
    summary = summarise(result, rules)
    print_summary(summary)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(summary, indent=2))
    if args.no_ladder:
        return 0
    from train import cli

    as_rules = [f"--rule={item}" for item in rules.to_strings()]
    for folder, argv in LADDER:
        extra = as_rules if argv[0] == "airport-scramble" else []
        status = cli.main(["bench", *argv, *extra, "--seed", str(args.seed), "--out", str(args.out / folder),
                           *(["--no-progress"] if args.no_progress else [])])
        if status:
            return status
    return 0
