"""``benchmarks/house_rules_speed.py`` runs end to end on a tiny budget and writes its JSON under --out
(figures are not asserted: no timing tests)."""

import json
import subprocess
import sys
from pathlib import Path

from tests.games import MULTI, SOLO

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "house_rules_speed.py"


def test_the_house_rule_speed_benchmark_measures_both_engines_for_every_subject(tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT), "--rounds", "1", "--games", "2", "--search-games", "1",
                           "--out", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = json.loads((tmp_path / "house_rules_speed.json").read_text())["rows"]
    assert {(r["game"], r["agent"].partition(":")[0]) for r in rows} == {
        (g, a) for g in (SOLO.id, MULTI.id) for a in ("heuristic", "search")}
    assert all(r["core_games_per_s"] > 0 and r["reference_games_per_s"] > 0 for r in rows)
