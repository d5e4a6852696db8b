"""The games the shared tests play, chosen from the registry by what they are, never by name: a
built-in solo game and a built-in multi-player game (shipped in ``aerodeck.envs``, so they offer every agent
kind the tools know: heuristic, search, a prior, a ladder)."""

from aerodeck import envs


def built_in(spec: envs.GameSpec) -> bool:
    """Whether ``spec`` is a game shipped in ``aerodeck.envs`` (not one plugged in from another package)."""
    return spec.core_class().__module__.startswith("aerodeck.envs.")


#: A built-in solo game.
SOLO = next(s for s in envs.specs() if s.solo and built_in(s))
#: A built-in multi-player game.
MULTI = next(s for s in envs.specs() if not s.solo and built_in(s))
