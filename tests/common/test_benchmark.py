"""The throughput script runs end to end and writes its JSON under --out (figures are not asserted:
no timing tests). It runs as its own process, as users run it: its Pgx subject loads JAX, whose
threads make a later fork in the test process unsafe."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "throughput.py"


def test_the_benchmark_measures_every_subject_and_writes_its_ratios(tmp_path):
    spec = importlib.util.spec_from_file_location("throughput", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # (for its names: the measuring runs in the child below)
    argv = ["--seconds", "0.02", "--rounds", "1", "--sizes", "1,8", "--agents", "heuristic", "--bench-games", "8",
            "--profile", "--out", str(tmp_path / "bench")]
    done = subprocess.run([sys.executable, str(SCRIPT), *argv], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "bench" / "throughput.json").read_text())
    per_game = {"reference", "env", "core B=1", "core B=8", "heuristic B=8", "bench heuristic"}
    expected = {f"{game} {name}" for game in module.GAMES for name in per_game} | {"pettingzoo leduc_holdem_v4"}
    expected |= {"pgx leduc B=1", "pgx leduc B=8"}  # the batched peer (the pgx extra, installed by the setup)
    assert set(result["results"]) == expected
    for row in result["results"].values():
        assert row["rate"] > 0 and row["unit"] in ("decisions/s", "games/s")
        if row["unit"] == "decisions/s":  # (a bench's games/s ratio needs a game ended in the round)
            assert row["vs_reference"] > 0 and row["vs_leduc"] > 0
    assert all(result["results"][f"{game} bench heuristic"]["unit"] == "games/s" for game in module.GAMES)
    for game in module.GAMES:  # each core row against Pgx at its own batch size; other rows have none
        assert result["results"][f"{game} core B=8"]["vs_pgx"] > 0
        assert result["results"][f"{game} env"]["vs_pgx"] is None
    assert set(result["profile_ms_per_step"]) == set(module.GAMES)
    assert all({"observe", "legal_mask", "step"} <= set(result["profile_ms_per_step"][game]) for game in module.GAMES)
    assert set(result["profile_bench_s"]) == {f"{game} bench heuristic" for game in module.GAMES}
    for parts in result["profile_bench_s"].values():  # where a bench's time goes: the parts lie within the run
        assert 0 < parts["play"] <= parts["total"] and 0 < parts["report"] <= parts["total"]
        assert parts["network"] == 0  # (no network in a heuristic bench)
    assert "× leduc AEC" in done.stdout and "× Pgx leduc, same B" in done.stdout
