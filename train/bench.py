"""``aerodeck bench``: policies over many games on the batched core, with intervals, tables and plots.

Airport Scramble: every agent plays the same deals (game i has the same seed for every agent), so
agents are compared game by game (paired differences). Flight Tycoon: seat-rotated tournaments
(every agent plays every seat equally often), win rates, mean VP, a head-to-head matrix and
OpenSkill ratings. The same ``--seed`` reproduces the same numbers exactly.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from rich.console import Console

from agents.registry import GAMES, agent_names, make_agent, parse_spec
from train import report
from train.play import game_seeds, play_solo, play_tournament
from train.stats import Estimate, against_value, mean_ci
from train.tournament import balanced_games, head_to_head, pair_results, ratings, schedule

DEFAULT_GAMES = {"airport-scramble": 10_000, "flight-tycoon": 1_200}


def add_parser(sub) -> None:
    """Register ``aerodeck bench``."""
    p = sub.add_parser(
        "bench",
        help="benchmark agents over many games (mean score / win rate with 95%% CIs, plots)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", choices=GAMES)
    p.add_argument("--agent", dest="agents", action="append", metavar="SPEC",
                   help="agent NAME or NAME:key=value,... (repeat for several; default: random). "
                        "Airport Scramble: " + ", ".join(agent_names("airport-scramble"))
                        + "; Flight Tycoon: " + ", ".join(agent_names("flight-tycoon")))
    p.add_argument("--games", type=int, help="games per agent (Airport Scramble, default 10000) or in the "
                   "tournament (Flight Tycoon, default 1200, rounded up to balance the seats)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents (default 0)")
    p.add_argument("--players", type=int, help="Flight Tycoon: number of players (sets the n_players option)")
    p.add_argument("--lineup", metavar="SPEC,SPEC,...",
                   help="Flight Tycoon: the agent of each seat, e.g. heuristic,random,random,random — rotated "
                        "over the seats (default: the --agent list cycled over the seats and rotated)")
    add_rules_arguments(p)
    p.add_argument("--out", type=Path, help="output folder (default out/bench-<game>)")
    p.add_argument("--batch-size", type=int, default=4096, help="games stepped at once (default 4096)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(func=main)


def add_rules_arguments(p: argparse.ArgumentParser) -> None:
    """``--rules FILE [--table NAME]`` and repeated ``--rule key=value`` (shared by every tool that takes rules)."""
    p.add_argument("--rules", type=Path, metavar="FILE.toml", help="rule options from a TOML file")
    p.add_argument("--table", metavar="NAME", help="the table of --rules FILE holding the options (e.g. variants.fast)")
    p.add_argument("--rule", dest="rule_items", action="append", default=[], metavar="KEY=VALUE",
                   help="a rule option (repeatable; applied after --rules)")


def load_rules(game: str, rules_file: Path | None, items: list[str], table: str | None = None, **fixed):
    """The rules object of ``game`` from a TOML file, then ``key=value`` items (they win over the file),
    then ``fixed`` options (e.g. ``n_players`` from ``--players``; one contradicting a chosen option is an error)."""
    if game == "airport-scramble":
        from envs.airport_scramble.rules import AirportScrambleRules as Rules
    else:
        from envs.flight_tycoon.rules import FlightTycoonRules as Rules
    from_file = Rules.from_toml(rules_file, table).to_strings() if rules_file else []
    rules = Rules.from_strings(from_file + list(items))
    for key, value in fixed.items():
        if value is None:
            continue
        chosen = rules.changes().get(key)
        if chosen is not None and chosen != value:
            raise ValueError(f"--{key.replace('n_', '')} {value} contradicts the rule option {key}={chosen}")
        rules = rules.replace(**{key: value})
    return rules


def lineup_index(seat: str, specs: list[str]) -> int:
    """The --agent spec a --lineup seat names: the spec itself, or its agent name if only one spec has it."""
    if seat in specs:
        return specs.index(seat)
    named = [i for i, spec in enumerate(specs) if parse_spec(split_games(spec)[0])[0] == seat]
    if len(named) != 1:
        raise ValueError(f"--lineup seat {seat!r} is not one of the --agent specs {specs}"
                         + (" (several have that name: give the whole spec)" if named else ""))
    return named[0]


def main(args: argparse.Namespace) -> int:
    """Run the benchmark described by the parsed command line; returns the exit status."""
    if args.games is not None and args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
    if args.batch_size < 1:
        raise ValueError(f"--batch-size must be at least 1, got {args.batch_size}")
    if args.players is not None and args.game != "flight-tycoon":
        raise ValueError("--players applies to flight-tycoon only")
    out = args.out or Path("out") / f"bench-{args.game}"
    report.check_output_folder(out)
    rules = load_rules(args.game, args.rules, args.rule_items, args.table,
                       **({"n_players": args.players} if args.game == "flight-tycoon" else {}))
    lineup = None
    if args.lineup is not None:
        if args.game != "flight-tycoon":
            raise ValueError("--lineup applies to flight-tycoon only")
        seats = [x.strip() for x in args.lineup.split(",")]
        if len(seats) != rules.n_players:
            raise ValueError(f"--lineup names {len(seats)} seats, the game has {rules.n_players} players")
        specs = args.agents or list(dict.fromkeys(seats))
        lineup = [lineup_index(x, specs) for x in seats]
    else:
        specs = args.agents or ["random"]
    if len(set(specs)) != len(specs):
        raise ValueError(f"each --agent may be given once, got {specs}")
    games = args.games or DEFAULT_GAMES[args.game]
    per_agent_games = []
    for i, spec in enumerate(specs):
        spec, own_games = split_games(spec)
        if own_games is not None and args.game == "flight-tycoon":
            raise ValueError("games=N per agent applies to airport-scramble; a tournament plays --games games")
        per_agent_games.append(own_games or games)
    agents = [make_agent(args.game, split_games(spec)[0], rules, seed=args.seed + 1 + i) for i, spec in enumerate(specs)]
    if args.game == "airport-scramble":
        result = bench_airport_scramble(rules, specs, agents, per_agent_games, args.seed, args.batch_size,
                                        not args.no_progress)
    else:
        result = bench_flight_tycoon(rules, specs, agents, games, args.seed, args.batch_size, not args.no_progress,
                                     lineup=lineup)
    report.write_bench(out, result)
    Console(width=None if sys.stdout.isatty() else 120).print(report.bench_table(result))
    print(f"wrote {', '.join(sorted(p.name for p in out.iterdir()))} to {out}/")
    return 0


def split_games(spec: str) -> tuple[str, int | None]:
    """Take a bench-level ``games=N`` parameter out of an agent spec: ``("search:budget=8", 1000)``."""
    name, _, rest = spec.partition(":")
    params = [p for p in rest.split(",") if p.strip()]
    own = [p for p in params if p.split("=")[0].strip() == "games"]
    if not own:
        return spec, None
    value = own[-1].partition("=")[2].strip()
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"agent spec {spec!r}: games must be a positive integer, got {value!r}")
    kept = [p for p in params if p not in own]
    return name + (":" + ",".join(kept) if kept else ""), int(value)


def bench_airport_scramble(rules, names, agents, n_games, seed, batch_size=4096, progress=True) -> dict:
    """Every agent plays the same deals (``n_games``: one count per agent, or one for all); the report dictionary.

    Game i has the same seed for every agent, so two agents are compared on the games both played
    (paired differences).
    """
    from agents.airport_scramble.view import make_view
    from envs.airport_scramble.core import AirportScrambleCore

    core = AirportScrambleCore(rules)
    counts = [n_games] * len(agents) if isinstance(n_games, int) else list(n_games)
    seeds = game_seeds(seed, max(counts))
    scores, agents_out = {}, {}
    for name, agent, count in zip(names, agents, counts):
        start = time.perf_counter()
        scores[name] = play_solo(core, agent, seeds[:count], batch_size=batch_size, progress=progress and name,
                                 make_view=make_view)
        seconds = time.perf_counter() - start
        values, freq = np.unique(scores[name], return_counts=True)
        agents_out[name] = {
            "mean_score": mean_ci(scores[name]).to_dict(),
            "score_distribution": {int(v): int(c) for v, c in zip(values, freq)},
            "games": count,
            "seconds": seconds,
            "games_per_second": count / seconds,
        }
    comparisons = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            both = min(len(scores[a]), len(scores[b]))
            gap = against_value(scores[b][:both] - scores[a][:both], 0.0)  # paired: the same deals
            comparisons.append({"agent": b, "versus": a, "mean_score_difference": gap.to_dict()})
    return {
        "game": "airport-scramble", "rules": rules.to_dict(), "rules_label": rules.label(), "seed": seed,
        "games": max(counts), "agents": agents_out, "comparisons": comparisons,
        "per_game": {"seed": seeds.tolist(), **{n: s.tolist() for n, s in scores.items()}},
    }


def bench_flight_tycoon(rules, names, agents, n_games, seed, batch_size=4096, progress=True, lineup=None) -> dict:
    """A seat-rotated tournament of ``n_games`` games (rounded up to balance seats); the report dictionary.

    ``lineup`` (agent index per seat, optional) fixes the table, rotated over the seats; by default
    the agents are cycled over the seats and rotated (:func:`train.tournament.seat_rotation`).
    """
    from envs.flight_tycoon.board import SQUARE_NAMES
    from envs.flight_tycoon.core import FlightTycoonCore
    from envs.flight_tycoon.knowledge import SeatView

    core = FlightTycoonCore(rules)
    n = rules.n_players
    n_games = balanced_games(n_games, len(agents), n, lineup)
    lineups = schedule(n_games, len(agents), n, lineup)
    start = time.perf_counter()
    outcome = play_tournament(core, agents, lineups, game_seeds(seed, n_games), batch_size=batch_size,
                              progress=progress,
                              make_view=lambda core, state, games, seats: SeatView(core, state, seats, games))
    seconds = time.perf_counter() - start
    standings = outcome["standing"]
    win_share = outcome["win_share"]
    agents_out = {}
    for a, name in enumerate(names):
        seats = lineups == a
        per_game_win = (win_share * seats).sum(1)[seats.any(1)] / seats.sum(1)[seats.any(1)]
        per_game_vp = (outcome["vp"] * seats).sum(1)[seats.any(1)] / seats.sum(1)[seats.any(1)]
        win = against_value(per_game_win, 1.0 / n)
        agents_out[name] = {
            "win_rate": win.to_dict(),
            "fair_share": 1.0 / n,
            "mean_vp": mean_ci(per_game_vp).to_dict(),
            "seats_played": int(seats.sum()),
            "games": int(seats.any(1).sum()),
        }
    score, count = head_to_head(lineups, standings, len(names))
    pairs = []
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i < j:
                est: Estimate = against_value(pair_results(lineups, standings, i, j), 0.5)
                pairs.append({"agent": a, "versus": b, "ahead_rate": est.to_dict()})
    for name, r in ratings(lineups, standings, names).items():
        agents_out[name]["rating"] = r
    landings = outcome["tokens"].sum(0)
    return {
        "game": "flight-tycoon", "rules": rules.to_dict(), "rules_label": rules.label(), "seed": seed,
        "games": n_games, "players": n, "lineup": None if lineup is None else [names[a] for a in lineup],
        "seconds": seconds, "games_per_second": n_games / seconds,
        "agents": agents_out, "head_to_head": {"agents": names, "ahead_rate": np.nan_to_num(score, nan=-1).tolist(),
                                                "seat_pairs": count.tolist()},
        "comparisons": pairs,
        # the schedule map in use (FT-3, FT-11) and how the games ended (FT-12), all seats together
        "landings_per_game": float(landings.sum() / n_games),
        "landing_share": {name: float(x) for name, x in zip(SQUARE_NAMES, landings / max(landings.sum(), 1))},
        "ended_by": {"empty_stock": float(np.mean(outcome["stock"] == 0)),
                     "empty_deck": float(np.mean(outcome["deck"] == 0))},
        "per_game": {"seed": game_seeds(seed, n_games).tolist(), "lineup": lineups.tolist(),
                     "vp": outcome["vp"].tolist(), "win_share": win_share.tolist()},
    }
