"""Counter-based randomness shared by every engine (see ``shared/design.md``, "Randomness is an input").

Every random choice of a game is the value of a splitmix64 stream keyed by the game's seed at the
game's event counter. The scalar functions (Python ``int``) serve the reference engines, the array
functions (``numpy.uint64``) the batched cores; both compute bit-identical values, so a game's
trajectory depends only on its seed — not on the batch size or the game's place in the batch.

A card is drawn as "the k-th remaining card by id" with ``k = draw_below(value, n_remaining)``.
"""

from __future__ import annotations

import numpy as np

from aerodeck.envs.common.checks import check_seed

MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB


def mix(z: int) -> int:
    """splitmix64's output function on one 64-bit integer (Python ``int`` in, ``int`` out)."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * _M1) & MASK64
    z = ((z ^ (z >> 27)) * _M2) & MASK64
    return z ^ (z >> 31)


def game_key(seed: int) -> int:
    """The stream key of a game seeded with ``seed`` (any int; taken modulo 2**64)."""
    return mix(seed & MASK64)


def stream(key: int, counter: int) -> int:
    """The ``counter``-th 64-bit value (counter >= 0) of the stream with key ``key``."""
    return mix((key + (counter + 1) * GAMMA) & MASK64)


def draw_below(value: int, n: int) -> int:
    """Map a 64-bit stream value to an integer in ``[0, n)`` (``0 < n < 2**32``), multiply-high style."""
    return ((value >> 32) * n) >> 32


# --- the same functions on arrays -------------------------------------------------------------

def mix_array(z: np.ndarray) -> np.ndarray:
    """Vectorised :func:`mix`: ``uint64`` array of any shape in, ``uint64`` array of that shape out."""
    z = np.asarray(z, dtype=np.uint64)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(_M1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(_M2)
    return z ^ (z >> np.uint64(31))


def game_keys(seeds) -> np.ndarray:
    """Vectorised :func:`game_key`: seeds (ints, shape ``(B,)``) → keys, ``uint64 (B,)``."""
    seeds = np.asarray(seeds)
    if seeds.dtype.kind not in "iu":
        raise ValueError(f"seeds must be integers (0..2**64-1), got dtype {seeds.dtype}")
    if seeds.dtype != np.uint64:
        if np.any(seeds < 0):
            raise ValueError("seeds must be non-negative integers")
        seeds = seeds.astype(np.uint64)
    return mix_array(seeds)


def stream_array(keys: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """Vectorised :func:`stream`: ``keys`` ``uint64 (B,)``, ``counters`` integer ``(B,)`` → ``uint64 (B,)``."""
    c = np.asarray(counters).astype(np.uint64) + np.uint64(1)
    return mix_array(keys + c * np.uint64(GAMMA))


def draw_below_array(values: np.ndarray, n) -> np.ndarray:
    """Vectorised :func:`draw_below`: ``uint64 (B,)`` values, ``n`` integer ``(B,)`` (each >= 1) → ``int64 (B,)``."""
    n = np.asarray(n).astype(np.uint64)
    return (((values >> np.uint64(32)) * n) >> np.uint64(32)).astype(np.int64)


def game_seeds(seed: int, n_games: int, start: int = 0) -> np.ndarray:
    """The seeds of games ``start .. start+n_games-1`` of a run seeded ``seed``: ``uint64 (n_games,)``.

    ``seed``: an integer in ``[0, 2**64)`` (:func:`aerodeck.envs.common.checks.check_seed`); every game seed
    lies in the same range. Game i's seed depends only on (seed, i), so every agent of a benchmark
    meets the same deals (common random numbers), a run is reproduced exactly by its seed, and games
    can be played in chunks (``start``) with the same seeds as all at once.
    """
    key = game_key(check_seed(seed))
    counters = np.arange(start, start + n_games, dtype=np.uint64)
    return stream_array(np.full(n_games, key, np.uint64), counters)
