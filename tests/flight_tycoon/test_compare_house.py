"""``aerodeck compare / tune --house`` and a variants file's ``house`` key on Flight Tycoon: the catch-up
house rule judged by the heuristic and a search, joined to the variant of its name, refused in one line
when it is not a reference engine subclass. Airport Scramble's (broken house rules, replays, sweep):
``tests/airport_scramble/test_compare_house.py``."""

from __future__ import annotations

import json

import pytest

from aerodeck.cli import main as cli
from aerodeck.judge.compare import apply_houses, read_variants
from aerodeck import envs
from tests.common.house_rules import EXAMPLES, house_file

CATCHUP = f"{EXAMPLES}/catchup.py:LastSeatExtraCard"


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


def test_tune_searches_under_the_house_rule(tmp_path):
    pytest.importorskip("optuna")
    out = tmp_path / "out"
    assert cli.main(["tune", "flight-tycoon", "--players", "3", "--house", CATCHUP, "--agent", "heuristic",
                     "--param", "hand_size=5..7", "--target", "game_length=25", "--trials", "3", "--trial-games", "6",
                     "--games", "6", "--no-progress", "--out", str(out)]) == 0
    variants = json.loads((out / "results.json").read_text())["variants"]
    assert all(v["label"].endswith("house=catchup.py:LastSeatExtraCard") for v in variants.values())
