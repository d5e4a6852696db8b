"""``aerodeck run``: the main job on built-in defaults.

1. Plays games of the first solo game of the registry (Airport Scramble) with the random agent on the
   batched core and prints a score summary: mean with a 95% Student-t interval, the score
   distribution, games and decisions per second. ``--rule`` / ``--rules`` set its rule options.
2. The agent ladder on small budgets (``--no-ladder`` skips it): the benches each game's registry
   entry lists (``GameSpec.ladder``) — random, heuristic, the shipped ppo model and search on Airport
   Scramble (with the same rule options; ppo only where its layout fits them), heuristic vs three
   random players, ppo and search each vs three heuristic players in 4-player Flight Tycoon,
   seat-rotated. Tables on the terminal; JSON, CSV and plots under ``--out``
   (a folder replaced as a whole when the run ends, see ``aerodeck bench --help``). The README's
   results table comes from the same benches at full budgets.
3. One short designer's comparison (skipped with the ladder): the main game's rules in use against
   the variant its metric catalogue showcases (``Catalogue.showcase``: the variant ``aerodeck tune``
   found, ``docs/designers.md``), played by the catalogue's first agent on the same
   ``COMPARE_GAMES`` deals each — the verdict table on the terminal, the report (``aerodeck compare``'s)
   under ``--out``/compare-<game>/.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from aerodeck import envs
from aerodeck.agents.specs import parse_spec
from aerodeck.judge import compare
from aerodeck.judge import designer_report
from aerodeck.arena.backends import LocalBackend, catalogue
from aerodeck.arena.args import add_rules_arguments, games_arg, load_rules, seed_arg
from aerodeck.bench.bench import Plan, bench_solo, print_result
from aerodeck.arena.output import OutputFolder, check_file, write_file
from aerodeck.bench.report import json_text


#: Games per variant of the closing comparison (3).
COMPARE_GAMES = 300
#: The ladder's folder when ``--out`` is not given.
DEFAULT_OUT = Path("out/run")


def main_game():
    """The game ``aerodeck run`` plays: the first solo game of the registry."""
    return next(envs.spec(g) for g in envs.games() if envs.spec(g).solo)


def add_parser(subparsers) -> None:
    """Register ``aerodeck run``."""
    spec = main_game()
    parser = subparsers.add_parser(
        "run",
        help=f"the main job: random {spec.title} games summarised, then the agent ladder of every game",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"{spec.title} rule options:\n" + spec.rules_class().describe_options(),
    )
    parser.add_argument("--games", type=games_arg, default=20_000, help="games to play (default 20000)")
    parser.add_argument("--batch", type=int, default=4096, help="games played at once (default 4096)")
    parser.add_argument("--seed", type=seed_arg, default=0,
                        help="seed of the games and the agents, 0..2**64-1 (default 0)")
    add_rules_arguments(parser)
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the summary as JSON")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--no-ladder", action="store_true", help="only the random games, no agent ladder")
    parser.add_argument("--out", type=Path,
                        help=f"folder of the ladder's benches (default {DEFAULT_OUT}; the ladder only: with "
                             "--no-ladder use --json FILE)")
    parser.add_argument("--force", action="store_true",
                        help="replace --out even if it holds files that aerodeck did not write")
    parser.set_defaults(func=run)


def ladder_plans(spec, rules, seed: int) -> list[tuple[str, Plan]]:
    """The ladder benches of game ``spec`` (``GameSpec.ladder``) as (folder name, plan); ``rules``:
    the rules of a solo game's bench (default rules if ``None``)."""
    if not spec.ladder:
        return []
    if spec.solo:
        rules = rules if rules is not None else spec.make_rules()
        ladder = [(seats, games) for seats, games in spec.ladder if playable(spec, seats, rules)]
        agents = [seats[0] if i == 0 else f"{seats[0]}{',' if ':' in seats[0] else ':'}games={games}"
                  for i, (seats, games) in enumerate(ladder)]
        return [(spec.id, Plan.build(spec, rules, agents, ladder[0][1], seed))]
    plans = []
    for seats, games in spec.ladder:
        table_rules = spec.make_rules(**{spec.players_option: len(seats)})
        if not playable(spec, seats, table_rules):
            continue
        folder = f"{spec.id}-" + "-vs-".join(dict.fromkeys(seats))
        plans.append((folder, Plan.build(spec, table_rules, None, games, seed, lineup=list(seats))))
    return plans


def playable(spec, seats, rules) -> bool:
    """Whether the ladder's agents ``seats`` can play under ``rules``: the shipped ``ppo`` model (a
    ``ppo`` without ``path=``) needs the train extra and a model for these rules' layout. When it
    cannot play, says why on stderr and the ladder goes on without that rung."""
    if not any(kind == "ppo" and "path" not in knobs for kind, knobs in map(parse_spec, seats)):
        return True
    try:
        from aerodeck.agents.ppo import shipped_misfit
    except ImportError as err:
        reason = f"ppo needs the train extra: pip install -e '.[train]' ({err})"
    else:
        reason = shipped_misfit(rules)
    if reason is not None:
        print(f"aerodeck run: the {spec.title} ladder skips {' · '.join(seats)}: {reason}", file=sys.stderr)
    return reason is None


def run(args: argparse.Namespace) -> int:
    """Entry point of ``aerodeck run``."""
    spec = main_game()
    if args.batch < 1:
        raise ValueError(f"--batch must be at least 1, got {args.batch}")
    rules = load_rules(spec, args.rules, args.rule_items, args.table)
    json_path = check_file(args.json, "--json") if args.json is not None else None
    output, ladder, closing = None, [], None
    if args.no_ladder and (args.out is not None or args.force):
        raise ValueError(f"{'--out' if args.out is not None else '--force'} applies to the ladder's folder, and "
                         "--no-ladder plays no ladder: drop it (--json FILE keeps the summary)")
    args.out = DEFAULT_OUT if args.out is None else args.out
    if not args.no_ladder:
        output = OutputFolder(args.out, force=args.force, command="run")
        if json_path is not None and json_path.resolve().is_relative_to(args.out.resolve()):
            raise ValueError(f"--json {str(json_path)!r} lies inside --out {str(args.out)!r}, which is replaced as a whole")
        ladder = [entry for g in envs.games()
                  for entry in ladder_plans(envs.spec(g), rules if g == spec.id else None, args.seed)]
        closing = closing_question(spec, rules, args.seed)
    random = Plan.build(spec, rules, ["random"], args.games, args.seed)
    progress = not args.no_progress
    with output.writing() if output is not None else contextlib.nullcontext() as folder:
        result = bench_solo(spec, rules, random.names, random.agents, random.counts, args.seed,
                            batch_size=args.batch, progress=progress)
        summary = summarise(result)
        print_summary(summary)
        for name, plan in ladder:
            print_result(plan.run(folder / name, batch_size=args.batch, progress=progress))
        if closing is not None:
            where = folder / f"compare-{spec.id}"
            where.mkdir()
            designer_report.print_verdicts(compare.report_into(where, closing, LocalBackend(), progress=progress))
            print(f"the designer's report: {args.out / where.name / 'report.md'}")
    if json_path is not None:
        write_file(json_path, json_text(summary))
        print(f"wrote {json_path}")
    if output is not None:
        print(f"wrote {', '.join(output.files)} to {output.path}/")
    return 0


def closing_question(spec, rules, seed: int):
    """The closing comparison (3): ``rules`` against them with the catalogue's showcase options, the
    catalogue's first agent, ``COMPARE_GAMES`` games each; ``None`` when the game has no catalogue or
    showcase, or the rules already are the showcase."""
    if spec.metrics is None:
        return None
    cat = catalogue(spec.id)
    showcase = spec.rules_class().from_strings(rules.to_strings() + list(cat.showcase)) if cat.showcase else rules
    if showcase == rules:
        return None
    variants = compare.assemble_variants([(compare.BASE, rules), ("showcase", showcase)], spec.rules_class())
    return compare.Question(spec.id, variants, compare.make_tables(spec.id, list(cat.default_agents[:1])),
                            COMPARE_GAMES, seed, tuple(m.name for m in cat.headline()))


def median(distribution: dict[str, int]) -> float:
    """The median of scores given as ``{score: games}``."""
    pairs = sorted((float(v), c) for v, c in distribution.items())
    n = sum(c for _, c in pairs)

    def at(rank: int) -> float:  # the score of the rank-th lowest game (from 0)
        seen = 0
        for value, count in pairs:
            seen += count
            if rank < seen:
                return value
        raise AssertionError(rank)

    return (at((n - 1) // 2) + at(n // 2)) / 2


def summarise(result: dict) -> dict:
    """The random games' summary from a solo bench of the random agent."""
    a = result["agents"]["random"]
    return {
        "game": result["game"], "title": result["title"], "rules": result["rules"], "rules_label": result["rules_label"],
        "agent": "random", "seed": result["seed"], "games": a["games"], "mean_score": a["mean_score"],
        "median_score": median(a["score_distribution"]), "max_score": max(map(float, a["score_distribution"])),
        "score_distribution": a["score_distribution"], "mean_length": a["mean_length"], "seconds": a["seconds"],
        "games_per_second": a["games_per_second"], "decisions_per_second": a["decisions_per_second"],
    }


def print_summary(summary: dict) -> None:
    """The summary as tables on the terminal."""
    console = Console()
    m = summary["mean_score"]
    console.print(f"[bold]{summary['title']}[/bold] · rules: {summary['rules_label']} · agent: random")
    console.print(
        f"{summary['games']} games · mean score {m['value']:.3f} (95% CI {m['low']:.3f} – {m['high']:.3f}) · "
        f"median {summary['median_score']:g} · best {summary['max_score']:g} · "
        f"mean length {summary['mean_length']:.1f} decisions"
    )
    table = Table(title="score distribution")
    table.add_column("score", justify="right")
    table.add_column("games", justify="right")
    table.add_column("share", justify="right")
    table.add_column("")
    top = max(summary["score_distribution"].values())
    for score, count in summary["score_distribution"].items():
        share = count / summary["games"]
        table.add_row(score, str(count), f"{share:.1%}", "█" * max(1, round(30 * count / top)))
    console.print(table)
    console.print(
        f"{summary['games_per_second']:,.0f} games/s · {summary['decisions_per_second']:,.0f} decisions/s "
        f"({summary['seconds']:.2f} s)"
    )
