"""The aerodeck games, reached through one registry: ``aerodeck.envs.games()``, ``aerodeck.envs.spec(id)``,
``aerodeck.envs.make_core(id, rules=None, **options)``. Importing ``envs`` discovers the games of installed
packages (entry-point group ``aerodeck.games``) and registers every game's Gymnasium id from its
``GameSpec`` (``gym_id``, ``env``, ``vector``), e.g. ``gymnasium.make("aerodeck/AirportScramble-v0")``.
A PettingZoo game is reached as ``aerodeck.envs.spec(id).make_env(...)`` or through its versioned module
(``aerodeck.envs.flight_tycoon_v0``)."""

from gymnasium.envs.registration import register
from gymnasium.envs.registration import registry as gym_registry

from aerodeck.envs.registry import GameSpec, discover, games, make_core, on_register, spec, specs, view_of_env


def _register_gym(game: GameSpec) -> None:
    """Register ``game``'s single-game env (and vector env) under its ``gym_id`` with Gymnasium."""
    if game.gym_id is not None and game.gym_id not in gym_registry:
        register(id=game.gym_id, entry_point=game.env, vector_entry_point=game.vector)


on_register(_register_gym)
discover()

__all__ = ["GameSpec", "games", "make_core", "spec", "specs", "view_of_env"]
