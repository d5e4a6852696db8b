"""Agents by name: ``make_agent("airport-scramble", "search:budget=64", rules, seed)``.

An agent spec is ``NAME`` or ``NAME:key=value,key=value`` (the parameters go to the agent's
constructor as integers, floats or strings).
"""

from __future__ import annotations

import importlib
import inspect

from agents.base import Agent

GAMES = ("airport-scramble", "flight-tycoon")

# name -> "module:Class", per game.
AGENTS: dict[str, dict[str, str]] = {
    "airport-scramble": {
        "random": "agents.random:RandomAgent",
        "heuristic": "agents.airport_scramble.heuristic:HeuristicAgent",
        "search": "agents.airport_scramble.search:SearchAgent",
    },
    "flight-tycoon": {
        "random": "agents.random:RandomAgent",
        "heuristic": "agents.flight_tycoon.heuristic:HeuristicAgent",
        "search": "agents.flight_tycoon.search:SearchAgent",
    },
}


def agent_names(game: str) -> list[str]:
    """The agent names available for ``game``."""
    _check_game(game)
    return list(AGENTS[game])


def parse_spec(spec: str) -> tuple[str, dict[str, object]]:
    """``"search:budget=64,depth=3"`` → ``("search", {"budget": 64, "depth": 3})``."""
    name, _, rest = spec.strip().partition(":")
    params: dict[str, object] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"agent spec {spec!r}: parameter {item!r} is not of the form key=value")
        params[key.strip()] = _number(value.strip())
    return name, params


def make_agent(game: str, spec: str, rules=None, seed: int | None = 0) -> Agent:
    """Build the agent named by ``spec`` for ``game`` with its own seed; clear errors for bad specs."""
    _check_game(game)
    name, params = parse_spec(spec)
    if name not in AGENTS[game]:
        raise ValueError(f"unknown agent {name!r} for {game}; available: {', '.join(AGENTS[game])}")
    module, _, cls_name = AGENTS[game][name].partition(":")
    cls = getattr(importlib.import_module(module), cls_name)
    allowed = [p for p in inspect.signature(cls.__init__).parameters if p not in ("self", "seed", "rules")]
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ValueError(
            f"agent {name!r} has no parameter {unknown[0]!r}; its parameters: {', '.join(allowed) or 'none'}"
        )
    return cls(seed=seed, rules=rules, **params)


def _check_game(game: str) -> None:
    if game not in AGENTS:
        raise ValueError(f"unknown game {game!r}; available: {', '.join(GAMES)}")


def _number(text: str) -> object:
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text
