"""Agent knobs: every knob declared, typed and checked; a bad one is refused naming what is allowed
(``aerodeck.agents.base.Knob``, ``aerodeck.agents.registry.make_agent``). Each game's knobs refused naming the agent and the
knob: ``test_agent_knobs.py`` of its tests."""

import inspect
import math

import numpy as np
import pytest

from aerodeck import envs
from aerodeck.agents.base import Knob
from aerodeck.agents.registry import agent_class, agent_names

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
