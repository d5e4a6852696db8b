"""Agents by name: ``make_agent("airport-scramble", "search:rollouts=8,candidates=2", rules, seed)``.

A game's agents are ``random`` and ``ppo`` (every game; ``ppo`` plays a trained model, see
:mod:`aerodeck.agents.ppo`) plus those its registry entry offers (``aerodeck.envs.spec(game).agents``:
name -> ``"module:Class"``). This module is the one place that turns an agent's name into its class:
the registry of games holds the names as data and imports no agent. ``game`` is a game id or a
``GameSpec`` (``aerodeck.testing`` checks a spec that is not registered). An agent spec is ``NAME``
or ``NAME:key=value,key=value``; each key is one of the agent class's declared
:attr:`~aerodeck.agents.base.Agent.knobs`, and its value is checked against the knob's type and range
(an error names the agent, the knob and what is allowed).
"""

from __future__ import annotations

from aerodeck import envs
from aerodeck.agents import restricted
from aerodeck.agents.base import Agent
from aerodeck.agents.declared import declared_class, game_spec, typed_knobs
from aerodeck.agents.specs import format_spec, parse_spec
from aerodeck.envs.registry import load

#: The agent every game offers (``RANDOM``), and the trained agent every game offers (``PPO``: a
#: MaskablePPO model; needs the ``train`` extra).
from aerodeck.envs.registry import PPO, RANDOM  # noqa: E402, F401

#: The agent that plays a model of the one-file masked PPO (``train/ppo_lite.py``): ``ppo-lite:path=MODEL.pt``
#: (every game; needs torch, which comes with the train extra).
PPO_LITE = "ppo-lite"
#: The agent that plays a policy trained by RLlib (``python -m aerodeck.train.rllib``): ``rllib:path=RUN``
#: (every game; needs the rllib extra, imported only when the agent is made).
RLLIB = "rllib"


def agent_names(game: str | envs.GameSpec) -> list[str]:
    """The agent names available for ``game`` (``ValueError`` for an unknown game)."""
    return game_spec(game).agent_names()


def agent_kinds(game: str | envs.GameSpec) -> list[str]:
    """Every agent spec name ``game`` accepts, for lists shown to a user: :func:`agent_names` (the
    registry's), ``ppo-lite`` (a model of ``train/ppo_lite.py``), ``rllib`` (a policy trained by RLlib) and
    ``restricted`` (any of them with action kinds taken away)."""
    return [*agent_names(game), PPO_LITE, RLLIB, restricted.NAME]


def describe_kinds(game: str | envs.GameSpec) -> str:
    """The agent kinds of ``game`` in one line for help texts and errors, the spellings that need one
    shown: ``random, heuristic, …, ppo (ppo:path=FILE.zip, ppo:general), restricted (restricted:base=AGENT,
    forbid=KIND)``."""
    spelled = {PPO: f"{PPO} ({PPO}:path=FILE.zip, {PPO}:general)", PPO_LITE: f"{PPO_LITE} ({PPO_LITE}:path=MODEL.pt)",
               RLLIB: f"{RLLIB} ({RLLIB}:path=RUN)",
               restricted.NAME: f"{restricted.NAME} ({restricted.NAME}:base=AGENT,forbid=KIND)"}
    return ", ".join(spelled.get(name, name) for name in agent_kinds(game))


def agent_class(game: str | envs.GameSpec, name: str) -> type[Agent]:
    """The class of agent ``name`` for ``game``; ``ValueError`` naming the available agents otherwise."""
    spec = game_spec(game)
    declared = declared_class(spec, name)
    if declared is not None:
        return declared
    if name == PPO:
        try:
            return load("aerodeck.agents.ppo:PPOAgent")
        except ImportError as err:  # torch and sb3-contrib come with the train extra
            raise ValueError(f"agent 'ppo' needs the train extra: pip install -e '.[train]' ({err})") from None
    if name == PPO_LITE:
        try:
            return load("aerodeck.agents.ppo_lite:PPOLiteAgent")
        except ImportError as err:
            raise ValueError(f"agent 'ppo-lite' needs torch (the train extra): pip install -e '.[train]' ({err})") from None
    if name == RLLIB:
        return load("aerodeck.agents.rllib:RLlibAgent")  # imports Ray only when the agent is made
    raise ValueError(f"unknown agent {name!r} for {spec.id}; available: {describe_kinds(spec)}")


def knob_values(game: str | envs.GameSpec, name: str, params: dict) -> dict:
    """``params`` (knob name -> text or Python value) typed and checked against agent ``name``'s knobs."""
    return typed_knobs(agent_class(game, name), game_spec(game).id, name, params)


def make_agent(game: str | envs.GameSpec, spec: str, rules=None, seed: int | None = 0) -> Agent:
    """Build the agent named by ``spec`` for ``game`` with its own seed; clear errors for bad specs.
    ``restricted:base=AGENT,forbid=KIND[+KIND...],<base knobs>`` wraps any agent (``aerodeck.agents.restricted``),
    the base agent built here with the same seed."""
    name, params = parse_spec(spec)
    if name == restricted.NAME:
        base, forbid, own = restricted.split_spec(params)
        kinds = tuple(game_spec(game).make_core(rules).actions.kinds)
        inner = make_agent(game, format_spec(base, own), rules, seed)
        return restricted.RestrictedAgent(inner, restricted.parse_forbid(forbid, kinds), kinds, seed, rules)
    return agent_class(game, name)(seed=seed, rules=rules, **knob_values(game, name, params))
