"""The agent-spec grammar (``aerodeck.agents.specs``): ``KIND`` or ``KIND:knob=value,…``, read and written
in one place."""

from __future__ import annotations

import pytest

from aerodeck.agents.specs import format_spec, kind_of, parse_spec, split_specs


def test_a_spec_is_a_kind_and_its_knobs_as_text():
    assert parse_spec("search:rollouts=8,candidates=2") == ("search", {"rollouts": "8", "candidates": "2"})
    assert parse_spec(" heuristic ") == ("heuristic", {})
    assert parse_spec("search: rollouts = 8 ,") == ("search", {"rollouts": "8"})


def test_a_bare_word_switches_a_knob_on():
    assert parse_spec("ppo:general") == ("ppo", {"general": "on"})
    assert parse_spec("x:a=1,b") == ("x", {"a": "1", "b": "on"})


@pytest.mark.parametrize(("text", "message"), [
    ("x:=3", r"parameter '=3' is not of the form key=value"),
    ("x:a b", r"parameter 'a b' is not of the form key=value"),
    ("search:rollouts=8,rollouts=4", r"'rollouts' is given twice"),
])
def test_a_bad_spec_is_an_error_naming_it(text, message):
    with pytest.raises(ValueError, match=rf"agent spec '{text}': {message}"):
        parse_spec(text)


def test_the_kind_alone():
    assert kind_of("search:rollouts=8") == "search"
    assert kind_of("random") == "random"
    assert kind_of("restricted:base=search,forbid=wait") == "restricted"


def test_format_spec_writes_what_parse_spec_reads():
    for text in ("search:rollouts=8,candidates=2", "heuristic", "ppo:path=m.zip,caution=2"):
        assert format_spec(*parse_spec(text)) == text
    assert format_spec("search", {"rollouts": 8}) == "search:rollouts=8"
    assert format_spec("search", {}) == "search"


def test_a_list_of_specs_keeps_each_specs_knobs():
    assert split_specs("heuristic,search:rollouts=8,candidates=2,random") == [
        "heuristic", "search:rollouts=8,candidates=2", "random"]
    assert split_specs("ppo:path=m.zip,caution=2,heuristic") == ["ppo:path=m.zip,caution=2", "heuristic"]
    assert split_specs("ppo:path=C:/m.zip,heuristic") == ["ppo:path=C:/m.zip", "heuristic"]
    with pytest.raises(ValueError, match="empty agent in 'heuristic,,random'"):
        split_specs("heuristic,,random")
