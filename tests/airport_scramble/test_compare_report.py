"""``aerodeck compare`` on Airport Scramble: the report holds the question, the verdicts and every
metric; a variant that changes the deal (``face_up``) is still paired."""

import json
import tomllib

import pytest

from aerodeck.cli import main as cli
from aerodeck.stats import significance as sig

AS = "airport-scramble"


def run(argv, capsys):
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_the_report_holds_the_question_the_verdicts_and_every_metric(tmp_path, capsys):
    out = tmp_path / "cmp"
    status, _, err = run(["compare", AS, "--variant", "nowait:allow_wait=off", "--variant", "wide:face_up=5",
                          "--games", "80", "--seed", "2", "--out", str(out), "--no-progress", "--judges", "heuristic",
                          "--agent", "heuristic", "--agent", "random", "--metric", "score", "--metric", "turns"], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    assert list(results["variants"]) == ["base", "nowait", "wide"]
    assert results["variants"]["nowait"]["deal"] is None  # the same deals
    assert "face_up=5" in results["variants"]["wide"]["deal"]  # the deal depends on face_up: still paired
    comparisons = results["comparisons"]
    assert len(comparisons) == 2 * 2 * 2  # variants × tables × metrics
    assert {c["difference"]["method"] for c in comparisons} == {"paired t"}
    holm = sig.holm([c["difference"]["p_value"] for c in comparisons])
    assert [c["p_holm"] for c in comparisons] == pytest.approx(holm.tolist())
    for c in comparisons:
        assert c["verdict"] in ("higher", "lower", "no change: equal in every game") or \
            c["verdict"].startswith("no detectable change at this N; the smallest change this N detects is ±")
    assert set(results["skill_gap"]) == {"base", "nowait", "wide"}  # heuristic minus random, per variant
    report = (out / "report.md").read_text()
    for text in ("## Summary", "## The question", "## Verdicts", "Holm", "## Skill gap", "### ticket_completion",
                 "![score_distribution](score_distribution.png)", "face_up=5", "## Appendix: the other tables"):
        assert text in report, text
    variants = tomllib.loads((out / "variants.toml").read_text())
    assert variants == {"base": {}, "nowait": {"allow_wait": False}, "wide": {"face_up": 5}}
    rows = (out / "games.csv").read_text().splitlines()
    assert rows[0].startswith("variant,table,game,seed,score,")
    assert len(rows) == 1 + 3 * 2 * 80
