"""Batch helpers shared by the cores, the agents and the benchmarks."""

from __future__ import annotations

import dataclasses

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
    mask = _padded(mask)
    B = mask.shape[0]
    words = mask.view(np.uint64)  # (B, width/8), each byte 0 or 1
    cum = np.cumsum((words * _BYTE_SUM) >> np.uint64(56), axis=1)  # legal actions up to each word
    n = cum[:, -1]
    k = (np.asarray(u, dtype=np.float64) * n).astype(np.uint64)
    k = np.minimum(k, np.maximum(n, np.uint64(1)) - np.uint64(1))
    word = np.argmax(cum > k[:, None], axis=1)  # the word holding the k-th legal action
    rows = np.arange(B)
    before = cum[rows, word] - ((words[rows, word] * _BYTE_SUM) >> np.uint64(56))
    in_word = np.cumsum(mask.reshape(B, -1, 8)[rows, word], axis=1)
    byte = np.argmax(in_word > (k - before).astype(np.int64)[:, None], axis=1)
    out = word.astype(np.int64) * 8 + byte
    out[n == 0] = -1
    return out


def count_true(mask: np.ndarray) -> np.ndarray:
    """Row counts of a ``bool (B, A)`` array as ``int64 (B,)`` (eight booleans per word; faster
    than ``mask.sum(axis=1)``). A non-contiguous mask or a width not a multiple of 8 is padded."""
    words = _padded(mask).view(np.uint64)
    if words.shape[1] == 1:
        return ((words[:, 0] * _BYTE_SUM) >> np.uint64(56)).astype(np.int64)
    return ((words * _BYTE_SUM) >> np.uint64(56)).sum(axis=1, dtype=np.int64)


def _padded(mask) -> np.ndarray:
    """``mask`` as a C-contiguous ``bool (B, width)`` array, width a multiple of 8 (zero-padded)."""
    mask = np.asarray(mask, dtype=bool)
    B, A = mask.shape
    width = -(-A // 8) * 8
    if width != A or not mask.flags.c_contiguous:
        padded = np.zeros((B, width), dtype=bool)
        padded[:, :A] = mask
        mask = padded
    return mask


class BatchedState:
    """Base for a dataclass of arrays whose leading axis is the game (a core's ``State``): the
    operations search agents branch with. Subclasses are ``@dataclasses.dataclass``es."""

    @property
    def batch_size(self) -> int:
        """B, the number of games."""
        return getattr(self, dataclasses.fields(self)[0].name).shape[0]

    def _map(self, fn):
        return type(self)(**{f.name: fn(getattr(self, f.name)) for f in dataclasses.fields(self)})

    def copy(self):
        """An independent copy."""
        return self._map(np.copy)

    def take(self, idx):
        """The games ``idx`` (integer indices, a bool mask over the batch, or a slice) as a new state.

        With a slice the new state's arrays are views of this one's (no copy); ``copy()`` it to branch.
        """
        if not isinstance(idx, slice):
            idx = np.asarray(idx)
        return self._map(lambda a: a[idx])

    def repeat(self, k: int):
        """Each game ``k`` times in a row (game b becomes games b·k … b·k + k − 1)."""
        return self._map(lambda a: np.repeat(a, k, axis=0))

    def put(self, idx, other) -> None:
        """Overwrite the games ``idx`` with the games of ``other`` (in order)."""
        idx = np.asarray(idx)
        for f in dataclasses.fields(self):
            getattr(self, f.name)[idx] = getattr(other, f.name)

    @classmethod
    def concatenate(cls, states: list):
        """One state holding the games of ``states`` in order."""
        return cls(**{f.name: np.concatenate([getattr(s, f.name) for s in states]) for f in dataclasses.fields(cls)})
