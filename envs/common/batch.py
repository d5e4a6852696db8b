"""Batch helpers shared by the cores, the agents and the benchmarks."""

from __future__ import annotations

import dataclasses

import numpy as np

from aerodeck.envs.common.bits import BYTE_SUM, bytes_at_most

_FF, _U8, _U56 = np.uint64(0xFF), np.uint64(8), np.uint64(56)


def sample_legal(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Pick one legal action per row, uniformly among the row's legal actions.

    ``mask``: ``bool (B, A)``; ``u``: ``float (B,)`` uniforms in ``[0, 1)`` (the caller's randomness).
    Returns ``int64 (B,)``: the ``floor(u * n)``-th legal index of each row (``n`` = its legal count),
    or ``-1`` where a row has no legal action.

    Works in three levels so that a batch of 4096 × 534 costs about one pass over the mask: legal
    counts of blocks of 64 actions (one popcount per 8-action word, eight word counts summed as the
    bytes of a word), then the word within the block and the action within the word, each found with
    byte-wise prefix sums in one 64-bit multiply. Pass a C-contiguous mask whose width is a multiple
    of 8 (the buffer of :func:`padded_mask`) to avoid a padding copy.
    """
    mask = _padded(mask)
    B, width = mask.shape
    W = width // 8
    words = mask.view(np.uint64)  # (B, W), each byte 0 or 1
    n_blocks = -(-W // 8)
    counts = np.empty((B, n_blocks * 8), np.uint8)  # legal actions per word (popcount of 0/1 bytes)
    np.bitwise_count(words, out=counts[:, :W])
    counts[:, W:] = 0
    blocks = counts.view(np.uint64)  # (B, n_blocks): the 8 word counts of a block as bytes
    block_n = (blocks * BYTE_SUM) >> _U56  # legal actions per block (<= 64)
    cum = np.empty_like(block_n)  # a loop over the few blocks beats cumsum along short rows
    cum[:, 0] = block_n[:, 0]
    for i in range(1, n_blocks):
        np.add(cum[:, i - 1], block_n[:, i], out=cum[:, i])
    n = cum[:, -1]
    k = (np.asarray(u, dtype=np.float64) * n).astype(np.uint64)
    k = np.minimum(k, np.maximum(n, np.uint64(1)) - np.uint64(1))
    block = np.argmax(cum > k[:, None], axis=1)  # the block holding the k-th legal action
    at = np.arange(0, B * n_blocks, n_blocks) + block
    k -= np.take(cum, at) - np.take(block_n, at)  # rank within the block
    prefix = np.take(blocks, at) * BYTE_SUM  # byte i: legal actions in words 0..i of the block
    in_block = bytes_at_most(prefix, k)
    k -= ((prefix << _U8) >> (in_block * _U8)) & _FF  # rank within the word
    word = block * 8 + in_block.astype(np.intp)
    np.minimum(word, W - 1, out=word)  # rows without a legal action (their result is -1)
    prefix = np.take(words, np.arange(0, B * W, W) + word) * BYTE_SUM  # byte i: legal among bytes 0..i
    out = word * 8 + bytes_at_most(prefix, k).astype(np.int64)
    out[n == 0] = -1
    return out


def padded_mask(batch_size: int, n_actions: int) -> tuple[np.ndarray, np.ndarray]:
    """A mask buffer that :func:`sample_legal` reads without a copy: ``(buffer, mask)``, ``buffer``
    ``bool (B, ceil(A / 8) * 8)`` zeros and ``mask`` its ``bool (B, A)`` view. Write the legal actions
    into ``mask`` (``core.legal_mask(state, out=mask)``) and sample from ``buffer`` (its padding
    columns stay False, so they are never drawn)."""
    buffer = np.zeros((batch_size, -(-n_actions // 8) * 8), bool)
    return buffer, buffer[:, :n_actions]


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


def flat(a: np.ndarray) -> np.ndarray:
    """The 1-D view of a C-contiguous state array: numpy gathers and scatters with flat indices
    (``np.take``, ``a[i]`` on 1-D) cost a fraction of those with (game, i) pairs or row indices."""
    if not a.flags.c_contiguous:
        raise ValueError("state arrays must be C-contiguous")
    return a.reshape(-1)


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
        if isinstance(idx, slice):
            return self._map(lambda a: a[idx])
        idx = np.asarray(idx)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        return self._map(lambda a: np.take(a, idx, axis=0))  # a fraction of the cost of a[idx] on 2-D fields

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


def save_state(state: BatchedState) -> dict[str, np.ndarray]:
    """A copy of every field of ``state`` as plain arrays (field name -> array), e.g. for ``numpy.savez``."""
    return {f.name: np.copy(getattr(state, f.name)) for f in dataclasses.fields(state)}


def restore_state(template: BatchedState, saved) -> BatchedState:
    """The state of ``template``'s class held by ``saved`` (as :func:`save_state` wrote it).

    ``template``: a state of the same core (any batch size) giving each field's dtype and trailing
    shape. ``ValueError`` naming the first missing, unknown or misshapen field.
    """
    fields = {f.name: getattr(template, f.name) for f in dataclasses.fields(template)}
    names = set(saved)
    if names != set(fields):
        missing, extra = sorted(set(fields) - names), sorted(names - set(fields))
        raise ValueError(f"saved state does not fit this core: missing fields {missing}, unknown fields {extra}")
    batch = {np.shape(saved[name])[:1] for name in fields}
    if len(batch) != 1 or () in batch:
        raise ValueError("saved state: every field needs the same leading (game) axis")
    out = {}
    for name, ref in fields.items():
        a = np.asarray(saved[name])
        if a.shape[1:] != ref.shape[1:] or a.dtype != ref.dtype:
            raise ValueError(f"saved state field {name!r}: expected {ref.dtype} (B, {', '.join(map(str, ref.shape[1:]))})"
                             f" for these rules, got {a.dtype} {a.shape}")
        out[name] = np.array(a, copy=True, order="C")
    return type(template)(**out)
