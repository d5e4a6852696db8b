"""``aerodeck bench`` of Airport Scramble with its rule options: a rule flag wins over the rules file,
an option out of range is refused naming it."""

from tests.bench.benching import results, run


def test_an_option_out_of_range_is_refused_naming_it_and_writes_nothing(tmp_path, capsys):
    assert run(["airport-scramble", "--rule", "grid_size=99", "--out", str(tmp_path / "out")]) == 2
    assert "'grid_size'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_rule_flag_wins_over_the_rules_file_even_when_it_names_the_default(tmp_path):
    path = tmp_path / "variants.toml"
    path.write_text("[variants.small]\ngrid_size = 5\nallow_wait = false\n")
    assert run(["airport-scramble", "--games", "5", "--rules", str(path), "--table", "variants.small",
                "--rule", "grid_size=9", "--out", str(tmp_path / "out")]) == 0
    rules = results(tmp_path / "out")["rules"]
    assert rules["grid_size"] == 9 and rules["allow_wait"] is False
