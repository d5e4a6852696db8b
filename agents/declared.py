"""The agents a game declares — ``random`` and the game's own (``GameSpec.agents``: heuristic, search,
expert, …) — made from a spec, knobs typed and checked.

:mod:`aerodeck.agents.registry` makes every agent: these, the trained ones (``ppo``, ``ppo-lite``) and
restricted play. A trained agent makes its prior and its opponent here, so that it never imports the
registry that loads it (``registry`` → ``ppo`` → ``declared``: no circle).
"""

from __future__ import annotations

from aerodeck import envs
from aerodeck.agents.base import Agent
from aerodeck.agents.random import RandomAgent
from aerodeck.agents.specs import parse_spec
from aerodeck.envs.registry import RANDOM, load


def game_spec(game: str | envs.GameSpec) -> envs.GameSpec:
    """``game`` if it is a GameSpec, else the registered spec of the game id ``game`` (``ValueError`` if unknown)."""
    return game if isinstance(game, envs.GameSpec) else envs.spec(game)


def declared_class(game: str | envs.GameSpec, name: str) -> type[Agent] | None:
    """The class of agent ``name`` if ``game`` declares it (``random`` or one of ``GameSpec.agents``), else ``None``."""
    if name == RANDOM:
        return RandomAgent
    agents = game_spec(game).agents
    return load(agents[name]) if name in agents else None


def typed_knobs(cls: type[Agent], game: str, name: str, params: dict) -> dict:
    """``params`` (knob name -> text or Python value) typed and checked against the knobs of ``cls``, the
    class of agent ``name`` of ``game``; ``ValueError`` naming the agent, the knob and what is allowed."""
    out = {}
    for key, value in params.items():
        if key not in cls.knobs:
            raise ValueError(f"agent {name!r} ({game}) has no knob {key!r}; its knobs: "
                             f"{', '.join(cls.knobs) or 'none'}")
        out[key] = cls.knobs[key].parse(value, f"agent {name!r} ({game}): knob {key!r}")
    return out


def make_declared(game: str | envs.GameSpec, spec: str, rules=None, seed: int | None = 0) -> Agent:
    """The declared agent ``spec`` names (``heuristic``, ``search:rollouts=8``) for ``game`` with its own
    seed; ``ValueError`` for an agent the game does not declare (those are made by
    :func:`aerodeck.agents.registry.make_agent`)."""
    spec_of = game_spec(game)
    name, params = parse_spec(spec)
    cls = declared_class(spec_of, name)
    if cls is None:
        raise ValueError(f"agent {name!r} is not one of the agents {spec_of.id} declares "
                         f"({', '.join([RANDOM, *spec_of.agents])}), which a trained agent may play with")
    return cls(seed=seed, rules=rules, **typed_knobs(cls, spec_of.id, name, params))
