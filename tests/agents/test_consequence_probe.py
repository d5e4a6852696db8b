"""benchmarks/consequence_probe.py: the teacher's decisions are kept with what each candidate leads to,
both networks are fitted and scored, a bad spec is one line."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "consequence_probe.py"
spec = importlib.util.spec_from_file_location("consequence_probe", SCRIPT)
script = importlib.util.module_from_spec(spec)
spec.loader.exec_module(script)

TEACHER = "search:candidates=3,rollouts=2"


def test_each_kept_decision_holds_the_position_after_each_of_its_candidates():
    data = script.record(6, seed=3, teacher=TEACHER)
    n = len(data["chosen"])
    assert n > 0 and data["after"].shape[:2] == (n, 3) and data["before"].shape == (n, data["after"].shape[2])
    assert (data["valid"].sum(axis=1) >= 2).all() and data["valid"][np.arange(n), data["chosen"]].all()
    # two legal candidates lead to two different positions, and neither is the position before
    legal = data["valid"][:, 0] & data["valid"][:, 1]
    assert (data["after"][legal, 0] != data["after"][legal, 1]).any(axis=1).all()
    assert (data["after"][:, 0] != data["before"]).any(axis=1).all()


def test_both_networks_are_fitted_and_scored_on_held_out_games(tmp_path, capsys):
    assert script.main(["--games", "10", "--epochs", "1", "--width", "16", "--teacher", TEACHER, "--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "consequence_probe.json").read_text())
    assert result["decisions"]["fitted"] > result["decisions"]["held_out"] > 0
    assert result["first"]["agreement"] == pytest.approx(1 - result["teacher_departs"])
    for kind in ("position", "consequence"):
        assert 0 <= result[kind]["agreement"] <= 1 and 0 <= result[kind]["departures_made"] <= 1
    assert "consequence: agreement" in capsys.readouterr().out


@pytest.mark.parametrize("teacher, named", [("serch", "serch"), ("heuristic", "give a search agent")])
def test_a_bad_teacher_is_one_line_naming_it(capsys, teacher, named):
    with pytest.raises(SystemExit) as stop:
        script.main(["--teacher", teacher, "--games", "5"])
    assert stop.value.code == 2 and named in capsys.readouterr().err
