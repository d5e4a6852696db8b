"""The aerodeck games, reached through one registry: ``envs.games()``, ``envs.spec(id)``,
``envs.make_core(id, rules=None, **options)``. Importing ``envs`` also registers the Gymnasium ids
(``aerodeck/AirportScramble-v0``); Flight Tycoon's PettingZoo module is ``envs.flight_tycoon_v0``."""

from gymnasium.envs.registration import register
from gymnasium.envs.registration import registry as gym_registry

from envs.registry import GameSpec, games, make_core, spec, view_of_env

if "aerodeck/AirportScramble-v0" not in gym_registry:
    register(
        id="aerodeck/AirportScramble-v0",
        entry_point="envs.airport_scramble.env:AirportScrambleEnv",
        vector_entry_point="envs.airport_scramble.vector:AirportScrambleVectorEnv",
    )

__all__ = ["GameSpec", "games", "make_core", "spec", "view_of_env"]
