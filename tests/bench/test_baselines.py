"""benchmarks/baselines.py on a tiny budget, end to end: runs stopped halfway continue from their
checkpoints, finished runs are skipped, every run writes its per-seed CSV and summary, and the report
aggregates them into a table and learning curves."""

from __future__ import annotations

import csv
import importlib.util
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("baselines", ROOT / "benchmarks" / "baselines.py")
baselines = importlib.util.module_from_spec(spec)
spec.loader.exec_module(baselines)

STEPS = 16_384  # two rollouts of 256 games x 32 steps


def steps_of(path: Path) -> list[int]:
    return [int(r["steps"]) for r in csv.DictReader(open(path))]


def test_a_tiny_budget_runs_resumes_and_reports(tmp_path, monkeypatch):
    from aerodeck.train import ppo_lite

    results, work, images = tmp_path / "results", tmp_path / "work", tmp_path / "images"
    # two runs stopped after their first rollout (8,192 of 16,384 steps), one per algorithm
    ppo_lite.train(ppo_lite.Args(task="as-standard-v0", seed=1, total_steps=8192, eval_every=8192, eval_games=16,
                                 out=str(work / str(STEPS) / "as-standard-v0" / "ppo-lite" / "seed1"),
                                 **baselines.COMMON))
    baselines.sb3_run("as-standard-v0", 1, 8192, 8192, 16, work / str(STEPS) / "as-standard-v0" / "sb3" / "seed1", {})
    args = ["--seeds", "1", "--jobs", "2", "--steps", str(STEPS), "--evals", "2", "--eval-games", "16",
            "--results", str(results)]
    assert baselines.main(["run", "--tasks", "as-standard-v0,ft4-heuristic-v0", *args, "--work", str(work)]) == 0
    for task in ("as-standard-v0", "ft4-heuristic-v0"):
        for algo in ("ppo-lite", "sb3"):
            out = results / str(STEPS) / task / algo / "seed1.csv"
            assert steps_of(out) == [0, 8192, 16384], (task, algo)
            summary = json.loads(out.with_suffix(".json").read_text())
            assert summary["finished"] and summary["recipe"] == baselines.RECIPES.get(task, {})
    for algo in ("ppo-lite", "sb3"):  # the stopped runs continued from step 8,192: no evaluation at step 0 again
        log = (work / str(STEPS) / "as-standard-v0" / algo / "seed1.log").read_text()
        evaluated = re.findall(r"step +([\d,]+)", log)
        assert "resuming" in log and "0" not in evaluated and "16,384" in evaluated, log

    # a second run has nothing left to do
    started = []
    monkeypatch.setattr(baselines.subprocess, "Popen", lambda *a, **k: started.append(a) or pytest.fail("started"))
    assert baselines.main(["run", "--tasks", "as-standard-v0,ft4-heuristic-v0", *args, "--work", str(work)]) == 0
    assert not started

    assert baselines.main(["report", "--results", str(results), "--images", str(images)]) == 0
    table = (results / "results.md").read_text()
    assert table.count("| 16,384 | 1 |") == 4
    assert (images / "baselines-steps.png").stat().st_size > 0 and (images / "baselines-wall.png").stat().st_size > 0


def test_an_unknown_algorithm_is_refused_in_one_line(capsys):
    with pytest.raises(SystemExit) as stop:
        baselines.main(["run", "--algos", "ppo-lite,dqn"])
    assert stop.value.code == 2 and "unknown dqn; allowed: ppo-lite, sb3, rllib" in capsys.readouterr().err


@pytest.mark.long
def test_an_rllib_run_continues_to_a_larger_budget(tmp_path):
    pytest.importorskip("ray")
    work, out = tmp_path / "work", tmp_path / "seed1.csv"
    baselines.one("as-standard-v0", "rllib", 1, 2048, 1, 16, out, work)
    assert steps_of(out)[0] == 0 and steps_of(out)[-1] >= 2048
    baselines.one("as-standard-v0", "rllib", 1, 4096, 2, 16, out, work)
    assert steps_of(out)[-1] >= 4096 and json.loads(out.with_suffix(".json").read_text())["algo"] == "rllib"
