"""Every agent the user names is a judge: its verdict rows are in the verdict table, on the terminal and
in the summary, which lists the judges and what each is (unless ``--judges`` names others)."""

from __future__ import annotations

import json

from aerodeck.cli import main as cli
from tests.games import SOLO
from tests.judge.options import scalar_means, variant


def run(argv, capsys):
    status = cli.main([*argv, "--no-progress"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def test_the_agents_named_are_the_judges_and_the_first_screen_lists_them(tmp_path, capsys):
    out = tmp_path / "j"
    metric = scalar_means(SOLO)[0]
    stdout = run(["compare", SOLO.id, "--variant", variant(SOLO, "v"), "--agent", "random", "--metric", metric,
                  "--games", "40", "--out", str(out)], capsys)
    results = json.loads((out / "results.json").read_text())
    assert results["judges"] == ["random"] and [t["name"] for t in results["tables"]] == ["random"]
    [c] = results["comparisons"]
    assert c["role"] == "judge" and c["table"] == "random"
    report = (out / "report.md").read_text()
    summary = report.split("## Summary", 1)[1].split("## The question", 1)[0]
    assert "Judges (each plays every variant on the same deals" in summary and "`random` — plays uniformly" in summary
    verdicts = report.split("## Verdicts", 1)[1].split("##", 1)[0]
    assert f"| {metric} | v / random |" in verdicts and "Appendix" not in report
    first = stdout.splitlines()[:3]
    assert first[0].startswith("v (") and "measured by random" in first[0]
    assert any(line.startswith("Judges (") and "`random`" in line for line in first)
    # --judges still decides: the agent named plays, the judge named judges
    out2 = tmp_path / "k"
    run(["compare", SOLO.id, "--variant", variant(SOLO, "v"), "--agent", "random", "--judges", "heuristic",
         "--metric", metric, "--games", "20", "--out", str(out2)], capsys)
    assert json.loads((out2 / "results.json").read_text())["judges"] == ["heuristic"]
