"""``aerodeck compare / sweep / tune`` on Airport Scramble start their variants from base rules given as
``bench`` and ``train`` take rules: ``--rules FILE --table NAME`` then ``--rule key=value`` (the README's
``examples/variants.toml``)."""

import json
import tomllib
from pathlib import Path

import pytest

from aerodeck.cli import main as cli

AS = "airport-scramble"
QUICK = ["--no-progress", "--agent", "random", "--judges", "random"]
VARIANTS = Path(__file__).resolve().parents[2] / "examples" / "variants.toml"
#: The README's ``fast`` table of examples/variants.toml, with ``--rule allow_wait=off`` over it.
BASE = {**tomllib.loads(VARIANTS.read_text())["fast"], "allow_wait": False}
RULES = ["--rules", str(VARIANTS), "--table", "fast", "--rule", "allow_wait=off"]


def run(argv, capsys):
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_compare_plays_each_variant_over_the_base_rules(tmp_path, capsys):
    out = tmp_path / "c"
    status, _, err = run(["compare", AS, *RULES, "--variant", "easy:ticket_turn_bonus=2", "--games", "20",
                          "--metric", "decisions", "--out", str(out), *QUICK], capsys)
    assert status == 0, err
    variants = tomllib.loads((out / "variants.toml").read_text())
    assert variants["base"] == BASE
    assert variants["easy"] == {**BASE, "ticket_turn_bonus": 2}
    results = json.loads((out / "results.json").read_text())
    assert results["variants"]["base"]["options"] == BASE


def test_a_variant_option_wins_over_the_base_rules(tmp_path, capsys):
    out = tmp_path / "c"
    status, _, err = run(["compare", AS, *RULES, "--variant", "wide:grid_size=9", "--games", "10",
                          "--metric", "decisions", "--out", str(out), *QUICK], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    wide = {k: v for k, v in BASE.items() if k != "grid_size"}  # grid_size=9 sets the default back
    assert results["variants"]["wide"]["options"] == wide  # the options that differ from the defaults


def test_sweep_sweeps_the_grid_over_the_base_rules(tmp_path, capsys):
    out = tmp_path / "s"
    status, _, err = run(["sweep", AS, *RULES, "--grid", "replace_cost=1,2", "--games", "10",
                          "--metric", "decisions", "--out", str(out), *QUICK], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    # replace_cost=2 is the default: that point is the base rules, named base
    assert {name: v["options"] for name, v in results["variants"].items()} == {
        "base": BASE, "replace_cost=1": {**BASE, "replace_cost": 1}}


def test_tune_searches_from_the_base_rules(tmp_path, capsys):
    pytest.importorskip("optuna")
    out = tmp_path / "t"
    status, _, err = run(["tune", AS, *RULES, "--param", "replace_cost=1..1", "--target", "decisions=12",
                          "--trials", "2", "--trial-games", "8", "--games", "10", "--out", str(out), *QUICK], capsys)
    assert status == 0, err
    variants = tomllib.loads((out / "variants.toml").read_text())
    assert variants["base"] == BASE
    assert variants["tuned"] == {**BASE, "replace_cost": 1}  # the one candidate that is not the base


@pytest.mark.parametrize("command", ["compare", "sweep", "tune"])
def test_a_table_without_a_rules_file_is_refused_before_any_game(command, tmp_path, capsys):
    what = {"compare": ["--variant", "easy:ticket_turn_bonus=2"], "sweep": ["--grid", "replace_cost=1,2"],
            "tune": ["--param", "replace_cost=1..2", "--target", "decisions=12"]}[command]
    status, _, err = run([command, AS, "--table", "fast", *what, "--out", str(tmp_path / "x"), *QUICK], capsys)
    assert status == 2 and "--table fast names a table of a rules file: give the file with --rules FILE" in err
    assert not (tmp_path / "x").exists()
