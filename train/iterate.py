"""``aerodeck train GAME --rounds K``: expert iteration — K rounds of (the search guided by the network
plays, its decisions are cloned into that network, then PPO), each round's best model the next round's
guide.

Round r (1 … K) is an ordinary training run in ``OUT/round-r`` whose config is the run's (the game's
defaults, ``--general``, ``--config``) with

* ``[policy] init`` = the guide — round 1: ``--guide``, else the config's ``[policy] init``, else the
  shipped model for the rules; round r > 1: ``OUT/round-(r−1)/best.zip``;
* ``[warm_start] teacher`` = the config's teacher (a ``search`` agent, e.g. ``search:gate=2``) with
  ``guide=`` the guide: the network's most likely actions are the candidates (docs/training-distill.md);
* ``[warm_start] seed`` = the config's + r − 1, and the run's seed drawn from (seed, r): every round
  plays new deals;

and a K-th of the budget (``--minutes M``: M/K minutes a round, teacher games included; ``--steps N``:
N/K PPO steps a round). ``OUT/iterate.json`` records the plan, ``OUT/rounds.csv`` one row per finished
round (its guide and its best evaluation). Stopped by Ctrl-C or SIGTERM, ``aerodeck train GAME --out
OUT --resume`` continues the round under way to its total, then plays the rounds left.
"""

from __future__ import annotations

import csv
import datetime
import json
import sys
from pathlib import Path

from aerodeck import envs
from aerodeck.envs.common import rng
from aerodeck.train.budget import Budget, Clock
from aerodeck.train.config import Config, default_config, merge, model_file
from aerodeck.train.run import check_new_out, execute, new_run, resume_command, resumed_run

PLAN = "iterate.json"
ROUNDS = "rounds.csv"


def is_iteration(out: Path) -> bool:
    """``out`` holds an expert-iteration job (its plan file)."""
    return (Path(out) / PLAN).is_file()


def start(game_id: str, rules, config: Config, out: Path | None, total: Budget, rounds: int, *, seed: int = 0,
          guide: str | None = None, **common) -> Path:
    """Plan and run ``rounds`` rounds of expert iteration into the new folder ``out``; returns it.
    ``total``: the whole job's budget (a ``rounds``-th a round); ``common``: ``progress``, ``threads``,
    ``clock`` as for a run."""
    if rounds < 1:
        raise ValueError(f"--rounds must be at least 1, got {rounds}")
    game = envs.spec(game_id)
    guide = guide or (config.policy.init and str(model_file(config.policy.init))) or str(_shipped(game, rules, config))
    if not Path(guide).is_file():
        raise ValueError(f"the first guide {guide!r} is not a model file: give --guide MODEL.zip")
    _teacher(config.warm_start.teacher, guide)  # refuse a teacher that cannot be guided, before writing
    if config.warm_start.games == 0 or config.warm_start.decisions:
        raise ValueError("expert iteration distils the guided search each round: [warm_start] games must be above 0 "
                         "and [warm_start] decisions empty")
    out = Path(out) if out is not None else Path("runs") / f"{game.id}-iterate-{datetime.datetime.now():%Y%m%d-%H%M%S}"
    check_new_out(out)
    each = Budget(steps=-(-total.steps // rounds)) if total.steps is not None else Budget(minutes=total.minutes / rounds)
    out.mkdir(parents=True, exist_ok=True)
    plan = {"game": game.id, "rules": rules.to_dict(), "config": config.to_dict(), "rounds": rounds,
            "round_budget": each.to_dict(), "seed": seed, "guide": str(guide)}
    (out / PLAN).write_text(json.dumps(plan, indent=2))
    return _play(out, plan, **common)


def resume(game_id: str, out: Path, **common) -> Path:
    """Continue the expert-iteration job in ``out``: the round under way to its total, then the rest."""
    plan = json.loads((Path(out) / PLAN).read_text())
    if plan["game"] != game_id:
        raise ValueError(f"--resume: {out} holds a {plan['game']} expert iteration, not {game_id}")
    return _play(Path(out), plan, **common)


def _play(out: Path, plan: dict, *, progress: bool = True, threads: int | None = None,
          clock: Clock | None = None) -> Path:
    game = envs.spec(plan["game"])
    rules = game.rules_class().from_options(plan["rules"])
    base = merge(default_config(game.id), plan["config"], str(out / PLAN))
    each = Budget.from_dict(plan["round_budget"])
    guide, finished = plan["guide"], _finished(out)
    for r in range(1, plan["rounds"] + 1):
        folder = out / f"round-{r}"
        if r not in finished:
            command = resume_command(game.id, out, threads)
            if (folder / "last.zip").is_file():
                run = resumed_run(game.id, folder, None, None, command=command, progress=progress, threads=threads)
            else:  # (a round stopped before its first checkpoint left nothing: it starts afresh)
                config = base.replace("policy", init=guide).replace(
                    "warm_start", teacher=_teacher(base.warm_start.teacher, guide),
                    seed=base.warm_start.seed + r - 1)
                run = new_run(game.id, rules, config, folder, each, seed=_round_seed(plan["seed"], r),
                              command=command, progress=progress, threads=threads, clock=clock if r == 1 else None)
            run.say(f"expert iteration: round {r} of {plan['rounds']}, guided by {guide}")
            try:
                execute(run)
            except KeyboardInterrupt as stop:
                said = str(stop).split("; continue with:")[0]
                raise type(stop)(f"round {r} of {plan['rounds']}: {said or 'stopped'}; continue with: {command}") from None
            _record(out, r, guide, folder)
        guide = str(folder / "best.zip")
    print(f"aerodeck train: expert iteration: {plan['rounds']} rounds in {out}/ ({ROUNDS}); the last round's "
          f"best model: {guide}", file=sys.stderr, flush=True)
    return out


def _finished(out: Path) -> set[int]:
    """The rounds ``rounds.csv`` lists (a round is listed once its run has returned)."""
    path = out / ROUNDS
    return {int(row["round"]) for row in csv.DictReader(path.open())} if path.is_file() else set()


def _teacher(spec: str, guide: str) -> str:
    """The config's teacher spec with ``guide=`` the model (it must be the game's search agent)."""
    from aerodeck.agents.specs import format_spec, parse_spec

    name, params = parse_spec(spec)
    if name != "search":
        raise ValueError(f"expert iteration guides the search agent: [warm_start] teacher is {spec!r} "
                         f"(use e.g. teacher = \"search\")")
    if "," in guide:
        raise ValueError(f"the guide's path {guide!r} cannot go in an agent spec (it holds a ',')")
    params["guide"] = guide
    return format_spec("search", params)


def _shipped(game, rules, config: Config) -> Path:
    from aerodeck.agents.ppo import shipped_path

    return shipped_path(game, rules, general=bool(config.variants.ranges))


def _round_seed(seed: int, r: int) -> int:
    """Round r's run seed: value r of the stream keyed by the job's seed."""
    return rng.stream(rng.game_key(seed), r) % 2**63


def _record(out: Path, r: int, guide: str, folder: Path) -> None:
    """Append round r's row to ``rounds.csv``: its guide and its best model's evaluation (``best.json``)."""
    from aerodeck.agents.ppo import read_sidecar

    best = read_sidecar(folder / "best.zip")
    ev = best.get("evaluation") or {}
    path = out / ROUNDS
    new = not path.is_file()
    with path.open("a", newline="") as f:
        table = csv.writer(f)
        if new:
            table.writerow(["round", "guide", "folder", "best_steps", "figure", "value", "low", "high",
                            "difference_to_heuristic"])
        table.writerow([r, guide, str(folder), best.get("steps", ""), ev.get("figure", ""), ev.get("value", ""),
                        ev.get("low", ""), ev.get("high", ""), (ev.get("difference") or {}).get("value", "")])
