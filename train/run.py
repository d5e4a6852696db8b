"""One training run, step by step: :func:`execute` runs the steps of a :class:`Run` (made by
:func:`new_run` or :func:`resumed_run`), each one call, each announced:

1. the run — game, rules, config (``aerodeck.train.config``), budget (``aerodeck.train.budget``), output folder;
2. the environments — the game's SB3 ``VecEnv`` as the policy reads it; in a multi-player game the
   learner plays one seat (rotated) against the league (``aerodeck.train.league``);
3. the model — a new MaskablePPO, or the run's ``last.zip`` (``--resume``; read before anything is written);
4. the plan — the budget's share for each stage, announced;
5. the warm start — the teacher's games (played, or a saved ``warm_start.npz``) and behaviour cloning;
   then the first checkpoint, which publishes the run's folder (written until then in a temporary sibling);
6. PPO — with evaluations, the best model and checkpoints, until the budget is spent;
7. the final evaluation and save.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import math
import shlex
import sys
from pathlib import Path

from aerodeck import envs
from aerodeck.train import budget as budgets
from aerodeck.train.budget import Budget, Clock, Plan
from aerodeck.train.config import Config, default_config, merge, model_file

#: Deals of the two evaluations that measure what a ``--minutes`` run's evaluations cost (after one of
#: the first size that warms up what is built once).
EVAL_PROBE = (2, 34)
#: The PPO updates a ``--minutes`` run's PPO share should hold at least (its rollouts are shortened to fit).
UPDATES = 4
#: The PPO steps (after one to warm up) that measure the pace of a ``--minutes`` run's rollouts.
PACE_STEPS = 4
#: Games of the teacher's first chunk, which measures how fast a ``--minutes`` run's teacher plays.
TEACHER_PROBE = 16


@dataclasses.dataclass
class Run:
    """The state of one training run, shared by its steps and callbacks."""

    game: object
    rules: object
    config: Config
    #: The run's total budget, and what this session may spend of it.
    budget: Budget
    session: Budget
    seed: int
    out: Path
    command: str
    progress: bool = True
    clock: Clock = dataclasses.field(default_factory=Clock)
    resumed: bool = False
    threads: int | None = None
    #: Where the run writes now: its temporary sibling folder until the first checkpoint publishes it.
    staging: object = None
    #: What earlier sessions did (a resumed run): steps, wall seconds, warm start.
    steps_before: int = 0
    seconds_before: float = 0.0
    warm_start: dict | None = None
    core: object = None
    inputs: object = None
    #: The rule variants of a rule-general run (``aerodeck.agents.variants.VariantSpace``), else ``None``.
    space: object = None
    plan: Plan | None = None
    best: float = -math.inf
    evaluation: dict | None = None
    #: The teacher's decisions played while planning (the first chunk measures the teacher's speed).
    teacher_parts: list = dataclasses.field(default_factory=list)
    #: The steps of the last whole rollout (PPO trains on whole rollouts only: what a stop keeps).
    trained_steps: int = 0
    #: What step 1 changed in the config for this budget, announced with the plan.
    notes: list = dataclasses.field(default_factory=list)
    #: The run's first evaluation (of the policy PPO starts from): what the closing line compares with.
    first_evaluation: dict | None = None
    #: Where the teacher's games and the evaluations are played: ``None`` here, or a Ray backend
    #: (``aerodeck.arena.backends.RayBackend``; the same data and figures).
    backend: object = None

    @property
    def parallel(self) -> int:
        """How many teacher chunks are played at once: the cluster's CPUs on Ray, else ``[warm_start] workers``."""
        return self.backend.cpus() if self.backend is not None else self.config.warm_start.workers

    @property
    def folder(self) -> Path:
        """Where the run's files go now."""
        return self.staging.path if self.staging is not None else self.out

    def resume_command(self) -> str:
        """The command that continues this run to its total."""
        return resume_command(self.game.id, self.out, self.threads)

    def say(self, text: str) -> None:
        """Announce ``text`` (a stage, a result) on stderr."""
        print(f"aerodeck train: {text}", file=sys.stderr, flush=True)

    def seconds(self) -> float:
        """Wall seconds of the whole run, earlier sessions included."""
        return self.seconds_before + self.clock.now()

    def entropy_coefficient(self, steps: int) -> float:
        """The entropy bonus at ``steps``: ``[ppo] ent_coef`` falling linearly to ``ent_coef_end`` over the
        run's total budget."""
        ppo = self.config.ppo
        used = steps / self.budget.steps if self.budget.steps else self.seconds() / (self.budget.minutes * 60)
        return ppo.ent_coef + (ppo.ent_coef_end - ppo.ent_coef) * min(used, 1.0)

    def sidecar(self, model) -> dict:
        """The sidecar of a model saved now (docs/training.md)."""
        from aerodeck.agents.ppo import layout_of, package_version

        return {
            "game": self.game.id, "rules": self.rules.to_dict(), "layout": layout_of(self.core),
            "inputs": self.inputs.to_dict(), "aerodeck_version": package_version(), "command": self.command,
            "config": self.config.to_dict(), "seed": self.seed, "steps": int(model.num_timesteps),
            "budget": self.budget.to_dict(), "warm_start": self.warm_start, "wall_seconds": round(self.seconds(), 1),
            "evaluation": self.evaluation, "first_evaluation": self.first_evaluation, "plan": self.plan.to_dict() if self.plan else None,
            "saved": datetime.datetime.now().isoformat(timespec="seconds"),
        }

    def checkpoint(self, model, also_numbered: bool = False) -> None:
        """Save ``last.zip`` (and ``checkpoints/step-N.zip``); the first checkpoint publishes the folder."""
        from aerodeck.train.model import save_model

        if also_numbered:
            save_model(model, self.folder / "checkpoints" / f"step-{model.num_timesteps}.zip", self.sidecar(model))
        save_model(model, self.folder / "last.zip", self.sidecar(model))
        if self.staging is not None and not self.staging.published:
            model.logger.close()  # TensorBoard reopens its file by name: a new one in the published folder
            self.staging.publish()
            self.open_log(model)

    def open_log(self, model) -> None:
        """Log ``model``'s figures to TensorBoard event files in ``tb/``."""
        from stable_baselines3.common.logger import configure

        model.set_logger(configure(str(self.folder / "tb"), ["tensorboard"]))

    def evaluated_at(self, steps: int) -> bool:
        """True if the latest evaluation is of the model at ``steps``."""
        return bool(self.evaluation) and self.evaluation.get("steps") == steps

    def may_evaluate(self) -> bool:
        """True if one more evaluation fits the evaluations' share and leaves one for the end."""
        plan = self.plan
        return plan.eval_allowance is None or plan.evaluation.seconds + 2 * plan.eval_estimate <= plan.eval_allowance

    def evaluation_of(self, policy, inputs, deals: int) -> dict:
        """The run's evaluation of ``policy``'s greedy play on ``deals`` deals of ``[train] eval_seed``: on
        the run's rules, or for a rule-general run on them and its evaluation variants
        (``aerodeck.train.variants.evaluate_general``)."""
        from aerodeck.agents.ppo import PPOAgent
        from aerodeck.train.model import evaluate

        if self.space is not None:
            from aerodeck.train.variants import evaluate_general

            return evaluate_general(self, policy, inputs, deals, self.config.train.eval_seed)
        agent = PPOAgent.from_policy(policy, self.rules, inputs, deterministic=True)
        if inputs.prior is not None:  # count its decisions as the prior's (on Ray too: the tasks add theirs)
            agent.agreement = [0, 0]
        sampled = PPOAgent.from_policy(policy, self.rules, inputs, deterministic=False, seed=self.config.train.eval_seed)
        result = evaluate(self.game, self.rules, agent, deals, self.config.train.eval_seed, backend=self.backend,
                          sampled=sampled)
        if agent.agreement and agent.agreement[0]:
            result["as_prior"] = {"agent": inputs.prior, "share": agent.agreement[1] / agent.agreement[0],
                                  "decisions": agent.agreement[0]}
        return result

    def evaluate(self, model, inputs) -> dict:
        """Evaluate ``model``'s greedy policy now; note it in ``evaluations.csv``, keep ``best.zip``."""
        from aerodeck.train.callbacks import append_evaluation
        from aerodeck.train.model import save_model

        began = self.clock.now()
        result = self.evaluation_of(model.policy, inputs, self.plan.eval_games)
        result["steps"] = int(model.num_timesteps)
        self.evaluation = result
        if self.first_evaluation is None:  # what the run's words on what it changed start from
            self.first_evaluation = result
        append_evaluation(self.folder / "evaluations.csv", result, self.seconds())
        if result["value"] > self.best:
            self.best = result["value"]
            save_model(model, self.folder / "best.zip", self.sidecar(model))
        took = self.clock.now() - began
        self.plan.evaluation.seconds += took
        self.plan.evaluation.ended = self.clock.now()
        if took > self.plan.eval_estimate and self.plan.ppo.deadline is not None:  # keep time for the last one
            self.plan.ppo.deadline -= took - self.plan.eval_estimate
        self.plan.eval_estimate = max(self.plan.eval_estimate, took)
        return result

    @contextlib.contextmanager
    def writing(self):
        """The block that writes the run's files: a new run's go into a temporary sibling folder that its
        first checkpoint publishes (an error or Ctrl-C before then leaves nothing); a resumed run's into
        its folder."""
        if self.resumed:
            yield
            return
        from aerodeck.arena.output import OutputFolder, write_file

        with OutputFolder(self.out, command=self.command).staged() as staging:
            self.staging = staging
            write_file(self.folder / "config.toml", f"# {self.command}\n# rules: {self.rules.label()}\n" + self.config.to_toml())
            yield


# --- 1. the run --------------------------------------------------------------------------------------------


def fit_rollout(config: Config, session: Budget) -> tuple[Config, str]:
    """``config`` with its rollout (``[ppo] n_steps`` × ``[train] num_envs``) cut to fit a ``--steps``
    session shorter than one, and a note saying so ("" if unchanged). PPO trains whole rollouts: a
    longer session ends on the first whole rollout at or past its steps."""
    ppo, envs_ = config.ppo, config.train.num_envs
    if session.steps is None or session.steps >= ppo.n_steps * envs_:
        return config, ""
    n_steps = max(1, session.steps // envs_)
    fitted = config.replace("ppo", n_steps=n_steps, batch_size=min(ppo.batch_size, n_steps * envs_))
    return fitted, (f"[ppo] n_steps {ppo.n_steps} → {n_steps}, so that an update of {n_steps} × {envs_} games fits "
                    f"the {session.steps:,} steps")


def resume_command(game_id: str, out: Path, threads: int | None = None) -> str:
    """``aerodeck train GAME --out OUT --resume [--threads N]``: what continues the job in ``out``."""
    words = ["aerodeck", "train", game_id, "--out", str(out), "--resume"]
    words += ["--threads", str(threads)] if threads else []
    return " ".join(shlex.quote(w) for w in words)


def check_new_out(out: Path) -> None:
    """Refuse an output folder a new run cannot use: a file, or a folder that holds anything."""
    from aerodeck.arena.output import OutputFolder

    if out.is_file():
        raise ValueError(f"output folder {str(out)!r} is a file")
    if out.is_dir() and any(out.iterdir()):
        raise ValueError(f"output folder {str(out)!r} exists and is not empty: choose a new folder, "
                         "or continue its run with --resume")
    OutputFolder(out).release()  # writable, and no other run writing it? (the run takes the lock when it writes)


def new_run(game_id: str, rules, config: Config, out: Path | None, total: Budget, *, seed: int = 0,
            command: str = "", progress: bool = True, threads: int | None = None, clock: Clock | None = None) -> Run:
    """Step 1 of a new run of ``game_id`` under ``rules`` with ``config`` and the ``total`` budget,
    written to ``out`` (default ``runs/<game>-<date>-<time>``)."""
    game = envs.spec(game_id)
    out = Path(out) if out is not None else Path("runs") / f"{game.id}-{datetime.datetime.now():%Y%m%d-%H%M%S}"
    check_new_out(out)
    config, note = fit_rollout(config, total)
    return Run(game, rules, config, total, total, seed, out, command or f"aerodeck train {game.id}", progress,
               clock or Clock(), threads=threads, notes=[note] if note else [])


def resumed_run(game_id: str, out: Path, steps: int | None, minutes: float | None, *, num_envs: int | None = None,
                command: str = "", progress: bool = True, threads: int | None = None, clock: Clock | None = None) -> Run:
    """Step 1 of a resumed run: the run in ``out``, from its ``last.zip`` and sidecar, continued to its
    total (or ``steps``/``minutes`` more). Reads and writes nothing else."""
    from aerodeck.agents.ppo import read_sidecar

    game = envs.spec(game_id)
    last = Path(out) / "last.zip"
    if not last.is_file():
        raise ValueError(f"--resume: {last} does not exist (a run writes it at its first checkpoint)")
    before = read_sidecar(last)
    if before.get("game") != game.id:
        raise ValueError(f"--resume: {out} holds a {before.get('game')} run, not {game.id}")
    config = merge(default_config(game.id), before.get("config", {}), str(last.with_suffix(".json")))
    if num_envs is not None:
        config = config.replace("train", num_envs=num_envs)
    total = Budget.from_dict(before["budget"]) if before.get("budget") else Budget(steps=config.train.steps)
    done, used = int(before.get("steps", 0)), float(before.get("wall_seconds", 0.0))
    total = total.extended(steps, minutes, done, used)
    session = total.left(done, used)
    if session is None:
        raise ValueError(f"--resume: the run in {out} has reached its total of {total.describe()}; "
                         "give --steps N or --minutes M to train more")
    run = Run(game, game.rules_class().from_options(before["rules"]), config, total, session, before["seed"], Path(out),
              command or f"aerodeck train {game.id} --out {out} --resume", progress, clock or Clock(), resumed=True,
              threads=threads, steps_before=done, seconds_before=used, warm_start=before.get("warm_start"),
              evaluation=before.get("evaluation"), first_evaluation=before.get("first_evaluation"))
    best = Path(out) / "best.zip"
    if best.is_file():
        run.best = (read_sidecar(best).get("evaluation") or {}).get("value", -math.inf)
    return run


# --- 2. the environments -----------------------------------------------------------------------------------


def make_envs(run: Run):
    """Step 2: the VecEnv PPO learns on (``learner_env``) and the league (``None`` in a solo game)."""
    from aerodeck.agents.ppo import Inputs
    from aerodeck.train.model import learner_env

    policy = run.config.policy
    space = None
    if run.config.variants.ranges:  # a rule-general run (train/variants.py)
        from aerodeck.agents.variants import VariantSpace

        space = run.space = VariantSpace(run.game, run.config.variants.ranges, base=run.rules)
    run.core = run.game.make_core(run.rules if space is None else space.family)
    run.inputs = Inputs.make(run.game.id, run.rules, policy.sees_mask, policy.prior or None, policy.prior_units,
                             policy.prior_ties, policy.prior_ranks, variants=space)
    env_seed = (run.seed + run.steps_before) % 2**63  # a resumed run deals new games
    if space is not None:
        from aerodeck.train.variants import VariantsEnv

        venv = VariantsEnv(run, space, run.config.train.num_envs, env_seed)
        run.say(f"rule-general: {space.describe()} (the rest as {run.rules.label()}); "
                f"{len(venv.sizes)} variants at a time, one replaced every {run.config.variants.resample_every} updates")
        return venv, venv.league
    league, options = None, {}
    if run.config.league is not None and not run.game.solo:
        from aerodeck.train.league import League

        league = League(run.game, run.rules, run.config.league, run.seed, run.inputs)
        options = {"opponents": league.opponents, "assign": league.assign}
    venv = learner_env(run.game.make_sb3(run.config.train.num_envs, rules=run.rules, seed=env_seed, **options), run.inputs)
    return venv, league


# --- 3. the model ------------------------------------------------------------------------------------------


def make_model(run: Run, venv):
    """Step 3: a new MaskablePPO, or the resumed run's ``last.zip`` (``ValueError`` in one line if it
    cannot be loaded; nothing is written)."""
    from aerodeck.train.model import new_model, resumed_model

    if run.resumed:
        return resumed_model(run.out / "last.zip", venv, run.config)
    model = new_model(venv, run.config, run.inputs, run.seed)
    if run.config.policy.init:
        from aerodeck.train.model import init_from

        init_from(model, model_file(run.config.policy.init), run.inputs, run.game, run.rules)
        run.say(f"the policy starts from the weights of {run.config.policy.init}")
    return model


# --- 4. the plan -------------------------------------------------------------------------------------------


def make_plan(run: Run, model, venv):
    """Step 4: the budget's shares (``aerodeck.train.budget``) in ``run.plan``, announced; under ``--minutes``
    the teacher's first chunk, two small evaluations and a few PPO steps measure how fast they play.
    Returns the model (a new one if its rollouts had to be shortened to fit the budget)."""
    from aerodeck.train.warm_start import check_more_decisions

    warm = run.config.warm_start
    warm_games = 0 if run.resumed else warm.games
    if warm_games:  # before any teacher game: the saved decisions it adds must serve this run
        check_more_decisions(warm.also, teacher_meta(run), run.inputs)
    run.say(f"{run.game.id}, {run.rules.label()}: {'continuing to' if run.resumed else 'budget'} "
            f"{run.budget.describe()}" + (f" ({run.session.describe()} left)" if run.resumed else "") + f"; {run.out}")
    if run.session.steps is not None:
        run.plan = budgets.plan_steps(run.session, run.budget, run.config, warm_games, bool(warm.decisions))
    else:
        teacher_rate = None if not warm_games or warm.decisions else (lambda: measure_teacher(run))
        run.plan = budgets.plan_minutes(run.session, run.config, run.clock, warm_games, teacher_rate,
                                        lambda: measure_evaluation(run, model, venv.inputs))
    if run.session.minutes is not None and not run.resumed:
        model = fit_rollout_to_time(run, model, venv)
    if warm_games and warm.also and not run.plan.teacher_games:
        run.notes.append(f"[warm_start] also: its {len(warm.also)} file(s) go unused, the warm start is off")
    for line in run.plan.describe() + run.notes:
        run.say(line)
    return model


def fit_rollout_to_time(run: Run, model, venv):
    """``model``, or a new one with shorter rollouts (``[ppo] n_steps``) when :data:`UPDATES` rollouts of
    the config's length would not fit PPO's share of a ``--minutes`` budget (a few steps measure the pace;
    the change is announced and kept in the config)."""
    from aerodeck.train.model import new_model

    obs = venv.reset()
    for i in range(PACE_STEPS + 1):
        if i == 1:  # the first step warms up: not timed
            began = run.clock.now()
        actions, _ = model.predict(obs, action_masks=venv.action_masks())
        obs, *_ = venv.step(actions)
    step = max((run.clock.now() - began) / PACE_STEPS, 1e-9)
    window = run.plan.ppo.deadline - max(run.clock.now(), run.plan.warm_start.deadline or 0.0)
    n_steps = max(1, int(window / UPDATES / step))
    if n_steps >= run.config.ppo.n_steps:
        run.notes.append(f"PPO: {step:.2f} s per step of {run.config.train.num_envs} games measured: rollouts of "
                         f"{run.config.ppo.n_steps} steps fit {UPDATES} times or more")
        return model
    ppo, envs_ = run.config.ppo, run.config.train.num_envs
    run.config = run.config.replace("ppo", n_steps=n_steps, batch_size=min(ppo.batch_size, n_steps * envs_))
    run.notes.append(f"[ppo] n_steps {ppo.n_steps} → {n_steps}, so that about {UPDATES} updates fit PPO's "
                     f"{window:.0f} s ({step:.2f} s per step of {envs_} games measured)")
    return new_model(venv, run.config, run.inputs, run.seed)


def measure_teacher(run: Run) -> float:
    """Play the teacher's first chunk (kept for the warm start); its games per second, for the processes
    the config gives."""
    from aerodeck.train.warm_start import teacher_chunk

    warm = run.config.warm_start
    count = min(TEACHER_PROBE, warm.play_batch, warm.games)
    run.say(f"warm start: timing the teacher ({warm.teacher}) on its first {count} games")
    began = run.clock.now()
    run.teacher_parts = [teacher_chunk(run.game.id, run.rules, warm, run.inputs.to_dict(), run.seed,
                                       run.config.ppo.gamma, 0, count)]
    return count / max(run.clock.now() - began, 1e-9) * run.parallel


def measure_evaluation(run: Run, model, inputs) -> tuple[float, float]:
    """What an evaluation costs: the seconds it takes besides its deals, and its deals per second —
    from two small evaluations of the run's kind (a rule-general run's over its variants; nothing is
    kept), timed after a first one that warms up. Where the larger took no longer than the smaller (the
    clock's noise), the larger's deals over its whole time, with no cost besides."""
    run.evaluation_of(model.policy, inputs, EVAL_PROBE[0])
    seconds = []
    for deals in EVAL_PROBE:
        began = run.clock.now()
        run.evaluation_of(model.policy, inputs, deals)
        seconds.append(run.clock.now() - began)
    if seconds[1] <= seconds[0]:
        return 0.0, EVAL_PROBE[1] / max(seconds[1], 1e-9)
    rate = (EVAL_PROBE[1] - EVAL_PROBE[0]) / (seconds[1] - seconds[0])
    return max(seconds[0] - EVAL_PROBE[0] / rate, 0.0), rate


# --- 5. the warm start -------------------------------------------------------------------------------------


def warm_start(run: Run, model) -> None:
    """Step 5: the teacher's games and behaviour cloning, inside the warm start's share; then the first
    checkpoint, which publishes the run's folder."""
    from aerodeck.train.warm_start import clone, held_out_text

    plan = run.plan
    if plan.teacher_games:
        began = run.clock.now()
        data, play_seconds = teacher_data(run)
        warm = run.config.warm_start
        before = {}

        def log(epoch, loss, accuracy, held_out):
            if not epoch:
                before["held_out"] = held_out
            else:
                model.logger.record("warm_start/loss", loss)
                model.logger.record("warm_start/accuracy", accuracy)
            if held_out is not None:
                model.logger.record("warm_start/held_out_accuracy", held_out)
            model.logger.dump(epoch)
            if run.progress:
                run.say(f"warm start: cloning epoch {epoch}/{warm.epochs}: loss {loss:.3f}, accuracy {accuracy:.3f}, "
                        f"held out {held_out_text(held_out)}" if epoch else
                        f"warm start: cloning {len(data['actions']):,} decisions; held out before the first epoch "
                        f"{held_out_text(held_out)}")

        accuracies = clone(model, data, warm.epochs, warm.batch_size, warm.learning_rate, run.seed, log,
                           fits=lambda s: plan.warm_start.fits(run.clock, s), now=run.clock.now)
        run.warm_start = {"teacher": warm.teacher, "opponent": warm.opponent or None, "player": warm.player or None,
                          "games": int(data["games"].max()) + 1,
                          "decisions": int(len(data["actions"])), "epochs": len(accuracies),
                          "accuracy": accuracies[-1][0] if accuracies else None,
                          "held_out_accuracy": accuracies[-1][1] if accuracies else None,
                          "held_out_accuracy_before": before.get("held_out"),
                          "play_seconds": round(play_seconds, 1), "seconds": round(run.clock.now() - began, 1),
                          "decisions_from": warm.decisions or None, "decisions_also": list(warm.also) or None}
        plan.warm_start.done(run.clock, began)
    if not run.resumed:
        run.checkpoint(model)
        run.say(f"wrote {run.out}/ (last.zip at step 0; --resume continues from there)")


def teacher_meta(run: Run) -> dict:
    """What made the run's teacher decisions (kept in ``warm_start.npz``; a saved file must match it)."""
    from aerodeck.agents.ppo import layout_of

    warm = run.config.warm_start
    return {"game": run.game.id, "rules": run.rules.to_dict(), "layout": layout_of(run.core), "teacher": warm.teacher,
            "opponent": warm.opponent, "player": warm.player, "seed": warm.seed, "teacher_seed": run.seed,
            "gamma": run.config.ppo.gamma}


def teacher_data(run: Run) -> tuple[dict, float]:
    """The teacher's decisions for the warm start and the seconds their games took: a saved file
    (``[warm_start] decisions``), or played now (saved as ``warm_start.npz``); then the saved decisions
    ``[warm_start] also`` names, added (not saved again, their seconds not counted)."""
    from tqdm.auto import tqdm

    from aerodeck.train import warm_start as ws

    warm, plan = run.config.warm_start, run.plan
    meta = teacher_meta(run)
    if warm.decisions:  # the decisions of an earlier run's teacher, made for the same run
        data, stored = ws.load_decisions(Path(warm.decisions), meta, plan.teacher_games)
        data["inputs"] = ws.reread_inputs(data, stored["inputs"], run.inputs, run.core.obs_size)
        return ws.with_more_decisions(data, warm.also, meta, run.inputs, run.core.obs_size), stored["play_seconds"]
    began = run.clock.now()
    first = int(run.teacher_parts[-1]["games"].max()) + 1 if run.teacher_parts else 0  # the probe's games
    chunk = warm.play_batch if plan.teacher_fit is None else \
        min(warm.play_batch, max(TEACHER_PROBE, math.ceil((plan.teacher_fit - first) / (4 * run.parallel))))
    deadline = plan.teacher_deadline
    with tqdm(total=plan.teacher_fit or plan.teacher_games, initial=first, unit="game",
              desc=f"warm start: teacher games ({warm.teacher})",
              disable=not run.progress, dynamic_ncols=True) as bar:
        parts = run.teacher_parts + ws.play_teacher(
            run.game.id, run.rules, warm, run.inputs.to_dict(), run.seed, run.config.ppo.gamma, plan.teacher_games,
            first=first, chunk=chunk, workers=warm.workers, now=run.clock.now, done=bar.update, backend=run.backend,
            fits=None if deadline is None else (lambda s: run.clock.now() + s <= deadline))
    run.teacher_parts = []
    data = ws.joined(parts)
    played = run.clock.now() - began
    games = int(data["games"].max()) + 1
    ws.save_decisions(run.folder / "warm_start.npz", data, {**meta, "inputs": run.inputs.to_dict(), "games": games,
                                                            "play_seconds": round(played, 1)})
    run.say(f"warm start: {games:,} teacher games, {len(data['actions']):,} decisions in {played:.0f} s")
    return ws.with_more_decisions(data, warm.also, meta, run.inputs, run.core.obs_size), played


# --- 6. PPO ------------------------------------------------------------------------------------------------


def learn(run: Run, model, venv, league) -> None:
    """Step 6: PPO until the session's steps or deadline, with evaluations, the best model and
    checkpoints. Ctrl-C (or SIGTERM) saves ``last.zip`` and stops with the command that continues the run."""
    from aerodeck.train.callbacks import RunCallbacks

    if league is not None:
        league.add_snapshot(model.policy, model.num_timesteps)
    steps = run.plan.ppo_steps or budgets.MAX_STEPS
    began = run.clock.now()
    callbacks = RunCallbacks(run, venv, league)
    try:
        model.learn(total_timesteps=steps, callback=callbacks, reset_num_timesteps=not run.resumed, tb_log_name="ppo")
    finally:
        callbacks.close()  # a Ctrl-C too: the bar ends its line before the run says anything more
        run.plan.ppo.done(run.clock, began)


# --- 7. the final evaluation and save ----------------------------------------------------------------------


def finish(run: Run, model, inputs) -> None:
    """Step 7: the final evaluation (unless the last one is of this model), ``last.zip``, a summary."""
    model.num_timesteps = max(run.trained_steps, run.steps_before)  # a rollout cut by the deadline is not trained on
    if not run.evaluated_at(model.num_timesteps):
        run.evaluate(model, inputs)
    from aerodeck.train.model import save_model

    save_model(model, run.folder / "last.zip", run.sidecar(model))
    model.logger.dump(model.num_timesteps)
    ev = run.evaluation
    run.say(f"{model.num_timesteps:,} steps ({run.budget.describe()} budget) in {run.seconds():.0f} s; evaluation "
            f"{ev['figure']} {ev['value']:.4g} [{ev['low']:.4g}, {ev['high']:.4g}] over {ev['games']:,} deals; best "
            f"{run.best:.4g}; wrote {run.out}/")
    from aerodeck.train.callbacks import changed

    run.say(changed(run.first_evaluation, ev))


def execute(run: Run) -> Path:
    """Steps 2–7 of ``run`` (step 1 made it); returns the run's folder."""
    if run.threads:
        import torch

        torch.set_num_threads(run.threads)
    venv, league = make_envs(run)                                     # 2. the environments
    model = make_model(run, venv)                                     # 3. the model
    model = make_plan(run, model, venv)                               # 4. the plan, announced
    with run.writing():
        run.open_log(model)
        try:
            warm_start(run, model)                                    # 5. the warm start, the first checkpoint
            learn(run, model, venv, league)                           # 6. PPO
            finish(run, model, venv.inputs)                           # 7. the final evaluation and save
        except KeyboardInterrupt as stop:
            if run.staging is not None and not run.staging.published:
                raise  # nothing worth keeping yet: the temporary folder goes
            from aerodeck.train.model import save_model

            model.num_timesteps = max(run.trained_steps, run.steps_before)  # a rollout cut short is not trained on
            save_model(model, run.folder / "last.zip", run.sidecar(model))
            raise type(stop)(f"saved last.zip at {model.num_timesteps:,} steps of {run.budget.describe()}; "
                             f"continue with: {run.resume_command()}") from None
        finally:
            model.logger.close()
    return run.out
