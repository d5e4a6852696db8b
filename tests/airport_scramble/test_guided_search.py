"""The search guided by a trained network (``search:guide=MODEL.zip,depth=d``, the search of expert
iteration): its candidates are the network's most likely actions, its rollouts the network's moves cut
by its value, and its choices stay legal and independent of the batch."""

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from aerodeck.agents.ppo import MODELS, masked_logits  # noqa: E402
from aerodeck.agents.registry import make_agent  # noqa: E402
from tests.agents.positions import check_choices_do_not_depend_on_the_place_in_the_batch, position  # noqa: E402
from aerodeck.arena.loop import play_solo  # noqa: E402

GAME = "airport-scramble"
GUIDE = MODELS / "airport-scramble.zip"


def test_the_candidates_are_the_guides_most_likely_legal_actions_its_choice_first():
    spec, core, state, seeds, decisions = position(GAME, 2)
    agent = make_agent(GAME, f"search:guide={GUIDE},candidates=3", core.rules)
    obs, masks = core.observe(state), core.legal_mask(state)
    cand, valid, best, prior = agent.guided(obs, masks)
    logits = masked_logits(agent.guide.policy, agent.guide.inputs(obs, masks), masks)
    assert np.array_equal(best, logits.argmax(axis=1)) and np.array_equal(best, agent.guide.act(obs, masks))
    for row in range(len(obs)):
        legal = np.flatnonzero(masks[row])
        top = legal[np.argsort(-logits[row, legal], kind="stable")][:3]
        assert np.array_equal(cand[row, valid[row]], top)
        np.testing.assert_array_equal(prior[row, valid[row]], logits[row, top])  # its policy's prior


@pytest.mark.parametrize("spec_text", [f"search:guide={GUIDE},candidates=2,rollouts=2,depth=2"])
def test_a_guided_choice_does_not_depend_on_the_place_in_the_batch(spec_text):
    check_choices_do_not_depend_on_the_place_in_the_batch(GAME, 2, spec_text)


def test_a_guided_search_plays_whole_games_and_a_rollout_is_worth_its_tickets_plus_the_guides_value():
    from aerodeck.agents.ppo import value_of

    spec, core, state, seeds, decisions = position(GAME, 2)
    agent = make_agent(GAME, f"search:guide={GUIDE},candidates=2,rollouts=2,depth=3", core.rules)
    scores = play_solo(spec.make_core(core.rules), agent, np.arange(3, dtype=np.uint64), progress=False,
                       make_view=spec.make_view)
    assert scores.shape == (3,) and (scores >= 0).all()
    rollout = spec.make_core(core.rules, check_actions=False)
    start = state.score.astype(np.int64)
    worth = agent._guided_rollout(rollout, state.take(np.arange(state.batch_size)), start)
    mine = state.take(np.arange(state.batch_size))  # the same three guide moves, then its value
    for _ in range(3):
        live = np.flatnonzero(~mine.done)
        part = mine.take(live)
        rollout.step(part, agent.guide.act(rollout.observe(part), rollout.legal_mask(part)))
        mine.put(live, part)
    expected = (mine.score - start).astype(float)
    live = np.flatnonzero(~mine.done)
    part = mine.take(live)
    expected[live] += value_of(agent.guide, rollout.observe(part), rollout.legal_mask(part))
    assert np.allclose(worth, expected) and np.ptp(worth) > 0


def test_depth_needs_a_guide():
    with pytest.raises(ValueError, match="'depth' needs a guide"):
        make_agent(GAME, "search:depth=2")
