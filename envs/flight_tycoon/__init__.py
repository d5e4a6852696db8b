"""Flight Tycoon: 3–5 airports trade airplane cards (rules FT-1 … FT-17, ``shared/rules/flight-tycoon.md``).

``env(**options)`` / ``raw_env`` — the PettingZoo AEC environment; ``FlightTycoonCore`` — the batched
engine; ``FlightTycoonRules`` — the rule options; ``SelfPlay`` (``training``) — the batched training
view with opponents played by agents.
"""

from envs.flight_tycoon.core import FlightTycoonCore
from envs.flight_tycoon.env import env, raw_env
from envs.flight_tycoon.rules import FlightTycoonRules

__all__ = ["FlightTycoonCore", "FlightTycoonRules", "env", "raw_env"]
