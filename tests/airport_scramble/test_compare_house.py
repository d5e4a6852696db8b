"""``aerodeck compare / sweep / tune --house`` on Airport Scramble: house rules judged beside rule options;
a broken house rule stops its variant alone, in one line, and the others report; saved games play back
on the house engine. Flight Tycoon's (the catch-up example, a variants file's ``house`` key):
``tests/flight_tycoon/test_compare_house.py``."""

from __future__ import annotations

import json
import re
import tomllib

import pytest

from aerodeck.cli import main as cli
from aerodeck import envs
from tests.airport_scramble.house_rules import BROKEN
from tests.common.house_rules import EXAMPLES, house_file

IN_FLIGHT = f"{EXAMPLES}/delivery_in_flight.py:DeliveryInFlight"


def test_a_broken_house_rule_stops_its_variant_alone_and_the_others_report(tmp_path, capsys):
    """Three broken rules — one raises, one empties the legal mask, one never ends — each give one line
    naming the rule, the game and the decision; the good house rule and the option variant report."""
    houses = []
    for kind, cls in (("raises", "Raises"), ("empty", "Empty"), ("endless", "Endless")):
        path = house_file(tmp_path, BROKEN[kind], f"{kind}.py")
        houses += ["--house", f"{kind}:{path}:{cls}"]
    out = tmp_path / "out"
    status = cli.main(["compare", "airport-scramble", "--agent", "random", "--games", "12", "--no-progress",
                       "--variant", "option:pickup_in_flight=on", "--house", f"inflight:{IN_FLIGHT}", *houses,
                       "--metric", "score", "--out", str(out)])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    lines = [line for line in captured.err.splitlines() if line.startswith("variant ")]
    assert len(lines) == 3, captured.err
    for kind in ("raises", "empty", "endless"):
        line = next(line for line in lines if line.startswith(f"variant {kind} "))
        assert f"house rule {kind}.py:" in line and re.search(r": game \d+, decision \d+", line), line
    results = json.loads((out / "results.json").read_text())
    assert set(results["variants"]) == {"base", "option", "inflight"}
    assert sorted(results["failed_variants"]) == ["empty", "endless", "raises"]
    report = (out / "report.md").read_text()
    assert "house=delivery_in_flight.py:DeliveryInFlight" in report
    for line in lines:  # the summary says which variants were not judged, and why
        assert f"was not judged: {line}." in report
    # the house rule plays the option's games: the same score, game by game
    rows = [line.split(",") for line in (out / "games.csv").read_text().splitlines()[1:]]
    score = {(r[0], r[2]): r[4] for r in rows}
    assert all(score[("inflight", g)] == score[("option", g)] for v, g in score if v == "option")
    toml = tomllib.loads((out / "variants.toml").read_text())
    assert toml["inflight"]["house"].endswith("delivery_in_flight.py:DeliveryInFlight")


def test_games_saved_under_a_house_rule_play_back_on_its_engine_and_its_log_names_it(tmp_path, capsys):
    from aerodeck.arena import replays
    from aerodeck.watch.replay import film

    out = tmp_path / "out"
    assert cli.main(["compare", "airport-scramble", "--house", f"inflight:{IN_FLIGHT}", "--agent", "heuristic",
                     "--games", "12", "--seed", "4", "--save-games", "12", "--metric", "score", "--no-progress",
                     "--out", str(out)]) == 0  # seed 4: one delivery in flight among the 12 games
    replay = replays.read(out / "replays" / "inflight--heuristic.jsonl")  # played back and checked on the house engine
    assert replay.rules.label() == "house=delivery_in_flight.py:DeliveryInFlight"
    spec = envs.spec("airport-scramble")
    core = spec.make_core(replay.rules)
    lines = [ln for i in range(len(replay.records)) for step in film(replay, i, core, spec.text_module()).logs for ln in step]
    assert "delivered in flight (house rule DeliveryInFlight)" in lines


def test_sweep_plays_every_grid_point_under_the_house_rule(tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main(["sweep", "airport-scramble", "--house", IN_FLIGHT, "--grid", "ticket_turn_bonus=0,1",
                     "--agent", "random", "--games", "10", "--metric", "score", "--no-progress", "--out", str(out)]) == 0
    labels = {v["label"] for v in json.loads((out / "results.json").read_text())["variants"].values()}
    assert labels == {"house=delivery_in_flight.py:DeliveryInFlight",
                      "ticket_turn_bonus=1 house=delivery_in_flight.py:DeliveryInFlight"}


def test_a_broken_house_rule_stops_tune_in_one_line_and_writes_nothing(tmp_path, capsys):
    pytest.importorskip("optuna")
    path = house_file(tmp_path, BROKEN["raises"], "raises.py")
    capsys.readouterr()
    assert cli.main(["tune", "airport-scramble", "--house", f"{path}:Raises", "--agent", "random",
                     "--param", "ticket_turn_bonus=0..2", "--target", "score=1", "--trials", "2", "--trial-games", "4",
                     "--games", "4", "--no-progress", "--out", str(tmp_path / "broken")]) == 2
    err = capsys.readouterr().err
    assert re.search(r"house rule raises.py:Raises: game \d+, decision \d+: RuntimeError in step", err), err
    assert not (tmp_path / "broken").exists()
