"""The deals of the benchmark: every evaluation deal's seed has its top bit set, every training deal's
has not (see ``aerodeck.bench.tasks``)."""

from __future__ import annotations

import hashlib

import numpy as np

from aerodeck.envs.common.checks import check_seed
from aerodeck.envs.common.rng import game_seeds

#: Every evaluation deal's seed has this bit set; no training deal's has.
EVAL_BIT = np.uint64(1 << 63)


def task_key(name: str) -> int:
    """The 64-bit key of a task's evaluation deals: the first 8 bytes of the SHA-256 of its name
    (fixed forever for a versioned name)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little")


def evaluation_seeds(name: str, games: int) -> np.ndarray:
    """The first ``games`` evaluation deals of task ``name``: ``uint64 (games,)``, every one with the top
    bit set (:data:`EVAL_BIT`), from the counter-based stream keyed by :func:`task_key`."""
    return game_seeds(task_key(name), games) | EVAL_BIT


def training_seeds(seed: int, count: int) -> np.ndarray:
    """``count`` training deals of a run seeded ``seed`` (any seed in ``[0, 2**64)``): ``uint64 (count,)``,
    every one below 2**63 (the top bit cleared), so never an evaluation deal."""
    return game_seeds(check_seed(seed), count) & ~EVAL_BIT


def is_evaluation_seed(seeds) -> np.ndarray:
    """``bool`` per seed: whether it lies in the evaluation half (top bit set)."""
    return (np.asarray(seeds, np.uint64) & EVAL_BIT) != 0


def _training_list(seed, count: int) -> np.ndarray:
    """The deals of a ``reset(seed=...)``: an int → :func:`training_seeds`; a list → checked to lie in
    the training half."""
    if np.ndim(seed) == 0:
        return training_seeds(int(seed), count)
    seeds = np.asarray(seed, np.uint64)
    if is_evaluation_seed(seeds).any():
        raise ValueError("a task's training env deals seeds below 2**63 only (the upper half holds the "
                         "evaluation deals); give seeds in 0..2**63-1 or one run seed")
    return seeds
