"""Strength per second: every agent of a game's ladder (and ``expert``) on the same fresh deals, in one run.

For each agent: its mean (Airport Scramble: tickets per game; a multi-player game: its win share in
seat ``i mod n`` of game i, the game's opponent agent in the other seats), the paired difference to the
reference agent (``--reference``, default ``search``) on the deals both played with its 95% interval,
and games/s (wall time of its own games, one process, in this run). The reference plays only the
first ``--reference-games`` deals (it is the slow one); the others play ``--games``.

With ``--variants K --draw-seed S`` it plays, instead, ``--agents`` under each of K rule variants drawn
from the ranges of the game's shipped rule-general model (``VariantSpace.draw(S, i)``), every agent on
the same ``--games`` deals per variant, and reports each agent's mean and its difference to the reference.

Writes ``strength_per_second-<game>.json``, ``.csv`` and ``.png`` (strength against games/s, log scale)
under ``--out`` (default ``out/benchmarks``).

    .venv/bin/python benchmarks/strength_per_second.py airport-scramble --games 10000 --reference-games 10000 --seed 490001
    .venv/bin/python benchmarks/strength_per_second.py flight-tycoon --players 4 --games 10000 --reference-games 1000 --seed 490002
    .venv/bin/python benchmarks/strength_per_second.py airport-scramble --variants 10 --draw-seed 4903 --games 300 \
        --agents heuristic,expert,search
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from aerodeck import envs  # noqa: E402
from aerodeck.agents.registry import make_agent  # noqa: E402
from aerodeck.arena.loop import agent_seed, game_seeds, play_games, play_solo  # noqa: E402
from aerodeck.stats.estimates import mean_ci  # noqa: E402


def default_agents(game) -> list[str]:
    """The first seat of every ladder row, the game's opponent and ``expert``, each once, ladder order."""
    names = [seats[0] for seats, _ in game.ladder] + [game.opponent, "expert"]
    return list(dict.fromkeys(names))


def play(game, rules, spec: str, seeds: np.ndarray, seed: int, batch: int) -> tuple[np.ndarray, float]:
    """``spec``'s figure per deal (score, or win share in seat ``i mod n`` against the opponent agent),
    ``float64 (G,)``, and the seconds it took."""
    core = game.make_core(rules)
    agent = make_agent(game.id, spec, rules, seed=agent_seed(seed, 0))
    start = time.perf_counter()
    if game.solo:
        figures = play_solo(core, agent, seeds, batch_size=batch, progress=False, make_view=game.make_view)
    else:
        other = make_agent(game.id, game.opponent, rules, seed=agent_seed(seed, 1))
        n = core.n_players
        seat = np.arange(seeds.size) % n
        lineups = np.ones((seeds.size, n), np.int64)
        lineups[np.arange(seeds.size), seat] = 0
        played = play_games(core, [agent, other], seeds, lineups, batch_size=batch, progress=False,
                            make_view=game.make_view, summary=game.summary_of())
        figures = played["win_share"][np.arange(seeds.size), seat]
    return figures, time.perf_counter() - start


def table(game, rules, specs: list[str], reference: str, games: int, reference_games: int, seed: int,
          batch: int, log=print) -> list[dict]:
    """One row per agent spec (and the reference): mean, its interval, the paired difference to the
    reference with its interval, deals, seconds and games/s."""
    seeds = game_seeds(seed, games)
    figures, rows = {}, []
    for spec in [*[s for s in specs if s != reference], reference]:  # the slow reference last
        n = reference_games if spec == reference else games
        figures[spec], seconds = play(game, rules, spec, seeds[:n], seed, batch)
        est = mean_ci(figures[spec])
        rows.append({"agent": spec, "deals": n, "mean": est.value, "low": est.low, "high": est.high,
                     "seconds": seconds, "games_per_second": n / seconds})
        log(f"  {spec}: mean {est.value:.4f} [{est.low:.4f}, {est.high:.4f}] on {n:,} deals, {n / seconds:,.2f} games/s",
            flush=True)
    rows = [rows[-1], *rows[:-1]]
    for row in rows[1:]:
        m = min(row["deals"], reference_games)
        gap = mean_ci(figures[row["agent"]][:m] - figures[reference][:m])
        row.update(paired_deals=m, difference=gap.value, difference_low=gap.low, difference_high=gap.high)
        log(f"  {row['agent']} - {reference}: {gap.value:+.4f} [{gap.low:+.4f}, {gap.high:+.4f}] on {m:,} deals")
    ref = next(r for r in rows if r["agent"] == reference)
    for row in rows:
        row["speed_vs_reference"] = row["games_per_second"] / ref["games_per_second"]
    return rows


def variant_rows(game, rules, specs: list[str], reference: str, variants: int, draw_seed: int, games: int, seed: int,
                 batch: int, log=print) -> list[dict]:
    """Per drawn variant, :func:`table` of ``specs`` on the same ``games`` deals (the reference too)."""
    from aerodeck.agents.ppo import read_sidecar, shipped_path
    from aerodeck.agents.variants import VariantSpace

    space = VariantSpace.from_dict(game, read_sidecar(shipped_path(game, rules, True))["inputs"]["variants"])
    out = []
    for i in range(variants):
        varied = space.draw(draw_seed, i)
        log(f"variant {i}: {varied.label()}")
        for row in table(game, varied, specs, reference, games, games, seed, batch, log):
            out.append({"variant": i, "rules": varied.label(), **row})
    return out


def plot(rows: list[dict], title: str, ylabel: str, path: Path) -> None:
    """Strength (mean, with its interval) against games/s (log scale), one point per agent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for k, row in enumerate(sorted(rows, key=lambda r: r["games_per_second"])):  # labels above and below in turn
        ax.errorbar(row["games_per_second"], row["mean"], yerr=[[row["mean"] - row["low"]], [row["high"] - row["mean"]]],
                    fmt="o", capsize=3)
        ax.annotate(row["agent"], (row["games_per_second"], row["mean"]), textcoords="offset points",
                    xytext=(6, 6 if k % 2 == 0 else -14), fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("games per second (one process)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=envs.games())
    parser.add_argument("--players", type=int, help="players (a multi-player game; default: the rules' default)")
    parser.add_argument("--agents", help="agent specs joined by ';' or ',' when none has knobs "
                                         "(default: the ladder's, the opponent and expert)")
    parser.add_argument("--reference", default="search", help="the agent the differences are paired with (search)")
    parser.add_argument("--games", type=int, default=2000, help="deals per agent (default 2000)")
    parser.add_argument("--reference-games", type=int, help="deals of the reference (default: --games)")
    parser.add_argument("--seed", type=int, required=True, help="the run seed (its deals: game_seeds(seed, games))")
    parser.add_argument("--batch-size", type=int, default=512, help="games played at once (default 512)")
    parser.add_argument("--variants", type=int, default=0, help="rule variants to draw (default 0: the rules)")
    parser.add_argument("--draw-seed", type=int, help="seed of the variants' draw (with --variants)")
    parser.add_argument("--out", type=Path, default=Path("out") / "benchmarks", help="output folder")
    parser.add_argument("--name", help="file name stem (default strength_per_second-<game>)")
    args = parser.parse_args(argv)
    if args.variants and args.draw_seed is None:
        parser.error("--variants needs --draw-seed")
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    game = envs.spec(args.game)
    options = {} if args.players is None else {game.players_option: args.players}
    rules = game.make_rules(**options)
    sep = ";" if args.agents and ";" in args.agents else ","
    specs = [s.strip() for s in args.agents.split(sep)] if args.agents else default_agents(game)
    stem = args.name or f"strength_per_second-{args.game}"
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"{game.title} ({rules.label()}): seed {args.seed}, threads NUMBA={os.environ.get('NUMBA_NUM_THREADS')}")
    started = time.time()
    if args.variants:
        rows = variant_rows(game, rules, specs, args.reference, args.variants, args.draw_seed, args.games, args.seed,
                            args.batch_size)
    else:
        rows = table(game, rules, specs, args.reference, args.games, args.reference_games or args.games, args.seed,
                     args.batch_size)
    command = "benchmarks/strength_per_second.py " + " ".join(sys.argv[1:] if argv is None else argv)
    (args.out / f"{stem}.json").write_text(json.dumps({
        "benchmark": "strength_per_second", "game": args.game, "rules": rules.label(), "seed": args.seed,
        "reference": args.reference, "variants": args.variants, "draw_seed": args.draw_seed, "command": command,
        "wall_seconds": time.time() - started, "rows": rows}, indent=2) + "\n")
    with open(args.out / f"{stem}.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=sorted({k for r in rows for k in r}))
        writer.writeheader()
        writer.writerows(rows)
    if not args.variants:
        ylabel = "tickets per game" if game.solo else f"win share against {game.opponent} × {rules_players(game, rules) - 1}"
        plot(rows, f"{game.title}: strength against speed (seed {args.seed})", ylabel, args.out / f"{stem}.png")
    print(f"wrote {args.out / stem}.json/.csv" + ("" if args.variants else "/.png"))


def rules_players(game, rules) -> int:
    """The players of ``rules``."""
    return game.make_core(rules).n_players


if __name__ == "__main__":
    main()
