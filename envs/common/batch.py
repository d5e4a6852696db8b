"""Batch helpers shared by the cores, the agents and the benchmarks."""

from __future__ import annotations

import numpy as np

_BYTE_SUM = np.uint64(0x0101010101010101)


def sample_legal(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Pick one legal action per row, uniformly among the row's legal actions.

    ``mask``: ``bool (B, A)``; ``u``: ``float (B,)`` uniforms in ``[0, 1)`` (the caller's randomness).
    Returns ``int64 (B,)``: the ``floor(u * n)``-th legal index of each row (``n`` = its legal count),
    or ``-1`` where a row has no legal action.

    Works in two levels (8 actions to a 64-bit word, then a byte within the word) so that a batch of
    4096 × 534 costs about one pass over the mask; pass a C-contiguous mask whose width is a multiple
    of 8 to avoid a padding copy.
    """
    mask = np.asarray(mask, dtype=bool)
    B, A = mask.shape
    width = -(-A // 8) * 8
    if width != A or not mask.flags.c_contiguous:
        padded = np.zeros((B, width), dtype=bool)
        padded[:, :A] = mask
        mask = padded
    words = mask.view(np.uint64)  # (B, width/8), each byte 0 or 1
    word_counts = ((words * _BYTE_SUM) >> np.uint64(56)).astype(np.int32)
    cum = np.cumsum(word_counts, axis=1, dtype=np.int32)
    n = cum[:, -1]
    k = np.floor(np.asarray(u, dtype=np.float64) * n).astype(np.int32)
    k = np.minimum(k, np.maximum(n - 1, 0))
    word = (cum <= k[:, None]).sum(axis=1)
    rows = np.arange(B)
    word_c = np.minimum(word, cum.shape[1] - 1)
    before = np.where(word_c > 0, cum[rows, word_c - 1], 0)
    in_word = np.cumsum(mask.reshape(B, -1, 8)[rows, word_c], axis=1)
    byte = (in_word <= (k - before)[:, None]).sum(axis=1)
    out = word_c.astype(np.int64) * 8 + byte
    out[n == 0] = -1
    return out
