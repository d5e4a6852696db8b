"""The trained agent ``ppo``: loading checks (layout, rules, broken files), batched play, the prior policy."""

import dataclasses
import json
import warnings
import zipfile

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from aerodeck import envs  # noqa: E402
from aerodeck.agents.ppo import (  # noqa: E402
    TIE, Inputs, PPOAgent, PriorPolicy, layout_of, load_model, prior_features, shipped_path,
)
from aerodeck.agents.registry import agent_names, make_agent  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from aerodeck.train.model import learner_env, save_model  # noqa: E402

GAMES = envs.games()
#: A game whose agents are compared on the same deals (bench needs no lineup).
SOLO = next(g for g in GAMES if envs.spec(g).solo)


def one_option_changes(game_id):
    """The rules one option away from the defaults, option by option: ``{option: value}`` for each other
    allowed value of a flag or a choice and each neighbour of an integer (cross-option checks allowing)."""
    spec = envs.spec(game_id)
    default = spec.make_rules()
    for field in dataclasses.fields(default):
        allowed, now = field.metadata["allowed"], getattr(default, field.name)
        others = {"bool": lambda: [not now], "choice": lambda: [c for c in allowed.choices if c != now],
                  "int": lambda: [v for v in (now + 1, now - 1) if allowed._in_range(v)]}.get(allowed.kind, list)()
        for value in others:
            try:
                default.replace(**{field.name: value})
            except ValueError:
                continue
            yield {field.name: value}


def rule_change(game_id, layout: str) -> dict:
    """A one-option change of the default rules that keeps the layouts (``layout="same"``: the same
    observation and action meaning), changes them (``"other"``), or changes their sizes (``"sizes"``)."""
    spec = envs.spec(game_id)
    base = layout_of(spec.make_core())
    for change in one_option_changes(game_id):
        now = layout_of(spec.make_core(**change))
        sizes = (now["observation_size"], now["n_actions"]) != (base["observation_size"], base["n_actions"])
        if {"same": now == base, "other": now != base, "sizes": sizes}[layout]:
            return change
    pytest.skip(f"no single rule option of {game_id} gives a {layout} layout")


def tiny_model(game_id, folder, rules=None, inputs=None, sidecar=True):
    """An untrained MaskablePPO (one hidden layer of 16) saved as ``folder/model.zip`` with the sidecar
    ``aerodeck train`` writes."""
    game = envs.spec(game_id)
    rules = rules or game.make_rules()
    inputs = inputs or Inputs.make(game_id, rules, mask=True)
    venv = learner_env(game.make_sb3(4, rules=rules, seed=0), inputs)
    policy = PriorPolicy if inputs.prior else "MlpPolicy"
    model = MaskablePPO(policy, venv, n_steps=8, batch_size=32, seed=0, device="cpu", policy_kwargs={"net_arch": [16]})
    path = folder / "model.zip"
    save_model(model, path, {"game": game_id, "rules": rules.to_dict(), "layout": layout_of(game.make_core(rules)),
                             "inputs": inputs.to_dict()})
    if not sidecar:
        path.with_suffix(".json").unlink()
    return path


@pytest.mark.parametrize("game_id", GAMES)
def test_every_game_offers_ppo(game_id):
    assert "ppo" in agent_names(game_id)


@pytest.mark.parametrize("game_id", GAMES)
def test_a_model_plays_legal_actions_in_batches(game_id, tmp_path):
    game = envs.spec(game_id)
    path = tiny_model(game_id, tmp_path)
    core = game.make_core()
    state = core.init(np.arange(300))
    agent = make_agent(game_id, f"ppo:path={path}", game.make_rules(), seed=1)
    for _ in range(5):
        masks = core.legal_mask(state)
        actions = agent.act(core.observe(state), masks)
        live = masks.any(1)
        assert actions.shape == (300,) and actions.dtype == np.int64
        assert masks[np.flatnonzero(live), actions[live]].all()
        core.step(state, actions)


@pytest.mark.parametrize("game_id", GAMES)
def test_sampling_draws_from_the_decision_keys_whatever_the_place_of_the_game_in_the_batch(game_id, tmp_path):
    from aerodeck.agents.streams import decision_keys

    game = envs.spec(game_id)
    core = game.make_core()
    state = core.init(np.arange(200))
    obs, masks = core.observe(state), core.legal_mask(state)
    agent = make_agent(game_id, f"ppo:path={tiny_model(game_id, tmp_path)},deterministic=off", game.make_rules(), seed=5)
    keys = decision_keys(agent.key, np.arange(200, dtype=np.uint64), np.zeros(200, np.int64))
    order = np.random.default_rng(1).permutation(200)
    together = agent.act(obs, masks, keys=keys)
    assert np.array_equal(agent.act(obs[order], masks[order], keys=keys[order]), together[order])
    assert (agent.act(obs, masks, keys=keys + np.uint64(1)) != together).any()  # other keys, other samples


@pytest.mark.parametrize("game_id", GAMES)
def test_sampling_is_repeated_by_the_seed_and_deterministic_play_takes_the_likeliest(game_id, tmp_path):
    game = envs.spec(game_id)
    path = tiny_model(game_id, tmp_path)
    core = game.make_core()
    state = core.init(np.arange(200))
    obs, masks = core.observe(state), core.legal_mask(state)
    a = make_agent(game_id, f"ppo:path={path},deterministic=off", game.make_rules(), seed=5).act(obs, masks)
    b = make_agent(game_id, f"ppo:path={path},deterministic=off", game.make_rules(), seed=5).act(obs, masks)
    c = make_agent(game_id, f"ppo:path={path},deterministic=off", game.make_rules(), seed=6).act(obs, masks)
    assert (a == b).all() and (a != c).any()
    greedy = make_agent(game_id, f"ppo:path={path}", game.make_rules())
    first, second = greedy.act(obs, masks), greedy.act(obs, masks)
    assert (first == second).all()


@pytest.mark.parametrize("game_id", GAMES)
def test_a_model_of_another_layout_is_refused_naming_both(game_id, tmp_path):
    game = envs.spec(game_id)
    path = tiny_model(game_id, tmp_path)
    other = game.make_rules(**rule_change(game_id, "other"))
    trained, now = layout_of(game.make_core()), layout_of(game.make_core(other))
    with pytest.raises(ValueError) as err:
        load_model(path, other)
    text = str(err.value)
    assert "another layout" in text
    assert f"observation size {trained['observation_size']}" in text and trained["fingerprint"] in text
    assert f"observation size {now['observation_size']}" in text and now["fingerprint"] in text


def test_a_model_without_sidecar_is_checked_by_its_sizes(tmp_path):
    path = tiny_model(GAMES[0], tmp_path, sidecar=False)
    game = envs.spec(GAMES[0])
    assert load_model(path, game.make_rules()).inputs.mask
    with pytest.raises(ValueError, match="another layout"):
        load_model(path, game.make_rules(**rule_change(GAMES[0], "sizes")))


@pytest.mark.parametrize("game_id", GAMES)
def test_a_model_of_other_rules_with_the_same_layout_loads_with_a_warning_naming_them(game_id, tmp_path):
    game = envs.spec(game_id)
    path = tiny_model(game_id, tmp_path)
    changed = rule_change(game_id, "same")
    other = game.make_rules(**changed)
    assert layout_of(game.make_core(other)) == layout_of(game.make_core())
    with pytest.warns(UserWarning, match="other rules") as caught:
        load_model(path, other)
    (option,) = changed
    assert option in str(caught[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_model(path, game.make_rules())  # the rules it was trained under: no warning


def test_missing_truncated_and_foreign_files_give_clear_errors(tmp_path):
    rules = envs.spec(GAMES[0]).make_rules()
    with pytest.raises(FileNotFoundError, match="no model file"):
        load_model(tmp_path / "nothing.zip", rules)
    path = tiny_model(GAMES[0], tmp_path)
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(ValueError, match="not a stable-baselines3 model"):
        load_model(truncated, rules)
    text = tmp_path / "notes.zip"
    text.write_text("not a model")
    with pytest.raises(ValueError, match="not a stable-baselines3 model"):
        load_model(text, rules)
    foreign = tmp_path / "foreign.zip"
    with zipfile.ZipFile(foreign, "w") as z:
        z.writestr("readme.txt", "a zip, but not of a model")
    with pytest.raises(ValueError, match="not a loadable MaskablePPO model"):
        load_model(foreign, rules)
    broken_sidecar = tmp_path / "copy.zip"
    broken_sidecar.write_bytes(path.read_bytes())
    broken_sidecar.with_suffix(".json").write_text("{ not json")
    with pytest.raises(ValueError, match="sidecar"):
        load_model(broken_sidecar, rules)


def test_cli_reports_a_missing_model_in_one_line(tmp_path, capsys):
    from aerodeck.cli import main as cli

    assert cli.main(["bench", SOLO, "--agent", f"ppo:path={tmp_path / 'x.zip'}", "--games", "10",
                     "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    assert "no model file" in capsys.readouterr().err


@pytest.mark.parametrize("game_id", GAMES)
def test_a_model_is_loaded_under_its_own_rules_without_rules_given(game_id, tmp_path):
    game = envs.spec(game_id)
    rules = game.make_rules(**rule_change(game_id, "other"), **rule_change(game_id, "same"))
    path = tiny_model(game_id, tmp_path, rules=rules)
    assert load_model(path).rules == rules
    side = json.loads(path.with_suffix(".json").read_text())
    assert side["layout"] == layout_of(game.make_core(rules))


def test_prior_features_are_one_at_the_best_action_and_zero_where_illegal():
    scores = np.array([[0.0, -1.0, -np.inf, -10.0], [-np.inf, 5.0, 4.5, -np.inf]])
    features = prior_features(scores, units=2.0)
    np.testing.assert_allclose(features, [[1.0, 0.5, 0.0, 0.0], [0.0, 1.0, 0.75, 0.0]])


def test_prior_features_with_first_ties_single_out_the_lowest_index_among_the_best():
    scores = np.array([[0.0, 0.0, -1.0, 0.0], [-np.inf, 2.0, 2.0, -np.inf]])
    np.testing.assert_allclose(prior_features(scores, units=2.0), [[1.0, 1.0, 0.5, 1.0], [0.0, 1.0, 1.0, 0.0]])
    tie = 1 - TIE
    np.testing.assert_allclose(prior_features(scores, units=2.0, ties="first"), [[1.0, tie, 0.5, tie], [0.0, 1.0, tie, 0.0]])
    with pytest.raises(ValueError, match="prior_ties must be one of even, first, got 'last'"):
        Inputs(prior_ties="last")


@pytest.mark.parametrize("game_id", [g for g in GAMES if envs.spec(g).prior])
@pytest.mark.parametrize("ranks", [0, 4])
def test_an_untrained_prior_policy_with_first_ties_plays_exactly_as_a_prior_that_breaks_ties_by_index(
        game_id, ranks, tmp_path):
    game = envs.spec(game_id)
    rules = game.make_rules()
    inputs = Inputs.make(game.id, rules, mask=True, prior=game.prior, prior_ties="first", prior_ranks=ranks)
    agent = PPOAgent(seed=0, rules=rules, path=str(tiny_model(game.id, tmp_path, inputs=inputs)))
    assert agent.inputs.prior_ties == "first"  # read back from the sidecar
    prior = make_agent(game.id, game.prior, rules)
    core = game.make_core()
    state = core.init(np.arange(256))
    while not state.done.all():
        obs, masks = core.observe(state), core.legal_mask(state)
        live = masks.any(1)
        first_best = np.argmax(prior.scores(obs, masks), axis=1)
        if not np.array_equal(prior.act(obs, masks)[live], first_best[live]):
            pytest.skip(f"{game.prior} ({game_id}) does not play its first best-scored action")
        actions = agent.act(obs, masks)
        np.testing.assert_array_equal(actions[live], first_best[live])
        core.step(state, actions)


@pytest.mark.parametrize("game_id", [g for g in GAMES if envs.spec(g).prior])
def test_an_untrained_prior_policy_plays_the_prior_agents_best_actions(game_id, tmp_path):
    game = envs.spec(game_id)
    rules = game.make_rules()
    inputs = Inputs.make(game_id, rules, mask=True, prior=game.prior, prior_units=4.0)
    path = tiny_model(game_id, tmp_path, inputs=inputs)
    agent = PPOAgent(seed=0, rules=rules, path=str(path))
    assert agent.inputs.prior == game.prior
    core = game.make_core()
    state = core.init(np.arange(256))
    for _ in range(3):
        obs, masks = core.observe(state), core.legal_mask(state)
        scores = inputs.prior_agent.scores(obs, masks)
        actions = agent.act(obs, masks)
        live = np.flatnonzero(masks.any(1))
        chosen = scores[live, actions[live]]
        assert (chosen >= scores[live].max(1) - 1e-9).mean() > 0.95  # near-ties may go either way
        core.step(state, actions)


@pytest.mark.parametrize("game_id", GAMES)
def test_ppo_without_a_shipped_model_for_the_rules_names_the_shipped_ones(game_id):
    game = envs.spec(game_id)
    unshipped = [r for r in (game.make_rules(**v) for v in game.variants) if not shipped_path(game, r).exists()]
    if not unshipped:
        pytest.skip(f"a model is shipped for every variant of {game_id}")
    with pytest.raises(ValueError, match="no shipped ppo model .*; shipped: "):
        make_agent(game_id, "ppo", unshipped[0])


def test_rank_features_give_the_k_best_their_place_only():
    from aerodeck.agents.ppo import RANK_STEP, rank_features

    inf = np.inf
    scores = np.array([[0.0, 5.0, -3.0, 5.0, -inf, -100.0],
                       [-inf, -inf, 2.0, -inf, -inf, -inf]])
    f = rank_features(scores, 4)
    # equal scores: the lower index first (the heuristic's own tie-break); a far worse action ranks like a near one
    np.testing.assert_allclose(f[0], [1 - 2 * RANK_STEP, 1, 1 - 3 * RANK_STEP, 1 - RANK_STEP, 0, 0])
    np.testing.assert_allclose(rank_features(scores, 5)[0, 5], 1 - 4 * RANK_STEP)
    np.testing.assert_allclose(f[1], [0, 0, 1, 0, 0, 0])  # fewer legal actions than k: the illegal get 0
    with pytest.raises(ValueError, match="prior_ranks must be an integer from 0 to 15"):
        Inputs(prior_ranks=16)


def test_caution_leaves_the_prior_agents_choice_only_for_actions_favoured_by_more_than_it():
    from aerodeck.agents.ppo import MODELS, masked_logits

    game = envs.spec(SOLO)
    rules = game.make_rules()
    plain = PPOAgent(rules=rules, path=str(MODELS / f"{SOLO}.zip"))
    cautious = PPOAgent(rules=rules, path=str(MODELS / f"{SOLO}.zip"), caution=2)
    stubborn = make_agent(SOLO, f"ppo:path={MODELS / f'{SOLO}.zip'},caution=1000", rules)
    core = game.make_core(rules)
    state = core.init(np.arange(512, dtype=np.uint64))
    departures = {"plain": 0, "cautious": 0}
    for _ in range(20):
        obs, masks = core.observe(state), core.legal_mask(state)
        inputs = plain.inputs(obs, masks)
        logits = masked_logits(plain.policy, inputs, masks)
        choice = (inputs[:, -masks.shape[1]:] == 1).argmax(axis=1)  # the prior agent's best action
        live = np.flatnonzero(masks.any(axis=1))
        mine, careful, never = plain.act(obs, masks), cautious.act(obs, masks), stubborn.act(obs, masks)
        np.testing.assert_array_equal(never[live], choice[live])
        gap = logits[live, mine[live]] - logits[live, choice[live]]
        left = careful[live] != choice[live]
        np.testing.assert_array_equal(careful[live][left], mine[live][left])  # a departure is the policy's own choice
        assert np.all(gap[left] > 2) and np.all(left[gap > 2 + 1e-4])
        departures["plain"] += int((mine[live] != choice[live]).sum())
        departures["cautious"] += int(left.sum())
        core.step(state, mine)
    assert departures["plain"] > departures["cautious"] > 0


def test_caution_needs_a_model_with_a_prior(tmp_path):
    path = tiny_model(SOLO, tmp_path)
    with pytest.raises(ValueError, match="caution= needs a model that reads a prior"):
        PPOAgent(rules=envs.spec(SOLO).make_rules(), path=str(path), caution=1)
    with pytest.raises(ValueError, match="caution"):
        make_agent(SOLO, f"ppo:path={path},caution=-1", envs.spec(SOLO).make_rules())


def test_a_model_plays_with_its_sidecars_caution_unless_told_otherwise(tmp_path):
    game = envs.spec(SOLO)
    rules = game.make_rules()
    path = tiny_model(SOLO, tmp_path, inputs=Inputs.make(SOLO, rules, mask=True, prior=game.prior))
    side = path.with_suffix(".json")
    data = json.loads(side.read_text())
    assert PPOAgent(rules=rules, path=str(path)).caution == 0
    side.write_text(json.dumps({**data, "caution": {"value": 2.5, "chosen_by": "a test"}}))
    assert PPOAgent(rules=rules, path=str(path)).caution == 2.5
    assert PPOAgent(rules=rules, path=str(path), caution=0).caution == 0
    for bad in ({"value": -1}, {"value": "2"}, 3, {"value": True}):
        side.write_text(json.dumps({**data, "caution": bad}))
        with pytest.raises(ValueError, match="the sidecar of .*: caution must be"):
            PPOAgent(rules=rules, path=str(path))
