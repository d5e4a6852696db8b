"""Flight Tycoon: 3–5 airports trade airplane cards (rules FT-1 … FT-17, ``docs/flight-tycoon.md``).

Import what you need from its modules: ``rules`` (``FlightTycoonRules`` and the components),
``core`` (``FlightTycoonCore``, the batched engine), ``env`` (the PettingZoo AEC env; also
``aerodeck.envs.flight_tycoon_v0``), ``learner`` (the batched learner view), ``view`` (the look-ahead view),
``sb3`` (the Stable-Baselines3 ``VecEnv``). Importing the package itself loads nothing.
"""
