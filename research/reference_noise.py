"""How far does an agent's benchmark score move with the agent's own seed, on a task's fixed deals?

The benchmark's references (``aerodeck tasks --measure``) are the mean scores of random and the heuristic
on a task's held-out deals. Those deals are fixed; what is left to chance is the agent's own play (its
random choices, keyed by its seed). This probe evaluates an agent by the protocol (``Task.evaluate``)
under ``--seeds`` seeds that the references did not use (100, 101, …) and prints, per task: the
seed-to-seed standard deviation of the raw mean, the standard error that one evaluation's Student-t
interval implies (its half-width / 1.96; it counts the deals' spread too), their ratio, and how many of
the seeds' normalized intervals hold the agent's reference point (0 for random, 1 for the heuristic).

Writes ``reference_noise.json`` under ``--out`` (default ``out/research/``).

    .venv/bin/python research/reference_noise.py --seeds 20
    .venv/bin/python research/reference_noise.py --seeds 20 --agent heuristic --tasks ft4-heuristic-v0
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from aerodeck.bench import tasks as T  # noqa: E402

#: The first seed tried: far from the references' seeds (0 … 4).
FIRST_SEED = 100


def probe(name: str, agent: str, seeds: int) -> dict:
    """The figures of ``agent`` on task ``name`` under ``seeds`` seeds (see the module docstring)."""
    task = T.task(name)
    target = {"random": 0.0, "heuristic": 1.0}.get(agent)
    means, halves, held = [], [], 0
    for seed in range(FIRST_SEED, FIRST_SEED + seeds):
        ev = task.evaluate(agent, seed=seed)
        means.append(ev.raw.value)
        halves.append((ev.raw.high - ev.raw.low) / 2)
        held += target is not None and ev.normalized.holds(target)
    means = np.asarray(means)
    spread = float(means.std(ddof=1)) if seeds > 1 else float("nan")
    implied = float(np.mean(halves) / 1.959963984540054)
    return {"task": name, "agent": agent, "seeds": seeds, "games": task.eval_games, "mean": float(means.mean()),
            "seed_sd": spread, "interval_se": implied, "ratio": spread / implied if implied > 0 else float("nan"),
            "held": int(held) if target is not None else None, "means": means.tolist()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=20, help="agent seeds per task (default 20)")
    p.add_argument("--agent", default="random", help="the agent spec (default random)")
    p.add_argument("--tasks", nargs="+", default=[n for n in T.names() if n not in T.GENERAL],
                   help="task names (default: every single-rules task)")
    p.add_argument("--out", type=Path, default=Path("out/research"))
    args = p.parse_args(argv)
    if args.seeds < 2:
        p.error("--seeds must be at least 2 (a spread needs two)")
    rows = [probe(name, args.agent, args.seeds) for name in args.tasks]
    print(f"{args.agent}: seeds {FIRST_SEED}..{FIRST_SEED + args.seeds - 1}, each the task's whole evaluation")
    print(f"{'task':<20}{'mean':>9}{'seed sd':>10}{'interval se':>13}{'ratio':>7}{'held':>8}")
    for r in rows:
        held = "–" if r["held"] is None else f"{r['held']}/{r['seeds']}"
        print(f"{r['task']:<20}{r['mean']:>9.4f}{r['seed_sd']:>10.4f}{r['interval_se']:>13.4f}{r['ratio']:>7.2f}{held:>8}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "reference_noise.json").write_text(json.dumps(rows, indent=1) + "\n")
    print(f"wrote {args.out / 'reference_noise.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
