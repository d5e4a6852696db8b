"""Agent knobs: every knob declared, typed and checked; a bad one is refused naming the agent, the knob
and what is allowed (``agents.base.Knob``, ``agents.registry.make_agent``)."""

import inspect
import math

import numpy as np
import pytest

import envs
from agents.base import Knob
from agents.registry import agent_class, agent_names, knob_values, make_agent

AGENTS = [(game, name) for game in envs.games() for name in agent_names(game)]


@pytest.mark.parametrize("game, name", AGENTS, ids=[f"{g}-{n}" for g, n in AGENTS])
def test_every_constructor_keyword_is_a_declared_knob_whose_default_is_allowed(game, name):
    cls = agent_class(game, name)
    params = {p.name: p for p in inspect.signature(cls.__init__).parameters.values()
              if p.name not in ("self", "seed", "rules")}
    assert set(cls.knobs) == set(params), f"{cls.__name__}.knobs must declare exactly {sorted(params)}"
    for key, knob in cls.knobs.items():
        default = params[key].default
        assert default is None or knob.parse(default) == default, (key, default)  # None: not set
        assert knob.doc, f"{cls.__name__}.knobs[{key!r}] needs a description"


def test_every_game_offers_random_and_its_registry_agents():
    for game in envs.games():
        names = agent_names(game)
        assert names[0] == "random" and names[1 : 1 + len(envs.spec(game).agents)] == list(envs.spec(game).agents)
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        agent_names("chess")


@pytest.mark.parametrize(
    "game, spec, message",
    [
        # Before: cycle=abc and cycle=off were read as on (any non-empty text is true).
        ("airport-scramble", "heuristic:cycle=abc", r"agent 'heuristic' \(airport-scramble\): knob 'cycle' must be on/off"),
        # Before: grow=-5 was accepted.
        ("airport-scramble", "heuristic:grow=-5", r"knob 'grow' must be on/off \(true/false, 1/0\), got '-5'"),
        ("airport-scramble", "heuristic:margin=-1", r"knob 'margin' must be an integer (>= 0|in 0\.\.\d+), got '-1'"),
        ("airport-scramble", "heuristic:margin=1.5", r"knob 'margin' must be an integer"),
        ("airport-scramble", "search:rollouts=0", r"knob 'rollouts' must be a positive integer, got '0'"),
        ("airport-scramble", "search:network=inf", r"knob 'network' must be a finite number >= 0, got 'inf'"),
        # Before: margin=nan and land_bonus=abc failed with messages that did not name the knob.
        ("flight-tycoon", "search:margin=nan", r"agent 'search' \(flight-tycoon\): knob 'margin' must be a finite number"),
        ("flight-tycoon", "heuristic:land_bonus=abc", r"agent 'heuristic' \(flight-tycoon\): knob 'land_bonus' must be a finite number"),
        ("flight-tycoon", "search:horizon=-1", r"knob 'horizon' must be an integer >= 0"),
        ("flight-tycoon", "heuristic:depth=3", r"agent 'heuristic' \(flight-tycoon\) has no knob 'depth'; its knobs: land_bonus, noise"),
        ("flight-tycoon", "genius", r"unknown agent 'genius' for flight-tycoon; available: random, heuristic, search"),
    ],
)
def test_a_bad_knob_is_refused_naming_the_agent_the_knob_and_what_is_allowed(game, spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(game, spec)


@pytest.mark.parametrize("text, value", [("on", True), ("off", False), ("true", True), ("False", False),
                                         ("1", True), ("0", False), ("yes", True), ("no", False)])
def test_switches_read_on_off_true_false_1_0(text, value):
    agent = make_agent("airport-scramble", f"heuristic:cycle={text},grow={text},farm={text}")
    assert (agent.style.cycle, agent.style.grow, agent.style.farm) == (value, value, value)


def test_knob_values_are_typed_by_the_declaration():
    typed = knob_values("flight-tycoon", "search", {"samples": "4", "ahead": "1", "gate": " 0.5 "})
    assert typed == {"samples": 4, "ahead": 1.0, "gate": 0.5}
    assert type(typed["samples"]) is int and type(typed["ahead"]) is float
    agent = make_agent("flight-tycoon", "search:samples=4,candidates=3,horizon=0")
    assert (agent.samples, agent.candidates, agent.horizon) == (4, 3, 0)


@pytest.mark.parametrize(
    "knob, value, parsed",
    [
        (Knob(int, 1), "12", 12), (Knob(int, 1), np.int16(3), 3), (Knob(int, 0, 5), 5, 5),
        (Knob(float, 0), "2.5e-1", 0.25), (Knob(float, 0), 3, 3.0), (Knob(float), "-1.5", -1.5),
        (Knob(bool), True, True), (Knob(bool), 0, False), (Knob(bool), " ON ", True),
        (Knob(str), " model.zip ", "model.zip"),
    ],
)
def test_knob_parse_accepts(knob, value, parsed):
    out = knob.parse(value)
    assert out == parsed and type(out) is type(parsed)


@pytest.mark.parametrize(
    "knob, value, allowed",
    [
        (Knob(int, 1), "1.0", "a positive integer"), (Knob(int, 1), True, "a positive integer"),
        (Knob(int, 0, 5), 6, "an integer in 0..5"), (Knob(int, 1), 2.0, "a positive integer"),
        (Knob(float, 0), "nan", "a finite number >= 0"), (Knob(float, 0), math.inf, "a finite number >= 0"),
        (Knob(float, 0), -0.1, "a finite number >= 0"), (Knob(float, None, 1), "2", "a finite number <= 1"),
        (Knob(float), "abc", "a finite number"), (Knob(bool), "abc", "on/off"), (Knob(bool), 2, "on/off"),
        (Knob(bool), "", "on/off"), (Knob(str), "", "non-empty text"), (Knob(str), 3, "non-empty text"),
    ],
)
def test_knob_parse_refuses_naming_what_is_allowed(knob, value, allowed):
    with pytest.raises(ValueError, match=f"knob 'k' must be {allowed}"):
        knob.parse(value, "knob 'k'")


def test_bench_refuses_a_bad_knob_before_playing(tmp_path, capsys):
    from train import cli

    assert cli.main(["bench", "airport-scramble", "--agent", "heuristic:cycle=abc", "--out", str(tmp_path / "out")]) == 2
    assert "knob 'cycle' must be on/off" in capsys.readouterr().err and not (tmp_path / "out").exists()
