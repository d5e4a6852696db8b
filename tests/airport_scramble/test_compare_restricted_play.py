"""``aerodeck compare`` with restricted agents on Airport Scramble: a forbidden action kind is never
taken, and a decision with no allowed action falls back to the full mask, counted."""

import json

from aerodeck.cli import main as cli

AS = "airport-scramble"


def run(argv, capsys):
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_restricted_play_takes_the_kind_away_and_counts_fallbacks(tmp_path, capsys):
    out = tmp_path / "r"
    status, _, err = run(["compare", AS, "--variant", "v:replace_cost=1", "--games", "20", "--out", str(out),
                          "--no-progress", "--judges", "random", "--agent", "restricted:base=random,forbid=replace",
                          "--agent", "restricted:base=random,forbid=fly+stop_early+play+replace+wait"], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    mix = results["estimates"]["action_mix"]["base"]["restricted:base=random,forbid=replace"]
    replace = results["metrics"]["action_mix"]["labels"].index("replace")
    assert mix[replace]["value"] == 0
    counts = results["restricted"]["base / restricted:base=random,forbid=fly+stop_early+play+replace+wait"]
    only_lines = counts["restricted:base=random,forbid=fly+stop_early+play+replace+wait"]
    assert only_lines["fallbacks"] == only_lines["decisions"] > 0  # no line choice ever came: all fell back
    assert "full mask was used" in (out / "report.md").read_text()
