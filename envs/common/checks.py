"""The one seed check, the one action check and the one step preamble of every entry point (cores,
envs, VecEnvs, CLI), and the environments' shared options (``on_illegal``, rules plus rule options).

Seeds: Python or numpy integers in ``[0, 2**64)``; anything else (floats, bools, NaN, strings,
negative or too large numbers) is refused with the same message everywhere. Actions: a Python or
numpy integer, or an integer array of shape ``()`` or ``(1,)`` where one action is expected; floats
and bools are refused, never truncated. Illegal (but well-formed) actions raise
:class:`IllegalActionError`, a ``ValueError`` naming the game, the action and why.
"""

from __future__ import annotations

import numbers

import numpy as np

SEED_RANGE = "an integer in 0..2**64-1 (Python or numpy integer)"
SEEDS_RANGE = "integers in 0..2**64-1 (Python or numpy integers)"
MAX_SEED = 2**64 - 1


class IllegalActionError(ValueError):
    """A well-formed action that the rules do not allow now (the message says which and why)."""


def _is_integer(x) -> bool:
    return isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, (bool, np.bool_))


def check_seed(seed, what: str = "seed") -> int:
    """``seed`` as a Python ``int`` in ``[0, 2**64)``; ``ValueError`` naming ``what`` otherwise."""
    if isinstance(seed, np.ndarray) and seed.shape in ((), (1,)) and seed.dtype.kind in "iu":
        seed = seed.reshape(-1)[0]
    if not _is_integer(seed) or not 0 <= int(seed) <= MAX_SEED:
        raise ValueError(f"{what} must be {SEED_RANGE}, got {seed!r}")
    return int(seed)


def check_seeds(seeds, what: str = "seeds") -> np.ndarray:
    """``uint64 (B,)`` from a non-empty 1-D sequence or array of seeds (each as :func:`check_seed`)."""
    if not isinstance(seeds, np.ndarray):  # a list may mix small seeds with ones >= 2**63 (no common dtype)
        try:
            items = list(seeds)
        except TypeError:
            raise ValueError(f"{what} must be a non-empty 1-D sequence of {SEEDS_RANGE}, got {seeds!r}") from None
        arr = np.empty(len(items), object)
        arr[:] = items
    else:
        arr = seeds
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{what} must be a non-empty 1-D sequence of {SEEDS_RANGE}, got shape {arr.shape}")
    if arr.dtype.kind == "u":
        return arr.astype(np.uint64, copy=False)
    if arr.dtype.kind == "i":
        if arr.min() < 0:
            raise ValueError(f"{what} must be {SEEDS_RANGE}, got {int(arr.min())}")
        return arr.astype(np.uint64)
    if arr.dtype == object:
        return np.array([check_seed(s, what) for s in arr], np.uint64)
    raise ValueError(f"{what} must be {SEEDS_RANGE}, got dtype {arr.dtype}")


def check_action(action, n_actions: int) -> int:
    """One action as a Python ``int`` in ``[0, n_actions)``: an integer, or an integer array of
    shape ``()`` or ``(1,)``. ``ValueError`` naming the allowed range otherwise."""
    if isinstance(action, np.ndarray) and action.shape in ((), (1,)) and action.dtype.kind in "iu":
        action = action.reshape(-1)[0]
    if not _is_integer(action) or not 0 <= int(action) < n_actions:
        raise ValueError(f"action must be an integer in 0..{n_actions - 1}, got {action!r}")
    return int(action)


def check_actions(actions, batch_size: int, n_actions: int, live: np.ndarray | None = None) -> np.ndarray:
    """``int64 (B,)`` from integer actions of shape ``(B,)``, each in ``[0, n_actions)`` where
    ``live`` (``bool (B,)``, default all) is set; a finished game's action is not looked at."""
    a = np.asarray(actions)
    if a.shape != (batch_size,) or a.dtype.kind not in "iu":
        raise ValueError(f"actions must be integers of shape ({batch_size},) in 0..{n_actions - 1}, "
                         f"got {a.dtype} {a.shape}")
    a = a.astype(np.int64, copy=False)
    out = (a < 0) | (a >= n_actions)
    if live is not None:
        out &= live
    if out.any():
        bad = int(np.flatnonzero(out)[0])
        raise ValueError(f"game {bad}: action must be an integer in 0..{n_actions - 1}, got {int(a[bad])}")
    return a


def step_actions(actions, batch_size: int, n_actions: int, live: np.ndarray | None = None,
                 check_range: bool = True) -> np.ndarray:
    """The step preamble of every core: ``int64 (B,)`` from integer actions of shape ``(B,)``
    (``ValueError`` otherwise); with ``check_range`` each live one must lie in ``[0, n_actions)``
    (:func:`check_actions`), without (trusted callers, ``check_actions=False`` cores) only the shape
    and dtype are looked at."""
    if check_range:
        return check_actions(actions, batch_size, n_actions, live)
    a = np.asarray(actions)
    if a.shape != (batch_size,) or a.dtype.kind not in "iu":
        raise ValueError(f"actions must be integers of shape ({batch_size},) in 0..{n_actions - 1}, "
                         f"got {a.dtype} {a.shape}")
    return a.astype(np.int64, copy=False)


def refuse_illegal(legal: np.ndarray, explain) -> None:
    """``IllegalActionError`` for the first game whose action is not ``legal`` (``bool (B,)``, True
    for finished games), with the message ``explain(game)`` (naming the game, the action and why)."""
    if not legal.all():
        raise IllegalActionError(explain(int(np.flatnonzero(~legal)[0])))


# --- the environments' options --------------------------------------------------------------------

#: What an environment does with a well-formed action the rules forbid (option ``on_illegal``):
#: ``terminate`` — the episode ends, the offender gets :data:`ILLEGAL_REWARD` and the reason in its
#: ``info["illegal_action"]``; ``raise`` — :class:`IllegalActionError` naming the action and why.
ON_ILLEGAL = ("terminate", "raise")
#: The offender's reward when ``on_illegal="terminate"`` ends an episode.
ILLEGAL_REWARD = -1.0


def check_choice(name: str, value, allowed: tuple) -> None:
    """``ValueError`` naming the argument unless ``value`` is one of ``allowed``."""
    if value not in allowed:
        raise ValueError(f"{name}={value!r} is not allowed: {name} must be one of {', '.join(map(str, allowed))}")


def illegal_policy(on_illegal: str, message: str) -> None:
    """Apply ``on_illegal`` to an illegal action: raise :class:`IllegalActionError` (``message``)
    under ``raise``; return under ``terminate`` (the caller ends the episode with
    :data:`ILLEGAL_REWARD` and ``message`` in the offender's info)."""
    if on_illegal == "raise":
        raise IllegalActionError(message)


def rules_with_options(rules_class: type, rules, options: dict):
    """The rules object of an environment: ``rules`` (default: ``rules_class()``) with the keyword
    rule ``options`` applied on top (``rules.replace(**options)``, checked by the rules class).
    ``TypeError`` if ``rules`` is not a ``rules_class``."""
    if rules is None:
        return rules_class.from_options(options)
    if not isinstance(rules, rules_class):
        name = rules_class.__name__
        raise TypeError(f"rules must be {'an' if name[0] in 'AEIOU' else 'a'} {name}, got {type(rules).__name__}")
    return rules.replace(**options) if options else rules
