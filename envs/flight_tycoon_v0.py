"""Flight Tycoon as a PettingZoo-style versioned module: ``from aerodeck.envs import flight_tycoon_v0``, then
``flight_tycoon_v0.env(n_players=4)`` (wrapped as PettingZoo's classic envs are) or
``flight_tycoon_v0.raw_env(...)`` (bare). The environment's ``metadata["name"]`` is
``"flight_tycoon_v0"``; the version changes when the observations, actions or rewards do."""

from aerodeck.envs.flight_tycoon.env import env, raw_env

__all__ = ["env", "raw_env"]
