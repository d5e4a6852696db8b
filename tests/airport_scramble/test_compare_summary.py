"""``aerodeck compare`` on Airport Scramble: the report's summary opens with the largest change."""

import json

import numpy as np

from aerodeck.train import cli

AS = "airport-scramble"


def run(argv, capsys):
    status = cli.main([*argv, "--no-progress"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def test_the_summary_opens_with_the_largest_change(tmp_path, capsys):
    out = tmp_path / "s"
    run(["compare", AS, "--variant", "easy:ticket_turn_bonus=4", "--agent", "heuristic", "--judges", "heuristic",
         "--metric", "score", "--metric", "turns", "--metric", "zero_tickets", "--games", "150", "--seed", "1",
         "--out", str(out)], capsys)
    results = json.loads((out / "results.json").read_text())
    found = []
    for c in results["comparisons"]:
        if c["p_holm"] < 0.05:
            base = results["estimates"][c["metric"]]["base"][c["table"]][0]["value"]
            found.append((abs(c["difference"]["value"] / base) if base else np.inf, c["metric"]))
    assert len(found) >= 2
    largest = max(found)[1]
    report = (out / "report.md").read_text()
    summary = report.split("## Summary", 1)[1].split("## The question", 1)[0]
    first = next(line for line in summary.splitlines() if line.startswith("- "))
    assert first.startswith(f"- The largest change: **{largest}**")
    assert " %" in first and "instead of" in first
