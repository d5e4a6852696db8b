"""aerodeck: reinforcement-learning environments for two aviation card games on a batched numpy core.

``import aerodeck`` registers every game's Gymnasium id (``gymnasium.make("aerodeck/AirportScramble-v0")``)
and discovers the games of installed plugins (entry-point group ``aerodeck.games``). The packages:

- ``aerodeck.envs``: the games (rules, engines, environment APIs) and their registry;
- ``aerodeck.agents``: policies on batches (random, heuristic, search, expert, ppo);
- ``aerodeck.train``: training (``aerodeck train``, RLlib, the one-file PPO);
- the tools users run, each in a folder named for it: ``aerodeck.cli`` (the ``aerodeck`` command, ``aerodeck
  run``), ``aerodeck.arena`` (the play loop every tool uses, backends, output folders, replay files),
  ``aerodeck.stats``, ``aerodeck.bench``, ``aerodeck.judge`` (compare / sweep / tune), ``aerodeck.watch``
  (play, replay), ``aerodeck.serve`` (the web app);
- ``aerodeck.tasks()`` / ``aerodeck.task(name)``: the benchmark's named tasks (``aerodeck.bench.tasks``);
- ``aerodeck.testing``: the contract check a game's author runs (:func:`aerodeck.testing.check_game`).

The PettingZoo game keeps its versioned module: ``from aerodeck import flight_tycoon_v0``.
"""

from aerodeck import envs
from aerodeck.envs import flight_tycoon_v0
from aerodeck.envs import GameSpec, games, make_core, spec, specs, view_of_env

__version__ = "0.1.0"

__all__ = ["GameSpec", "envs", "flight_tycoon_v0", "games", "make_core", "spec", "specs", "task", "tasks", "view_of_env"]


def __getattr__(name: str):
    """``aerodeck.tasks()`` and ``aerodeck.task(name)``: the benchmark's tasks (``aerodeck.bench.tasks``),
    imported on first use so that ``import aerodeck`` stays cheap."""
    if name in ("task", "tasks"):
        from aerodeck.bench import tasks as _tasks

        return getattr(_tasks, name)
    raise AttributeError(f"module 'aerodeck' has no attribute {name!r}")
