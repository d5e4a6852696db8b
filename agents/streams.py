"""Per-game randomness of agents: counter-based streams keyed by (game, agent, decision).

An agent's random choices in a game must not depend on how the games are split into batches,
chunks, workers or tasks (``shared/design.md``, "Agents"). The play loop therefore hands an agent,
with each batch, one **decision key** per row: ``uint64``, a splitmix64 hash of the game's seed (itself
a function of the run seed and the game's number), the agent's own key (from its seed) and the
number of decisions played so far in that game. Everything random in that decision is drawn from the
key: value ``j`` of part ``p`` is the stream value at counter ``p · 2**32 + j``
(:func:`aerodeck.envs.common.rng.stream_array`), so the parts of one decision (a tie-break noise, the seeds of
determinizations, the keys of a rollout's own decisions) never overlap.
"""

from __future__ import annotations

import numpy as np

from aerodeck.envs.common import rng as crng

#: Counters of one part of a decision's stream: part ``p`` starts at ``p << PART_SHIFT``.
PART_SHIFT = 32
_UNIT = 2.0**-53


def agent_key(seed) -> int:
    """The key of an agent seeded ``seed`` (an int >= 0, a sequence of them, a ``numpy.random.Generator``
    or ``None`` for fresh entropy): an int in ``[0, 2**64)``."""
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**64, dtype=np.uint64))
    return int(np.random.SeedSequence(seed).generate_state(1, np.uint64)[0])


def decision_keys(key: int, seeds: np.ndarray, decisions: np.ndarray) -> np.ndarray:
    """``uint64 (B,)``: the keys of the decisions numbered ``decisions`` (integers ``(B,)``, 0 = a game's
    first decision) of the games seeded ``seeds`` (``uint64 (B,)``) for the agent whose key is ``key``."""
    games = crng.mix_array(np.asarray(seeds, np.uint64) ^ np.uint64(key))
    return crng.stream_array(games, decisions)


def draws(keys: np.ndarray, k: int, part: int = 0) -> np.ndarray:
    """``uint64 (B, k)``: the first ``k`` values of part ``part`` (0 … 2**32−1) of each key's stream
    (``keys``: ``uint64 (B,)``)."""
    keys = np.asarray(keys, np.uint64)
    counters = (np.uint64(part) << np.uint64(PART_SHIFT)) + np.arange(k, dtype=np.uint64)
    return crng.stream_array(keys[:, None], counters[None, :])


def uniforms(keys: np.ndarray, k: int, part: int = 0, dtype=np.float64) -> np.ndarray:
    """Uniforms ``(B, k)`` from part ``part`` of each key's stream (``keys``: ``uint64 (B,)``): ``float64``
    in the open interval ``(0, 1)``, 53 bits each from one stream value; or ``float32`` in ``[0, 1)``,
    24 bits each, two from one stream value (half the hashing, for tie-break noise)."""
    if np.dtype(dtype) == np.float32:
        halves = draws(keys, -(-k // 2), part).view(np.uint32)[:, :k]
        return (halves >> np.uint32(8)).astype(np.float32) * np.float32(2.0**-24)
    return ((draws(keys, k, part) >> np.uint64(11)).astype(np.float64) + 0.5) * _UNIT
