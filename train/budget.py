"""One budget for the whole training job, and how its stages share it.

A run's budget is a total — PPO steps (``--steps``) or minutes of wall time (``--minutes``) — kept in
every sidecar, so ``--resume`` continues to the same total (or adds ``--steps``/``--minutes`` more).
:class:`Plan` divides it among the stages and says so before they start:

- ``--steps N``: PPO plays N steps; the warm start's teacher games and the evaluation deals are the
  config's scaled by N / ``[train] steps`` (a warm start scaled below ``[budget] min_teacher_games``
  is skipped, and the plan says how to get the full one);
- ``--minutes M``: every stage ends by its deadline on one clock — the warm start within ``[budget]
  warm_start`` of M (its teacher playing until two thirds of it, its chunks sized by a measured rate,
  its cloning stopped at the deadline), the evaluations within ``[budget] evaluation`` of M (their
  deals sized by a measured rate), PPO the rest, stopping before an update that would not fit; only
  the final save comes after.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable

#: The largest ``--steps``: a billion PPO steps is days of training on a CPU (a few thousand steps/s);
#: longer runs are trained in sessions with ``--resume``.
MAX_STEPS = 1_000_000_000
#: The largest ``--minutes``: a week; longer runs are trained in sessions with ``--resume``.
MAX_MINUTES = 7 * 24 * 60
#: The evaluations a ``--minutes`` budget's evaluation share is sized for: at the start of PPO, at the
#: end, and one in between.
EVALUATIONS = 3


def check_steps(steps: int, flag: str = "--steps") -> int:
    """``steps`` if it is a budget of PPO steps a run can train; ``ValueError`` saying why not."""
    if not 1 <= steps <= MAX_STEPS:
        raise ValueError(f"{flag} must be from 1 to {MAX_STEPS:,} (a billion steps is days on a CPU; train longer "
                         f"in sessions with --resume), got {steps:,}")
    return steps


def check_minutes(minutes: float, flag: str = "--minutes") -> float:
    """``minutes`` if it is a wall-time budget a run can use; ``ValueError`` saying why not."""
    if not (math.isfinite(minutes) and 0 < minutes <= MAX_MINUTES):
        raise ValueError(f"{flag} must be above 0 and at most {MAX_MINUTES:,} (a week; train longer in sessions "
                         f"with --resume), got {minutes:g}")
    return minutes


@dataclasses.dataclass(frozen=True)
class Budget:
    """The total budget of a run: ``steps`` of PPO, or ``minutes`` of wall time (exactly one is set)."""

    steps: int | None = None
    minutes: float | None = None

    def __post_init__(self) -> None:
        if (self.steps is None) == (self.minutes is None):
            raise ValueError("a budget is steps or minutes, one of them")

    def to_dict(self) -> dict:
        """For the sidecar: ``{"steps": N}`` or ``{"minutes": M}``."""
        return {"steps": self.steps} if self.steps is not None else {"minutes": self.minutes}

    @classmethod
    def from_dict(cls, data: dict) -> Budget:
        """The budget a sidecar recorded (:meth:`to_dict`)."""
        return cls(steps=data.get("steps"), minutes=data.get("minutes"))

    def describe(self) -> str:
        """``"12,000 steps"`` or ``"10 minutes"``."""
        if self.steps is not None:
            return f"{self.steps:,} steps"
        return f"{self.minutes:g} minute{'' if self.minutes == 1 else 's'}"

    def extended(self, steps: int | None, minutes: float | None, done_steps: int, used_seconds: float) -> Budget:
        """The total of a resumed run: the same (neither given), or ``steps``/``minutes`` more than it
        has used (``done_steps``, ``used_seconds``)."""
        if steps is not None:
            return Budget(steps=check_steps(done_steps + steps, "--steps (with the steps already trained)"))
        if minutes is not None:
            return Budget(minutes=check_minutes(used_seconds / 60 + minutes, "--minutes (with the minutes already used)"))
        return self

    def left(self, done_steps: int, used_seconds: float) -> Budget | None:
        """What is left of it after ``done_steps`` and ``used_seconds`` (``None``: nothing)."""
        if self.steps is not None:
            return Budget(steps=self.steps - done_steps) if self.steps > done_steps else None
        seconds = self.minutes * 60 - used_seconds
        return Budget(minutes=seconds / 60) if seconds >= 1 else None


class Clock:
    """Seconds since the run began (``now``), on one clock for every stage; ``source`` is
    ``time.perf_counter`` or, in tests, any function of no arguments giving seconds; ``began``: the
    source's reading when the run began (default: now)."""

    def __init__(self, source: Callable[[], float] = time.perf_counter, began: float | None = None) -> None:
        self.source = source
        self.began = source() if began is None else began

    def now(self) -> float:
        """Seconds since the run began."""
        return self.source() - self.began


@dataclasses.dataclass
class Stage:
    """One stage's share of the budget: it may run until ``deadline`` (seconds since the run began,
    ``None``: no limit); ``seconds`` is what it took."""

    name: str
    deadline: float | None = None
    seconds: float = 0.0
    #: When it ended (seconds since the run began; ``None``: not run).
    ended: float | None = None

    def done(self, clock: Clock, began: float) -> None:
        """Note that the stage, begun at ``began``, ends now."""
        self.ended = clock.now()
        self.seconds = self.ended - began

    def fits(self, clock: Clock, seconds: float) -> bool:
        """True if work taking ``seconds`` started now ends by the deadline."""
        return self.deadline is None or clock.now() + seconds <= self.deadline

    def to_dict(self) -> dict:
        return {key: None if value is None else round(value, 3)
                for key, value in (("seconds", self.seconds), ("ended", self.ended), ("deadline", self.deadline))}


@dataclasses.dataclass
class Plan:
    """How one session spends its budget (see the module docstring)."""

    #: This session's budget (what is left of the run's total).
    session: Budget
    #: Teacher games to play (0: no warm start; under a deadline, the most it may play) and why that many.
    teacher_games: int = 0
    warm_note: str = ""
    #: Under a deadline: the teacher games its measured speed fits (the chunks are sized by it).
    teacher_fit: int | None = None
    #: Deals per evaluation.
    eval_games: int = 0
    #: PPO steps of this session (``None`` under a time budget).
    ppo_steps: int | None = None
    warm_start: Stage = dataclasses.field(default_factory=lambda: Stage("warm_start"))
    #: Teacher play ends here (the rest of the warm start's share is for cloning).
    teacher_deadline: float | None = None
    evaluation: Stage = dataclasses.field(default_factory=lambda: Stage("evaluation"))
    #: Seconds the evaluations may take in all, and the estimated seconds of one.
    eval_allowance: float | None = None
    eval_estimate: float = 0.0
    ppo: Stage = dataclasses.field(default_factory=lambda: Stage("ppo"))

    def describe(self) -> list[str]:
        """The plan in words, one line per stage (announced before the stages start)."""
        total = self.session.minutes * 60 if self.session.minutes is not None else None

        def share(stage_seconds):
            return "" if total is None else f" ≤ {stage_seconds / total:.0%} ({_clock(stage_seconds)})"

        lines = []
        if self.teacher_games:
            games = f"{self.teacher_games:,} teacher games" if (self.teacher_fit or self.teacher_games) >= \
                self.teacher_games else f"teacher games until {_clock(self.teacher_deadline)}"
            lines.append(f"warm start{share(self.warm_start.deadline) if total else ''}: {games}, then cloning"
                         + (f" ({self.warm_note})" if self.warm_note else ""))
        elif self.warm_note:
            lines.append(f"warm start: {self.warm_note}")
        if total is None:
            lines.append(f"PPO: {self.ppo_steps:,} steps (whole updates: it ends on the first at or past them)")
        else:
            lines.append(f"PPO: the rest, until {_clock(self.ppo.deadline)} (stopping before an update that would not fit)")
        lines.append(f"evaluation{share(self.eval_allowance) if total else ''}: {self.eval_games:,} deals each"
                     + (f" (about {self.eval_estimate:.1f} s)" if total else ""))
        return lines

    def to_dict(self) -> dict:
        """For the sidecar: what each stage was given and took."""
        return {"session": self.session.to_dict(), "teacher_games": self.teacher_games, "teacher_fit": self.teacher_fit,
                "eval_games": self.eval_games,
                "eval_allowance": self.eval_allowance,
                "stages": {s.name: s.to_dict() for s in (self.warm_start, self.evaluation, self.ppo)}}


def _clock(seconds: float) -> str:
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes}:{rest:02d}"


def scaled(full: int, fraction: float) -> int:
    """``full`` scaled by ``fraction`` (≤ 1), rounded."""
    return int(round(full * min(fraction, 1.0)))


def plan_steps(session: Budget, total: Budget, config, warm_games: int, warm_free: bool) -> Plan:
    """The plan of a ``--steps`` session: PPO ``session.steps``; the teacher games (``warm_games`` of the
    full budget; ``warm_free``: saved games are reused, so none are scaled away) and the evaluation deals
    scaled by the share of the config's ``[train] steps`` that the run's ``total`` is."""
    fraction = total.steps / config.train.steps
    plan = Plan(session, ppo_steps=session.steps)
    games = warm_games if warm_free else scaled(warm_games, fraction)
    if games < min(warm_games, config.budget.min_teacher_games):  # scaled below the floor
        plan.warm_note = (f"off — {total.steps:,} steps scale the config's {warm_games:,} teacher games to {games:,}, "
                          f"under [budget] min_teacher_games = {config.budget.min_teacher_games}; for the full warm "
                          f"start train the config's {config.train.steps:,} steps (no --steps), or reuse a run's "
                          f"warm_start.npz with [warm_start] decisions")
    elif warm_games:
        plan.teacher_games = games
        if games < warm_games:
            plan.warm_note = (f"{fraction:.1%} of the full warm start's {warm_games:,}, as {total.steps:,} steps "
                              f"are of the config's {config.train.steps:,}")
    plan.eval_games = min(config.train.eval_games,
                          max(config.budget.min_eval_games, scaled(config.train.eval_games, fraction)))
    return plan


def plan_minutes(session: Budget, config, clock: Clock, warm_games: int, teacher_rate: Callable[[], float] | None,
                 eval_cost: Callable[[], tuple[float, float]]) -> Plan:
    """The plan of a ``--minutes`` session that began at ``clock``'s 0: the stages' deadlines, the teacher
    games that fit in the warm start's share (``teacher_rate()``: games per second, measured; ``None``:
    no warm start, or saved games) and the deals per evaluation that fit :data:`EVALUATIONS` times in the
    evaluation share (``eval_cost()``: the seconds an evaluation takes besides its deals, and its deals
    per second, measured)."""
    total = session.minutes * 60
    plan = Plan(session)
    warm_share = config.budget.warm_start * total if warm_games else 0.0
    plan.eval_allowance = config.budget.evaluation * total
    if warm_games:
        plan.warm_start.deadline = warm_share
        plan.teacher_deadline = warm_share * 2 / 3  # a third of the share left for cloning
        if teacher_rate is None:
            plan.teacher_games = warm_games
        else:
            rate = teacher_rate()
            fit = int(rate * max(plan.teacher_deadline - clock.now(), 0.0))
            if min(warm_games, fit) < min(warm_games, config.budget.min_teacher_games):  # cut below the floor
                plan.warm_note = (f"off — its share leaves time for {fit:,} teacher games at {rate:,.1f} games/s, under "
                                  f"[budget] min_teacher_games = {config.budget.min_teacher_games}; give more --minutes "
                                  f"or reuse a run's warm_start.npz with [warm_start] decisions")
                plan.teacher_games = 0
                plan.warm_start.deadline = plan.teacher_deadline = None
            else:  # as many as the deadline lets it play (the first chunk's speed underrates big chunks)
                plan.teacher_games, plan.teacher_fit = warm_games, min(warm_games, fit)
                plan.warm_note = f"{rate:,.1f} games/s measured" if fit >= warm_games else \
                    f"about {fit:,} at the {rate:,.1f} games/s measured, at most {warm_games:,}"
    overhead, deals_per_second = eval_cost()
    each = plan.eval_allowance / EVALUATIONS - overhead
    plan.eval_games = max(1, min(config.train.eval_games, int(deals_per_second * each)))
    plan.eval_estimate = overhead + plan.eval_games / deals_per_second
    plan.ppo.deadline = total - plan.eval_estimate  # the final evaluation comes after PPO
    return plan
