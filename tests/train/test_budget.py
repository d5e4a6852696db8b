"""One budget for the whole job: shares announced up front, every stage inside its share on the run's
clock, the warm start and the evaluations scaled with a smaller ``--steps``."""

import json

import pytest

pytest.importorskip("sb3_contrib")

from tests.games import SOLO  # noqa: E402
from aerodeck.train.budget import Budget, Clock, plan_minutes, plan_steps  # noqa: E402
from aerodeck.train.config import default_config, load_config  # noqa: E402

#: The fake clock's step: every reading of it is this many seconds after the one before.
TICK = 0.01


class Ticks:
    """A clock for tests: every reading is one :data:`TICK` later — the run's work then takes the same
    time on every machine, and deadlines bind at the same points."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += TICK
        return self.t


BUSY = """
[train]
num_envs = 16
eval_every = 1_000_000
eval_games = 16
checkpoint_every = 1_000_000
[budget]
min_teacher_games = 4
warm_start = 0.3
[ppo]
n_steps = 16
batch_size = 128
n_epochs = 1
[policy]
net_arch = [16]
[warm_start]
teacher = "heuristic"
games = 96
play_batch = 32
epochs = 100_000
batch_size = 64
workers = 1
"""


def test_a_minutes_budget_keeps_every_stage_inside_its_announced_share(tmp_path, capsys):
    from aerodeck.train.cli import train

    game = SOLO
    path = tmp_path / "busy.toml"
    path.write_text(BUSY)
    minutes = 0.1  # 6 s = 600 readings of the clock
    out = train(game.id, game.make_rules(), load_config(game.id, path), tmp_path / "run", minutes=minutes,
                progress=False, clock=Clock(Ticks()))
    err = capsys.readouterr().err
    assert "warm start ≤ 30% (0:02)" in err and "evaluation ≤ 10% (0:01)" in err  # announced before they start
    last = json.loads((out / "last.json").read_text())
    plan, stages = last["plan"], last["plan"]["stages"]
    slack = 3 * TICK  # the readings that end a stage
    assert last["wall_seconds"] <= minutes * 60 + slack  # the whole job, the final evaluation included
    assert stages["warm_start"]["ended"] <= stages["warm_start"]["deadline"] + slack
    assert stages["ppo"]["ended"] <= stages["ppo"]["deadline"] + slack
    assert stages["evaluation"]["seconds"] <= plan["eval_allowance"]
    warm = last["warm_start"]
    assert warm["games"] == 96 and 1 <= warm["epochs"] < 100_000  # cloning stopped at the warm start's deadline
    assert last["steps"] > 0 and last["budget"] == {"minutes": minutes}


def test_a_minutes_teacher_plays_until_its_deadline_not_only_the_games_its_first_chunk_measured():
    config = default_config(SOLO.id)
    clock = Clock(lambda: 0.0)
    plan = plan_minutes(Budget(minutes=10), config, clock, 5000, lambda: 2.0, lambda: (0.5, 100.0))
    deadline = 10 * 60 * config.budget.warm_start * 2 / 3
    assert plan.teacher_deadline == deadline and plan.teacher_fit == int(2.0 * deadline) < 5000
    assert plan.teacher_games == 5000  # the most it may play: chunks start while the next still fits
    assert f"teacher games until {deadline // 60:.0f}:00, then cloning (about {plan.teacher_fit:,} at the 2.0 " \
           "games/s measured, at most 5,000)" in plan.describe()[0]
    slow = plan_minutes(Budget(minutes=10), config, clock, 5000, lambda: 0.01, lambda: (0.5, 100.0))
    assert slow.teacher_games == 0 and "under [budget] min_teacher_games" in slow.warm_note


def test_a_smoke_run_of_few_steps_skips_the_warm_start_and_says_how_to_get_it():
    config = default_config(SOLO.id)
    budget = Budget(steps=1024)  # the config's teacher games scaled by 1024 / its steps: under min_teacher_games
    assert config.warm_start.games * 1024 < config.budget.min_teacher_games * config.train.steps
    plan = plan_steps(budget, budget, config, config.warm_start.games, warm_free=False)
    assert plan.teacher_games == 0 and plan.ppo_steps == 1024
    assert f"for the full warm start train the config's {config.train.steps:,} steps (no --steps)" in plan.warm_note
    assert plan.eval_games == config.budget.min_eval_games < config.train.eval_games


def test_the_warm_start_and_the_evaluations_scale_with_the_steps():
    config = default_config(SOLO.id)
    half = Budget(steps=config.train.steps // 2)
    plan = plan_steps(half, half, config, config.warm_start.games, warm_free=False)
    assert plan.teacher_games == config.warm_start.games // 2 and plan.eval_games == config.train.eval_games // 2
    full = Budget(steps=config.train.steps * 2)
    plan = plan_steps(full, full, config, config.warm_start.games, warm_free=False)
    assert plan.teacher_games == config.warm_start.games and plan.eval_games == config.train.eval_games
    saved = plan_steps(Budget(steps=4096), Budget(steps=4096), config, config.warm_start.games, warm_free=True)
    assert saved.teacher_games == config.warm_start.games  # saved games cost no play: all of them are used


def test_a_resumed_budget_continues_to_its_total_or_adds_what_is_given():
    steps = Budget(steps=6000)
    assert steps.extended(None, None, 2000, 50.0).left(2000, 50.0) == Budget(steps=4000)
    assert steps.extended(1000, None, 2000, 50.0) == Budget(steps=3000)
    minutes = Budget(minutes=10)
    assert minutes.extended(None, None, 2000, 120.0).left(2000, 120.0) == Budget(minutes=8)
    assert minutes.extended(None, 5, 2000, 120.0) == Budget(minutes=7)
    assert steps.left(6000, 1.0) is None


@pytest.mark.parametrize("readings, overhead, rate", [
    ((0.0, 0.3, 0.3, 0.7), 0.3 - 2 / 320, 320.0),  # (34 − 2) deals in 0.1 s more: 320 deals/s, the rest overhead
    ((0.0, 1.0, 1.0, 1.5), 0.0, 34 / 0.5),  # the larger took less time (noise): its deals over its time
])
def test_the_evaluations_cost_is_timed_after_a_warm_up_and_a_noisy_timing_gives_a_finite_rate(readings, overhead, rate):
    from types import SimpleNamespace

    from aerodeck.train.run import EVAL_PROBE, measure_evaluation

    assert EVAL_PROBE == (2, 34)
    clock, deals = iter(readings), []
    run = SimpleNamespace(clock=Clock(lambda: next(clock), began=0.0),
                          evaluation_of=lambda policy, inputs, games: deals.append(games))
    assert measure_evaluation(run, SimpleNamespace(policy=None), None) == pytest.approx((overhead, rate))
    assert deals == [2, 2, 34]  # the first warms up, untimed
