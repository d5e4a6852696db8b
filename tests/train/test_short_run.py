"""What a short training run shows: each evaluation reports the greedy policy, the sampled policy and the
share of decisions taken as the prior agent would; the run ends with a line saying what it changed; a
Ctrl-C's line stands on its own line after the progress bar has closed; the quick example config starts
PPO where it can move in minutes."""

from __future__ import annotations

import csv
import json
import signal
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from aerodeck import envs  # noqa: E402
from aerodeck.cli import main as cli  # noqa: E402
from aerodeck.train.config import load_config  # noqa: E402
from tests.games import SOLO  # noqa: E402
from tests.train.test_train import tiny_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GAMES = envs.games()


@pytest.mark.parametrize("game_id", GAMES)
def test_every_evaluation_reports_the_sampled_policy_and_the_share_played_as_the_prior(tmp_path, capsys, game_id):
    # Before: only the greedy policy's figure, which a policy starting as its prior keeps for a long time,
    # and no word on what the run changed.
    from aerodeck.train.callbacks import changed

    out = tmp_path / "run"
    config = tiny_config(tmp_path, game_id)
    assert cli.main(["train", game_id, "--steps", "1024", "--config", str(config), "--out", str(out),
                     "--no-progress"]) == 0
    err = capsys.readouterr().err
    sidecar = json.loads((out / "last.json").read_text())
    first, last = sidecar["first_evaluation"], sidecar["evaluation"]
    assert first["steps"] == 0 and last["steps"] == 1024
    for ev in (first, last):
        assert ev["sampled"]["low"] <= ev["sampled"]["value"] <= ev["sampled"]["high"]
        assert ev["as_prior"]["agent"] == sidecar["config"]["policy"]["prior"]
        assert 0 <= ev["as_prior"]["share"] <= 1 and ev["as_prior"]["decisions"] > 0
    rows = list(csv.DictReader((out / "evaluations.csv").open()))
    assert rows[0]["steps"] == "0" and float(rows[0]["sampled_value"]) == first["sampled"]["value"]
    assert float(rows[-1]["as_prior_share"]) == last["as_prior"]["share"]
    line = next(x for x in err.splitlines() if "what the run changed" in x)
    assert line == "aerodeck train: " + changed(first, last)
    assert f"from step 0 to 1,024" in line and "sampled play" in line
    assert f"plays as the {last['as_prior']['agent']} on" in line


def test_what_a_run_changed_in_words():
    from aerodeck.train.callbacks import changed, describe

    first = {"figure": "mean_score", "value": 1.1145, "low": 1.08, "high": 1.14, "steps": 0, "games": 2000,
             "opponent": "heuristic", "difference": {"value": 0.0, "low": 0.0, "high": 0.0},
             "sampled": {"value": 0.647, "low": 0.6, "high": 0.7}, "as_prior": {"agent": "heuristic", "share": 1.0}}
    last = {**first, "value": 1.1245, "steps": 286_720, "difference": {"value": 0.01, "low": -0.02, "high": 0.04},
            "sampled": {"value": 1.039, "low": 1.0, "high": 1.08}, "as_prior": {"agent": "heuristic", "share": 0.9764}}
    assert changed(first, last) == (
        "what the run changed, from step 0 to 286,720: greedy play mean score 1.1145 → 1.1245; plays as the "
        "heuristic on 97.6 % of its decisions (at the start 100.0 %); +0.0100 [\N{MINUS SIGN}0.0200, +0.0400] "
        "against the heuristic on the same 2,000 deals; sampled play 0.6470 → 1.0390")
    assert describe(last) == ("mean_score 1.125 [1.080, 1.140] at 286,720 steps (sampled 1.039; as the heuristic "
                              "on 97.6 %)")
    table = {"figure": "win_rate", "value": 0.30, "low": 0.28, "high": 0.32, "steps": 8192, "games": 600,
             "fair_share": 0.25, "opponent": "heuristic"}
    assert changed(None, table) == ("what the run changed, at step 8,192: greedy play win rate 0.3000 (evaluated "
                                    "once); fair share 0.250")


def test_the_interrupted_line_stands_on_its_own_line_after_the_bar_closed(tmp_path, capsys, monkeypatch):
    # Before: "aerodeck train: interrupted; …" was printed on the end of the progress bar's line, and the
    # bar was drawn again after it.
    from sb3_contrib import MaskablePPO

    update = MaskablePPO.train

    def update_then_ctrl_c(self):
        update(self)
        signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(MaskablePPO, "train", update_then_ctrl_c)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert cli.main(["train", SOLO.id, "--steps", "1024", "--config", str(tiny_config(tmp_path, SOLO.id)),
                         "--out", str(tmp_path / "run")]) == 130  # the progress bars on
    finally:
        signal.signal(signal.SIGINT, previous)
    err = capsys.readouterr().err
    before, line, after = err.partition("aerodeck train: interrupted; saved last.zip")
    assert line and "PPO" in before  # the bar was drawn
    assert before.endswith("\n"), repr(before[-200:])  # the bar's line ended first
    assert "\r" not in after and "PPO" not in after.replace("PPO:", ""), repr(after)  # and was not drawn again
    assert after.count("\n") == 1


@pytest.mark.parametrize("game_id", GAMES)
def test_the_quick_config_starts_ppo_from_the_prior_with_room_to_move(game_id):
    config = load_config(game_id, ROOT / "examples" / "train-quick.toml")
    assert config.warm_start.games == 0 and config.policy.prior == "heuristic"
    assert config.policy.prior_scale == 16.0 and config.ppo.learning_rate == 3e-4
    assert config.train.steps == 262_144 and config.train.eval_every * 8 == config.train.steps
