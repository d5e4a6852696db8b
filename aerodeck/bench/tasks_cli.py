"""``aerodeck tasks``: the benchmark's named tasks (``aerodeck.bench.tasks``) as a table, or as JSON.

Each task fixes a game's rules, the opponents, the learner's reward and observation, the env-step budget
results are reported at and its held-out evaluation deals; the reference scores are the raw scores of
random, the heuristic and (on the first deals, where affordable) the search on those deals. Evaluate an
agent on a task with ``aerodeck bench --task NAME --agent SPEC``.

``--measure`` plays the references again and rewrites the shipped reference file; ``--split`` draws the
rules-generalization split again and rewrites the shipped variants file (the same draw gives the same file).
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table


def add_parser(sub) -> None:
    """Register ``aerodeck tasks``."""
    p = sub.add_parser("tasks", help="the benchmark's named tasks: rules, opponents, budget, reference scores",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="store_true", help="print the tasks as JSON (what the table shows, and more)")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown (as docs/benchmark.md shows it)")
    p.add_argument("--measure", action="store_true",
                   help="play the reference scores again (random, heuristic, search) and rewrite the shipped "
                        "reference file aerodeck/bench/data/reference.json")
    p.add_argument("--task", dest="names", action="append", metavar="NAME",
                   help="with --measure: only this task (repeatable; default every task)")
    p.add_argument("--no-search", action="store_true", help="with --measure: leave the search out (minutes per task); its figures already in the file stay")
    p.add_argument("--split", action="store_true",
                   help="draw the rules-generalization split again and rewrite aerodeck/bench/data/variants.json")
    p.set_defaults(func=main)


def _number(x) -> str:
    return "–" if x is None else f"{x:.3f}"


def _search_normalized(task) -> str:
    z = task.search_normalized()
    return "–" if z is None else f"{z['value']:.2f} [{z['low']:.2f}, {z['high']:.2f}]"


def table(tasks) -> Table:
    """The rich table of ``tasks``."""
    t = Table(title="aerodeck benchmark tasks (raw scores on each task's held-out deals; "
                    "normalized: random = 0, heuristic = 1)")
    for col in ("task", "game", "rules", "opponents", "reward", "obs", "budget", "eval games", "random",
                "heuristic", "search", "search norm."):
        t.add_column(col, justify="right" if col in ("budget", "eval games", "random", "heuristic", "search",
                                                      "search norm.") else "left", overflow="fold")
    for task in tasks:
        ref = task.reference
        search = ref.get("search")
        games = task.eval_games if not task.general else f"{task.eval_games} x {len(task.test_variants)}"
        t.add_row(task.name, task.game, task.describe_rules(), task.describe_opponents(), task.reward, task.observation,
                  f"{task.budget_steps:,}", str(games), _number(ref.get("random")), _number(ref.get("heuristic")),
                  _number(search) + (f" ({ref['search_games']})" if search is not None and ref.get("search_games") else ""),
                  _search_normalized(task))
    return t


def _cell(x: str) -> str:
    return x.replace("|", "\\|")


def markdown(tasks) -> str:
    """The table of ``tasks`` in Markdown (one line per task)."""
    head = ["task", "game", "rules", "opponents", "reward", "budget (steps)", "eval deals", "random", "heuristic",
            "search", "search normalized"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for task in tasks:
        ref = task.reference
        search = ref.get("search")
        games = f"{task.eval_games:,}" if not task.general else f"{task.eval_games:,} × {len(task.test_variants)} variants"
        row = [f"`{task.name}`", task.game, task.describe_rules(), task.describe_opponents(), task.reward,
               f"{task.budget_steps:,}", games, _number(ref.get("random")), _number(ref.get("heuristic")),
               _number(search) + (f" ({ref['search_games']} deals)" if search is not None and ref.get("search_games") else ""),
               _search_normalized(task)]
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


def main(args: argparse.Namespace) -> int:
    """List (or measure, or split) the tasks; returns the exit status."""
    from aerodeck.bench import tasks as T

    if args.names and not args.measure:
        raise ValueError("--task selects the tasks --measure plays; give --measure too")
    for name in args.names or []:
        T.task(name)  # an unknown name: the list of tasks
    if args.split:
        from aerodeck.bench.measure import write_splits

        write_splits()
        print(f"wrote {T.VARIANTS_FILE}")
    if args.measure:
        from aerodeck.bench.measure import write_references

        write_references(args.names, search=not args.no_search)
        print(f"wrote {T.REFERENCE_FILE}")
    tasks = T.tasks()
    if args.json:
        print(json.dumps([t.to_dict() for t in tasks], indent=2, default=list))
    elif args.markdown:
        print(markdown(tasks), end="")
    else:
        Console(width=None if sys.stdout.isatty() else 200).print(table(tasks))
    return 0
