"""A whole RLlib run (train/rllib.py) and its checkpoints in every tool (agents/rllib.py): a budget of
steps, evaluations on held-out deals in evaluations.csv and TensorBoard, last/ and best/ checkpoints, the
``rllib`` agent playing them in ``aerodeck bench`` and ``compare``; SIGTERM saves and exits 143, ``--resume``
continues to the budget (``-m long``); bad input is one line and exit 2 before Ray starts."""

import csv
import json
import os
import signal
import threading
import time

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
pytest.importorskip("torch")

import ray  # noqa: E402

from aerodeck.cli import main as cli  # noqa: E402
from aerodeck.train import rllib  # noqa: E402
from tests.games import MULTI, SOLO  # noqa: E402

TINY = rllib.Setup(envs_per_runner=8, batch=128, minibatch=64, epochs=1, hidden=(16,))
#: A tiny run's command-line settings.
SMALL = ["--envs-per-runner", "8", "--batch", "128", "--minibatch", "64", "--epochs", "1", "--eval-games", "12"]


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def rows(folder):
    with open(folder / "evaluations.csv", newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def solo_run(tmp_path_factory, local_ray):
    out = tmp_path_factory.mktemp("rllib") / "run"
    rllib.train(SOLO.id, out, steps=256, seed=3, setup=TINY, eval_games=12)
    return out


def test_a_run_spends_its_steps_and_writes_checkpoints_and_evaluations(solo_run):
    record = json.loads((solo_run / "run.json").read_text())
    assert record["game"] == SOLO.id and record["budget"] == {"steps": 256}
    assert 256 <= record["steps"] < 256 + TINY.batch  # whole updates: the last one ends at or past the budget
    evaluations = rows(solo_run)
    assert [int(r["steps"]) for r in evaluations][0] == 0 and int(evaluations[-1]["steps"]) == record["steps"]
    task = rllib.evaluation_task(SOLO, SOLO.make_rules())
    assert task is not None and evaluations[0]["deals"] == f"task {task.name}"  # the benchmark's held-out deals
    assert all(r["normalized"] != "" for r in evaluations) == task.has_reference
    for folder in ("last", "best"):
        sidecar = json.loads((solo_run / folder / "aerodeck.json").read_text())
        assert sidecar["game"] == SOLO.id and sidecar["obs_size"] == SOLO.make_core(SOLO.make_rules()).obs_size
    assert (solo_run / "last" / "rllib_checkpoint.json").is_file()  # the whole algorithm: what --resume restores
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(solo_run / "tb"))
    assert "run.json" in json.loads((solo_run / "aerodeck-output.json").read_text())["files"]


def test_the_runs_checkpoint_plays_in_bench_and_compare(solo_run, tmp_path):
    spec = f"rllib:path={solo_run}"
    assert cli.main(["bench", SOLO.id, "--agent", spec, "--agent", "random", "--games", "40", "--seed", "2",
                     "--out", str(tmp_path / "bench"), "--no-progress"]) == 0
    bench = json.loads((tmp_path / "bench" / "results.json").read_text())
    assert bench["agents"][spec]["games"] == 40
    assert cli.main(["compare", SOLO.id, "--variant", "easy:ticket_turn_bonus=1", "--agent", spec, "--games", "30",
                     "--out", str(tmp_path / "compare"), "--no-progress"]) == 0
    assert (tmp_path / "compare" / "results.json").is_file()


def test_the_agent_runs_one_forward_pass_per_move_and_never_an_illegal_action(solo_run):
    from aerodeck.agents.registry import make_agent

    agent = make_agent(SOLO.id, f"rllib:path={solo_run}", SOLO.make_rules())
    calls = []
    forward = agent.module.forward_inference
    agent.module.forward_inference = lambda batch, **kw: calls.append(len(batch["obs"]["observation"])) or forward(batch, **kw)
    core = SOLO.make_core(SOLO.make_rules())
    state = core.init(np.arange(64, dtype=np.uint64))
    masks = core.legal_mask(state)
    actions = agent.act(core.observe(state), masks)
    assert calls == [64]  # the whole batch at once
    assert masks[np.arange(64), actions].all()


def test_the_agent_refuses_a_checkpoint_of_another_game(solo_run):
    from aerodeck.agents.registry import make_agent

    with pytest.raises(ValueError, match=f"trained for {SOLO.id}, not {MULTI.id}"):
        make_agent(MULTI.id, f"rllib:path={solo_run}", MULTI.make_rules())
    with pytest.raises(ValueError, match="holds no checkpoint"):
        make_agent(SOLO.id, f"rllib:path={solo_run / 'tb'}", SOLO.make_rules())


def test_a_run_on_a_benchmark_task_takes_its_rules_and_opponents_and_evaluates_on_its_deals(tmp_path, local_ray):
    """Flight Tycoon against fixed opponents: the learner's seat in a batched env, the opponents' moves
    computed inside it."""
    out = tmp_path / "task"
    rllib.train(MULTI.id, out, task="ft4-random-v0", steps=128, setup=TINY, eval_games=8)
    record = json.loads((out / "run.json").read_text())
    assert record["setup"]["opponents"] == ["random"] * 3 and record["rules"][MULTI.players_option] == 4
    assert {r["deals"] for r in rows(out)} == {"task ft4-random-v0"} and rows(out)[0]["figure"] == "win_share"


def test_bad_input_is_one_line_and_exit_2_before_ray_starts(tmp_path, capsys):
    started = ray.is_initialized()
    for argv, says in (([SOLO.id, "--steps", "0"], "--steps must be from 1"),
                       ([SOLO.id, "--opponent", "random"], "is played solo"),
                       ([MULTI.id, "--opponent", "nobody"], "unknown agent 'nobody'"),
                       ([SOLO.id, "--resume"], "holds no RLlib run"),
                       ([MULTI.id, "--task", "as-standard-v0"], f"is a task of {SOLO.id}, not {MULTI.id}"),
                       ([MULTI.id, "--task", "ft4-random-v0", "--opponent", "random"], "sets the rules and the opponents")):
        assert rllib.main([*argv, "--out", str(tmp_path / "x")]) == 2
        err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
        assert len(err) == 1 and says in err[0], err
    assert not (tmp_path / "x").exists() and ray.is_initialized() == started


@pytest.mark.long
def test_sigterm_saves_the_run_and_resume_continues_it_to_its_budget(tmp_path, local_ray, capsys):
    """SIGTERM during an update: the update ends, last/ is saved, one line names the command that
    continues, exit 143; --resume trains on to the budget; a finished run refuses --resume without more."""
    out = tmp_path / "run"

    def terminate_once_published():
        while not (out / "run.json").exists():
            time.sleep(0.2)
        time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=terminate_once_published, daemon=True).start()
    assert rllib.main([SOLO.id, "--steps", "1024", *SMALL, "--out", str(out)]) == 143
    err = capsys.readouterr().err
    assert "terminated; saved last/ at" in err and f"--out {out} --resume" in err
    stopped = json.loads((out / "run.json").read_text())["steps"]
    assert stopped < 1024
    assert rllib.main([SOLO.id, "--out", str(out), "--resume"]) == 0
    record = json.loads((out / "run.json").read_text())
    assert record["steps"] >= 1024 and int(rows(out)[-1]["steps"]) == record["steps"]
    capsys.readouterr()
    assert rllib.main([SOLO.id, "--out", str(out), "--resume"]) == 2
    assert "has reached its total of 1,024 steps" in capsys.readouterr().err


@pytest.mark.long
def test_a_minutes_budget_ends_within_its_minute_and_beats_random_play(tmp_path, local_ray):
    """``--minutes 1``: the run (the algorithm's build included) ends within the minute, then its final
    save; the checkpoint beats random play in ``aerodeck bench`` on 400 deals (paired, p < 1e-4)."""
    out = tmp_path / "run"
    began = time.perf_counter()
    assert rllib.main([SOLO.id, "--minutes", "1", "--out", str(out)]) == 0
    record = json.loads((out / "run.json").read_text())
    assert record["wall_seconds"] <= 60 and time.perf_counter() - began < 60 + 30  # the final save after the minute
    spec = f"rllib:path={out}"
    assert cli.main(["bench", SOLO.id, "--agent", "random", "--agent", spec, "--games", "400",
                     "--out", str(tmp_path / "bench"), "--no-progress"]) == 0
    gap = json.loads((tmp_path / "bench" / "results.json").read_text())["comparisons"][0]
    assert gap["mean_score_difference"]["value"] > 0 and gap["mean_score_difference"]["p_value"] < 1e-4, gap
