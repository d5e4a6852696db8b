"""``aerodeck compare`` on Airport Scramble: the report's summary opens, per variant, with one sentence on
the headline metrics (score first), then the other detected changes by standardised effect size."""

import json

import numpy as np

from aerodeck.cli import main as cli

AS = "airport-scramble"


def run(argv, capsys):
    status = cli.main([*argv, "--no-progress"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def test_the_summary_opens_with_the_headline_sentence_then_the_largest_standardised_effect(tmp_path, capsys):
    out = tmp_path / "s"
    run(["compare", AS, "--variant", "easy:ticket_turn_bonus=4", "--agent", "heuristic", "--judges", "heuristic",
         "--metric", "score", "--metric", "turns", "--metric", "zero_tickets", "--metric", "preplayed",
         "--metric", "turns_per_ticket", "--games", "150", "--seed", "1", "--out", str(out)], capsys)
    results = json.loads((out / "results.json").read_text())
    assert results["headline"] == ["score", "zero_tickets", "turns"]
    found = []
    for c in results["comparisons"]:
        if c["p_holm"] is not None and c["p_holm"] < 0.05 and c["metric"] not in results["headline"]:
            d = c["difference"]
            found.append((abs(d["value"]) / (d["se"] * np.sqrt(d["n"])), c["metric"]))
    assert len(found) == 2
    report = (out / "report.md").read_text()
    summary = report.split("## Summary", 1)[1].split("## The question", 1)[0]
    bullets = [line for line in summary.splitlines() if line.startswith("- ")]
    assert bullets[0].startswith("- **easy** (ticket_turn_bonus=4), measured by heuristic: score +")
    assert "zero_tickets" in bullets[0] and "turns +" in bullets[0]
    assert bullets[1].startswith(f"- **{max(found)[1]}**") and bullets[2].startswith(f"- **{min(found)[1]}**")
    # preplayed's base (a few tickets in 150 games) is near zero: no relative change for it
    line = next(b for b in bullets if b.startswith("- **preplayed**"))
    assert " %" not in line.split("instead of", 1)[1]
