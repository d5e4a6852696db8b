"""The ``local`` policy network of Airport Scramble (agents/airport_scramble/local.py): it scores the
prior agent's k best actions only, starts as the prior agent, learns a teacher's departures from it,
and refuses settings it cannot be built with (its training through the CLI and the refusal of a
rule-general run: tests/train/test_networks.py)."""

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from aerodeck import envs  # noqa: E402
from aerodeck.agents.airport_scramble.local import OUTSIDE, LocalFeatures, LocalPolicy  # noqa: E402
from aerodeck.agents.ppo import Inputs, PPOAgent, rank_features  # noqa: E402
from aerodeck.agents.registry import make_agent  # noqa: E402
from aerodeck.train.config import default_config  # noqa: E402
from aerodeck.train.model import learner_env, new_model  # noqa: E402
from aerodeck.train.warm_start import clone  # noqa: E402

GAME = envs.spec("airport-scramble")
K = 4


def local_model(seed=0, **policy):
    """An untrained MaskablePPO with the local network (width 32) over 4 games."""
    rules = GAME.make_rules()
    config = default_config(GAME.id).replace("policy", **{"network": "local", "prior_ranks": K, "local_width": 32, **policy})
    p = config.policy
    inputs = Inputs.make(GAME.id, rules, p.sees_mask, p.prior, p.prior_units, p.prior_ties, p.prior_ranks)
    venv = learner_env(GAME.make_sb3(4, rules=rules, seed=0), inputs)
    return new_model(venv, config.replace("ppo", n_steps=8, batch_size=32), inputs, seed), inputs


def logits_of(policy, x):
    with torch.no_grad():
        latent_pi, _ = policy.mlp_extractor(policy.extract_features(torch.as_tensor(x), policy.pi_features_extractor))
        return policy.action_net(latent_pi).numpy()


def positions(games=32, moves=6, seed=0):
    """Observations and masks of ``games`` heuristic games after each of their first ``moves`` moves."""
    core, heuristic = GAME.make_core(), make_agent(GAME.id, "heuristic", GAME.make_rules())
    state = core.init(np.arange(seed, seed + games))
    obs, masks = [], []
    for _ in range(moves):
        o, m = core.observe(state), core.legal_mask(state)
        live = m.any(1)
        obs.append(o[live]), masks.append(m[live])
        core.step(state, heuristic.act(o, m))
    return np.concatenate(obs), np.concatenate(masks)


@pytest.mark.parametrize("plan", [False, True])
def test_only_the_prior_agents_k_best_actions_get_scores_and_the_untrained_policy_plays_its_first(plan):
    model, inputs = local_model(local_plan=plan)
    obs, masks = positions()
    x = inputs(obs, masks)
    logits = logits_of(model.policy, x)
    ranked = x[:, -masks.shape[1]:] > 0
    assert (ranked.sum(1) <= K).all() and (ranked.sum(1) == K).mean() > 0.5
    assert (logits[~ranked] == OUTSIDE).all() and (logits[ranked] > OUTSIDE + 20).all()
    heuristic = make_agent(GAME.id, "heuristic", GAME.make_rules())
    agent = PPOAgent.from_policy(model.policy, GAME.make_rules(), inputs)
    np.testing.assert_array_equal(agent.act(obs, masks), heuristic.act(obs, masks))


@pytest.mark.parametrize("plan", [False, True])
def test_the_local_network_learns_a_teacher_that_always_takes_the_heuristics_second_choice(plan):
    model, inputs = local_model(seed=1, local_plan=plan)
    obs, masks = positions(games=48)
    x = inputs(obs, masks)
    ranks = rank_features(inputs.prior_agent.scores(obs, masks), K)
    second = np.argmax(np.where(ranks == 1 - 1 / 16, 1, 0), axis=1)
    rows = (ranks == 1 - 1 / 16).any(1)
    x, masks, second = x[rows], masks[rows], second[rows]
    data = {"inputs": x.astype(np.float16), "masks": masks, "actions": second, "returns": np.zeros(len(x), np.float32),
            "target_actions": second[:, None], "target_probs": np.ones((len(x), 1), np.float32)}
    before = (logits_of(model.policy, x).argmax(1) == second).mean()
    clone(model, data, 12, 64, 3e-3, 0, holdout=0.0)
    after = (np.where(masks, logits_of(model.policy, x), -np.inf).argmax(1) == second).mean()
    assert before == 0 and after > 0.9


def test_the_features_centre_each_candidate_on_its_cell():
    features = LocalFeatures(GAME.make_rules(), radius=1)
    obs, masks = positions(games=8)
    geo = features.geo
    lay = geo.actions
    from aerodeck.agents.airport_scramble.planning import Table

    table = Table.from_observations(geo, obs)
    play = np.flatnonzero(masks[:, lay.play_offset:lay.replace_offset].any(1))[:5]
    cell = masks[play, lay.play_offset:lay.replace_offset].argmax(1) % geo.G2
    actions = np.repeat((lay.play_offset + cell)[:, None], 2, axis=1)
    np.testing.assert_array_equal(features.cells(table.take(play), actions)[:, 0], cell)
    out = features(obs[play], actions)
    centre = 4 * features.channels  # the middle of the 3 × 3 patch
    assert out.shape == (len(play), 2, features.size)
    assert (out[:, 0, centre + 1] == 0).all()  # AS-9: a card is played on an empty cell
    with pytest.raises(ValueError, match="radius must be in 1..8"):
        LocalFeatures(GAME.make_rules(), radius=0)


@pytest.mark.parametrize("options", [{}, {"edition": "generated", "n_colors": 6}, {"grid_size": 7}])
def test_each_patch_cell_reads_the_table_as_the_docstring_says(options):
    """An oracle by loops over games, candidates and cells, reading the decoded table: [off the grid, a
    card, its H colour, its V colour, the plane, the ticket's origin, its destination] per cell."""
    from aerodeck.agents.airport_scramble.planning import Table

    rules = GAME.make_rules(**options)
    core, heuristic = GAME.make_core(rules), make_agent(GAME.id, "heuristic", rules)
    state = core.init(np.arange(12))
    for _ in range(7):
        core.step(state, heuristic.act(core.observe(state), core.legal_mask(state)))
    obs, masks = core.observe(state), core.legal_mask(state)
    candidates = np.argsort(-heuristic.scores(obs, masks), axis=1, kind="stable")[:, :K]
    features = LocalFeatures(rules, radius=2)
    geo, nc, R = features.geo, features.geo.n_colors, 2
    table, out = Table.from_observations(geo, obs), features(obs, candidates)
    cells = features.cells(table, candidates)
    for b in range(len(obs)):
        for j in range(K):
            at = 0
            for dr in range(-R, R + 1):
                for dc in range(-R, R + 1):
                    r, c = cells[b, j] // geo.G + dr, cells[b, j] % geo.G + dc
                    want = np.zeros(features.channels, np.float32)
                    if not (0 <= r < geo.G and 0 <= c < geo.G):
                        want[0] = 1
                    else:
                        cell = r * geo.G + c
                        h, v = table.hcol[b, cell], table.vcol[b, cell]
                        want[1] = h >= 0
                        if h >= 0:
                            want[2 + h] = 1
                        if v >= 0:
                            want[2 + nc + v] = 1
                        want[2 + 2 * nc:] = [cell == table.plane[b], cell == table.origin_cell[b],
                                             cell == table.destination_cell[b]]
                    np.testing.assert_array_equal(out[b, j, at:at + features.channels], want)
                    at += features.channels


def test_the_plan_figures_read_the_heuristics_score_of_each_candidate():
    """With ``local_plan`` each candidate reads the heuristic's plan: its score (action points, lower is
    better), the best, the gap — checked against the heuristic's own ``scores`` (minus the cost)."""
    rules = GAME.make_rules()
    obs, masks = positions(games=24, moves=8)
    heuristic = make_agent(GAME.id, "heuristic", rules)
    values = heuristic.scores(obs, masks)  # −cost in action points, −inf where illegal
    candidates = np.argsort(-values, axis=1, kind="stable")[:, :K]
    legal = np.isfinite(np.take_along_axis(values, candidates, axis=1)).all(1)
    obs, masks, values, candidates = obs[legal], masks[legal], values[legal], candidates[legal]
    features = LocalFeatures(rules, radius=1, plan=True)
    figures = features(obs, candidates, masks)[:, :, -6:]
    assert features.size == LocalFeatures(rules, radius=1).size + 6
    cost = -np.take_along_axis(values, candidates, axis=1)
    gap = cost - cost[:, :1]
    np.testing.assert_allclose(figures[..., 0], np.sign(cost) * np.log1p(np.abs(cost)) / 4, rtol=1e-5, atol=1e-6)
    best = np.broadcast_to(cost[:, :1], cost.shape)
    np.testing.assert_allclose(figures[..., 1], np.sign(best) * np.log1p(np.abs(best)) / 4, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(figures[..., 3], np.minimum(gap, 4) / 4, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(figures[..., 4], gap < 1)
    assert (gap[:, 1:] > 0).any() and (figures[:, 1:, 4] == 0).any() and (figures[:, 1:, 4] == 1).any()
    with pytest.raises(ValueError, match="need the legal masks"):
        features(obs, candidates)


@pytest.mark.parametrize("change, message", [({"prior_ranks": 0}, "prior_ranks = k"),
                                             ({"prior": ""}, "set \\[policy\\] prior"),
                                             ({"local_plan": True, "sees_mask": False}, "sees_mask = true")])
def test_a_local_network_without_the_prior_agents_ranks_is_refused(change, message):
    with pytest.raises(ValueError, match=message):
        local_model(**change)


def test_the_game_trains_and_ships_the_local_network_and_its_rule_general_config_an_mlp():
    from aerodeck.agents.ppo import shipped_path
    from aerodeck.train.config import load_config

    config = load_config(GAME.id)
    assert config.policy.network == "local" and config.warm_start.teacher.startswith("search")
    shipped = PPOAgent(rules=GAME.make_rules(), path=str(shipped_path(GAME, GAME.make_rules())))
    assert isinstance(shipped.policy, LocalPolicy)
    general = load_config(GAME.id, general=True)  # the local network reads one rules set: the general model is an MLP
    assert general.policy.network == "mlp" and general.policy.init.endswith("airport-scramble-mlp.zip")
