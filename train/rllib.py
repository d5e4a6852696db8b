"""One RLlib training run as ``aerodeck train`` runs one: a budget, evaluations, checkpoints, Ctrl-C, resume.

``python -m aerodeck.train.rllib GAME --out D [--steps N | --minutes M]`` (or :func:`train`) trains RLlib's
PPO (``aerodeck.train.rllib_ppo``: the envs over the batched core, the masked module, the config) on a Ray
cluster or a local Ray and writes the run folder ``D``::

    run.json            the game, rules, settings, seed, budget, steps and wall seconds so far, last evaluation
    evaluations.csv     one row per evaluation (steps, seconds, figure, interval; as aerodeck train's)
    tb/                 TensorBoard event files: rollout/, time/, eval/
    last/               the RLlib checkpoint of the whole algorithm (what --resume continues), and aerodeck.json
    best/               the RLModule of the best evaluation, and aerodeck.json (what rllib:path=D plays)

- Budget (``aerodeck.train.budget``): ``--steps N`` env steps, or ``--minutes M`` of wall time counted from
  the command's start (Ray's start and the algorithm's build included); an update is started only if it
  and the final evaluation fit, so the run ends within the budget plus its final save.
- Evaluations: at the start, every ``--evaluate-every`` env steps and at the end, the greedy policy on
  the same held-out deals each time (:func:`measure`): the evaluation deals of the benchmark task of the
  run's game, rules and opponents (``aerodeck.bench.tasks``, e.g. ``as-standard-v0``,
  ``ft4-heuristic-v0``: raw and normalized score), else ``aerodeck train``'s evaluation on the deals of
  ``[train] eval_seed`` (a solo game's mean score beside the game's opponent on the same deals, a
  multi-player game's win rate against it). No training deal is an evaluation deal: every training
  seed has its top bit clear, every task's evaluation seed has it set.
- The folder is written in a temporary sibling until the first checkpoint (after the first evaluation)
  publishes it; every checkpoint replaces ``last/`` (and ``best/``) as a whole.
- Ctrl-C or SIGTERM: the update under way ends, ``last/`` is saved, one line says how to continue, exit
  130 / 143 (a second signal stops at once; the folder keeps its last checkpoint).
- ``--resume``: the run in ``D`` continues from ``last/`` to its total budget (or ``--steps``/``--minutes``
  more), on new training deals, with its own rules, settings and seed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import json
import math
import os
import shlex
import shutil
import signal
import sys
import threading
from pathlib import Path

from aerodeck import envs
from aerodeck.train.budget import Budget, Clock, check_minutes, check_steps
from aerodeck.train.rllib_ppo import (  # noqa: F401  (the envs, the module and the config, from here too)
    SHARED, CoreVectorEnv, LearnerVectorEnv, ModuleAgent, Setup, against_random, agent_id, env_steps,
    masked_module_class, multi_agent_env, policy_module, ppo_config, timed_train, torch_threads, train_iterations,
    training_deals)

#: The run's record, the checkpoints, the evaluations.
RUN_FILE, LAST, BEST, EVALUATIONS = "run.json", "last", "best", "evaluations.csv"
#: What each checkpoint folder holds besides RLlib's files: what the ``rllib`` agent checks.
SIDECAR = "aerodeck.json"
#: A new run's budget when none is given (env steps).
DEFAULT_STEPS = 50_000
#: Deals of each evaluation (default).
EVAL_GAMES = 200
#: The evaluation deals' seed when no benchmark task fits (``aerodeck train``'s ``[train] eval_seed``).
EVAL_SEED = 1_000_003
#: Updates between evaluations under a ``--minutes`` budget (default).
UPDATES_PER_EVALUATION = 4


def say(text: str) -> None:
    """Announce ``text`` on stderr."""
    print(f"aerodeck rllib: {text}", file=sys.stderr, flush=True)


def resume_command(game: str, out: Path) -> str:
    """The command that continues the run in ``out``."""
    return " ".join(shlex.quote(w) for w in ["python", "-m", "aerodeck.train.rllib", game, "--out", str(out), "--resume"])


# --- the evaluations -------------------------------------------------------------------------------------

def evaluation_task(spec, rules, opponents: tuple[str, ...] = ()):
    """The benchmark task (``aerodeck.bench.tasks``) whose held-out deals a run's evaluations play: one
    of the run's game and rules (not a rules-generalization task nor a population), and for a run
    against fixed opponents, with those opponents; ``None`` where none fits."""
    try:
        from aerodeck.bench import tasks
    except ImportError:
        return None
    n = spec.players(rules)
    want = () if spec.solo or not opponents else tuple(opponents) * (n - 1) if len(opponents) == 1 else tuple(opponents)
    for name in tasks.names():
        try:
            task = tasks.task(name)
        except ValueError:  # a task whose data is not there yet
            continue
        if (task.game == spec.id and not task.general and not task.population and task.rules == rules
                and (not want or task.opponents == want)):
            return task
    return None


def measure(run: Run, module) -> dict:
    """The greedy policy of ``module`` evaluated on the run's held-out deals: a fitting benchmark task's
    (:func:`evaluation_task`: its raw score with its interval, and the normalized score, random = 0 and
    heuristic = 1, where the task has references), else ``aerodeck train``'s evaluation on the deals of
    :data:`EVAL_SEED` (``aerodeck.train.model.evaluate``; the training deals all have the top bit clear,
    as ``aerodeck.bench.tasks.training_seeds``'s)."""
    task = evaluation_task(run.game, run.rules, run.setup.opponents)
    if task is not None:
        ev = task.evaluate(lambda rules: ModuleAgent(module), games=run.eval_games)
        out = {"figure": "tickets" if run.game.solo else "win_share", "value": ev.raw.value, "low": ev.raw.low,
               "high": ev.raw.high, "games": ev.games, "deals": f"task {task.name}"}
        if ev.normalized is not None:
            out["normalized"] = {k: getattr(ev.normalized, k) for k in ("value", "low", "high")}
        return out
    from aerodeck.train.model import evaluate as played

    return {**played(run.game, run.rules, ModuleAgent(module), run.eval_games, EVAL_SEED), "deals": f"seed {EVAL_SEED}"}


#: The columns of ``evaluations.csv``.
COLUMNS = ("steps", "seconds", "deals", "figure", "value", "low", "high", "normalized", "normalized_low",
           "normalized_high", "opponent", "difference")


def append_row(path: Path, result: dict, seconds: float) -> None:
    """``result`` as a row of ``evaluations.csv`` (its header first when new)."""
    import csv

    new = not path.exists()
    norm, diff = result.get("normalized") or {}, result.get("difference") or {}
    with open(path, "a", newline="") as f:
        if new:
            csv.writer(f).writerow(COLUMNS)
        csv.writer(f).writerow([result["steps"], round(seconds, 1), result["deals"], result["figure"], result["value"],
                                result["low"], result["high"], norm.get("value", ""), norm.get("low", ""),
                                norm.get("high", ""), result.get("opponent", ""), diff.get("value", "")])


# --- checkpoints ------------------------------------------------------------------------------------------

def replace_folder(target: Path, write) -> None:
    """``write(folder)`` into a new sibling of ``target``, then that folder in place of ``target`` as a
    whole (the old one moved aside, then deleted): ``target`` is never half-written."""
    new, old = target.with_name(f".{target.name}.new"), target.with_name(f".{target.name}.old")
    shutil.rmtree(new, ignore_errors=True)
    write(new)
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        os.rename(target, old)
    os.rename(new, target)
    shutil.rmtree(old, ignore_errors=True)


def recover_folder(target: Path) -> None:
    """Put back ``target`` from its moved-aside copy if a run was killed between the two moves of
    :func:`replace_folder`."""
    old = target.with_name(f".{target.name}.old")
    if not target.exists() and old.is_dir():
        os.rename(old, target)


def write_json(path: Path, data: dict) -> None:
    from aerodeck.arena.output import write_file

    write_file(path, json.dumps(data, indent=1) + "\n")


# --- Ctrl-C and SIGTERM -----------------------------------------------------------------------------------

class Stops:
    """While active: Ctrl-C and SIGTERM are noted (``signal``) for the run to stop after the update under
    way; a second one raises at once."""

    def __init__(self) -> None:
        self.signal: int | None = None
        self.previous: dict = {}

    def _note(self, signum, frame) -> None:
        if self.signal is not None:
            raise stop_exception(signum)("stopped at once by a second signal")
        self.signal = signum
        say("stopping after the update under way (send it again to stop at once)")

    def __enter__(self) -> Stops:
        if threading.current_thread() is threading.main_thread():
            for s in (signal.SIGINT, signal.SIGTERM):
                self.previous[s] = signal.signal(s, self._note)
        return self

    def __exit__(self, *exc) -> None:
        for s, handler in self.previous.items():
            signal.signal(s, handler)


def stop_exception(signum: int) -> type[KeyboardInterrupt]:
    """``KeyboardInterrupt`` for SIGINT, the CLI's ``Terminated`` (exit 143) for SIGTERM."""
    from aerodeck.arena.stopping import Terminated

    return Terminated if signum == signal.SIGTERM else KeyboardInterrupt


# --- the run ----------------------------------------------------------------------------------------------

@dataclasses.dataclass
class Run:
    """One RLlib run's state: what ``run.json`` records, and the session under way."""

    game: object
    rules: object
    setup: object
    budget: Budget
    session: Budget
    out: Path
    command: str
    evaluate_every: int
    eval_games: int
    clock: Clock
    resumed: bool = False
    steps_before: int = 0
    seconds_before: float = 0.0
    steps: int = 0
    best: float = -math.inf
    evaluation: dict | None = None
    first_evaluation: dict | None = None
    staging: object = None
    writer: object = None
    eval_seconds: float = 0.0
    #: Seconds one update is expected to take before one has been timed (:func:`probe`).
    update_estimate: float = 0.0

    @property
    def folder(self) -> Path:
        return self.staging.path if self.staging is not None else self.out

    def seconds(self) -> float:
        return self.seconds_before + self.clock.now()

    def record(self) -> dict:
        from aerodeck.agents.ppo import package_version

        return {"game": self.game.id, "rules": self.rules.to_dict(), "setup": setup_dict(self.setup),
                "budget": self.budget.to_dict(), "steps": self.steps, "wall_seconds": round(self.seconds(), 1),
                "evaluate_every": self.evaluate_every, "eval_games": self.eval_games,
                "evaluation": self.evaluation, "first_evaluation": self.first_evaluation, "best": self.best_value(),
                "command": self.command, "aerodeck_version": package_version(),
                "saved": datetime.datetime.now().isoformat(timespec="seconds")}

    def best_value(self):
        return None if self.best == -math.inf else self.best

    def sidecar(self, module_id: str) -> dict:
        core = self.game.make_core(self.rules)
        return {"game": self.game.id, "rules": self.rules.to_dict(), "module": module_id,
                "obs_size": core.obs_size, "n_actions": core.n_actions, "steps": self.steps,
                "evaluation": self.evaluation, "command": self.command}

    def open_writer(self) -> None:
        from torch.utils.tensorboard import SummaryWriter

        if self.writer is not None:
            self.writer.close()
        self.writer = SummaryWriter(str(self.folder / "tb"))


def setup_dict(setup) -> dict:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(setup).items()}


def module_id(algo) -> str:
    from ray.rllib.core import DEFAULT_MODULE_ID

    return SHARED if SHARED in algo.config.policies else DEFAULT_MODULE_ID


def evaluate(run: Run, algo) -> dict:
    """The greedy policy's evaluation now (:func:`measure`): a row of ``evaluations.csv``, TensorBoard's
    ``eval/``, ``best/`` when it is the best so far."""
    began = run.clock.now()
    module = policy_module(algo)
    result = {**measure(run, module), "steps": run.steps}
    run.evaluation = result
    run.first_evaluation = run.first_evaluation or result
    append_row(run.folder / EVALUATIONS, result, run.seconds())
    for key in ("value", "low", "high"):
        run.writer.add_scalar(f"eval/{result['figure']}" + ("" if key == "value" else f"_{key}"), result[key], run.steps)
    if "normalized" in result:
        run.writer.add_scalar("eval/normalized", result["normalized"]["value"], run.steps)
    if "difference" in result:
        run.writer.add_scalar(f"eval/difference_to_{result['opponent']}", result["difference"]["value"], run.steps)
    run.writer.flush()
    if result["value"] > run.best:
        run.best = result["value"]
        mid = module_id(algo)

        def write(folder: Path) -> None:
            module.save_to_path(str(folder.resolve()))
            write_json(folder / SIDECAR, run.sidecar(mid))

        replace_folder(run.folder / BEST, write)
    run.eval_seconds = max(run.eval_seconds, run.clock.now() - began)
    normalized = f", normalized {result['normalized']['value']:.3f}" if "normalized" in result else ""
    say(f"evaluation at {run.steps:,} steps: {result['figure']} {result['value']:.3f} [{result['low']:.3f}, "
        f"{result['high']:.3f}]{normalized} on {result['games']:,} held-out deals ({result['deals']}); best {run.best:.3f}")
    return result


def checkpoint(run: Run, algo) -> None:
    """``last/`` (the whole algorithm) and ``run.json``; the first one publishes the folder."""
    mid = module_id(algo)
    record = run.record()  # (its wall seconds: up to the save)

    def write(folder: Path) -> None:
        algo.save_to_path(str(folder.resolve()))
        write_json(folder / SIDECAR, run.sidecar(mid))

    replace_folder(run.folder / LAST, write)
    write_json(run.folder / RUN_FILE, record)
    if run.staging is not None and not run.staging.published:
        run.writer.close()
        run.staging.publish()
        run.open_writer()


def probe(setup, spec, rules, seconds: float = 1.0) -> float:
    """The seconds one PPO update of ``setup`` is expected to take here, measured on a fresh module:
    sampling (the env stepped with the module's forward pass, for about ``seconds``) for the batch, plus
    the SGD steps of its epochs and minibatches (three timed after one), plus half a second of RLlib's own."""
    import time

    import torch
    from ray.rllib.core.columns import Columns

    from aerodeck.train import rllib_ppo as rllib  # (its private helpers)

    if spec.solo or setup.opponents:
        env = rllib._solo_env(spec.id, rules, {"num_envs": setup.envs_per_runner}, setup.deals(), setup.opponents)
        batched = True
    else:
        env = rllib.multi_agent_env({"game": spec.id, "rules": rules, "seed": setup.deals(), "env": setup.multi_env})
        batched = False
    core = spec.make_core(rules)
    space, action = rllib._spaces(core)
    module = rllib.masked_module_class()(observation_space=space, action_space=action, model_config={
        "fcnet_hiddens": list(setup.hidden), "fcnet_activation": "tanh", "head_fcnet_hiddens": []})
    obs, _ = env.reset(seed=setup.deals())
    steps, began = 0, time.perf_counter()
    with torch.no_grad():
        while time.perf_counter() - began < seconds or steps < 8:
            if batched:
                x = {k: torch.as_tensor(v) for k, v in obs.items()}
            else:
                (agent, view), = obs.items()
                x = {k: torch.as_tensor(v)[None] for k, v in view.items()}
            logits = module.forward_exploration({Columns.OBS: x})[Columns.ACTION_DIST_INPUTS]
            actions = torch.distributions.Categorical(logits=logits).sample().numpy()
            if batched:
                obs, *_ = env.step(actions)
                steps += len(actions)
            else:
                obs, _, terminated, _, _ = env.step({agent: int(actions[0])})
                steps += 1
                if terminated["__all__"]:
                    obs, _ = env.reset()
    rate = steps / (time.perf_counter() - began)
    batch = {Columns.OBS: {"observation": torch.rand(setup.minibatch, core.obs_size),
                           "action_mask": torch.ones(setup.minibatch, core.n_actions)}}
    optimizer = torch.optim.Adam(module.parameters(), lr=setup.lr)
    for i in range(4):
        if i == 1:
            began = time.perf_counter()
        out = module.forward_train(batch)
        loss = out[Columns.ACTION_DIST_INPUTS].logsumexp(-1).mean() + module.compute_values(batch).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    sgd = (time.perf_counter() - began) / 3
    return setup.batch / rate + setup.epochs * math.ceil(setup.batch / setup.minibatch) * sgd + 0.5


def fit_batch(run: Run) -> None:
    """Under ``--minutes``: time an update (:func:`probe`) and, in a new run whose updates would not fit
    :data:`UPDATES_PER_EVALUATION` times in 60 % of the time left (the rest for building the algorithm
    and the evaluations), shorten the batch to fit, saying so."""
    if run.session.minutes is None:
        return
    left = run.session.minutes * 60 - run.clock.now()
    estimate = probe(run.setup, run.game, run.rules)
    allowed = 0.6 * left / UPDATES_PER_EVALUATION
    if estimate > allowed and not run.resumed:
        setup = run.setup
        batch = max(setup.envs_per_runner, int(setup.batch * allowed / estimate) // setup.envs_per_runner * setup.envs_per_runner)
        if batch < setup.batch:
            say(f"an update of {setup.batch:,} steps would take about {estimate:.1f} s here; the batch is "
                f"{batch:,} steps so that {UPDATES_PER_EVALUATION} updates fit the {left:.0f} s left")
            run.setup = dataclasses.replace(setup, batch=batch, minibatch=min(setup.minibatch, batch))
            run.evaluate_every = min(run.evaluate_every, UPDATES_PER_EVALUATION * batch)
            estimate *= batch / setup.batch
    run.update_estimate = 1.5 * estimate  # the first update's own start-up besides


def sampled(result: dict) -> int:
    """The env steps one ``algo.train()`` sampled."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED

    return int(result.get(ENV_RUNNER_RESULTS, {}).get(NUM_ENV_STEPS_SAMPLED, 0))


def learn(run: Run, algo) -> None:
    """Updates until the session's budget is spent, evaluations and checkpoints between them; Ctrl-C or
    SIGTERM saves ``last/`` after the update under way and raises."""
    session_steps, durations = 0, []
    next_eval = (run.steps // run.evaluate_every + 1) * run.evaluate_every
    deadline = None if run.session.minutes is None else run.session.minutes * 60
    with Stops() as stops:
        while True:
            if stops.signal is not None:
                checkpoint(run, algo)
                raise stop_exception(stops.signal)(
                    f"saved {LAST}/ at {run.steps:,} steps of {run.budget.describe()}; continue with: "
                    f"{resume_command(run.game.id, run.out)}")
            if run.session.steps is not None and session_steps >= run.session.steps:
                break
            if deadline is not None:
                update = max(durations[-3:], default=run.update_estimate)
                if run.clock.now() + update + run.eval_seconds > deadline:
                    break
            began = run.clock.now()
            result = algo.train()
            durations.append(run.clock.now() - began)
            steps = sampled(result)
            session_steps += steps
            run.steps += steps
            ret = result.get("env_runners", {}).get("episode_return_mean")
            if ret is not None and not math.isnan(ret):
                run.writer.add_scalar("rollout/episode_return_mean", ret, run.steps)
            run.writer.add_scalar("time/env_steps_per_second", steps / max(durations[-1], 1e-9), run.steps)
            say(f"{run.steps:,} steps ({run.budget.describe()} budget), {steps / max(durations[-1], 1e-9):,.0f} "
                f"steps/s; mean episode return {'n/a' if ret is None else f'{ret:.3f}'}")
            if run.steps >= next_eval:
                next_eval = (run.steps // run.evaluate_every + 1) * run.evaluate_every
                fits = deadline is None or run.clock.now() + 2 * run.eval_seconds + max(durations[-3:]) <= deadline
                if fits and stops.signal is None:
                    evaluate(run, algo)
                    checkpoint(run, algo)


def finish(run: Run, algo) -> None:
    """The final evaluation (unless the last is of these weights) and checkpoint, and a summary."""
    if run.evaluation is None or run.evaluation.get("steps") != run.steps:
        evaluate(run, algo)
    checkpoint(run, algo)
    ev = run.evaluation
    say(f"{run.steps:,} steps ({run.budget.describe()} budget) in {run.seconds():.0f} s; evaluation {ev['figure']} "
        f"{ev['value']:.4g} [{ev['low']:.4g}, {ev['high']:.4g}]; best {run.best:.4g}; wrote {run.out}/")


@contextlib.contextmanager
def local_ray(address: str | None, cpus: int | None):
    """Ray started here (``ValueError`` in one line when the cluster is unreachable) and shut down at the
    end, or the Ray already running, left running."""
    import logging

    import ray

    if ray.is_initialized():
        yield
        return
    if address is not None:
        from aerodeck.arena.backends import check_reachable

        check_reachable(address)
    try:
        ray.init(address=address, num_cpus=cpus if address is None else None, include_dashboard=False,
                 log_to_driver=False, logging_level=logging.ERROR)
    except Exception as err:  # Ray raises ConnectionError, RuntimeError, ... for a bad address
        raise ValueError(f"cannot reach {'the Ray cluster at ' + repr(address) if address else 'a local Ray'}: {err}") from None
    try:
        yield
    finally:
        ray.shutdown()


def _budgets(steps: int | None, minutes: float | None) -> tuple[int | None, float | None]:
    if steps is not None and minutes is not None:
        raise ValueError("give --steps or --minutes, not both")
    return (None if steps is None else check_steps(steps)), (None if minutes is None else check_minutes(minutes))


def train(game: str, out: str | Path, *, rules=None, steps: int | None = None, minutes: float | None = None,
          seed: int = 0, opponents=(), evaluate_every: int | None = None, eval_games: int = EVAL_GAMES, setup=None,
          resume: bool = False, address: str | None = None, cpus: int | None = None, command: str = "",
          clock: Clock | None = None, task: str | None = None) -> Path:
    """Train ``game`` with RLlib's PPO into the run folder ``out`` (see the module docstring) and return it.

    ``steps`` (env steps) or ``minutes`` (wall time from ``clock``'s start; default now): the budget
    (default :data:`DEFAULT_STEPS` steps); with ``resume``, more than the run has used (neither: continue
    to its total). ``opponents``: a multi-player game's fixed opponents (agent specs, one for every other
    seat or one per seat offset), else self-play with one shared policy. ``setup``: an
    ``aerodeck.train.rllib.Setup`` (scale and PPO settings; its seed and opponents are replaced by
    ``seed`` and ``opponents``). ``evaluate_every``: env steps between evaluations (default: a quarter of a
    ``--steps`` budget, or :data:`UPDATES_PER_EVALUATION` updates). ``address``/``cpus``: the Ray cluster, or
    a local Ray's CPUs, when Ray is not running yet. ``task``: a benchmark task's name
    (``aerodeck.bench.tasks``, e.g. ``ft4-heuristic-v0``) whose rules and opponents the run takes, so that
    its evaluations are the task's. ``ValueError`` (one line) for bad input, before Ray starts where it can
    be checked before."""
    clock = clock or Clock()
    out = Path(out)
    steps, minutes = _budgets(steps, minutes)
    spec = envs.spec(game)
    if eval_games < 1:
        raise ValueError(f"--eval-games must be at least 1, got {eval_games}")
    if evaluate_every is not None and evaluate_every < 1:
        raise ValueError(f"--evaluate-every must be at least 1 step, got {evaluate_every}")
    if resume:
        run = resumed(spec, out, steps, minutes, command, clock, evaluate_every)
    else:
        from aerodeck.train.run import check_new_out

        check_new_out(out)
        if task is not None:
            rules, opponents = task_settings(spec, task, rules, opponents)
        rules = rules if rules is not None else spec.rules_class()()
        opponents = tuple(opponents or ())
        if opponents and spec.solo:
            raise ValueError(f"{spec.id} is played solo: --opponent applies to multi-player games")
        if opponents:
            from aerodeck.agents.registry import make_agent

            for o in dict.fromkeys(opponents):  # a bad spec is refused before Ray starts
                make_agent(spec.id, o, rules, seed=0)
        total = Budget(steps=steps) if steps else Budget(minutes=minutes) if minutes else Budget(steps=DEFAULT_STEPS)
        setup = dataclasses.replace(setup or Setup(), seed=seed, opponents=opponents)
        if total.steps is not None and total.steps < setup.batch:  # one update of the whole budget
            batch = max(setup.envs_per_runner, total.steps)
            setup = dataclasses.replace(setup, batch=batch, minibatch=min(setup.minibatch, batch))
        every = evaluate_every or (max(setup.batch, math.ceil(total.steps / 4)) if total.steps
                                   else UPDATES_PER_EVALUATION * setup.batch)
        run = Run(spec, rules, setup, total, total, out, command or f"python -m aerodeck.train.rllib {spec.id}",
                  every, eval_games, clock)
    return execute(run, address, cpus)


def task_settings(spec, name: str, rules, opponents) -> tuple[object, tuple[str, ...]]:
    """The rules and opponents of the benchmark task ``name`` for a run of ``spec``'s game; ``ValueError``
    for a task of another game, one this training does not serve (a rules-generalization or population
    task), or rules or opponents given besides."""
    from aerodeck.bench import tasks

    task = tasks.task(name)
    if task.game != spec.id:
        raise ValueError(f"--task {name} is a task of {task.game}, not {spec.id}")
    if task.general or task.population:
        raise ValueError(f"--task {name}: a {'rules-generalization' if task.general else 'population'} task is not "
                         "trained with RLlib here; tasks: " + ", ".join(
                             n for n in tasks.names() if n in tasks.SPECS and not tasks.task(n).population))
    if rules is not None or opponents:
        raise ValueError(f"--task {name} sets the rules and the opponents: drop --rule/--players/--opponent")
    return task.rules, task.opponents


def resumed(spec, out: Path, steps, minutes, command: str, clock: Clock, evaluate_every) -> Run:
    """The run in ``out``, to be continued (reads only ``run.json``)."""
    recover_folder(out / LAST)
    path = out / RUN_FILE
    if not path.is_file() or not (out / LAST).is_dir():
        raise ValueError(f"--resume: {out} holds no RLlib run ({RUN_FILE} and {LAST}/ are written at its first checkpoint)")
    before = json.loads(path.read_text(encoding="utf-8"))
    if before.get("game") != spec.id:
        raise ValueError(f"--resume: {out} holds a {before.get('game')} run, not {spec.id}")
    fields = {f.name for f in dataclasses.fields(Setup)}
    raw = {k: tuple(v) if isinstance(v, list) else v for k, v in before["setup"].items() if k in fields}
    done, used = int(before["steps"]), float(before["wall_seconds"])
    setup = dataclasses.replace(Setup(**raw), env_seed=(raw["seed"] + done + 1) % 2**63)  # new training deals
    total = Budget.from_dict(before["budget"]).extended(steps, minutes, done, used)
    session = total.left(done, used)
    if session is None:
        raise ValueError(f"--resume: the run in {out} has reached its total of {total.describe()}; "
                         "give --steps N or --minutes M to train more")
    run = Run(spec, spec.rules_class().from_options(before["rules"]), setup, total, session, out,
              command or resume_command(spec.id, out), evaluate_every or int(before["evaluate_every"]),
              int(before["eval_games"]), clock, resumed=True, steps_before=done, seconds_before=used, steps=done,
              evaluation=before.get("evaluation"), first_evaluation=before.get("first_evaluation"))
    run.best = before["best"] if before.get("best") is not None else -math.inf
    return run


def execute(run: Run, address: str | None, cpus: int | None) -> Path:
    """Build the algorithm (from ``last/`` when resumed), train, evaluate and save; returns the folder."""
    from aerodeck.arena.output import OutputFolder
    torch_threads(run.setup.threads)
    with local_ray(address, cpus):
        fit_batch(run)
        say(f"{run.game.id}, {run.rules.label()}: {'continuing to' if run.resumed else 'budget'} {run.budget.describe()}"
            + (f" ({run.session.describe()} left)" if run.resumed else "") + f"; "
            + (f"against {', '.join(run.setup.opponents)}" if run.setup.opponents else
               "solo" if run.game.solo else "self-play") + f"; evaluations every {run.evaluate_every:,} steps; {run.out}")
        algo = ppo_config(run.game.id, run.rules, run.setup).build_algo()
        try:
            if run.resumed:
                algo.restore_from_path(str((run.out / LAST).resolve()))
                run.open_writer()
                learn(run, algo)
                finish(run, algo)
            else:
                with OutputFolder(run.out, command=run.command).staged() as staging:
                    run.staging = staging
                    run.open_writer()
                    evaluate(run, algo)
                    checkpoint(run, algo)  # publishes the folder
                    say(f"wrote {run.out}/ ({LAST}/ at step 0; --resume continues from there)")
                    learn(run, algo)
                    finish(run, algo)
        finally:
            if run.writer is not None:
                run.writer.close()
            algo.stop()
    return run.out


def main(argv=None) -> int:
    """``python -m aerodeck.train.rllib GAME``: RLlib's PPO on a Ray cluster (or a local Ray) with a budget,
    evaluations, checkpoints and ``--resume``; exit 2 with one line for bad input, 130/143 on Ctrl-C/SIGTERM."""
    import argparse
    import time

    began = time.perf_counter()
    from aerodeck.arena.args import load_rules
    from aerodeck.arena.stopping import Terminated
    from aerodeck.arena.stopping import terminate
    p = argparse.ArgumentParser(prog="python -m aerodeck.train.rllib", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", choices=envs.games())
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--steps", type=int, metavar="N", help=f"env steps to train (default {DEFAULT_STEPS:,}); "
                        "with --resume: N more")
    budget.add_argument("--minutes", type=float, metavar="M", help="minutes of wall time for the whole job (Ray's "
                        "start, evaluations and checkpoints included; only the final save comes after); with --resume: M more")
    p.add_argument("--out", type=Path, required=True, help="the run folder")
    p.add_argument("--resume", action="store_true", help="continue the run in --out to its total budget")
    p.add_argument("--opponent", dest="opponents", action="append", default=[], metavar="AGENT",
                   help="multi-player games: a fixed opponent (agent spec) for every other seat, or repeat once per "
                        "seat offset 1..n-1; none: self-play with one shared policy")
    p.add_argument("--task", metavar="NAME", help="a benchmark task (aerodeck tasks) whose rules and opponents the run "
                   "takes, e.g. as-standard-v0, ft4-heuristic-v0; its evaluation deals are the run's")
    p.add_argument("--evaluate-every", type=int, metavar="N", help="env steps between evaluations (default: a "
                   f"quarter of --steps, or {UPDATES_PER_EVALUATION} updates under --minutes)")
    p.add_argument("--eval-games", type=int, default=EVAL_GAMES, help=f"deals of each evaluation (default {EVAL_GAMES})")
    p.add_argument("--address", help="the Ray cluster's address (default: a local Ray on the local CPUs)")
    p.add_argument("--cpus", type=int, help="without --address: the local Ray's CPUs (default all)")
    p.add_argument("--env-runners", type=int, default=0, help="Ray actors sampling games (default 0: the driver samples)")
    p.add_argument("--envs-per-runner", type=int, default=64, help="games each runner steps at once (default 64)")
    p.add_argument("--batch", type=int, default=2048, help="env steps per update, all runners together (default 2048)")
    p.add_argument("--minibatch", type=int, default=256, help="minibatch of each SGD step (default 256)")
    p.add_argument("--epochs", type=int, default=4, help="passes over each batch (default 4)")
    p.add_argument("--lr", type=float, default=3e-4, help="learning rate (default 3e-4)")
    p.add_argument("--threads", type=int, default=1, help="CPU threads torch uses in the driver and each env runner "
                   "(default 1; 0: torch's own choice, one per core, often far slower on a busy machine)")
    p.add_argument("--players", type=int, help="multi-player games: number of players")
    p.add_argument("--rule", dest="rule_items", action="append", default=[], metavar="KEY=VALUE",
                   help="a rule option (repeat)")
    p.add_argument("--seed", type=int, default=None, help="seed of the games and the network (default 0)")
    args = p.parse_args(argv)
    previous = signal.signal(signal.SIGTERM, terminate) if threading.current_thread() is threading.main_thread() else None
    try:
        for flag, value in (("--envs-per-runner", args.envs_per_runner), ("--batch", args.batch),
                            ("--minibatch", args.minibatch), ("--epochs", args.epochs)):
            if value < 1:
                raise ValueError(f"{flag} must be at least 1, got {value}")
        if args.env_runners < 0:
            raise ValueError(f"--env-runners must be 0 or more, got {args.env_runners}")
        if args.threads < 0:
            raise ValueError(f"--threads must be 0 (torch's choice) or more, got {args.threads}")
        if args.address is not None and args.cpus is not None:
            raise ValueError("--cpus applies to a local Ray (no --address)")
        if not (args.lr > 0 and math.isfinite(args.lr)):
            raise ValueError(f"--lr must be a positive number, got {args.lr}")
        spec = envs.spec(args.game)
        command = " ".join(shlex.quote(w) for w in ["python", "-m", "aerodeck.train.rllib", *(argv or sys.argv[1:])])
        clock = Clock(began=began)
        if args.resume:
            if args.rule_items or args.players or args.opponents or args.seed is not None or args.task:
                raise ValueError("--resume continues a run with its own rules, opponents and seed; "
                                 "drop --rule/--players/--opponent/--seed/--task")
            train(spec.id, args.out, steps=args.steps, minutes=args.minutes, resume=True, address=args.address,
                  cpus=args.cpus, command=command, clock=clock, evaluate_every=args.evaluate_every)
            return 0
        if args.resume is False and args.task is not None and (args.rule_items or args.players or args.opponents):
            raise ValueError(f"--task {args.task} sets the rules and the opponents: drop --rule/--players/--opponent")
        rules = None if args.task is not None else load_rules(spec, None, args.rule_items, None, players=args.players)
        setup = Setup(env_runners=args.env_runners, envs_per_runner=args.envs_per_runner, batch=args.batch,
                      minibatch=min(args.minibatch, args.batch), epochs=args.epochs, lr=args.lr,
                      threads=args.threads or None)
        train(spec.id, args.out, rules=rules, steps=args.steps, minutes=args.minutes, seed=args.seed or 0,
              opponents=args.opponents, evaluate_every=args.evaluate_every, eval_games=args.eval_games, setup=setup,
              address=args.address, cpus=args.cpus, command=command, clock=clock, task=args.task)
        return 0
    except (ValueError, OSError) as err:
        print(f"python -m aerodeck.train.rllib: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        how = "terminated" if isinstance(stop, Terminated) else "interrupted"
        print(f"python -m aerodeck.train.rllib: {how}; {stop}" if str(stop) else
              f"python -m aerodeck.train.rllib: {how} (an unfinished run writes nothing)", file=sys.stderr)
        return 143 if isinstance(stop, Terminated) else 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    raise SystemExit(main())
