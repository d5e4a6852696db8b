"""research/reference_noise.py: an agent's protocol score under seeds the references did not use, its
spread against the interval one evaluation gives, and how often that interval holds the reference point."""

import importlib.util
import json
from pathlib import Path

import numpy as np

from aerodeck.bench import tasks as T

SCRIPT = Path(__file__).resolve().parents[2] / "research" / "reference_noise.py"
spec = importlib.util.spec_from_file_location("reference_noise", SCRIPT)
script = importlib.util.module_from_spec(spec)
spec.loader.exec_module(script)


def test_the_probe_plays_the_protocol_under_seeds_the_references_did_not_use():
    row = script.probe("ft4-random-v0", "random", 2)
    task = T.task("ft4-random-v0")
    assert row["games"] == task.eval_games and len(row["means"]) == 2
    assert row["means"][0] == task.evaluate("random", seed=script.FIRST_SEED).raw.value
    assert row["seed_sd"] == np.std(row["means"], ddof=1) and 0 <= row["held"] <= 2
    assert row["interval_se"] > 0


def test_the_command_prints_a_row_per_task_and_writes_json(tmp_path, capsys):
    assert script.main(["--seeds", "2", "--tasks", "as-hard-v0", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "as-hard-v0" in out and "/2" in out
    rows = json.loads((tmp_path / "reference_noise.json").read_text())
    assert [r["task"] for r in rows] == ["as-hard-v0"]
