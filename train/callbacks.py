"""What happens while PPO learns: the progress bar, evaluations and the best model, checkpoints, the
throughput figures, the league's snapshots, and stopping at the budget's deadline."""

from __future__ import annotations

import csv

from stable_baselines3.common.callbacks import BaseCallback
from tqdm.auto import tqdm

#: Before the first update is timed, it is guessed to take the rollout's time divided by this (1: as
#: long as the rollout — on a busy CPU an update can take that long; a guess too short would overrun).
UPDATE_GUESS = 1


class RunCallbacks(BaseCallback):
    """The callbacks of a run (``run``: a ``aerodeck.train.run.Run``; ``venv``: its ``learner_env``; ``league``:
    its ``League`` or ``None``), in one object so their order stays visible. Everything they learn goes
    into ``run`` through its methods."""

    def __init__(self, run, venv, league) -> None:
        super().__init__()
        self.run, self.venv, self.league = run, venv, league
        self.latest = ""
        self.stop = False

    def _on_training_start(self) -> None:
        run = self.run
        self.start_steps = run.trained_steps = self.num_timesteps
        self.next_eval = self.num_timesteps + run.config.train.eval_every
        self.next_checkpoint = self.num_timesteps + run.config.train.checkpoint_every
        self.env_seconds_at_start = self.venv.env_seconds
        self.updates = 0
        self.iteration = 0.0  # seconds of the longest rollout + update so far
        self.update_seconds = 0.0  # of the longest update so far
        self.rollout_began = self.rollout_ended = None
        if not run.evaluated_at(self.num_timesteps) and run.may_evaluate():  # the start is a candidate for best
            result = run.evaluate(self.model, self.venv.inputs)
            self.log_evaluation(result)
            run.say(f"PPO: the starting policy: {describe(result)}")
        self.began = run.clock.now()
        self.bar = tqdm(total=run.plan.ppo_steps or 0, unit="step", unit_scale=True, desc="PPO",
                        disable=not run.progress, dynamic_ncols=True)
        if self.latest:
            self.bar.set_postfix_str(self.latest)

    def _on_rollout_start(self) -> None:
        run = self.run
        now = run.clock.now()
        if self.rollout_began is not None:
            self.iteration = max(self.iteration, now - self.rollout_began)
            self.update_seconds = max(self.update_seconds, now - self.rollout_ended)
        self.rollout_began = now
        if self.iteration and not run.plan.ppo.fits(run.clock, self.iteration):
            self.stop = True  # the next rollout and update would end past PPO's deadline
        self.rollout_env = self.venv.env_seconds
        self.rollout_steps = self.num_timesteps
        every = run.config.variants.resample_every
        if hasattr(self.venv, "resample") and self.updates and self.updates % every == 0:  # a rule-general run
            self.model._last_obs, rows = self.venv.resample(self.updates // every)
            self.model._last_episode_starts[rows] = True  # one group of games starts a new variant
            self.league = self.venv.league
        if self.league is not None and self.updates and self.updates % self.league.snapshot_every == 0:
            self.league.add_snapshot(self.model.policy, self.num_timesteps)
        self.updates += 1
        self.model.ent_coef = run.entropy_coefficient(self.num_timesteps)

    def _on_step(self) -> bool:
        run = self.run
        if self.stop:
            return False
        if self.league is not None:
            self.league.record(self.locals["infos"], self.locals["dones"])
        done = self.num_timesteps - self.start_steps
        deadline = run.plan.ppo.deadline
        if deadline is not None:  # a time budget: the bar's total follows the rate, so its ETA is the deadline
            elapsed = max(run.clock.now() - self.began, 1e-9)
            self.bar.total = max(done, int(done + done / elapsed * max(deadline - run.clock.now(), 0)))
        self.bar.update(min(done, self.bar.total) - self.bar.n)
        if self.num_timesteps >= self.next_eval:
            self.next_eval += run.config.train.eval_every
            if run.may_evaluate():
                self.evaluate()
        if self.num_timesteps >= self.next_checkpoint:
            self.next_checkpoint += run.config.train.checkpoint_every
            run.checkpoint(self.model, also_numbered=True)
        return deadline is None or self.rollout_fits(deadline)

    def rollout_fits(self, deadline: float) -> bool:
        """Whether the rollout under way and the update after it end by ``deadline``: the rollout at its
        pace so far, the update as long as the longest so far (before the first: a share of the rollout).
        A rollout stopped early is not trained on (SB3), so stopping keeps the run inside its budget. The
        pace is judged after an eighth of the rollout (its first steps are slow), the deadline always."""
        now = self.run.clock.now()
        size = self.model.n_steps * self.model.n_envs
        done = self.num_timesteps - self.rollout_steps
        if done < size / 8:
            return now < deadline
        rollout = (now - self.rollout_began) / done * size
        return self.rollout_began + rollout + (self.update_seconds or rollout / UPDATE_GUESS) <= deadline

    def _on_rollout_end(self) -> None:
        run = self.run
        run.trained_steps = self.num_timesteps  # a whole rollout: PPO trains on it next
        self.rollout_ended = run.clock.now()
        seconds = max(self.rollout_ended - self.rollout_began, 1e-9)
        total = max(run.clock.now() - self.began, 1e-9)
        steps = self.num_timesteps - self.rollout_steps
        record = self.logger.record
        record("time/rollout_steps_per_s", steps / seconds)
        record("time/env_steps_per_s", (self.num_timesteps - self.start_steps) / total)
        record("time/env_share", (self.venv.env_seconds - self.env_seconds_at_start) / total)
        record("time/env_share_of_rollout", (self.venv.env_seconds - self.rollout_env) / seconds)
        record("train/ent_coef", self.model.ent_coef)
        if self.league is not None:
            for name, value in self.league.figures().items():
                record(f"league/{name}", value)

    def _on_training_end(self) -> None:
        self.close()

    def close(self) -> None:
        """Close the progress bar (its line ends; nothing redraws it), if it was opened; again is a no-op."""
        if getattr(self, "bar", None) is not None:
            self.bar.close()

    def evaluate(self) -> None:
        """Evaluate the greedy policy now (the bar says so meanwhile), log it and keep the best model."""
        self.bar.set_postfix_str("evaluating…")
        self.log_evaluation(self.run.evaluate(self.model, self.venv.inputs))
        self.bar.set_postfix_str(self.latest)

    def log_evaluation(self, result: dict) -> None:
        """Record an evaluation for TensorBoard and the bar."""
        for key in ("value", "low", "high"):
            self.logger.record(f"eval/{result['figure']}" + ("" if key == "value" else f"_{key}"), result[key])
        if "difference" in result:
            self.logger.record(f"eval/difference_to_{result['opponent']}", result["difference"]["value"])
        self.latest = f"last evaluation {describe(result)}"


def describe(result: dict) -> str:
    """An evaluation in words: figure, value, interval, steps; the sampled policy's value and the share of
    decisions taken as the prior agent would, where measured."""
    more = [f"sampled {result['sampled']['value']:.3f}"] if "sampled" in result else []
    if "as_prior" in result:
        more.append(f"as the {result['as_prior']['agent']} on {100 * result['as_prior']['share']:.1f} %")
    return (f"{result['figure']} {result['value']:.3f} [{result['low']:.3f}, {result['high']:.3f}] "
            f"at {result['steps']:,} steps" + (f" ({'; '.join(more)})" if more else ""))


def _signed(x: float) -> str:
    return f"{x:+.4f}".replace("-", "\N{MINUS SIGN}")


def changed(first: dict | None, last: dict) -> str:
    """What a run changed, in words: its greedy policy's figure from the first evaluation (``first``, of the
    policy PPO started from; ``None`` if there was none) to the last (``last``), the share of decisions
    taken as the prior agent would, the solo game's paired difference to the opponent, the sampled
    policy's figure. Each part only where both evaluations measured it."""
    fig = last["figure"].replace("_", " ")
    start = first if first is not None and first.get("steps") != last.get("steps") else None
    head = (f"from step {start['steps']:,} to {last['steps']:,}: " if start else f"at step {last['steps']:,}: ")
    parts = [f"greedy play {fig} {start['value']:.4f} → {last['value']:.4f}" if start else
             f"greedy play {fig} {last['value']:.4f} (evaluated once)"]
    if "as_prior" in last:
        was = f" (at the start {100 * start['as_prior']['share']:.1f} %)" if start and "as_prior" in start else ""
        parts.append(f"plays as the {last['as_prior']['agent']} on {100 * last['as_prior']['share']:.1f} % of its "
                     f"decisions{was}")
    if "difference" in last:
        d = last["difference"]
        parts.append(f"{_signed(d['value'])} [{_signed(d['low'])}, {_signed(d['high'])}] against the "
                     f"{last['opponent']} on the same {last['games']:,} deals")
    elif "fair_share" in last:
        parts.append(f"fair share {last['fair_share']:.3f}")
    if "sampled" in last:
        parts.append(f"sampled play {start['sampled']['value']:.4f} → {last['sampled']['value']:.4f}"
                     if start and "sampled" in start else f"sampled play {last['sampled']['value']:.4f}")
    return "what the run changed, " + head + "; ".join(parts)


def append_evaluation(path, result: dict, seconds: float) -> None:
    """Add ``result`` (an evaluation at ``result["steps"]``, ``seconds`` into the run) as a row of the CSV
    ``path`` (its header first when new)."""
    new = not path.exists()
    difference = f"difference_to_{result['opponent']}"
    with open(path, "a", newline="") as f:
        if new:
            csv.writer(f).writerow(["steps", "seconds", "figure", "value", "low", "high", difference, "sampled_value",
                                    "as_prior_share"])
        csv.writer(f).writerow([result["steps"], round(seconds, 1), result["figure"], result["value"], result["low"],
                                result["high"], result.get("difference", {}).get("value", ""),
                                result.get("sampled", {}).get("value", ""), result.get("as_prior", {}).get("share", "")])
