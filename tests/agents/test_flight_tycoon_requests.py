"""The ``requests`` policy network of Flight Tycoon (agents/flight_tycoon/requests.py): it adds one shared
scorer to the heuristic's k best legal requests, starts as the prior policy, learns a teacher that asks
otherwise, and refuses settings it cannot be built with (its training through the CLI and the refusal
of a rule-general run: tests/train/test_networks.py)."""

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from aerodeck import envs  # noqa: E402
from aerodeck.agents.flight_tycoon.facts import Facts  # noqa: E402
from aerodeck.agents.flight_tycoon.heuristic import request_odds  # noqa: E402
from aerodeck.agents.flight_tycoon.requests import RequestFeatures, RequestPolicy  # noqa: E402
from aerodeck.agents.ppo import Inputs, PPOAgent, PriorHead  # noqa: E402
from aerodeck.agents.registry import make_agent  # noqa: E402
from aerodeck.envs.flight_tycoon.observation import ObservationLayout  # noqa: E402
from aerodeck.envs.flight_tycoon.rules import N_CARDS, N_SQUARES, SQUARE_BITS  # noqa: E402
from aerodeck.train.config import default_config  # noqa: E402
from aerodeck.train.model import learner_env, new_model  # noqa: E402
from aerodeck.train.warm_start import clone  # noqa: E402

GAME = envs.spec("flight-tycoon")


def request_model(seed=0, players=4, **policy):
    """An untrained MaskablePPO with the request network (width 16) over 4 games."""
    rules = GAME.make_rules(n_players=players)
    config = default_config(GAME.id).replace("policy", **{"network": "requests", "local_width": 16, **policy})
    p = config.policy
    inputs = Inputs.make(GAME.id, rules, p.sees_mask, p.prior, p.prior_units, p.prior_ties, p.prior_ranks)
    venv = learner_env(GAME.make_sb3(4, rules=rules, seed=0), inputs)
    return new_model(venv, config.replace("ppo", n_steps=8, batch_size=32), inputs, seed), inputs


def logits_of(policy, x):
    with torch.no_grad():
        latent_pi, _ = policy.mlp_extractor(policy.extract_features(torch.as_tensor(x), policy.pi_features_extractor))
        return policy.action_net(latent_pi).numpy()


def requests(games=64, moves=30, players=4, seed=0):
    """Observations and masks of request decisions (FT-8) in heuristic games, over their first ``moves`` moves."""
    rules = GAME.make_rules(n_players=players)
    core, heuristic = GAME.make_core(rules), make_agent(GAME.id, "heuristic", rules)
    state = core.init(np.arange(seed, seed + games))
    obs, masks = [], []
    for _ in range(moves):
        o, m = core.observe(state), core.legal_mask(state)
        asks = m[:, N_CARDS:].any(1)
        obs.append(o[asks]), masks.append(m[asks])
        core.step(state, heuristic.act(o, m))
    return np.concatenate(obs), np.concatenate(masks)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_candidates_are_the_heuristics_best_legal_requests_and_their_features_read_the_facts(players):
    rules = GAME.make_rules(n_players=players)
    obs, masks = requests(games=16, players=players)
    features = RequestFeatures(rules, candidates=6)
    out, actions, valid = features(obs, masks)
    assert out.shape == (len(obs), 6, features.size) and valid.all()
    assert masks[np.arange(len(obs))[:, None], actions].all()
    scores = make_agent(GAME.id, "heuristic:noise=0", rules).scores(obs, masks)
    best = np.take_along_axis(scores, actions, 1)
    assert (np.diff(best, axis=1) <= 1e-6).all()  # in the heuristic's order, best first
    assert np.allclose(best[:, 0], scores.max(1), atol=1e-6)
    facts = Facts.read(ObservationLayout(rules), obs)
    p_land, known_bad, _ = request_odds(facts, rules, features.vp_table, 0.25)
    flat = actions - N_CARDS
    t, q = flat // N_SQUARES, flat % N_SQUARES
    rows = np.arange(len(obs))[:, None]
    np.testing.assert_allclose(out[:, :, 0], p_land.reshape(len(obs), -1)[rows, flat], atol=1e-6)
    np.testing.assert_array_equal(out[:, :, 1], known_bad.reshape(len(obs), -1)[rows, flat])
    target = facts.located[:, 1:][rows, t]
    np.testing.assert_allclose(out[:, :, 16] * 12, np.bitwise_count(target & SQUARE_BITS[q]), atol=1e-5)
    assert (out[:, :, 20:20 + N_SQUARES].argmax(2) == q).all()
    assert (out[:, :, -(players - 1):].argmax(2) == t).all()


def test_the_untrained_policy_plays_as_its_prior_policy_and_other_decisions_get_no_request_scores():
    model, inputs = request_model()
    obs, masks = requests(games=24)
    x = inputs(obs, masks)
    policy = model.policy
    logits = logits_of(policy, x)
    prior = prior_of(policy, x, masks.shape[1])
    added = logits - prior
    assert np.abs(added).max() < 0.5 and (added[:, :N_CARDS] == 0).all()
    assert ((added != 0).sum(1) <= 8).all() and (added != 0).any()
    rules = GAME.make_rules()
    core = GAME.make_core(rules)
    state = core.init(np.arange(16))  # the tower decisions: no request is legal, nothing is added
    o, m = core.observe(state), core.legal_mask(state)
    np.testing.assert_allclose(logits_of(policy, inputs(o, m)), prior_of(policy, inputs(o, m), m.shape[1]), atol=0)


def prior_of(policy, x, n_actions):
    with torch.no_grad():
        latent = policy.mlp_extractor.forward_actor(torch.as_tensor(x))
        head = policy.action_net
        return PriorHead.forward(head, torch.cat([latent[:, :head.latent_dim], latent[:, -n_actions:]], 1)).numpy()


def test_the_request_network_learns_a_teacher_that_always_asks_for_the_heuristics_third_request():
    model, inputs = request_model(seed=1)
    obs, masks = requests(games=96)
    _, actions, valid = RequestFeatures(GAME.make_rules())(obs, masks)
    rows = valid[:, 2]
    third = actions[rows, 2]
    x, masks = inputs(obs[rows], masks[rows]), masks[rows]
    data = {"inputs": x.astype(np.float16), "masks": masks, "actions": third, "returns": np.zeros(len(x), np.float32),
            "target_actions": third[:, None], "target_probs": np.ones((len(x), 1), np.float32)}
    before = (np.where(masks, logits_of(model.policy, x), -np.inf).argmax(1) == third).mean()
    clone(model, data, 12, 64, 3e-3, 0, holdout=0.0)
    after = (np.where(masks, logits_of(model.policy, x), -np.inf).argmax(1) == third).mean()
    assert before < 0.2 and after > 0.8


@pytest.mark.parametrize("change, message", [({"prior": ""}, "set \\[policy\\] prior = 'heuristic'"),
                                             ({"sees_mask": False}, "sees_mask = true")])
def test_a_request_network_without_the_prior_or_the_mask_is_refused(change, message):
    with pytest.raises(ValueError, match=message):
        request_model(**change)


def test_the_game_trains_and_ships_the_request_network_and_its_rule_general_config_an_mlp():
    from aerodeck.agents.ppo import shipped_path
    from aerodeck.train.config import load_config

    config = load_config(GAME.id)
    assert config.policy.network == "requests" and config.warm_start.teacher == "search"
    rules = GAME.make_rules(n_players=4)
    shipped = PPOAgent(rules=rules, path=str(shipped_path(GAME, rules)))
    assert isinstance(shipped.policy, RequestPolicy)
    assert load_config(GAME.id, general=True).policy.network == "mlp"  # it reads one rules set's observation
