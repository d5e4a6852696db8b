"""Compiled (numba) helpers shared by the games' kernels (``envs/<game>/kernel.py``): the counter-based
stream of ``aerodeck.envs.common.rng`` and set-as-bits arithmetic, one value at a time.

Each computes what its numpy counterpart computes (``rng.stream_array``, ``rng.draw_below_array``,
``bits.set_size``, ``bits.kth_bit``), so a kernel's draws are the reference engine's draws. All are
inlined into their callers and allocate nothing (``_nrt=False``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from aerodeck.envs.common import rng

_M1, _M2, _GAMMA = np.uint64(rng._M1), np.uint64(rng._M2), np.uint64(rng.GAMMA)  # splitmix64's, as rng.mix
#: ``int64 (256,)``: the bits set in each byte.
_BYTE_COUNT = ((np.arange(256)[:, None] >> np.arange(8)[None, :]) & 1).sum(axis=1).astype(np.int64)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def stream(key, counter):
    """``rng.stream``: value ``counter`` (an integer ≥ 0) of the splitmix64 stream ``key`` (uint64)."""
    z = key + np.uint64(counter + 1) * _GAMMA
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def draw_below(value, n):
    """``rng.draw_below``: the stream value ``value`` (uint64) as an integer in ``[0, n)``."""
    return np.int64(((value >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def popcount(word) -> int:
    """The number of items in the set ``word`` (uint64; a byte at a time)."""
    word = np.uint64(word)
    count = 0
    for k in range(8):
        count += _BYTE_COUNT[(word >> np.uint64(8 * k)) & np.uint64(255)]
    return count


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def kth_bit(word, k) -> int:
    """The k-th (from 0) item of the set ``word`` (uint64) by id, or −1 if it holds k or fewer."""
    for c in range(64):
        if (word >> np.uint64(c)) & np.uint64(1):
            if k == 0:
                return c
            k -= 1
    return -1
