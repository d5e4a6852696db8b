"""The Flight Tycoon search guided by a trained network (``search:guide=MODEL.zip``): the network's most
likely actions are its candidates and it plays the searching seat in the rollouts; choices stay legal
and independent of the batch."""

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from aerodeck.agents.ppo import MODELS, masked_logits  # noqa: E402
from aerodeck.agents.registry import make_agent  # noqa: E402
from tests.agents.positions import check_choices_do_not_depend_on_the_place_in_the_batch, position  # noqa: E402

GAME = "flight-tycoon"
GUIDE = MODELS / "flight-tycoon-4p.zip"
SPEC = f"search:guide={GUIDE},samples=2,candidates=2,horizon=6"


def test_a_guided_choice_does_not_depend_on_the_place_in_the_batch():
    check_choices_do_not_depend_on_the_place_in_the_batch(GAME, 3, SPEC)


def test_a_guided_search_tries_the_guides_best_actions_and_plays_one_of_them():
    spec, core, state, seeds, decisions = position(GAME, 3)
    agent = make_agent(GAME, SPEC, core.rules)
    obs, masks = core.observe(state), core.legal_mask(state)
    view = spec.make_view(core, state, np.maximum(core.to_act(state), 0))
    logits = masked_logits(agent.guide.policy, agent.guide.inputs(obs, masks), masks)
    top2 = np.argsort(-logits, axis=1, kind="stable")[:, :2]
    chosen = agent.act(obs, masks, view)
    assert masks[np.arange(len(chosen)), chosen].all()
    assert ((chosen == top2[:, 0]) | (chosen == top2[:, 1])).all()


def rollout_values(*specs):
    """Each agent's rollout values of the same two candidates from the same samples and keys."""
    spec, core, state, seeds, decisions = position(GAME, 3)
    view = spec.make_view(core, state, np.maximum(core.to_act(state), 0))
    cand = np.argsort(~core.legal_mask(state), axis=1, kind="stable")[:, :2]
    valid = np.take_along_axis(core.legal_mask(state), cand, 1)
    keys = np.arange(state.batch_size, dtype=np.uint64) + 7
    return [make_agent(GAME, s, core.rules).evaluate(view, cand, valid, keys) for s in specs]


def test_the_guide_plays_the_searching_seat_in_the_rollouts():
    plain, guided = rollout_values("search:samples=2,candidates=2,horizon=6", SPEC)
    assert not np.array_equal(plain, guided)


def test_without_guide_rollouts_the_heuristic_plays_every_seat_as_in_the_plain_search():
    plain, guided = rollout_values("search:samples=2,candidates=2,horizon=6", SPEC + ",guide_rollouts=off")
    assert np.array_equal(plain, guided)
    with pytest.raises(ValueError, match="guide_rollouts.*guided search"):
        make_agent(GAME, "search:guide_rollouts=off")
