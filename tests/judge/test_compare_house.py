"""``aerodeck compare --house NAME:FILE.py:Class`` and a variants file's ``house`` key: house rules judged
beside rule options; a broken house rule stops its variant alone, in one line, and the others report."""

from __future__ import annotations

import json
import re
import tomllib

import pytest

from aerodeck.cli import main as cli
from aerodeck.judge.compare import apply_houses, read_variants
from aerodeck import envs
from tests.common.house_rules import BROKEN, EXAMPLES, house_file

IN_FLIGHT = f"{EXAMPLES}/delivery_in_flight.py:DeliveryInFlight"
CATCHUP = f"{EXAMPLES}/catchup.py:LastSeatExtraCard"


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


def test_the_flight_tycoon_catchup_rule_is_judged_by_the_heuristic_and_a_search(tmp_path, capsys):
    out = tmp_path / "out"
    status = cli.main(["compare", "flight-tycoon", "--players", "5", "--house", f"catchup:{CATCHUP}", "--games", "6",
                       "--agent", "heuristic", "--judges", "heuristic", "search:samples=1,horizon=6",
                       "--metric", "first_player_win", "--metric", "game_length", "--no-progress", "--out", str(out)])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    results = json.loads((out / "results.json").read_text())
    assert results["variants"]["catchup"]["label"] == "n_players=5 house=catchup.py:LastSeatExtraCard"
    assert {t["name"] for t in results["tables"]} == {"heuristic", "search:samples=1,horizon=6"}
    assert "catchup" in (out / "report.md").read_text()


def test_a_variants_file_names_a_house_rule_beside_its_options(tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "mine.py").write_text((EXAMPLES / "catchup.py").read_text())
    path = tmp_path / "variants.toml"
    path.write_text('[catchup]\nn_players = 5\nhouse = "rules/mine.py:LastSeatExtraCard"\n\n[plain]\nn_players = 3\n')
    variants = read_variants(path, envs.spec("flight-tycoon").rules_class())
    assert variants["catchup"].label() == "n_players=5 house=mine.py:LastSeatExtraCard"
    assert variants["plain"].label() == "n_players=3"
    path.write_text('[catchup]\nhouse = 3\n')
    with pytest.raises(ValueError, match="variant catchup: house must be a string FILE.py:Class"):
        read_variants(path, envs.spec("flight-tycoon").rules_class())


def test_house_joins_the_variant_of_its_name_or_makes_one():
    rules_class = envs.spec("flight-tycoon").rules_class()
    items = apply_houses([("rank", rules_class(vp_sharing="rank"))], [f"rank:{CATCHUP}", f"new:{CATCHUP}"], rules_class)
    assert [(n, r.label()) for n, r in items] == [("rank", "vp_sharing=rank house=catchup.py:LastSeatExtraCard"),
                                                  ("new", "house=catchup.py:LastSeatExtraCard")]
    with pytest.raises(ValueError, match="expected NAME:FILE.py:Class"):
        apply_houses([], ["catchup"], rules_class)
    with pytest.raises(ValueError, match="expected FILE.py:Class"):
        apply_houses([], ["catchup.py:LastSeatExtraCard"], rules_class)
    with pytest.raises(ValueError, match="--house bad: house rule 'nowhere.py:X': no file"):
        apply_houses([], ["bad:nowhere.py:X"], rules_class)


def test_a_house_rule_that_is_not_a_reference_engine_subclass_is_refused_before_any_game(tmp_path, capsys):
    path = house_file(tmp_path, "class Loose:\n    pass\n")
    status = cli.main(["compare", "flight-tycoon", "--house", f"loose:{path}:Loose", "--games", "4", "--no-progress",
                       "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 2 and "Loose must be a subclass of aerodeck.envs.flight_tycoon.reference.ReferenceGame" in err
    assert not (tmp_path / "out").exists()


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


def test_tune_searches_under_the_house_rule_and_a_broken_one_stops_it_in_one_line(tmp_path, capsys):
    pytest.importorskip("optuna")
    out = tmp_path / "out"
    assert cli.main(["tune", "flight-tycoon", "--players", "3", "--house", CATCHUP, "--agent", "heuristic",
                     "--param", "hand_size=5..7", "--target", "game_length=25", "--trials", "3", "--trial-games", "6",
                     "--games", "6", "--no-progress", "--out", str(out)]) == 0
    variants = json.loads((out / "results.json").read_text())["variants"]
    assert all(v["label"].endswith("house=catchup.py:LastSeatExtraCard") for v in variants.values())
    path = house_file(tmp_path, BROKEN["raises"], "raises.py")
    capsys.readouterr()
    assert cli.main(["tune", "airport-scramble", "--house", f"{path}:Raises", "--agent", "random",
                     "--param", "ticket_turn_bonus=0..2", "--target", "score=1", "--trials", "2", "--trial-games", "4",
                     "--games", "4", "--no-progress", "--out", str(tmp_path / "broken")]) == 2
    err = capsys.readouterr().err
    assert re.search(r"house rule raises.py:Raises: game \d+, decision \d+: RuntimeError in step", err), err
    assert not (tmp_path / "broken").exists()
