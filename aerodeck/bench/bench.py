"""``aerodeck bench``: policies over many games on the batched core, with intervals, tables and plots.

A solo game: every agent plays the same deals (game i has the same seed for every agent), so agents
are compared game by game (paired differences). A multi-player game: seat-rotated tournaments (every
agent plays every seat equally often), win rates, mean scores, a head-to-head matrix and OpenSkill
ratings. The same ``--seed`` reproduces the same numbers exactly. Games are played in chunks and
their figures accumulated chunk by chunk, so any number of games runs in constant memory;
``games.csv`` lists the first 1,000,000 games. ``--backend ray`` plays the games as Ray tasks split by
game index (``aerodeck.bench.chunks``) and writes the same files, timings aside.

The output folder (``--out``) is written as a whole at the end (see ``aerodeck/arena/output.py``): a folder
holding an earlier aerodeck output is replaced, any other non-empty folder refused without ``--force``.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import sys
from pathlib import Path

import numpy as np
from rich.console import Console
from tqdm.auto import tqdm

from aerodeck import envs
from aerodeck.agents.registry import describe_kinds, make_agent
from aerodeck.agents.specs import format_spec, kind_of, parse_spec, split_specs
from aerodeck.agents.self_check import describe
from aerodeck.envs.common.checks import check_seed
from aerodeck.arena.args import MAX_GAMES, add_rules_arguments, check_games, games_arg, load_rules, seed_arg
from aerodeck.bench import report
from aerodeck.arena import replays as replay
from aerodeck.arena.output import OutputFolder, naming, output_error
from aerodeck.arena.loop import agent_seed, game_seeds
from aerodeck.stats.estimates import Moments, against_value, mean_ci
from aerodeck.bench.chunks import BenchTask, add_counts, play_all, task_starts, windows
from aerodeck.arena.backends import BACKENDS, make_backend
from aerodeck.arena.tournament import Ratings, balanced_games, head_to_head, pair_results, schedule

#: Games played (and accumulated) at once, at most; a multiple of the batch size is used.
CHUNK = 1 << 16
#: The replay file of ``--save-games`` in the output folder.
REPLAYS = "games.jsonl"


def add_parser(sub) -> None:
    """Register ``aerodeck bench``."""
    p = sub.add_parser(
        "bench",
        help="benchmark agents over many games (mean score / win rate with 95%% CIs, plots)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", nargs="?", choices=envs.games(), help="the game (with --task: optional, the task's game)")
    p.add_argument("--task", metavar="NAME",
                   help="evaluate each --agent by the benchmark's protocol on task NAME (its rules, opponents and "
                        "held-out deals; see `aerodeck tasks`): raw and normalized scores (random = 0, heuristic = 1)")
    p.add_argument("--agent", dest="agents", action="append", metavar="SPEC",
                   help="agent NAME or NAME:key=value,... (repeat for several; default: random). Agents: "
                        + "; ".join(f"{g}: {describe_kinds(g)}" for g in envs.games()))
    p.add_argument("--games", type=games_arg,
                   help="games per agent (solo game) or in the tournament (multi-player game, rounded up to "
                        "balance the seats); default per game: "
                        + ", ".join(f"{g} {envs.spec(g).bench_games}" for g in envs.games()))
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the deals and the agents, 0..2**64-1 (default 0)")
    p.add_argument("--players", type=int, help="multi-player games: number of players (sets the game's player-count option)")
    p.add_argument("--lineup", metavar="SPEC,SPEC,...",
                   help="multi-player games: the agent of each seat, e.g. heuristic,random,random,random — rotated "
                        "over the seats (default: the --agent list cycled over the seats and rotated); a spec's "
                        "further knobs follow it: ppo:path=m.zip,caution=2,heuristic,...")
    add_rules_arguments(p)
    p.add_argument("--out", type=Path, help="output folder (default out/bench-<game>)")
    p.add_argument("--force", action="store_true",
                   help="replace --out even if it holds files that aerodeck did not write")
    p.add_argument("--batch-size", type=int, default=4096, help="games stepped at once (default 4096)")
    p.add_argument("--save-games", type=int, default=0, metavar="K",
                   help=f"write the first K games (of each agent, for a solo game) to {REPLAYS} in --out, "
                        "for aerodeck replay")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument("--backend", choices=BACKENDS, default="local",
                   help="where the games are played: here, or as tasks on a Ray cluster (default local); the "
                        "files are the same, timings aside")
    p.add_argument("--address", metavar="ADDR", help="--backend ray: the cluster's address (default: a local Ray)")
    p.add_argument("--chunk", type=int, metavar="N",
                   help="games per task (default: here, all of a window; on Ray, about four tasks per CPU)")
    p.set_defaults(func=main, bench_parser=p)


def lineup_seats(text: str) -> list[str]:
    """The seats of a --lineup: its comma-separated specs, where a piece that is a knob (``key=value``, no
    agent name before it) continues the spec before it, so ``ppo:path=m.zip,caution=2,heuristic`` is two
    seats (:func:`aerodeck.agents.specs.split_specs`)."""
    return split_specs(text)


def lineup_index(seat: str, specs: list[str]) -> int:
    """The --agent spec a --lineup seat names: the spec itself, or its agent name if only one spec has it."""
    if seat in specs:
        return specs.index(seat)
    named = [i for i, spec in enumerate(specs) if kind_of(split_games(spec)[0]) == seat]
    if len(named) != 1:
        raise ValueError(f"--lineup seat {seat!r} is not one of the --agent specs {specs}"
                         + (" (several have that name: give the whole spec)" if named else ""))
    return named[0]


def split_games(spec: str) -> tuple[str, int | None]:
    """Take a bench-level ``games=N`` parameter out of an agent spec: ``("search:rollouts=8", 1000)``."""
    name, params = parse_spec(spec)
    if "games" not in params:
        return spec, None
    value = params.pop("games")
    try:
        count = check_games(int(value), f"agent spec {spec!r}: games")
    except ValueError as err:
        raise ValueError(str(err) if value.isdigit() else
                         f"agent spec {spec!r}: games must be an integer in 1..{MAX_GAMES:,}, got {value!r}") from None
    return format_spec(name, params), count


def main(args: argparse.Namespace) -> int:
    """Run the benchmark described by the parsed command line; returns the exit status."""
    if getattr(args, "task", None):  # the benchmark's protocol on a named task (aerodeck.bench.task_bench)
        from aerodeck.bench import task_bench

        return task_bench.main(args)
    if args.game is None:  # as argparse says a missing argument: the usage, then the error
        parser = args.bench_parser
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: the following arguments are required: game (or --task NAME, see "
              f"`aerodeck tasks`)", file=sys.stderr)
        return 2
    spec = envs.spec(args.game)
    if args.batch_size < 1:
        raise ValueError(f"--batch-size must be at least 1, got {args.batch_size}")
    if args.save_games < 0:
        raise ValueError(f"--save-games must be 0 or more, got {args.save_games}")
    if args.lineup is not None and spec.solo:
        raise ValueError(f"--lineup applies to multi-player games; {spec.id} is played solo")
    rules = load_rules(spec, args.rules, args.rule_items, args.table, players=args.players)
    output = OutputFolder(args.out or Path("out") / f"bench-{spec.id}", force=args.force, command="bench")
    lineup = None if args.lineup is None else lineup_seats(args.lineup)
    if args.chunk is not None and args.chunk < 1:
        raise ValueError(f"--chunk must be at least 1, got {args.chunk}")
    plan = Plan.build(spec, rules, args.agents, args.games, args.seed, lineup)
    backend = make_backend(args.backend, args.address) if args.backend != "local" or args.address else None
    try:
        with output.writing() as folder:
            result = plan.run(folder, batch_size=args.batch_size, progress=not args.no_progress,
                              save_games=args.save_games, backend=backend, chunk=args.chunk, shown=output.path)
    except OSError as err:  # a file could not be written: the games played still show their tables
        if plan.result is None:
            raise
        print_result(plan.result)
        kept = "kept in" in str(err)
        raise type(err)(err.errno, f"{err}" + ("" if kept else f"; nothing was saved to {output.path} "
                                                "(the tables above are this run's results)")) from err
    print_result(result)
    print(f"wrote {', '.join(output.files)} to {output.path}/")
    return 0


def print_result(result: dict) -> None:
    """The bench's tables on the terminal."""
    Console(width=None if sys.stdout.isatty() else 120).print(report.bench_table(result))
    for name, check in result.get("self_checks", {}).items():
        print(f"{name}: its self-check under these rules ({check['deals']:,} deals): it plays {describe(check)}")


class Plan:
    """One bench, checked before any game is played: the game, rules, agents and game counts."""

    def __init__(self, spec, rules, names, agents, counts, seed, lineup) -> None:
        self.spec, self.rules, self.names, self.agents = spec, rules, names, agents
        self.counts, self.seed, self.lineup = counts, seed, lineup
        #: The report dictionary once the games are played (kept although writing a file fails).
        self.result: dict | None = None

    @classmethod
    def build(cls, spec, rules, agent_specs: list[str] | None, games: int | None, seed: int,
              lineup: list[str] | None = None) -> Plan:
        """Parse the agent specs (``NAME:key=value,...``, for a solo game also ``games=N``) and the
        ``lineup`` (agent spec or name per seat) into a plan; ``ValueError`` if bad."""
        seed = check_seed(seed, "--seed")
        games = check_games(games, "--games") if games is not None else spec.bench_games
        seats = None
        if lineup is not None:
            names = list(lineup)
            players = spec.players(rules)
            if len(names) != players:
                raise ValueError(f"--lineup names {len(names)} seats, the game has {players} players")
            agent_specs = agent_specs or list(dict.fromkeys(names))
            seats = [lineup_index(x, agent_specs) for x in names]
            idle = [s for i, s in enumerate(agent_specs) if i not in seats]
            if idle:
                raise ValueError(f"--agent {idle[0]} has no seat in --lineup {','.join(names)}")
        agent_specs = agent_specs or ["random"]
        if len(set(agent_specs)) != len(agent_specs):
            raise ValueError(f"each --agent may be given once, got {agent_specs}")
        counts = []
        for agent_spec in agent_specs:
            own = split_games(agent_spec)[1]
            if own is not None and not spec.solo:
                raise ValueError("games=N per agent applies to solo games; a tournament plays --games games")
            counts.append(own or games)
        agents = [make_agent(spec.id, split_games(s)[0], rules, seed=agent_seed(seed, i))
                  for i, s in enumerate(agent_specs)]
        return cls(spec, rules, agent_specs, agents, counts, seed, seats)

    def run(self, folder: Path, batch_size: int = 4096, progress: bool = True, save_games: int = 0,
            backend=None, chunk: int | None = None, shown: Path | None = None) -> dict:
        """Play the bench, writing ``games.csv``, ``results.json`` and the plots into ``folder`` (made
        if missing), and with ``save_games`` K the first K games of each agent to ``REPLAYS``; the
        report dictionary. ``backend`` (``aerodeck.arena.backends``; default: this process) and
        ``chunk`` (games per task): where the games are played; the files are the same for any. An OS
        error writing a file (an :class:`~aerodeck.arena.output.OutputError` naming it as in ``shown``, the
        folder the files end up in; default ``folder``) is raised once every game is played, the report
        dictionary then in :attr:`result`."""
        shown = Path(shown or folder)
        with naming(f"make the folder {folder}"):
            folder.mkdir(parents=True, exist_ok=True)
        recorded = self.names if self.spec.solo else self.names[:1]  # a tournament: one recorder for all seats
        recorders: dict[str, list] = {name: [] for name in recorded} if save_games else {}
        where = {"save": save_games, "backend": backend, "chunk": chunk}
        with Rows(folder / "games.csv", shown / "games.csv") as table:
            if self.spec.solo:
                result = bench_solo(self.spec, self.rules, self.names, self.agents, self.counts, self.seed,
                                    batch_size=batch_size, progress=progress, table=table, recorders=recorders,
                                    **where)
            else:
                result = bench_tournament(self.spec, self.rules, self.names, self.agents, self.counts[0], self.seed,
                                          batch_size=batch_size, progress=progress, lineup=self.lineup, table=table,
                                          recorder=recorders.get(self.names[0]), **where)
        checks = {n: a.check_result for n, a in zip(self.names, self.agents) if getattr(a, "check_result", None)}
        if checks:  # what a model's self-check under these rules chose (agents.self_check)
            result["self_checks"] = checks
        self.result = result
        if table.error is not None:
            raise table.error
        with naming(f"write results.json and the plots to {shown}"):
            report.write_bench(folder, result)
        if recorders:
            records = [r for kept in recorders.values() for r in kept]
            with naming(f"write {shown / REPLAYS}"):
                replay.write(folder / REPLAYS, self.spec.id, self.rules, records,
                             source=f"aerodeck bench --seed {self.seed}")
        return result


class Rows:
    """``games.csv`` written as the games are played: a ``csv.writer`` (``writerow``, ``writerows``) on
    ``path`` that keeps the first OS error (a full disk, a file-size limit) in ``error`` — an
    ``OutputError`` naming ``shown`` — instead of stopping the games; the rows after it are dropped."""

    def __init__(self, path: Path, shown: Path) -> None:
        self.path, self.shown, self.error, self.file = path, shown, None, None

    def __enter__(self) -> Rows:
        with naming(f"write {self.shown}"):
            self.file = open(self.path, "w", newline="", encoding="utf-8")
        self.writer = csv.writer(self.file)
        return self

    def _kept(self, err: OSError) -> None:
        if self.error is None:
            self.error = output_error(err, f"write {self.shown}")

    def writerow(self, row) -> None:
        if self.error is None:
            try:
                self.writer.writerow(row)
            except OSError as err:
                self._kept(err)

    def writerows(self, rows) -> None:
        if self.error is None:
            try:
                self.writer.writerows(rows)
            except OSError as err:
                self._kept(err)

    def __exit__(self, *exc) -> None:
        try:
            self.file.close()
        except OSError as err:
            self._kept(err)


def _chunk(batch_size: int) -> int:
    return max(1, CHUNK // batch_size) * batch_size


def _number(x: float) -> str:
    return f"{x:g}"


def _task_size(backend, chunk: int | None, window: int, total: int) -> int:
    """Games per task: ``chunk``, else here a whole accumulation window, on Ray enough tasks for about
    four per CPU of the cluster (at most ``window``)."""
    if chunk is not None:
        if chunk < 1:
            raise ValueError(f"--chunk must be at least 1, got {chunk}")
        return chunk
    if backend is None or backend.name != "ray":
        return window
    return max(1, min(window, -(-total // (4 * backend.cpus()))))


def _in_flight(backend) -> int | None:
    """Tasks running at once on Ray: twice the cluster's CPUs (the results wait in order, so fewer in flight
    bound what waits)."""
    return None if backend is None or backend.name != "ray" else 2 * backend.cpus()


def bench_solo(spec, rules, names, agents, counts, seed, *, batch_size=4096, progress=True, table=None,
               recorders=None, save=0, backend=None, chunk=None) -> dict:
    """Every agent plays the same deals (``counts``: games per agent); the report dictionary.

    Game i has the same seed for every agent, so two agents are compared on the games both played
    (paired differences). ``table``: a ``csv.writer`` for one row per game (the first
    ``report.CSV_GAMES``): its seed and each agent's score. ``recorders``: agent name -> a list that
    gets the replay records (``aerodeck.arena.replays.GameRecord``) of its first ``save`` games.
    ``backend`` (``aerodeck.arena.backends``; default: here, in this process): where the games are
    played, in tasks of ``chunk`` games (:mod:`aerodeck.bench.chunks`); every figure but
    the timings is the same for any backend and chunk.
    """
    total = max(counts)
    scores = {n: Moments() for n in names}
    distribution: dict[str, dict[float, int]] = {n: {} for n in names}
    seconds = dict.fromkeys(names, 0.0)
    decisions = dict.fromkeys(names, 0)
    gaps = {(a, b): Moments() for i, a in enumerate(names) for b in names[i + 1:]}
    if table is not None:
        table.writerow(["seed", *names])
    window = _chunk(batch_size)
    size = _task_size(backend, chunk, window, total)
    tasks = (BenchTask(spec.id, rules, agents, tuple(names), tuple(counts), seed, start, min(size, total - start),
                       batch_size, save if recorders else 0) for start in task_starts(total, size))

    def noted(results):  # the timings and replays of each task's result, as it comes
        for result in results:
            for name, figures in result["agents"].items():
                seconds[name] += figures["seconds"]
            for name, records in result["records"].items():
                recorders[name].extend(records)
            add_counts(agents, result)
            yield result

    with contextlib.ExitStack() as bars:  # a bar per agent, named after it
        bar = {name: bars.enter_context(tqdm(total=count, unit="game", desc=name, disable=not progress, leave=False))
               for name, count in zip(names, counts)}
        results = play_all(tasks, backend, bar, in_flight=_in_flight(backend))
        for start, got in windows(noted(results), window, total, dict(zip(names, counts))):
            stop = min(start + window, total)
            seeds = game_seeds(seed, stop - start, start)
            played = {}
            for name, count in zip(names, counts):
                if count <= start:
                    continue
                played[name] = got[("agents", name, "score")]
                scores[name].add(played[name])
                decisions[name] += int(got[("agents", name, "length")].sum())
                values, freq = np.unique(played[name], return_counts=True)
                for v, c in zip(values.tolist(), freq.tolist()):
                    distribution[name][v] = distribution[name].get(v, 0) + c
            for (a, b), gap in gaps.items():
                both = min(len(played.get(a, ())), len(played.get(b, ())))
                gap.add(played[b][:both] - played[a][:both] if both else ())  # paired: the same deals
            if table is not None and start < report.CSV_GAMES:
                rows = min(stop, report.CSV_GAMES) - start
                columns = [seeds[:rows].tolist()] + [[_number(x) for x in played[n][:rows]] if n in played else []
                                                     for n in names]
                table.writerows([[c[j] if j < len(c) else "" for c in columns] for j in range(rows)])
    agents_out = {}
    for name, count in zip(names, counts):
        agents_out[name] = {
            "mean_score": mean_ci(scores[name]).to_dict(),
            "score_distribution": {_number(v): c for v, c in sorted(distribution[name].items())},
            "games": count,
            "mean_length": decisions[name] / count,
            "seconds": seconds[name],
            "games_per_second": count / seconds[name],
            "decisions_per_second": decisions[name] / seconds[name],
        }
    comparisons = [{"agent": b, "versus": a, "mean_score_difference": against_value(gap, 0.0).to_dict()}
                   for (a, b), gap in gaps.items()]
    return {
        "game": spec.id, "title": spec.title, "players": 1, "rules": rules.to_dict(), "rules_label": rules.label(),
        "seed": seed, "games": total, "games_csv_rows": min(total, report.CSV_GAMES), "agents": agents_out,
        "comparisons": comparisons,
    }


def bench_tournament(spec, rules, names, agents, n_games, seed, *, batch_size=4096, progress=True, lineup=None,
                     table=None, recorder=None, save=0, backend=None, chunk=None) -> dict:
    """A seat-rotated tournament of ``n_games`` games (rounded up to balance seats); the report dictionary.

    ``lineup`` (agent index per seat, optional) fixes the table, rotated over the seats; by default
    the agents are cycled over the seats and rotated (:func:`aerodeck.arena.tournament.seat_rotation`).
    ``table``: a ``csv.writer`` for one row per game (the first ``report.CSV_GAMES``): its seed and
    each seat's agent, score and win share. ``recorder``: a list that gets the replay records
    (``aerodeck.arena.replays.GameRecord``) of the first ``save`` games. ``backend`` and ``chunk``: where
    and in tasks of how many games the games are played, as for :func:`bench_solo`.
    """
    n, A = spec.players(rules), len(agents)
    n_games = balanced_games(n_games, A, n, lineup)
    win = [Moments() for _ in names]
    score = [Moments() for _ in names]
    seats_played, games_played = np.zeros(A, np.int64), np.zeros(A, np.int64)
    ahead, pairs = np.zeros((A, A)), np.zeros((A, A))
    versus = {(i, j): Moments() for i in range(A) for j in range(i + 1, A)}
    ratings = Ratings(names)
    tallies: dict[str, dict[str, float]] = {}
    if table is not None:
        table.writerow(["seed", *[f"seat{s}_{c}" for c in ("agent", "score", "win_share") for s in range(n)]])
    seconds = 0.0  # of play only, as for a solo game
    window = _chunk(batch_size)
    size = _task_size(backend, chunk, window, n_games)
    tasks = (BenchTask(spec.id, rules, agents, tuple(names), (n_games,), seed, start, min(size, n_games - start),
                       batch_size, save if recorder is not None else 0,
                       schedule(n_games, A, n, lineup, start, min(start + size, n_games)))
             for start in task_starts(n_games, size))

    def noted(results):  # the timings and replays of each task's result, as it comes
        nonlocal seconds
        for result in results:
            seconds += result["seconds"]
            if recorder is not None:
                recorder.extend(result["records"])
            add_counts(agents, result)
            yield result

    with tqdm(total=n_games, unit="game", desc=" vs ".join(names), disable=not progress, leave=False) as bar:
        for start, got in windows(noted(play_all(tasks, backend, bar, in_flight=_in_flight(backend))), window, n_games):
            stop = min(start + window, n_games)
            lineups = schedule(n_games, A, n, lineup, start, stop)
            seeds = game_seeds(seed, stop - start, start)
            out = {key: got[(key,)] for key in ("score", "standing", "win_share")}
            out["tallies"] = {}
            for path, values in got.items():
                if path[0] == "tallies":
                    out["tallies"].setdefault(path[1], {})[path[2]] = float(np.sum(values))
            for a in range(A):
                seats = lineups == a
                has = seats.any(1)
                per_seat = seats.sum(1)[has]
                win[a].add((out["win_share"] * seats).sum(1)[has] / per_seat)
                score[a].add((out["score"] * seats).sum(1)[has] / per_seat)
                seats_played[a] += seats.sum()
                games_played[a] += has.sum()
            got_ahead, count = head_to_head(lineups, out["standing"], A)
            ahead += got_ahead
            pairs += count
            for (i, j), m in versus.items():
                m.add(pair_results(lineups, out["standing"], i, j))
            ratings.update(lineups, out["standing"])
            for group, items in out["tallies"].items():
                sums = tallies.setdefault(group, {})
                for item, v in items.items():
                    sums[item] = sums.get(item, 0.0) + v
            if table is not None and start < report.CSV_GAMES:
                rows = min(stop, report.CSV_GAMES) - start
                table.writerows([seed_, *[names[a] for a in lu], *map(_number, sc), *map(_number, ws)]
                                for seed_, lu, sc, ws in zip(seeds[:rows].tolist(), lineups[:rows],
                                                             out["score"][:rows], out["win_share"][:rows]))
    rated = ratings.result()
    agents_out = {
        name: {"win_rate": against_value(win[a], 1.0 / n, share=True).to_dict(), "fair_share": 1.0 / n,
               "mean_score": mean_ci(score[a]).to_dict(), "seats_played": int(seats_played[a]),
               "games": int(games_played[a]), "rating": rated[name]}
        for a, name in enumerate(names)
    }
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(pairs > 0, ahead / pairs, -1.0)
    return {
        "game": spec.id, "title": spec.title, "players": n, "rules": rules.to_dict(), "rules_label": rules.label(),
        "seed": seed, "games": n_games, "games_csv_rows": min(n_games, report.CSV_GAMES),
        "lineup": None if lineup is None else [names[a] for a in lineup],
        "seconds": seconds, "games_per_second": n_games / seconds, "agents": agents_out,
        "head_to_head": {"agents": names, "ahead_rate": rate.tolist(), "seat_pairs": pairs.tolist()},
        "comparisons": [{"agent": names[i], "versus": names[j], "ahead_rate": against_value(m, 0.5, share=True).to_dict()}
                        for (i, j), m in versus.items() if m.n],  # pairs that never met are left out
        # the game's own tallies (e.g. where the planes landed, how the games ended), mean per game
        "tallies": {g: {k: v / n_games for k, v in items.items()} for g, items in tallies.items()},
    }
