"""Sets of items (cards, cells) packed into ``uint64`` words: bit i = item i.

Packed sets make the batched cores' bookkeeping O(1) per game — membership, insertion, counting
(``np.bitwise_count``), "the items below i" — and are turned back into ``bool`` rows only where an
observation or a legal mask needs them. One word holds a set of up to 64 items (``pack_bits``,
``kth_bit``); a row of words a larger one (``pack_set``, ``set_size``, ``kth_member``).
"""

from __future__ import annotations

import sys

import numpy as np

#: ``uint64 (64,)``: the word with only bit i set.
BIT = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))
#: ``uint64 (65,)``: the word with bits 0 … i−1 set (items below i).
BELOW = np.concatenate([BIT - np.uint64(1), [np.uint64(0xFFFFFFFFFFFFFFFF)]])
_LITTLE = sys.byteorder == "little"
#: ``uint64`` with every byte 1: ``x * BYTE_SUM`` puts in byte i the sum of the bytes 0 … i of x.
BYTE_SUM = np.uint64(0x0101010101010101)
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


def unpack_words(words: np.ndarray) -> np.ndarray:
    """``uint64 (...)`` → ``uint8 (..., 64)``: all 64 bits of each word as 0 / 1, lowest first.

    One 1-D ``np.unpackbits`` pass: several times faster than :func:`unpack_bits`'s unpack along a
    short last axis with a ``count``; slice the bits wanted (``[..., :width]``) from the result."""
    words = np.ascontiguousarray(words, dtype=np.uint64)
    if not _LITTLE:
        words = words.byteswap()
    return np.unpackbits(words.view(np.uint8).reshape(-1), bitorder="little").reshape(*words.shape, 64)


def popcount(words: np.ndarray) -> np.ndarray:
    """The number of items in each packed set (``int64``, same shape)."""
    return np.bitwise_count(np.asarray(words, dtype=np.uint64)).astype(np.int64)


def bytes_at_most(prefix: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``uint64 (B,)``: how many of the 8 bytes of each ``prefix`` word (each < 128) are <= ``k``
    (``uint64 (B,)``, < 128), SWAR style: ``k + 128 - byte`` keeps its high bit iff ``byte <= k``.
    For non-decreasing bytes (prefix sums) that is the index of the first byte above ``k``."""
    t = ((k * BYTE_SUM) | _HIGH) - prefix
    return (((t & _HIGH) >> _U7) * BYTE_SUM) >> _U56


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
    prefix = counts * BYTE_SUM  # byte i: set bits in bytes 0 .. i (<= 64)
    byte = np.minimum(bytes_at_most(prefix, k), _U7)
    shift = byte << _U3
    rank = k - (((prefix << _U8) >> shift) & _FF)  # k among the bits of that byte
    value = (words >> shift) & _FF
    return (shift + _KTH_IN_BYTE[value * _U8 + np.minimum(rank, _U7)]).astype(np.int64)


def pack_set(flags: np.ndarray) -> np.ndarray:
    """``uint64 (n, ceil(w / 64))``: the sets ``bool (n, w)`` as rows of words (bit i of word j: item 64 j + i)."""
    return np.stack([pack_bits(flags[:, i : i + 64]) for i in range(0, max(flags.shape[1], 1), 64)], axis=1)


def set_size(words: np.ndarray) -> np.ndarray:
    """``int64 (n,)``: the number of items of each set ``uint64 (n, W)``."""
    if words.shape[1] == 1:
        return np.bitwise_count(words[:, 0]).astype(np.int64)
    return np.bitwise_count(words).sum(axis=1, dtype=np.int64)


def kth_member(words: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``int64 (n,)``: the k-th item (0-based, by id) of each set ``uint64 (n, W)``; ``0 <= k < size``."""
    if words.shape[1] == 1:
        return kth_bit(words[:, 0], k)
    counts = np.bitwise_count(words).astype(np.int64)
    before = np.cumsum(counts, axis=1) - counts
    word = (before <= k[:, None]).sum(axis=1) - 1  # the last word starting at or below k
    rows = np.arange(len(k))
    return word * 64 + kth_bit(words[rows, word], k - before[rows, word])
