"""The rules-object machinery: validation, parsing, TOML, clear errors."""

import dataclasses

import pytest

from aerodeck.envs.common.options import RuleOptions, choice, flag, integer, integers, option


@dataclasses.dataclass(frozen=True)
class ToyRules(RuleOptions):
    game = "Toy"
    size: int = option(9, integer(5, 15), "grid size")
    wait: bool = option(True, flag(), "allow waiting")
    mode: str = option("a", choice("a", "b"), "mode")
    table: tuple = option((1, 2), integers(0, 9, length=2), "values")

    def check(self):
        if self.mode == "b" and self.size > 10:
            raise ValueError("rule options 'mode'=b and 'size' > 10 cannot be combined")


def test_defaults_are_valid_hashable_and_labelled():
    rules = ToyRules()
    assert hash(rules) == hash(ToyRules())
    assert rules.label() == "default"
    assert ToyRules(size=11).label() == "size=11"


def test_strings_are_parsed_by_type():
    rules = ToyRules.from_strings(["size=12", "wait=off", "mode=b" if False else "mode=a", "table=3,4"])
    assert (rules.size, rules.wait, rules.mode, rules.table) == (12, False, "a", (3, 4))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"size": 4}, r"'size'.*an integer in 5\.\.15"),
        ({"size": "nine"}, r"'size'.*an integer"),
        ({"size": 9.0}, r"'size'"),
        ({"wait": "maybe"}, r"'wait'.*on/off"),
        ({"mode": "c"}, r"'mode'.*one of a, b"),
        ({"table": (1, 2, 3)}, r"'table'.*2 comma-separated"),
        ({"sise": 9}, r"unknown rule option 'sise'.*did you mean 'size'"),
        ({"mode": "b", "size": 12}, r"'mode'.*'size'"),
    ],
)
def test_bad_values_name_the_option_and_what_is_allowed(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ToyRules.from_options(**kwargs)


def test_malformed_key_value_string():
    with pytest.raises(ValueError, match="key=value"):
        ToyRules.from_strings(["size"])


def test_toml_file_top_level_rules_table_and_named_table(tmp_path):
    path = tmp_path / "v.toml"
    path.write_text("size = 7\nwait = false\n")
    assert ToyRules.from_toml(path) == ToyRules(size=7, wait=False)
    path.write_text("[rules]\nsize = 8\n")
    assert ToyRules.from_toml(path).size == 8
    path.write_text("[variants.fast]\nsize = 6\n")
    assert ToyRules.from_toml(path, table="variants.fast").size == 6


def test_toml_errors_name_the_file_and_the_problem(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("size = = 3\n")
    with pytest.raises(ValueError, match="bad.toml.*not valid TOML"):
        ToyRules.from_toml(path)
    path.write_text("size = 30\n")
    with pytest.raises(ValueError, match=r"bad.toml.*'size'"):
        ToyRules.from_toml(path)
    with pytest.raises(ValueError, match="does not exist"):
        ToyRules.from_toml(tmp_path / "missing.toml")
    with pytest.raises(ValueError, match=r"no table \[nope\]"):
        ToyRules.from_toml({"size": 7}, table="nope")


def test_replace_validates():
    with pytest.raises(ValueError, match="'size'"):
        ToyRules().replace(size=100)
    with pytest.raises(ValueError, match="unknown rule option"):
        ToyRules().replace(colour=1)


def test_toml_with_top_level_options_and_a_rules_table_is_refused(tmp_path):
    # Before: the top-level size = 7 was silently dropped in favour of [rules].
    path = tmp_path / "mixed.toml"
    path.write_text("size = 7\n[rules]\nwait = false\n")
    with pytest.raises(ValueError, match=r"mixed.toml: has both top-level rule options \(size\) and a \[rules\] table"):
        ToyRules.from_toml(path)


def test_a_rules_table_beside_named_variant_tables_is_still_read(tmp_path):
    path = tmp_path / "v.toml"
    path.write_text("[rules]\nsize = 8\n[fast]\nsize = 6\n")
    assert ToyRules.from_toml(path).size == 8
    assert ToyRules.from_toml(path, table="fast").size == 6


def test_a_file_of_named_tables_asks_which_one(tmp_path):
    path = tmp_path / "v.toml"
    path.write_text("[fast]\nsize = 6\n[slow]\nsize = 12\n")
    with pytest.raises(ValueError, match=r"holds the table\(s\) fast, slow.*--table NAME"):
        ToyRules.from_toml(path)
    with pytest.raises(ValueError, match=r"no table \[medium\]; its tables: fast, slow"):
        ToyRules.from_toml(path, table="medium")


def test_a_folder_given_as_rules_file_is_a_clear_error(tmp_path):
    # Before: IsADirectoryError ("[Errno 21] Is a directory").
    with pytest.raises(ValueError, match=r"rules file .* is a folder; give a TOML file"):
        ToyRules.from_toml(tmp_path)
