"""Rule-general models (``[variants]``, ``aerodeck train --general``, ``ppo:general``) on every built-in
game: the variant space (draws, features, the family layout, what it refuses), the general inputs, a
tiny general run end to end, and the model playing variants it never saw."""

import dataclasses
import json
import warnings

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from aerodeck.agents.ppo import Inputs, load_model  # noqa: E402
from aerodeck.agents.registry import make_agent  # noqa: E402
from aerodeck.agents.specs import parse_spec  # noqa: E402
from aerodeck.agents.variants import VariantSpace  # noqa: E402
from tests.games import MULTI, SOLO  # noqa: E402
from tests.train.test_train import TINY, TINY_LEAGUE, train  # noqa: E402
from aerodeck.train.config import load_config, merge  # noqa: E402
from aerodeck.train.run import EVAL_PROBE  # noqa: E402

GAMES = [SOLO, MULTI]


def space_of(game):
    """The game's own rule-general space (its ``general.toml``)."""
    return VariantSpace(game, load_config(game.id, general=True).variants.ranges)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_draws_are_valid_rules_inside_the_space_and_a_pure_function_of_seed_and_index(game):
    space = space_of(game)
    draws = [space.draw(7, i) for i in range(30)]
    assert draws == [space.draw(7, i) for i in range(30)]
    assert draws != [space.draw(8, i) for i in range(30)]
    assert all(space.outside(r) == [] for r in draws)
    for v in space.varied:  # every varied option takes more than one value over 30 draws
        assert len({repr(getattr(r, v.name)) for r in draws}) > 1, v.name
    assert space.outside(space.base) == [] or all("not varied" not in why for why in space.outside(space.base))


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_features_scale_each_varied_option_into_0_1(game):
    space = space_of(game)
    rows = np.stack([space.features(space.draw(3, i)) for i in range(40)])
    assert rows.shape == (40, space.size) and rows.dtype == np.float32
    assert rows.min() >= 0 and rows.max() <= 1
    assert (rows.std(axis=0) > 0).all()  # every feature follows its option


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_every_variant_embeds_into_the_family_layout_and_back(game):
    space = space_of(game)
    for i in range(6):
        rules = space.draw(11, i)
        core = game.make_core(rules)
        emb = space.embedding(rules)
        family = game.make_core(space.family)
        assert emb.obs_size == family.obs_size and emb.n_actions == family.n_actions
        assert len(set(emb.obs_index.tolist())) == core.obs_size
        for a in range(0, core.n_actions, max(1, core.n_actions // 25)):
            assert family.actions.describe(int(emb.action_index[a])) == core.actions.describe(a)
        assert np.array_equal(emb.actions(emb.action_index), np.arange(core.n_actions))


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_general_inputs_put_the_rule_features_after_the_observation_and_the_prior_last(game):
    space = space_of(game)
    rules = space.draw(5, 0)
    inputs = Inputs.make(game.id, rules, mask=True, prior=game.prior, variants=space)
    core = game.make_core(rules)
    state = core.init(np.arange(4, dtype=np.uint64))
    obs, masks = core.observe(state), core.legal_mask(state)
    x = inputs(obs, masks)
    emb = space.embedding(rules)
    assert x.shape == (4, inputs.size(0, 0)) == (4, emb.obs_size + space.size + 2 * emb.n_actions)
    assert np.array_equal(x[:, emb.obs_index], obs)
    assert np.array_equal(x[:, emb.obs_size:emb.obs_size + space.size], np.broadcast_to(space.features(rules), (4, space.size)))
    mask_part = x[:, emb.obs_size + space.size:emb.obs_size + space.size + emb.n_actions]
    assert np.array_equal(mask_part.astype(bool), inputs.family_masks(masks))
    prior = x[:, -emb.n_actions:]
    assert (prior[~inputs.family_masks(masks)] == 0).all() and (prior.max(axis=1) > 0).all()
    assert inputs.to_dict()["variants"] == space.to_dict()


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_bad_spaces_are_refused_naming_the_option(game):
    R = game.rules_class()
    name = next(n for n in R.option_names() if game.make_rules().to_dict()[n] is True or
                game.make_rules().to_dict()[n] is False)
    with pytest.raises(ValueError, match="no rule option 'nonsense'"):
        VariantSpace(game, {"nonsense": [1, 2]})
    with pytest.raises(ValueError, match=f"option '{name}'.*at least two different values"):
        VariantSpace(game, {name: [True, True]})
    with pytest.raises(ValueError, match="at least one option"):
        VariantSpace(game, {})
    integer = next(v for v in space_of(game).varied if v.kind == "int")
    with pytest.raises(ValueError, match=f"option '{integer.name}'.*lo < hi"):
        VariantSpace(game, {integer.name: [integer.hi, integer.lo]})
    with pytest.raises(ValueError, match=f"rule option '{integer.name}'.*not allowed"):
        VariantSpace(game, {integer.name: [integer.lo, 10**6]})


def test_an_option_that_changes_the_layout_without_padding_is_refused():
    game = SOLO
    base = game.make_rules()
    for name in game.rules_class().option_names():
        allowed = [f for f in __import__("dataclasses").fields(game.rules_class()) if f.name == name][0].metadata["allowed"]
        if allowed.kind != "int" or name in game.padded_options or allowed.hi is None:
            continue
        try:
            low = game.rules_class().from_options({**base.to_dict(), name: allowed.lo})
        except ValueError:
            continue
        if game.make_core(low).obs_size != game.make_core(base).obs_size:
            with pytest.raises(ValueError, match=f"option '{name}' changes the layout"):
                VariantSpace(game, {name: [allowed.lo, getattr(base, name)]})
            return
    pytest.skip(f"{game.id} has no unpadded option that changes its layout")


def test_a_bare_word_in_an_agent_spec_switches_a_knob_on():
    assert parse_spec("ppo:general") == ("ppo", {"general": "on"})
    assert parse_spec("x:a=1,b") == ("x", {"a": "1", "b": "on"})
    with pytest.raises(ValueError, match="key=value"):
        parse_spec("x:=3")


def test_the_variants_table_is_checked_like_any_other():
    config = load_config(SOLO.id)
    with pytest.raises(ValueError, match=r"\[variants\] groups must be at least 1"):
        merge(config, {"variants": {"groups": 0}}, "f.toml")
    with pytest.raises(ValueError, match=r"\[variants\] ranges must be dict"):
        merge(config, {"variants": {"ranges": [1, 2]}}, "f.toml")
    assert "[variants]" in load_config(SOLO.id, general=True).to_toml()


GENERAL = """
[variants]
groups = 2
resample_every = 1
eval_variants = 1
"""


def tiny_config(folder, game_id, extra=GENERAL, warm_games=0):
    """The tiny run of test_train.py, without a warm start and from fresh weights, over ``extra``."""
    text = TINY.replace("games = 8", f"games = {warm_games}").replace("net_arch = [16]", 'net_arch = [16]\ninit = ""')
    path = folder / "tiny.toml"
    path.write_text(text + (TINY_LEAGUE if load_config(game_id).league else "") + extra)
    return path


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_a_tiny_general_run_trains_over_variants_and_its_model_plays_unseen_variants(game, tmp_path):
    config = tiny_config(tmp_path, game.id)
    out = tmp_path / "run"
    assert train(game.id, "--general", "--config", config, "--steps", 512, "--out", out, "--seed", 3) == 0
    sidecar = json.loads((out / "best.json").read_text())
    space = VariantSpace.from_dict(game, sidecar["inputs"]["variants"])
    assert space.to_dict() == space_of(game).to_dict()
    assert sidecar["evaluation"]["variants"][0]["rules"] == game.make_rules().label()
    assert len(sidecar["evaluation"]["variants"]) == 2
    assert "--general" in sidecar["command"]
    rules = space.draw(99, 0)  # a variant of the space that training never drew
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # inside the ranges: no warning
        model = load_model(out / "best.zip", rules)
    assert model.inputs.variants is not None
    agent = make_agent(game.id, f"ppo:path={out / 'best.zip'}", rules)
    core = game.make_core(rules)
    state = core.init(np.arange(8, dtype=np.uint64))
    masks = core.legal_mask(state)
    actions = agent.act(core.observe(state), masks)
    assert masks[np.arange(8), actions].all()


def test_a_general_model_warns_outside_its_ranges_and_refuses_a_layout_it_cannot_hold(tmp_path):
    game = SOLO
    config = tiny_config(tmp_path, game.id)
    out = tmp_path / "run"
    assert train(game.id, "--general", "--config", config, "--steps", 256, "--out", out) == 0
    space = space_of(game)
    integer = next(v for v in space.varied if v.kind == "int" and v.name not in game.padded_options)
    allowed = [f for f in __import__("dataclasses").fields(game.rules_class()) if f.name == integer.name][0].metadata["allowed"]
    value = integer.hi + 1 if allowed.hi is None or integer.hi < allowed.hi else integer.lo - 1
    try:
        outside = game.rules_class().from_options({integer.name: value})
    except ValueError:
        pytest.skip("no valid rules just outside the range")
    with pytest.warns(UserWarning, match=f"outside them in {integer.name}={value}"):
        load_model(out / "best.zip", outside)
    refused = 0
    for options in game.variants:  # the contract's variants: some change the layout beyond the padded options
        rules = game.make_rules(**options)
        try:
            space.embedding(rules)
        except ValueError:
            refused += 1
            with pytest.raises(ValueError, match="rule-general over .* cannot play .* lay the game out otherwise"):
                load_model(out / "best.zip", rules)
    assert refused or not any(game.make_core(game.make_rules(**o)).obs_size != game.make_core(game.make_rules()).obs_size
                              for o in game.variants)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_a_general_warm_start_plays_its_teacher_under_variants_block_by_block(game):
    from aerodeck.train.warm_start import VARIANT_GAMES, joined, teacher_chunk

    config = load_config(game.id, general=True)
    warm = dataclasses.replace(config.warm_start, teacher="heuristic", opponent="" if game.solo else "random")
    space = space_of(game)
    inputs = Inputs.make(game.id, space.base, mask=True, prior=game.prior, variants=space).to_dict()
    games = VARIANT_GAMES + 4
    whole = teacher_chunk(game.id, space.base, warm, inputs, 5, 0.99, 0, games)
    parts = joined([teacher_chunk(game.id, space.base, warm, inputs, 5, 0.99, a, b - a) for a, b in ((0, 7), (7, games))])
    a, b = np.argsort(whole["games"], kind="stable"), np.argsort(parts["games"], kind="stable")
    for key in whole:  # the same decisions, game by game, however the games are chunked
        assert np.array_equal(whole[key][a], parts[key][b]), key
    family = game.make_core(space.family)
    assert whole["masks"].shape[1] == family.n_actions
    assert whole["masks"][np.arange(len(whole["actions"])), whole["actions"]].all()
    np.testing.assert_array_equal(whole["target_actions"][:, 0], whole["actions"])  # its policy, in the family layout
    features = whole["inputs"][:, family.obs_size:family.obs_size + space.size].astype(np.float32)
    first = whole["games"] < VARIANT_GAMES  # two variants: their rule features differ
    assert len({tuple(r) for r in features[first]}) == 1 and len({tuple(r) for r in features[~first]}) == 1
    assert not np.array_equal(features[first][0], features[~first][0])


def test_a_general_run_with_a_warm_start_clones_its_teacher_over_variants(tmp_path):
    config = tiny_config(tmp_path, SOLO.id, warm_games=20)
    config.write_text(config.read_text().replace("min_eval_games = 16", "min_eval_games = 16\nmin_teacher_games = 1"))
    out = tmp_path / "run"
    assert train(SOLO.id, "--general", "--config", config, "--steps", 1024, "--out", out) == 0
    sidecar = json.loads((out / "best.json").read_text())
    assert sidecar["warm_start"]["games"] == 20 and sidecar["inputs"]["variants"]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_the_shipped_general_model_plays_variants_of_its_ranges_as_ppo_general(game):
    from aerodeck.agents.ppo import read_sidecar, shipped_misfit, shipped_path

    path = shipped_path(game, game.make_rules(), general=True)
    if not path.exists():
        pytest.skip(f"no shipped rule-general model for {game.id}")
    space = VariantSpace.from_dict(game, read_sidecar(path)["inputs"]["variants"])
    assert space.to_dict()["ranges"] == load_config(game.id, general=True).variants.ranges  # what general.toml says
    for i in range(3):
        rules = space.draw(2024, i)
        assert shipped_misfit(rules, general=True) is None
        agent = make_agent(game.id, "ppo:general,check=0", rules)  # the play itself (the check: test_self_check.py)
        core = game.make_core(rules)
        state = core.init(np.arange(16, dtype=np.uint64))
        masks = core.legal_mask(state)
        assert masks[np.arange(16), agent.act(core.observe(state), masks)].all()


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.id)
def test_variants_are_replaced_one_group_at_a_time_and_the_others_play_on(game, tmp_path):
    from aerodeck.train.budget import Budget
    from aerodeck.train.run import make_envs, new_run

    config = load_config(game.id, general=True).replace("train", num_envs=12).replace("variants", groups=3)
    config = config.replace("policy", init="")
    run = new_run(game.id, game.make_rules(), config, tmp_path / "run", Budget(steps=16))
    venv, league = make_envs(run)
    first = venv.reset()
    before = list(venv.variants)
    assert before == [run.space.draw(venv.seed_, g) for g in range(3)]
    stepped, *_ = venv.step(np.array([np.flatnonzero(m)[0] for m in venv.action_masks()]))
    obs, rows = venv.resample(2)  # the second replacement: group 1 starts variant 3 + 2 − 1
    assert rows == venv.slices[1] and venv.variants[1] == run.space.draw(venv.seed_, 4)
    assert venv.variants[0] == before[0] and venv.variants[2] == before[2]
    others = np.r_[0:4, 8:12]
    assert np.array_equal(obs[others], stepped[others]) and obs.shape == first.shape
    assert (league is None) == game.solo and (game.solo or venv.league.leagues[1].rules == venv.variants[1])


def test_a_minutes_general_run_sizes_its_evaluations_by_timing_the_evaluation_it_runs(tmp_path, monkeypatch):
    """The plan's two timing evaluations are the run's own kind — over the variants too, not only the
    run's rules — so a rule-general run (whose evaluations play every variant) fits them in its share."""
    from aerodeck.train import variants

    deals = []
    real = variants.evaluate_general
    monkeypatch.setattr(variants, "evaluate_general", lambda run, policy, inputs, games, seed:
                        deals.append(games) or real(run, policy, inputs, games, seed))
    config = tiny_config(tmp_path, SOLO.id)
    assert train(SOLO.id, "--general", "--config", config, "--minutes", 0.1, "--out", tmp_path / "run") == 0
    assert deals[:3] == [EVAL_PROBE[0], *EVAL_PROBE]  # one to warm up, the timing ones, then the run's
    assert len(deals) > 3
