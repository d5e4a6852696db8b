"""Test helper: play scripted moves on hand-built games with a metric recorder attached."""

from __future__ import annotations

import numpy as np


def record_moves(core, state, recorder, moves) -> dict:
    """Step ``state`` with ``moves`` (one row of actions per step, one action per game) while
    ``recorder`` observes, as ``aerodeck.arena.loop.play_games`` drives it; returns ``recorder.result()``."""
    games = np.arange(state.batch_size)
    recorder.on_start(core, state, games)
    for actions in moves:
        actions = np.array(actions, np.int64)
        rewards = core.step(state, actions)
        recorder.on_step(core, state, actions, rewards, games)
    return recorder.result()
