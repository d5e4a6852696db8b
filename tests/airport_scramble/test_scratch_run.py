"""A short run from scratch learns visibly: examples/train-scratch.toml (no prior, no teacher, a plain MLP)
moves Airport Scramble's greedy evaluation by at least 0.3 tickets on the same deals within 32,768 steps,
and the run ends with its line saying what it changed."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from aerodeck.cli import main as cli  # noqa: E402
from aerodeck.train.config import load_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "examples" / "train-scratch.toml"


def test_the_scratch_config_starts_from_nothing():
    config = load_config("airport-scramble", CONFIG)
    assert config.policy.prior == "" and config.policy.network == "mlp" and config.warm_start.games == 0
    assert config.policy.init == ""


def test_a_short_run_from_scratch_moves_the_evaluation_on_the_same_deals(tmp_path, capsys):
    out = tmp_path / "run"
    assert cli.main(["train", "airport-scramble", "--steps", "32768", "--config", str(CONFIG), "--out", str(out),
                     "--no-progress", "--threads", "1"]) == 0
    err = capsys.readouterr().err
    rows = list(csv.DictReader((out / "evaluations.csv").open()))
    first, last = float(rows[0]["value"]), float(rows[-1]["value"])
    assert rows[0]["steps"] == "0" and int(rows[-1]["steps"]) >= 32768
    assert first < 0.1  # an untrained policy completes almost no ticket (random play: about 0.03)
    assert last - first >= 0.3, rows  # the same deals every evaluation ([train] eval_seed): a paired change
    sidecar = json.loads((out / "last.json").read_text())
    assert sidecar["first_evaluation"]["games"] == sidecar["evaluation"]["games"]
    line = next(x for x in err.splitlines() if "what the run changed" in x)
    assert f"greedy play mean score {first:.4f} → {last:.4f}" in line
