"""Restricted play needs the view (each game's restricted play: ``test_restricted_play.py`` of its
tests, with ``tests/agents/restricted_play.py``)."""

import numpy as np
import pytest

from aerodeck.agents.registry import make_agent
from tests.games import SOLO


def test_restricted_play_needs_the_view():
    kind = SOLO.make_core().actions.kinds[0]
    agent = make_agent(SOLO.id, f"restricted:base=random,forbid={kind}", SOLO.make_rules())
    with pytest.raises(ValueError, match="needs the games' view"):
        agent.act(np.zeros((1, 3), np.float32), np.ones((1, 3), bool))
