"""``aerodeck bench --task NAME --agent SPEC [--agent SPEC ...] [--games N]``: agents evaluated by the
benchmark's protocol on a task (``aerodeck.bench.tasks``).

Each agent plays the learner's seat on the task's rules against the task's opponents on its held-out
evaluation deals (the first ``--games``, default the task's ``eval_games``), greedily where its spec
allows, with masks — :meth:`Task.evaluate`. Every agent meets the same deals, the same seats and the
same opponents' play, so two agents are compared game by game (paired differences). The table and
``results.json`` give each agent's raw score (Airport Scramble: tickets; Flight Tycoon: win share) and
its normalized score (random = 0, heuristic = 1), each with its 95 % interval; ``games.csv`` each deal's
seed and every agent's raw score; ``normalized.png`` the normalized scores.
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

import numpy as np
from rich.console import Console, Group
from rich.table import Table

#: bench's options that a task fixes (flag -> the attribute argparse gives it and its unset value).
FIXED_BY_TASK = {"--rules": ("rules", None), "--table": ("table", None), "--rule": ("rule_items", []),
                 "--players": ("players", None), "--lineup": ("lineup", None), "--save-games": ("save_games", 0),
                 "--chunk": ("chunk", None), "--address": ("address", None)}


def check_args(args, task) -> None:
    """``ValueError`` for a bench option that contradicts ``--task``: another game, the options the task
    fixes (rules, players, lineup), or a backend other than local."""
    if getattr(args, "game", None) not in (None, task.game):
        raise ValueError(f"--task {task.name} is a task of {task.game}; the game argument says {args.game} "
                         f"(leave it out, or give {task.game})")
    for flag, (attr, unset) in FIXED_BY_TASK.items():
        if getattr(args, attr, unset) not in (unset, None):
            raise ValueError(f"{flag} cannot be combined with --task: the task fixes the rules, opponents and deals "
                             f"(see `aerodeck tasks`)")
    if getattr(args, "backend", "local") != "local":
        raise ValueError("--task plays here (--backend local): its evaluation is a few thousand games")


def run(task, agent_specs: list[str], games: int | None, seed: int, *, batch_size: int = 4096,
        progress: bool = True) -> tuple[dict, dict]:
    """Evaluate every spec on ``task``; the report dictionary and ``{spec: per-game raw scores}``
    (``float64 (G,)``; a rules-generalization task: the mean over its held-out variants per deal)."""
    from aerodeck.bench.evaluate import check_game_count
    from aerodeck.stats.estimates import against_value

    agent_specs = agent_specs or ["random"]
    if len(set(agent_specs)) != len(agent_specs):
        raise ValueError(f"each --agent may be given once, got {agent_specs}")
    games = task.eval_games if games is None else check_game_count(games)
    if not task.has_reference:
        raise ValueError(f"task {task.name} has no reference scores yet: run `aerodeck tasks --measure`")
    from aerodeck.bench.evaluate import learner_agent

    for spec in agent_specs:  # every spec checked before any game is played
        learner_agent(task, spec, task.test_variants[0] if task.general else task.rules, seed)
    agents, per_game = {}, {}
    for spec in agent_specs:
        began = time.perf_counter()
        ev = task.evaluate(spec, games=games, seed=seed, batch_size=batch_size, progress=spec if progress else False)
        seconds = time.perf_counter() - began
        per_game[spec] = ev.scores.mean(axis=0) if ev.scores.ndim == 2 else ev.scores
        agents[spec] = {"mean_score": ev.raw.to_dict(), "normalized": ev.normalized.to_dict(), "games": ev.games,
                        "seconds": seconds, "games_per_second": ev.scores.size / seconds}
        if ev.variants:
            agents[spec]["variants"] = [dict(v) for v in ev.variants]
    comparisons = []
    for i, a in enumerate(agent_specs):
        for b in agent_specs[i + 1:]:
            gap = against_value(per_game[b] - per_game[a], 0.0)
            comparisons.append({"agent": b, "versus": a, "mean_score_difference": gap.to_dict()})
    spec = task.spec
    result = {
        "task": task.to_dict(), "game": task.game, "title": spec.title, "players": task.players,
        "rules": task.rules.to_dict(), "rules_label": task.describe_rules(), "seed": seed, "games": games,
        "score": "tickets per game" if spec.solo else "the learner's win share per game (1/k for a k-way shared win)",
        "reference": {k: task.reference.get(k) for k in ("random", "heuristic", "search")},
        "agents": agents, "comparisons": comparisons,
    }
    return result, per_game


def table(result: dict) -> Group:
    """The rich tables of a task bench: one row per agent (raw and normalized scores), the paired differences."""
    task = result["task"]
    rows = Table(title=f"{task['name']} — {result['title']}, rules: {result['rules_label']}, opponents: "
                       f"{', '.join(task['opponents']) or 'none'}, {result['games']:,} held-out deals"
                       + (f" x {len(task['test_variants'])} variants" if task.get("test_variants") else "")
                       + f", agent seed {result['seed']}")
    for col in ("agent", "games", "raw score", "95% CI", "normalized", "95% CI", "games/s"):
        rows.add_column(col, justify="left" if col == "agent" else "right")
    for name, a in result["agents"].items():
        m, z = a["mean_score"], a["normalized"]
        rows.add_row(name, f"{a['games']:,}", f"{m['value']:.3f}", f"[{m['low']:.3f}, {m['high']:.3f}]",
                     f"{z['value']:.3f}", f"[{z['low']:.3f}, {z['high']:.3f}]", f"{a['games_per_second']:,.0f}")
    ref = result["reference"]
    variants = len(task.get("test_variants") or [])
    if variants:
        note = (f"raw score: {result['score']}, the mean over the {variants} held-out variants; normalized: each "
                f"variant's score by its own references (random = 0, heuristic = 1), then averaged")
    else:
        note = (f"raw score: {result['score']}; normalized: random = 0 ({ref['random']:.3f}), heuristic = 1 "
                f"({ref['heuristic']:.3f}) on this task's deals")
    pairs = Table(title="Paired differences of the raw score (same deals, seats and opponents)")
    for col in ("agent", "versus", "games", "difference", "95% CI", "p"):
        pairs.add_column(col, justify="left" if col in ("agent", "versus") else "right")
    from aerodeck.bench.report import p_text

    for c in result["comparisons"]:
        d = c["mean_score_difference"]
        pairs.add_row(c["agent"], c["versus"], str(d["n"]), f"{d['value']:+.3f}", f"[{d['low']:+.3f}, {d['high']:+.3f}]",
                      p_text(d.get("p_value"), d.get("note")))
    return Group(rows, note, *([pairs] if result["comparisons"] else []))


def write(folder: Path, result: dict, per_game: dict, seeds: np.ndarray) -> None:
    """``results.json``, ``games.csv`` and ``normalized.png`` into ``folder``."""
    from aerodeck.bench import report

    (folder / "results.json").write_text(report.json_text(result), encoding="utf-8")
    names = list(per_game)
    with open(folder / "games.csv", "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["seed", *names])
        out.writerows([s, *(f"{per_game[n][i]:g}" for n in names)] for i, s in enumerate(seeds.tolist()))
    import matplotlib.pyplot as plt

    est = [result["agents"][n]["normalized"] for n in names]
    fig, ax = plt.subplots(figsize=(4 + 1.2 * len(names), 4))
    ax.bar(names, [e["value"] for e in est], color="tab:blue", alpha=0.8, capsize=6,
           yerr=[[e["value"] - e["low"] for e in est], [e["high"] - e["value"] for e in est]])
    for level, label in ((0.0, "random"), (1.0, "heuristic")):
        ax.axhline(level, color="grey", linestyle="--", linewidth=1)
        ax.text(len(names) - 0.5, level, label, va="bottom", ha="right", color="grey")
    ax.set_ylabel("normalized score (95% CI)")
    ax.set_title(f"{result['task']['name']}, {result['games']:,} held-out deals")
    try:
        fig.savefig(folder / "normalized.png", format="png", dpi=110, bbox_inches="tight")
    finally:
        plt.close(fig)


def main(args) -> int:
    """``aerodeck bench --task``: the parsed command line of ``aerodeck bench`` with ``--task`` set."""
    from aerodeck.arena.output import OutputFolder, naming
    from aerodeck.bench.tasks import task as get_task

    task = get_task(args.task)
    check_args(args, task)
    if args.batch_size < 1:
        raise ValueError(f"--batch-size must be at least 1, got {args.batch_size}")
    output = OutputFolder(args.out or Path("out") / f"bench-{task.name}", force=args.force, command="bench")
    result, per_game = run(task, args.agents, args.games, args.seed, batch_size=args.batch_size,
                           progress=not args.no_progress)
    with output.writing() as folder:
        with naming(f"write results.json, games.csv and normalized.png to {output.path}"):
            write(folder, result, per_game, task.eval_seeds(result["games"]))
    Console(width=None if sys.stdout.isatty() else 140).print(table(result))
    print(f"wrote {', '.join(output.files)} to {output.path}/")
    return 0
