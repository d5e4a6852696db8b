"""benchmarks/rule_general.py: the rule-general model against the heuristic on drawn variants, and the
caution chosen over them (the one whose worst variant is best) written into the model's sidecar."""

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from aerodeck.agents.ppo import MODELS, PPOAgent  # noqa: E402

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "rule_general.py"


def script():
    spec = importlib.util.spec_from_file_location("rule_general", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_caution_whose_worst_variant_is_best_is_chosen():
    rows = [{"cautions": {"0": {"difference": -1.0}, "1": {"difference": 0.3}, "2": {"difference": 0.3}}},
            {"cautions": {"0": {"difference": 2.0}, "1": {"difference": 0.5}, "2": {"difference": 0.4}}}]
    assert script().choose_caution(rows, [0.0, 1.0, 2.0]) == 1.0  # worst −1, 0.3, 0.3: the smaller of the tied


def test_cautions_are_benched_per_variant_and_the_choice_is_written_into_the_sidecar(tmp_path, capsys):
    model = tmp_path / "general.zip"
    shutil.copy(MODELS / "airport-scramble-general.zip", model)
    shutil.copy(MODELS / "airport-scramble-general.json", tmp_path / "general.json")
    script().main(["airport-scramble", "--model", str(model), "--variants", "2", "--games", "6", "--draw-seed", "3",
                   "--cautions", "0,1000", "--set-caution", "--out", str(tmp_path / "out")])
    result = json.loads((tmp_path / "out" / "rule_general.json").read_text())
    assert [sorted(r["cautions"]) for r in result["rows"]] == [["0", "1000"]] * 2
    for row in result["rows"]:
        for cell in row["cautions"].values():
            assert cell["difference"] == pytest.approx(cell["model"] - cell["opponent"])
    worst = {m: min(r["cautions"][m]["difference"] for r in result["rows"]) for m in ("0", "1000")}
    side = json.loads((tmp_path / "general.json").read_text())
    assert side["caution"]["value"] == (0.0 if worst["0"] >= worst["1000"] else 1000.0)
    assert side["caution"]["worst_difference"] == worst and "--set-caution" in side["caution"]["chosen_by"]
    assert PPOAgent(path=str(model), rules=None, check=0).caution == side["caution"]["value"]
    assert "The caution whose worst variant is best" in capsys.readouterr().out


def test_set_caution_needs_cautions(tmp_path):
    with pytest.raises(SystemExit):
        script().main(["airport-scramble", "--draw-seed", "1", "--set-caution", "--out", str(tmp_path)])
    with pytest.raises(SystemExit):
        script().main(["airport-scramble", "--draw-seed", "1", "--cautions", "1,x", "--out", str(tmp_path)])


def test_a_self_checked_model_is_benched_with_the_check_it_made_under_each_variant(tmp_path):
    out, model = tmp_path / "out", tmp_path / "general.zip"
    shutil.copy(MODELS / "airport-scramble-general.zip", model)
    shutil.copy(MODELS / "airport-scramble-general.json", tmp_path / "general.json")
    script().main(["airport-scramble", "--model", str(model), "--variants", "2", "--games", "6", "--draw-seed", "3",
                   "--check", "4", "--set-check", "--out", str(out)])
    rows = json.loads((out / "rule_general.json").read_text())["rows"]
    for row in rows:
        assert row["check"]["deals"] == 4 and sorted(row["check"]["differences"]) == ["0.0", "1.0", "2.0"]
        if row["check"]["caution"] is None:  # it plays as the heuristic: the same moves on the same deals
            assert row["difference"] == 0 and row["model"] == row["opponent"]
    assert "self-check plays" in (out / "rule_general.md").read_text()
    side = json.loads((tmp_path / "general.json").read_text())["check"]
    assert side["deals"] == 4 and side["worst_difference"] == min(r["difference"] for r in rows)
    assert PPOAgent(path=str(model), rules=None).check_result["deals"] == 4
    with pytest.raises(SystemExit):
        script().main(["airport-scramble", "--draw-seed", "1", "--set-check", "--out", str(out)])
    for bad in (["--check", "1"], ["--check", "0", "--set-check"]):
        with pytest.raises(SystemExit):
            script().main(["airport-scramble", "--draw-seed", "1", *bad, "--out", str(out)])
    with pytest.raises(SystemExit):
        script().main(["airport-scramble", "--draw-seed", "1", "--check", "4", "--cautions", "0,1", "--out", str(out)])


def test_a_multi_player_model_is_paired_with_the_opponent_agent_in_its_seat(tmp_path):
    from aerodeck import envs

    game = next(envs.spec(g) for g in envs.games() if not envs.spec(g).solo)
    rules = game.make_rules()
    module = script()
    twin = module.paired_seat(game, rules, game.opponent, 40, 0)  # the opponent against itself, its own keys
    assert twin == {"difference": 0.0, "low": 0.0, "high": 0.0}
    weak = module.paired_seat(game, rules, "random", 40, 0)
    assert weak["high"] < 0 and weak["low"] <= weak["difference"] <= weak["high"]
    out = tmp_path / "out"
    module.main([game.id, "--variants", "1", "--games", "8", "--draw-seed", "3", "--check", "0", "--out", str(out)])
    row = json.loads((out / "rule_general.json").read_text())["rows"][0]
    assert set(row["paired"]) == {"difference", "low", "high"}
    assert f"− {game.opponent} in its seat, paired" in (out / "rule_general.md").read_text()
