"""The rule-general Airport Scramble model (``envs/airport_scramble/general.toml``): face-up slots padded
to six, and a general policy started from the shipped model's weights plays the shipped model's moves
under the standard rules (the rule features and the extra slots start at weight 0)."""

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from aerodeck import envs  # noqa: E402
from aerodeck.agents.ppo import MODELS, PPOAgent  # noqa: E402
from aerodeck.agents.variants import VariantSpace  # noqa: E402
from aerodeck.train.budget import Budget  # noqa: E402
from aerodeck.train.config import load_config  # noqa: E402
from aerodeck.train.run import make_envs, make_model, new_run  # noqa: E402

GAME = envs.spec("airport-scramble")


def test_face_up_slots_are_padded_to_the_largest_and_keep_their_meaning():
    space = VariantSpace(GAME, {"face_up": [3, 6], "action_points": [2, 4]})
    assert space.family.face_up == 6 and space.family.action_points == 4
    rules = GAME.make_rules(face_up=3, max_replace=3)
    emb = space.embedding(rules)
    core, family = GAME.make_core(rules), GAME.make_core(space.family)
    for name in ("slot_hv", "slot_origin", "slot_destination"):  # AS-6: slot s is slot s in both layouts
        block, wide = core.observation.blocks[name], family.observation.blocks[name]
        assert np.array_equal(emb.obs_index[block.slice], np.arange(wide.start, wide.start + block.size))
    replace_all = core.actions.replace(0b111)  # AS-10: replacing slots 0, 1, 2
    assert family.actions.describe(int(emb.action_index[replace_all])) == "replace slots 0,1,2"
    assert emb.actions(np.array([family.actions.wait])) == core.actions.wait


def test_a_general_policy_started_from_its_init_model_plays_its_moves_under_the_standard_rules(tmp_path):
    config = load_config(GAME.id, general=True).replace("train", num_envs=16).replace("variants", groups=2)
    run = new_run(GAME.id, GAME.make_rules(), config, tmp_path / "run", Budget(steps=16))
    venv, _ = make_envs(run)
    model = make_model(run, venv)
    general = PPOAgent.from_policy(model.policy, run.rules, run.inputs)
    shipped = PPOAgent(rules=run.rules, path=MODELS.parent.parent / config.policy.init)  # the previous shipped model
    core = GAME.make_core(run.rules)
    state = core.init(np.arange(64, dtype=np.uint64))
    for _ in range(12):
        obs, masks = core.observe(state), core.legal_mask(state)
        mine, theirs = general.act(obs, masks), shipped.act(obs, masks)
        assert np.array_equal(mine, theirs)
        core.step(state, mine)
    assert not (tmp_path / "run").exists()  # building the run's parts writes nothing


def test_a_general_policy_started_from_a_general_model_over_its_space_plays_that_models_moves(tmp_path):
    """``[policy] init`` = a rule-general model: weight for weight into a run over the same space (the
    second stage of a general model); a run over another space is refused, naming both."""
    source = MODELS / "airport-scramble-general.zip"
    config = load_config(GAME.id, general=True).replace("train", num_envs=16).replace("variants", groups=2)
    config = config.replace("policy", init=str(source))
    rules = GAME.make_rules(face_up=4, ticket_turn_bonus=3)  # a variant inside the space
    run = new_run(GAME.id, rules, config, tmp_path / "run", Budget(steps=16))
    venv, _ = make_envs(run)
    model = make_model(run, venv)
    started = PPOAgent.from_policy(model.policy, run.rules, run.inputs)
    general = PPOAgent(rules=rules, path=source, caution=0)
    core = GAME.make_core(rules)
    state = core.init(np.arange(64, dtype=np.uint64))
    for _ in range(12):
        obs, masks = core.observe(state), core.legal_mask(state)
        mine = started.act(obs, masks)
        assert np.array_equal(mine, general.act(obs, masks))
        core.step(state, mine)
    other = config.replace("variants", ranges={"face_up": [3, 6], "ticket_turn_bonus": [0, 8]})
    run = new_run(GAME.id, rules, other, tmp_path / "other", Budget(steps=16))
    venv, _ = make_envs(run)
    with pytest.raises(ValueError, match="rule-general model over .*same \\[variants\\] space"):
        make_model(run, venv)
