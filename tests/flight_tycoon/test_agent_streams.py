"""Flight Tycoon's agents choose the same in a game wherever it sits in the batch, and the search
values its rollouts the same (shared/design.md, "Agents"; the streams: tests/agents/test_streams.py)."""

import numpy as np
import pytest

from aerodeck.agents import streams
from aerodeck.agents.registry import make_agent
from tests.agents.positions import check_choices_do_not_depend_on_the_place_in_the_batch, position

GAME = "flight-tycoon"
#: Random decisions before the position tested.
STEPS = 9


@pytest.mark.parametrize("spec_text", ["random", "heuristic:noise=5", "search:samples=2,candidates=2,horizon=4"])
def test_an_agents_choice_in_a_game_does_not_depend_on_its_place_in_the_batch(spec_text):
    check_choices_do_not_depend_on_the_place_in_the_batch(GAME, STEPS, spec_text)


def test_a_search_values_its_rollouts_the_same_wherever_the_game_sits():
    spec, core, state, seeds, decisions = position(GAME, STEPS)
    agent = make_agent(GAME, "search:samples=3,candidates=3,horizon=6", core.rules, seed=1)
    keys = streams.decision_keys(agent.key, seeds, decisions)
    seats = np.maximum(core.to_act(state), 0)
    masks = core.legal_mask(state)
    cand = np.argsort(~masks, axis=1, kind="stable")[:, :3]  # each game's first three legal actions
    valid = np.take_along_axis(masks, cand, 1)

    def values(rows):
        view = spec.make_view(core, state.take(rows), seats[rows])
        return agent.evaluate(view, cand[rows], valid[rows], keys[rows])

    order = np.arange(12)[::-1]
    together = values(np.arange(12))
    assert np.array_equal(values(order), together[order]) and np.ptp(together) > 0
