"""The games that changed (``compare --save-games changed``), the judges that barely react to a rule, and
the decision traces behind both: every row of changed.csv is a game whose outcome differs between the
base and the variant, its split decision is where the two recorded games' actions first differ, and the
replay files hold exactly those games."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from aerodeck.arena.replays import read
from aerodeck.arena.trace import Trace, identical, split_decisions
from aerodeck.cli import main as cli
from aerodeck.judge.changed import blind_judges
from tests.games import MULTI, SOLO
from tests.judge.options import variant


def run(argv, capsys):
    status = cli.main([*argv, "--no-progress"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


class _Done:
    def __init__(self, done):
        self.done = np.asarray(done)


def test_a_trace_keeps_each_games_decisions_until_it_ends():
    t = Trace(3, keep=True)
    t.on_step(None, _Done([False, False, True]), np.array([5, 6, 7]), None, np.array([0, 1, 2]))
    t.on_step(None, _Done([True, False, True]), np.array([1, 2, 9]), None, np.array([0, 1, 2]))  # game 2 is over
    t.on_step(None, _Done([True, True, True]), np.array([0, 3, 0]), None, np.array([0, 1, 2]))
    r = t.result()
    assert r["length"].tolist() == [2, 3, 1]
    assert r["actions"].tolist() == [[5, 1, -1], [6, 2, 3], [7, -1, -1]]
    other = Trace(3, keep=True)
    other.on_step(None, _Done([False, False, True]), np.array([5, 6, 8]), None, np.array([0, 1, 2]))
    other.on_step(None, _Done([True, True, True]), np.array([1, 2, 0]), None, np.array([0, 1, 2]))
    o = other.result()
    assert split_decisions(r, o).tolist() == [0, 3, 1]  # same; one game is the other's start; first action
    assert identical(r, o).tolist() == [True, False, False]
    hashed = {k: v for k, v in r.items() if k != "actions"}, {k: v for k, v in o.items() if k != "actions"}
    assert identical(*hashed).tolist() == [True, False, False]


def test_a_judge_that_plays_the_same_in_95_percent_of_games_is_flagged_and_pointed_to_one_that_reacts():
    shares = {"v": {"heuristic": {"identical": 1990, "games": 2000, "share": 0.995},
                    "expert": {"identical": 1200, "games": 2000, "share": 0.6}}}
    [flag] = blind_judges(shares, ["heuristic", "expert"])
    assert flag["table"] == "heuristic" and flag["try"] == ["expert (identical in 60 %)"]
    shares["v"]["expert"]["share"] = 0.96
    flags = blind_judges(shares, ["heuristic", "expert"])
    assert [f["table"] for f in flags] == ["heuristic", "expert"]
    assert all(f["try"] == ["search (--judges heuristic expert search)"] for f in flags)
    shares["v"]["heuristic"]["share"] = 0.94  # below the threshold: not flagged
    assert [f["table"] for f in blind_judges(shares, ["heuristic", "expert"])] == ["expert"]


@pytest.mark.parametrize("spec", [SOLO, MULTI], ids=lambda s: s.id)
def test_save_games_changed_lists_the_games_whose_outcome_differs_with_their_split(spec, tmp_path, capsys):
    out = tmp_path / "c"
    stdout = run(["compare", spec.id, "--variant", variant(spec, "v"), "--agent", "random", "--games", "40",
                  "--save-games", "changed", "--out", str(out)], capsys)
    results = json.loads((out / "results.json").read_text())
    rows = list(csv.DictReader(open(out / "changed.csv", encoding="utf-8")))
    [count] = results["changed"]["counts"]
    assert count["changed"] == len(rows) > 0 and count["games"] == 40
    assert f"games that changed, v / random: {len(rows)} of 40 changed outcome" in stdout
    base, mine = read(out / rows[0]["base_file"]), read(out / rows[0]["variant_file"])  # read() replays every game
    assert len(base.records) == len(mine.records) == len(rows)
    for row in rows:
        a, b = base.records[int(row["index"])], mine.records[int(row["index"])]
        assert a.seed == b.seed == int(row["seed"]) and a.game == b.game == int(row["game"])
        assert a.result != b.result  # the outcome differs
        differ = [i + 1 for i, (x, y) in enumerate(zip(a.actions, b.actions)) if x != y]
        expected = differ[0] if differ else (0 if len(a.actions) == len(b.actions)
                                             else min(len(a.actions), len(b.actions)) + 1)
        assert int(row["split_decision"]) == expected
        assert (int(row["base_decisions"]), int(row["variant_decisions"])) == (len(a.actions), len(b.actions))
    sizes = [abs(float(r["difference"])) for r in rows]
    assert sizes == sorted(sizes, reverse=True)  # the largest difference first
    assert count["identical"] == results["identical"]["v"]["random"]["identical"]
    report = (out / "report.md").read_text()
    assert "## The games that changed" in report and f"| 1 | v / random | {rows[0]['game']} |" in report


def test_changed_k_keeps_the_k_largest_and_plain_save_games_still_counts(tmp_path, capsys):
    out = tmp_path / "k"
    run(["compare", SOLO.id, "--variant", variant(SOLO, "v"), "--agent", "random", "--games", "40", "--changed", "2",
         "--save-games", "3", "--out", str(out)], capsys)
    rows = list(csv.DictReader(open(out / "changed.csv", encoding="utf-8")))
    assert len(rows) == 2 and [r["rank"] for r in rows] == ["1", "2"]
    assert len(read(out / "replays" / "v--random.jsonl").records) == 3  # the first K games as before


@pytest.mark.parametrize("bad", ["0", "some", "-1"])
def test_save_games_refuses_what_is_neither_a_count_nor_changed(bad, tmp_path, capsys):
    status = cli.main(["compare", SOLO.id, "--variant", variant(SOLO, "v"), "--save-games", bad,
                       "--out", str(tmp_path / "x"), "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2 and "--save-games" in err and "changed" in err
    assert not (tmp_path / "x").exists()


def test_the_changed_games_and_identical_play_are_the_same_for_any_chunk_and_with_or_without_actions(tmp_path, capsys):
    base = ["compare", SOLO.id, "--variant", variant(SOLO, "v"), "--agent", "random", "--games", "30"]
    run([*base, "--save-games", "changed", "--out", str(tmp_path / "a")], capsys)
    run([*base, "--save-games", "changed", "--chunk", "7", "--out", str(tmp_path / "b")], capsys)
    run([*base, "--out", str(tmp_path / "c")], capsys)  # no actions kept: the decisions' hash alone
    assert (tmp_path / "a" / "changed.csv").read_bytes() == (tmp_path / "b" / "changed.csv").read_bytes()
    shares = [json.loads((tmp_path / x / "results.json").read_text())["identical"] for x in "abc"]
    assert shares[0] == shares[1] == shares[2]
