"""``aerodeck train GAME``: MaskablePPO on the game's batched core, from config to saved model.

The run's steps (``aerodeck.train.run``), each announced: 1. the run — rules (``--rule/--rules/--table/
--players``, as ``bench``), config (the game's defaults, then ``--config FILE.toml``; every field is
documented in ``train/config.py``), budget (``--steps`` or ``--minutes``, one budget for the whole
job) and output folder; 2. the environments; 3. the model; 4. the plan (each stage's share of the budget);
5. the warm start (behaviour cloning of a teacher agent); 6. PPO, with evaluations against the game's
opponent, checkpoints and the best model; 7. the final evaluation and save.

The output folder is written into a temporary sibling and appears at the first checkpoint (after the
warm start), so a run stopped before then leaves nothing::

    config.toml             the config in use
    warm_start.npz          the teacher's decisions (when the run played them)
    tb/                     TensorBoard event files: rollout/, train/, eval/, time/, league/, warm_start/
    evaluations.csv         one row per evaluation (steps, seconds, figure, interval)
    checkpoints/step-N.zip  every [train] checkpoint_every steps, each with its sidecar step-N.json
    best.zip, best.json     the best model by evaluation
    last.zip, last.json     the latest model (what --resume continues)

Ctrl-C (or SIGTERM) saves ``last.zip`` and prints the command that continues the run to its total.

``--backend ray [--address ADDR]`` plays the warm start's teacher games and every evaluation as Ray tasks
(the same data and figures as here); PPO itself runs in this process.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from aerodeck import envs
from aerodeck.arena.args import add_rules_arguments, load_rules, seed_arg
from aerodeck.train.budget import Budget, Clock, check_minutes, check_steps
from aerodeck.train import iterate
from aerodeck.train.config import Config, load_config
from aerodeck.train.run import execute, new_run, resumed_run
from aerodeck.arena.backends import BACKENDS, make_backend


def add_parser(sub) -> None:
    """Register ``aerodeck train``."""
    p = sub.add_parser(
        "train",
        help="train a MaskablePPO agent (self-play league for multi-player games; TensorBoard, checkpoints)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", choices=envs.games())
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--steps", type=int, metavar="N", help="PPO steps to train (default: the config's [train] "
                        "steps); the warm start and the evaluations scale with them. With --resume: N more")
    budget.add_argument("--minutes", type=float, metavar="M", help="minutes of wall time for the whole job (warm start, "
                        "evaluations and checkpoints included; only the final save comes after). With --resume: M more")
    p.add_argument("--num-envs", type=int, metavar="N", help="games stepped at once (default: the config's [train] num_envs)")
    p.add_argument("--seed", type=seed_arg, help="seed of the games, the network and the opponents (default 0; "
                   "--resume keeps the run's)")
    p.add_argument("--general", action="store_true", help="a rule-general model (ppo:general): the game's variant "
                   "ranges and settings (GameSpec.general_config, e.g. envs/<game>/general.toml) over the defaults, "
                   "before --config")
    p.add_argument("--config", type=Path, metavar="FILE.toml", help="settings over the game's defaults (every field, "
                   "its type, default, range and meaning: train/config.py, docs/training.md)")
    add_rules_arguments(p)
    p.add_argument("--players", type=int, help="multi-player games: number of players")
    p.add_argument("--out", type=Path, help="output folder (default runs/<game>-<date>-<time>)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint to its "
                   "total budget (its rules, config and seed), or --steps/--minutes more")
    p.add_argument("--rounds", type=int, metavar="K", help="expert iteration: K rounds, each distilling the search "
                   "guided by the previous round's best model into it, then PPO (train/iterate.py; the budget "
                   "is shared evenly; OUT/round-r/ per round)")
    p.add_argument("--guide", metavar="MODEL.zip", help="with --rounds: the first round's guide (default: the "
                   "config's [policy] init, else the shipped model)")
    p.add_argument("--threads", type=int, metavar="N", help="CPU threads torch uses (default: torch's own choice)")
    p.add_argument("--backend", choices=BACKENDS, default="local",
                   help="where the warm start's teacher games and the evaluations are played: here, or as tasks on "
                        "a Ray cluster (the same data and figures); PPO itself runs here (default local)")
    p.add_argument("--address", metavar="ADDR", help="--backend ray: the cluster's address (default: a local Ray)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    p.set_defaults(func=main)


def train(game_id: str, rules, config: Config, out: Path | None, *, steps: int | None = None,
          minutes: float | None = None, seed: int = 0, progress: bool = True, threads: int | None = None,
          clock: Clock | None = None, backend=None) -> Path:
    """Train a new run of ``game_id`` under ``rules`` (its rules object) with ``config`` (a ``Config``,
    e.g. ``aerodeck.train.config.load_config(game_id, path)``) for ``steps`` PPO steps or ``minutes`` of
    wall time (default the config's ``[train] steps``), into the new folder ``out``; returns the folder
    (its ``best.zip`` is the best model). ``clock``: the run's clock (tests). ``backend``: where the
    teacher's games and the evaluations are played (``aerodeck.arena.backends``; default here)."""
    total = Budget(steps=check_steps(steps)) if steps is not None else \
        Budget(minutes=check_minutes(minutes)) if minutes is not None else Budget(steps=config.train.steps)
    command = f"aerodeck.train.cli.train({game_id!r}, {total.describe()}, seed={seed})"  # called from Python
    run = new_run(game_id, rules, config, out, total, seed=seed, command=command, progress=progress,
                  threads=threads, clock=clock)
    run.backend = backend if backend is not None and backend.name == "ray" else None
    return execute(run)


def main(args: argparse.Namespace) -> int:
    """``aerodeck train`` as the parsed command line says; returns the exit status."""
    clock = Clock(began=getattr(args, "began", None))  # the budget counts from the command's start
    for flag, value in (("--num-envs", args.num_envs), ("--threads", args.threads)):
        if value is not None and value < 1:
            raise ValueError(f"{flag} must be at least 1, got {value}")
    steps = None if args.steps is None else check_steps(args.steps)
    minutes = None if args.minutes is None else check_minutes(args.minutes)
    if args.guide is not None and args.rounds is None:
        raise ValueError("--guide names the first guide of expert iteration: give --rounds K too")
    if args.backend == "local" and args.address is not None:
        raise ValueError("--address applies to --backend ray only")
    if args.backend != "local" and (args.rounds is not None or (args.resume and args.out is not None
                                                                and iterate.is_iteration(args.out))):
        raise ValueError("--backend ray serves one run's teacher games and evaluations; expert iteration "
                         "(--rounds) plays here")
    if args.resume and args.out is not None and iterate.is_iteration(args.out):
        if args.rounds is not None or args.guide is not None or steps is not None or minutes is not None:
            raise ValueError("--resume continues an expert iteration with its own plan; drop --rounds/--guide/--steps/--minutes")
        iterate.resume(args.game, args.out, progress=not args.no_progress, threads=args.threads, clock=clock)
        return 0
    if args.resume and args.rounds is not None:
        raise ValueError(f"--resume: {args.out} holds no expert iteration ({iterate.PLAN}) to continue")
    common = dict(command=command_line(args), progress=not args.no_progress, threads=args.threads, clock=clock)
    if args.resume:
        if args.out is None:
            raise ValueError("--resume continues the run in --out DIR: name the folder")
        if args.config or args.general or args.rules or args.rule_items or args.players or args.table or args.seed is not None:
            raise ValueError("--resume continues a run with its own rules, config and seed; "
                             "drop --config/--general/--rule/--rules/--table/--players/--seed")
        run = resumed_run(args.game, args.out, steps, minutes, num_envs=args.num_envs, **common)
    else:
        game = envs.spec(args.game)
        config = load_config(game.id, args.config, general=args.general)
        if args.num_envs is not None:
            config = config.replace("train", num_envs=args.num_envs)
        total = Budget(steps=steps) if steps else Budget(minutes=minutes) if minutes else Budget(steps=config.train.steps)
        rules = load_rules(game, args.rules, args.rule_items, args.table, args.players)
        if args.rounds is not None:
            iterate.start(game.id, rules, config, args.out, total, args.rounds, seed=0 if args.seed is None else args.seed,
                          guide=args.guide, progress=not args.no_progress, threads=args.threads, clock=clock)
            return 0
        run = new_run(game.id, rules, config, args.out,
                      total, seed=0 if args.seed is None else args.seed, **common)
    if args.backend == "ray":  # checked after the run's own checks: a cluster is not started for a bad command
        run.backend = make_backend("ray", args.address)
    execute(run)
    return 0


def command_line(args: argparse.Namespace) -> str:
    """The ``aerodeck train`` command line that ``args`` (the parsed options) stand for."""
    words = ["aerodeck", "train", args.game]
    for flag, value in (("--steps", args.steps), ("--minutes", args.minutes), ("--num-envs", args.num_envs),
                        ("--seed", args.seed), ("--config", args.config), ("--rules", args.rules),
                        ("--table", args.table), ("--players", args.players), ("--out", args.out),
                        ("--threads", args.threads), ("--address", args.address)):
        if value is not None:
            words += [flag, str(value)]
    if args.backend != "local":
        words += ["--backend", args.backend]
    if args.general:
        words.append("--general")
    for item in args.rule_items:
        words += ["--rule", item]
    for flag, value in (("--rounds", args.rounds), ("--guide", args.guide)):
        if value is not None:
            words += [flag, str(value)]
    if args.resume:
        words.append("--resume")
    return " ".join(shlex.quote(w) for w in words)
