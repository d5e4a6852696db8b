"""Baselines from scratch on the benchmark's tasks: every task x algorithm x seed trained to the budget,
evaluated by the task's protocol at fixed step intervals; then a results table and learning curves.

    python benchmarks/baselines.py run --tasks as-standard-v0,ft4-heuristic-v0 --seeds 5 --jobs 2
    python benchmarks/baselines.py run --budget-scale 0.25 ...        # a quarter of each task's budget
    python benchmarks/baselines.py report                              # table + docs/images/baselines-*.png

Algorithms: ``ppo-lite`` (the one-file masked PPO, ``train/ppo_lite.py``), ``sb3`` (sb3-contrib's
MaskablePPO with ``MlpPolicy``: the same 2 x 256 tanh networks, 256 games x 32 steps per rollout,
minibatches of 2,048, 2 epochs, lr 3e-4, gamma 0.99, entropy 0.01; no prior, no warm start) and ``rllib``
(RLlib's PPO through ``python -m aerodeck.train.rllib GAME --task ...``, its own default settings and
masked module, a local Ray of one CPU; the task's own rules and opponents, no recipe). Flight Tycoon
runs of ``ppo-lite`` and ``sb3`` take the task's documented recipe (:data:`RECIPES`).

Each run writes ``RESULTS/<steps>/<task>/<algo>/seed<k>.csv`` (steps, wall_s, raw, low, high, normalized)
after every evaluation and ``seed<k>.json`` when it finishes; its checkpoints live under ``--work``. A
stopped ``run`` started again skips finished runs and continues the others from their last checkpoint
(the evaluations after it are dropped). Runs of another budget are other runs (their own folder).
Seeds run in parallel (``--jobs``), each its own process with one torch thread.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "baselines"
WORK = ROOT / "runs" / "baselines"
IMAGES = ROOT / "docs" / "images"
ALGOS = ("ppo-lite", "sb3", "rllib")
DEFAULT_TASKS = ("as-standard-v0", "ft4-heuristic-v0")
#: The settings both algorithms share (the one-file PPO's flags; SB3 is given the same).
COMMON = {"num_envs": 256, "num_steps": 32, "minibatch_size": 2048, "update_epochs": 2, "learning_rate": 3e-4,
          "gamma": 0.99, "gae_lambda": 0.95, "clip_coef": 0.2, "ent_coef": 0.01, "hidden": "256,256"}
#: A task's documented training recipe (what the learner trains on; the evaluation is the task's).
RECIPES = {"ft4-heuristic-v0": {"reward": "vp", "opponents": "random>heuristic", "curriculum": 0.5}}
FIELDS = ("steps", "wall_s", "raw", "low", "high", "normalized")


def run_dir(results: Path, steps: int, task: str, algo: str) -> Path:
    return results / str(steps) / task / algo


# --- one run -----------------------------------------------------------------------------------------------


def one(task_name: str, algo: str, seed: int, steps: int, evals: int, eval_games: int, csv_path: Path,
        work: Path) -> None:
    """Train one seed (resuming from ``work``), writing ``csv_path`` after each evaluation and
    ``csv_path.with_suffix('.json')`` at the end."""
    import torch

    torch.set_num_threads(1)
    eval_every = max(1, math.ceil(steps / evals))
    recipe = RECIPES.get(task_name, {})
    if algo == "ppo-lite":
        from aerodeck.train import ppo_lite

        args = ppo_lite.Args(task=task_name, seed=seed, total_steps=steps, out=str(work), eval_every=eval_every,
                             eval_games=eval_games, **COMMON, **recipe)
        summary = ppo_lite.train(args)
        rows = list(csv.DictReader(open(work / "eval.csv")))
    elif algo == "sb3":
        rows, summary = sb3_run(task_name, seed, steps, eval_every, eval_games, work, recipe)
    else:
        recipe = {}
        rows, summary = rllib_run(task_name, seed, steps, eval_every, eval_games, work)
    write_csv(csv_path, rows)
    csv_path.with_suffix(".json").write_text(json.dumps(
        {"task": task_name, "algo": algo, "seed": seed, "steps": steps, "finished": True, "recipe": recipe,
         "settings": COMMON, "wall_s": summary["wall_s"], "env_share": summary.get("env_share"),
         "final": rows[-1]}, indent=1))


def write_csv(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".csv.tmp")
    with open(tmp, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    tmp.replace(path)


def sb3_run(task_name: str, seed: int, steps: int, eval_every: int, eval_games: int, work: Path, recipe: dict):
    """MaskablePPO (MlpPolicy, :data:`COMMON`) on the task's SB3 env; ``last.zip`` and ``rows.json`` after
    every evaluation, from which a stopped run continues."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from aerodeck.agents.ppo import Inputs, PPOAgent
    from aerodeck.bench.tasks import task as get_task
    from aerodeck.train.ppo_lite import Env, evaluate

    task = get_task(task_name)
    work.mkdir(parents=True, exist_ok=True)
    if task.spec.solo or not recipe:
        env = task.make_sb3_env(COMMON["num_envs"], seed)
    else:  # the recipe's learner view (reward, opponent curriculum) as an SB3 VecEnv
        env = task.spec.make_sb3(COMMON["num_envs"], rules=task.rules)
        lite = Env(task, COMMON["num_envs"], seed, recipe.get("reward", ""), recipe.get("opponents", ""),
                   int(recipe.get("curriculum", 0) * steps))
        env.view, env.rules = lite.env, lite.env.rules
    hidden = [int(w) for w in COMMON["hidden"].split(",")]
    kwargs = dict(n_steps=COMMON["num_steps"], batch_size=COMMON["minibatch_size"], n_epochs=COMMON["update_epochs"],
                  learning_rate=COMMON["learning_rate"], gamma=COMMON["gamma"], gae_lambda=COMMON["gae_lambda"],
                  clip_range=COMMON["clip_coef"], ent_coef=COMMON["ent_coef"], seed=seed, device="cpu",
                  policy_kwargs={"net_arch": {"pi": hidden, "vf": hidden}, "activation_fn": torch.nn.Tanh})
    rows, wall = [], 0.0
    if (work / "last.zip").exists() and (work / "rows.json").exists():
        model = MaskablePPO.load(work / "last.zip", env=env, device="cpu")
        state = json.loads((work / "rows.json").read_text())
        rows, wall = state["rows"], state["wall"]
        print(f"resuming {work} at step {model.num_timesteps:,}", flush=True)
        if recipe and not task.spec.solo:
            lite.steps = model.num_timesteps
    else:
        model = MaskablePPO("MlpPolicy", env, **kwargs)
    started = time.time() - wall

    def checkpoint_and_eval(step: int) -> None:
        agent = PPOAgent.from_policy(model.policy, task.rules, Inputs())
        model.policy.set_training_mode(False)
        result = evaluate(task, agent, eval_games)
        rows.append({"steps": step, "wall_s": round(time.time() - started, 1), **{k: round(v, 5) for k, v in result.items()}})
        print(f"sb3 {task_name} seed {seed} step {step:,} raw {result['raw']:.4f}", flush=True)  # as ppo_lite prints
        model.save(work / "last.zip")
        (work / "rows.json").write_text(json.dumps({"rows": rows, "wall": time.time() - started}))

    class Every(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next:
                checkpoint_and_eval(self.num_timesteps)
                self.next += eval_every
            if recipe and not task.spec.solo:
                lite.steps = self.num_timesteps
            return True

    if not rows:
        checkpoint_and_eval(0)
    callback = Every()
    callback.next = rows[-1]["steps"] + eval_every
    if model.num_timesteps < steps:
        model.learn(steps - model.num_timesteps, callback=callback, reset_num_timesteps=False)
    if rows[-1]["steps"] != model.num_timesteps:
        checkpoint_and_eval(model.num_timesteps)
    return rows, {"wall_s": time.time() - started}


def rllib_run(task_name: str, seed: int, steps: int, eval_every: int, eval_games: int, work: Path):
    """RLlib's PPO through its command line (``aerodeck.train.rllib``), continued with ``--resume`` when its
    run folder exists; its ``evaluations.csv`` read back as this script's rows."""
    from aerodeck.bench.tasks import task as get_task

    task = get_task(task_name)
    done = json.loads((work / "run.json").read_text())["steps"] if (work / "run.json").exists() else None
    if done is None:
        cmd = [task.game, "--task", task_name, "--steps", str(steps), "--evaluate-every", str(eval_every),
               "--eval-games", str(eval_games or task.eval_games), "--seed", str(seed), "--cpus", "1",
               "--out", str(work)]
    else:  # continue the stopped run up to this budget
        cmd = [task.game, "--out", str(work), "--resume", "--steps", str(max(1, steps - done))]
    if done is None or done < steps:
        subprocess.run([sys.executable, "-m", "aerodeck.train.rllib", *cmd], check=True)
    rows = [{"steps": int(r["steps"]), "wall_s": float(r["seconds"]), "raw": float(r["value"]), "low": float(r["low"]),
             "high": float(r["high"]), "normalized": float(r["normalized"]) if r.get("normalized") else float("nan")}
            for r in csv.DictReader(open(work / "evaluations.csv"))]
    return rows, {"wall_s": rows[-1]["wall_s"]}


# --- many runs -----------------------------------------------------------------------------------------------


def budget(task_name: str, args) -> int:
    from aerodeck.bench.tasks import task

    return int(args.steps) if args.steps else int(round(task(task_name).budget_steps * args.budget_scale))


def run(args) -> int:
    """Every task x algo x seed not finished yet, ``--jobs`` at once; returns 0 when all finished."""
    jobs = []
    for task_name in args.tasks.split(","):
        steps = budget(task_name, args)
        for algo in args.algos.split(","):
            for seed in range(1, args.seeds + 1):
                out = run_dir(args.results, steps, task_name, algo) / f"seed{seed}.csv"
                if out.with_suffix(".json").exists():
                    continue
                work = args.work / str(steps) / task_name / algo / f"seed{seed}"
                jobs.append([sys.executable, __file__, "one", "--task", task_name, "--algo", algo, "--seed", str(seed),
                             "--steps", str(steps), "--evals", str(args.evals), "--eval-games", str(args.eval_games),
                             "--csv", str(out), "--work", str(work)])
    print(f"{len(jobs)} runs to do, {args.jobs} at a time", flush=True)
    running, failed = [], 0
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    while jobs or running:
        while jobs and len(running) < args.jobs:
            cmd = jobs.pop(0)
            log = Path(cmd[cmd.index("--work") + 1]).with_suffix(".log")
            log.parent.mkdir(parents=True, exist_ok=True)
            print("start", " ".join(cmd[3:11]), flush=True)
            running.append((subprocess.Popen(cmd, stdout=open(log, "a"), stderr=subprocess.STDOUT, env=env), cmd))
        time.sleep(0.5)
        for proc, cmd in list(running):
            if proc.poll() is not None:
                running.remove((proc, cmd))
                failed += proc.returncode != 0
                print(("done " if proc.returncode == 0 else f"FAILED ({proc.returncode}) ") + " ".join(cmd[3:11]),
                      flush=True)
    return 1 if failed else 0


# --- the report ----------------------------------------------------------------------------------------------


def load_runs(results: Path) -> dict:
    """``{(steps, task, algo): {seed: (rows, finished)}}`` from every CSV under ``results``."""
    runs: dict = {}
    for path in sorted(results.glob("*/*/*/seed*.csv")):
        steps, task_name, algo = int(path.parts[-4]), path.parts[-3], path.parts[-2]
        rows = [{k: float(v) for k, v in r.items() if v not in ("", None)} for r in csv.DictReader(open(path))]
        runs.setdefault((steps, task_name, algo), {})[int(path.stem[4:])] = (rows, path.with_suffix(".json").exists())
    return runs


def normalized(task_name: str, rows: list[dict]) -> np.ndarray:
    """The runs' normalized scores recomputed from the raw ones with the task's current references."""
    from aerodeck.bench.tasks import task

    raw = np.array([r["raw"] for r in rows])
    try:
        return np.asarray(task(task_name).normalize(raw), np.float64)
    except ValueError:
        return np.array([r.get("normalized", np.nan) for r in rows])


def report(args) -> int:
    from aerodeck.bench.protocol import aggregate

    runs = load_runs(args.results)
    if not runs:
        print(f"no runs under {args.results}")
        return 1
    lines = ["| task | algorithm | env steps | seeds finished | IQM [95 % CI] | mean [95 % CI] | per seed (normalized) |"
             " raw mean |", "|---|---|---|---|---|---|---|---|"]
    for (steps, task_name, algo), seeds in sorted(runs.items()):
        done = {s: rows for s, (rows, fin) in seeds.items() if fin}
        if not done:
            lines.append(f"| {task_name} | {algo} | {steps:,} | 0 | – | – | – | – |")
            continue
        finals = np.array([normalized(task_name, rows)[-1] for rows in done.values()])
        raws = np.array([rows[-1]["raw"] for rows in done.values()])
        cell = "–", "–"
        if np.isfinite(finals).all():
            agg = aggregate(finals[:, None])
            cell = tuple(f"{v:.3f} [{lo:.3f}, {hi:.3f}]" for v, lo, hi in (agg.iqm, agg.mean))
        per = ", ".join(f"{x:.3f}" for x in finals)
        lines.append(f"| {task_name} | {algo} | {steps:,} | {len(done)} | {cell[0]} | {cell[1]} | "
                     f"{per} | {raws.mean():.4f} |")
    table = "\n".join(lines)
    print(table)
    (args.results / "results.md").write_text(table + "\n")
    plot(runs, args.images)
    return 0


def plot(runs: dict, images: Path) -> None:
    """Normalized score against env steps and against wall time: the mean over seeds with a band from
    the lowest to the highest seed, one panel per task and budget, one line per algorithm."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = sorted({(steps, t) for steps, t, _ in runs})
    for axis, label, name in (("steps", "env steps", "baselines-steps.png"), ("wall_s", "wall time (s)",
                                                                               "baselines-wall.png")):
        cols = min(3, len(panels))
        rows_ = math.ceil(len(panels) / cols)
        fig, axes = plt.subplots(rows_, cols, figsize=(5.5 * cols, 4 * rows_), squeeze=False)
        for ax in axes.flat[len(panels):]:
            ax.set_visible(False)
        for ax, (steps, task_name) in zip(axes.flat, panels):
            for algo in ALGOS:
                seeds = runs.get((steps, task_name, algo), {})
                curves = [(np.array([r[axis] for r in rows]), normalized(task_name, rows)) for rows, _ in seeds.values()]
                if not curves:
                    continue
                n = min(len(c[0]) for c in curves)
                x = np.mean([c[0][:n] for c in curves], axis=0)
                y = np.array([c[1][:n] for c in curves])
                line = ax.plot(x, y.mean(0), label=f"{algo} ({len(curves)} seeds)")[0]
                ax.fill_between(x, y.min(0), y.max(0), color=line.get_color(), alpha=0.2)
            ax.axhline(1.0, color="grey", lw=0.8, ls="--")
            ax.axhline(0.0, color="grey", lw=0.8, ls=":")
            ax.set_title(f"{task_name} ({steps:,} steps)")
            ax.set_xlabel(label + (" (mean over seeds)" if axis == "wall_s" else ""))
            ax.set_ylabel("normalized score (random 0, heuristic 1)")
            ax.legend(fontsize=8)
        fig.suptitle("python benchmarks/baselines.py report — band: lowest to highest seed", fontsize=9)
        fig.tight_layout()
        images.mkdir(parents=True, exist_ok=True)
        fig.savefig(images / name, dpi=90)
        plt.close(fig)
        print(f"wrote {images / name}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="train every task x algo x seed not finished yet")
    r.add_argument("--tasks", default=",".join(DEFAULT_TASKS))
    r.add_argument("--algos", default="ppo-lite,sb3", help=f"of {', '.join(ALGOS)} (rllib: run it on one task per game)")
    r.add_argument("--seeds", type=int, default=5)
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--budget-scale", type=float, default=1.0, help="share of each task's budget_steps")
    r.add_argument("--steps", type=int, default=0, help="env steps per run (overrides the task budget)")
    r.add_argument("--evals", type=int, default=10, help="evaluations per run (besides the one at step 0)")
    r.add_argument("--eval-games", type=int, default=0, help="deals per evaluation (0 = the task's eval_games)")
    o = sub.add_parser("one", help="one run (what `run` starts)")
    for flag, kind in (("--task", str), ("--algo", str), ("--seed", int), ("--steps", int), ("--evals", int),
                       ("--eval-games", int), ("--csv", Path), ("--work", Path)):
        o.add_argument(flag, type=kind, required=True)
    p = sub.add_parser("report", help="the results table and the learning curves")
    p.add_argument("--images", type=Path, default=IMAGES)
    for s in (r, p):
        s.add_argument("--results", type=Path, default=RESULTS)
    r.add_argument("--work", type=Path, default=WORK)
    args = parser.parse_args(argv)
    if args.command == "one":
        if args.algo not in ALGOS:
            parser.error(f"--algo must be one of {', '.join(ALGOS)}, got {args.algo!r}")
        one(args.task, args.algo, args.seed, args.steps, args.evals, args.eval_games, args.csv, args.work)
        return 0
    if args.command == "run":
        bad = set(args.algos.split(",")) - set(ALGOS)
        if bad:
            parser.error(f"--algos: unknown {', '.join(sorted(bad))}; allowed: {', '.join(ALGOS)}")
        return run(args)
    return report(args)


if __name__ == "__main__":
    sys.exit(main())
