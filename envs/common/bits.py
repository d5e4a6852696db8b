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
_BYTE_SUM = np.uint64(0x0101010101010101)
_HIGH = np.uint64(0x8080808080808080)
_FF = np.uint64(0xFF)
_U3, _U7, _U8, _U56 = np.uint64(3), np.uint64(7), np.uint64(8), np.uint64(56)
#: ``uint64 (256 * 8,)``: entry ``8 * byte + r`` is the r-th set bit of ``byte`` (7 if it has none).
_KTH_IN_BYTE = np.array(
    [([i for i in range(8) if b >> i & 1] + [7] * 8)[r] for b in range(256) for r in range(8)], np.uint64
)


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

    ``words``: ``uint64 (B,)``; ``k``: integers (B,) with ``0 <= k < popcount(words)`` (a larger k
    gives 63). Returns ``int64 (B,)``.

    SWAR, no loop: the bit counts of the 8 bytes (``bitwise_count`` on the bytes) summed into
    byte-wise prefix sums by one multiply; the byte holding the k-th bit is the number of prefix
    bytes <= k; a table gives the bit within that byte.
    """
    words = np.ascontiguousarray(words, dtype=np.uint64)
    k = np.minimum(np.asarray(k, dtype=np.int64), 64).astype(np.uint64)
    # Byte counts stay in place in memory, so the prefix sums come out in bit order on any endianness.
    counts = np.bitwise_count(words.view(np.uint8)).view(np.uint64).reshape(words.shape)
    prefix = counts * _BYTE_SUM  # byte i: set bits in bytes 0 .. i (<= 64)
    byte = np.minimum((((((k * _BYTE_SUM) | _HIGH) - prefix) & _HIGH) >> _U7) * _BYTE_SUM >> _U56, _U7)
    shift = byte << _U3
    rank = k - (((prefix << _U8) >> shift) & _FF)  # k among the bits of that byte
    value = (words >> shift) & _FF
    return (shift + _KTH_IN_BYTE[value * _U8 + np.minimum(rank, _U7)]).astype(np.int64)
