"""The throughput script runs end to end and writes its JSON (figures are not asserted: no timing tests)."""

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "flight_tycoon_throughput.py"


def test_the_benchmark_writes_every_subject_and_ratio(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("flight_tycoon_throughput", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "result.json"
    assert module.main(["--seconds", "0.05", "--rounds", "1", "--sizes", "1,8", "--profile", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert set(result["median_decisions_per_s"]) == {"reference", "aec_env", "core_B1", "core_B8", "texas_holdem_v4",
                                                    "leduc_holdem_v4"}
    assert "core_B8_vs_leduc_holdem_v4" in result["ratios"] and set(result["profile_ms_per_step"]) >= {"observe", "step"}
    assert "decisions/s" in capsys.readouterr().out
