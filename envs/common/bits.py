"""Sets of up to 64 items (cards, cells) packed into ``uint64`` words: bit i = item i.

Packed sets make the batched cores' bookkeeping O(1) per game — membership, insertion, counting
(``np.bitwise_count``), "the items below i" — and are turned back into ``bool`` rows only where an
observation or a legal mask needs them.
"""

from __future__ import annotations

import sys

import numpy as np

#: ``uint64 (64,)``: the word with only bit i set.
BIT = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))
#: ``uint64 (65,)``: the word with bits 0 … i−1 set (items below i).
BELOW = np.concatenate([BIT - np.uint64(1), [np.uint64(0xFFFFFFFFFFFFFFFF)]])
_LITTLE = sys.byteorder == "little"


def pack_bits(flags: np.ndarray) -> np.ndarray:
    """``bool (..., w)`` with ``w <= 64`` → ``uint64 (...)``, bit i = ``flags[..., i]``."""
    flags = np.asarray(flags, dtype=bool)
    w = flags.shape[-1]
    if w > 64:
        raise ValueError(f"at most 64 flags fit a word, got {w}")
    padded = np.zeros((*flags.shape[:-1], 64), bool)
    padded[..., :w] = flags
    packed = np.packbits(padded, axis=-1, bitorder="little")  # (..., 8) bytes, least significant first
    if not _LITTLE:
        packed = packed[..., ::-1]
    return np.ascontiguousarray(packed).view(np.uint64)[..., 0]


def unpack_bits(words: np.ndarray, width: int = 64) -> np.ndarray:
    """``uint64 (...)`` → ``bool (..., width)``, the inverse of :func:`pack_bits`."""
    words = np.ascontiguousarray(words, dtype=np.uint64)
    if not _LITTLE:
        words = words.byteswap()
    raw = np.unpackbits(words.view(np.uint8).reshape(*words.shape, 8), axis=-1, count=width, bitorder="little")
    return raw.view(bool)


def popcount(words: np.ndarray) -> np.ndarray:
    """The number of items in each packed set (``int64``, same shape)."""
    return np.bitwise_count(np.asarray(words, dtype=np.uint64)).astype(np.int64)


def lowest_bit(words: np.ndarray) -> np.ndarray:
    """Index of the lowest set bit of each non-zero word (``int64``); for a one-item set, that item."""
    words = np.asarray(words, dtype=np.uint64)
    return popcount((words & (~words + np.uint64(1))) - np.uint64(1))


def kth_bit(words: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Index of the k-th set bit (0-based, lowest first) of each word: "the k-th remaining item by id".

    ``words``: ``uint64 (B,)``; ``k``: integers (B,) with ``0 <= k < popcount(words)``. Returns ``int64 (B,)``.
    """
    words = np.asarray(words, dtype=np.uint64)
    k = np.asarray(k, dtype=np.int64)
    pos = np.zeros(words.shape, np.int64)
    for step in (32, 16, 8, 4, 2, 1):  # binary search for the largest pos with popcount(below pos) <= k
        trial = pos + step
        pos = np.where(popcount(words & BELOW[trial]) <= k, trial, pos)
    return pos
