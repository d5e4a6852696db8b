"""The pickup_in_flight question (AS-12: flying over the origin or destination picks up or completes):
``compare --save-games changed`` lists the games whose score differs with the decision where the two games
split, ``aerodeck replay OUT --changed N`` opens one side by side from there, and the heuristic — which
plays the same decisions under both rules in nearly every game — is flagged as a judge that barely reacts."""

import csv
import io
import json
import sys

import pytest

from aerodeck.cli import main as cli

AS = "airport-scramble"


@pytest.fixture(scope="module")
def inflight(tmp_path_factory):
    out = tmp_path_factory.mktemp("inflight") / "c"
    status = cli.main(["compare", AS, "--variant", "inflight:pickup_in_flight=on", "--games", "300",
                       "--agent", "heuristic", "--save-games", "changed", "--out", str(out), "--no-progress"])
    assert status == 0
    return out


def test_the_changed_games_are_listed_with_their_split_decision(inflight):
    rows = list(csv.DictReader(open(inflight / "changed.csv", encoding="utf-8")))
    assert rows and all(r["variant"] == "inflight" and r["table"] == "heuristic" for r in rows)
    for r in rows:
        assert r["base_score"] != r["variant_score"] and float(r["difference"]) == float(r["variant_score"]) - float(
            r["base_score"])
        assert int(r["split_decision"]) >= 1
    report = (inflight / "report.md").read_text()
    assert f"| 1 | inflight / heuristic | {rows[0]['game']} | {rows[0]['seed']} | {rows[0]['base_score']} → " \
           f"{rows[0]['variant_score']} |" in report


def test_the_heuristic_is_flagged_as_barely_reacting_to_the_rule(inflight):
    a = json.loads((inflight / "results.json").read_text())
    share = a["identical"]["inflight"]["heuristic"]
    assert share["share"] >= 0.95
    [flag] = a["blind"]
    assert flag["table"] == "heuristic" and any(t.startswith("expert") for t in flag["try"])
    summary = (inflight / "report.md").read_text().split("## The question", 1)[0]
    assert (f"**heuristic barely reacts to the rule** under inflight: it took the same decisions under both rules in "
            f"{share['identical']:,} of 300 games") in summary


def test_replay_opens_a_changed_pair_side_by_side_at_its_split(inflight, capsys, monkeypatch):
    rows = list(csv.DictReader(open(inflight / "changed.csv", encoding="utf-8")))
    split = int(rows[0]["split_decision"])
    monkeypatch.setattr(sys, "stdin", io.StringIO("n\nq\n"))
    assert cli.main(["replay", str(inflight), "--changed", "1"]) == 0
    out = capsys.readouterr().out
    assert f"game {rows[0]['game']} · seed {rows[0]['seed']}" in out and f"the games split at decision {split}" in out
    assert "base (heuristic)" in out and "inflight (heuristic)" in out and f"{split} ◀ split" in out
    # the same pair from the two files, from a decision of one's choosing
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    base, variant = inflight / rows[0]["base_file"], inflight / rows[0]["variant_file"]
    assert cli.main(["replay", str(base), str(variant), "--game", rows[0]["index"], "--from-decision", "3"]) == 0
    out = capsys.readouterr().out
    assert "decisions from 1" in out and f"{split} ◀ split" in out
    assert "after decision 2" in out  # the table before decision 3
    # listing the folder names every changed game
    assert cli.main(["replay", str(inflight)]) == 0
    assert f"{len(rows)} changed game(s)" in capsys.readouterr().out


def test_replay_refuses_a_row_that_is_not_there_and_a_decision_before_the_first(inflight, capsys):
    rows = list(csv.DictReader(open(inflight / "changed.csv", encoding="utf-8")))
    assert cli.main(["replay", str(inflight), "--changed", str(len(rows) + 1)]) == 2
    assert f"lists rows 1..{len(rows)}" in capsys.readouterr().err
    base, variant = inflight / rows[0]["base_file"], inflight / rows[0]["variant_file"]
    assert cli.main(["replay", str(base), str(variant), "--game", "0", "--from-decision", "0"]) == 2
    assert "--from-decision must be at least 1" in capsys.readouterr().err


def test_a_20_game_compare_names_the_games_its_question_needs_and_flags_the_blind_judge(tmp_path, capsys):
    out = tmp_path / "c20"
    assert cli.main(["compare", AS, "--variant", "inflight:pickup_in_flight=on", "--games", "20", "--agent",
                     "heuristic", "--out", str(out), "--no-progress"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    a = json.loads((out / "results.json").read_text())
    headline = [c for c in a["comparisons"] if c["table"] == "heuristic" and c["column"] == ""
                and c["metric"] in a["headline"]]
    needed = [c["power"]["games_needed"] for c in headline if c["power"] and not c["power"]["enough"]]
    assert needed and all(n > 20 for n in needed)
    assert "Too few games for this question: 20 games per variant" in printed and f"--games {max(needed)}" in printed
    assert ("heuristic barely reacts to the rule under inflight: it took the same decisions under both rules in "
            f"{a['identical']['inflight']['heuristic']['identical']} of 20 games") in printed
