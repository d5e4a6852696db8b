"""The aerodeck games. Importing ``envs`` registers the Gymnasium ids (``aerodeck/AirportScramble-v0``)."""

from gymnasium.envs.registration import register, registry

if "aerodeck/AirportScramble-v0" not in registry:
    register(
        id="aerodeck/AirportScramble-v0",
        entry_point="envs.airport_scramble.env:AirportScrambleEnv",
        vector_entry_point="envs.airport_scramble.vector:AirportScrambleVectorEnv",
    )
