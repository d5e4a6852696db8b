"""The self-check of a model with a prior (``ppo:check=N``, ``aerodeck.agents.self_check``): its deals, its choice
(the caution with the best lower bound above 0, else the prior agent), its play, its knobs and sidecar."""

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from aerodeck import envs  # noqa: E402
from aerodeck.agents import self_check as sc  # noqa: E402
from aerodeck.agents.ppo import Inputs, PPOAgent  # noqa: E402
from aerodeck.agents.registry import make_agent  # noqa: E402
from tests.agents.test_ppo import tiny_model  # noqa: E402

GAMES = envs.games()
SOLO = next(g for g in GAMES if envs.spec(g).solo)
MULTI = next(g for g in GAMES if not envs.spec(g).solo)


def prior_model(game_id, folder):
    """A tiny untrained model that reads the game's prior agent, with its sidecar."""
    game = envs.spec(game_id)
    return tiny_model(game_id, folder, inputs=Inputs.make(game_id, game.make_rules(), mask=True, prior=game.prior))


def test_the_checks_deals_are_keyed_by_its_seed_and_the_game_number():
    seeds = sc.check_seeds(7)
    np.testing.assert_array_equal(sc.check_seeds(3), seeds[:3])
    assert seeds.dtype == np.uint64 and len(set(seeds.tolist())) == 7


def test_the_caution_with_the_best_lower_bound_above_0_is_chosen_else_the_prior_agent(monkeypatch):
    class Agent:  # what self_check reads of a PPOAgent
        rules = envs.spec(SOLO).make_rules()
        inputs = type("Inputs", (), {"prior_agent": "prior"})()

    def run(figures):
        """Check with the players' figures faked: ``figures[caution]`` the caution's, ``figures["prior"]``."""
        monkeypatch.setattr(sc, "seat_figures", lambda game, core, player, opponent, seeds, bar=None:
                            np.asarray(figures["prior" if player == "prior" else player.caution], float))
        return sc.self_check(Agent(), envs.spec(SOLO), None, 4, cautions=(0.0, 1.0))

    prior = [1.0, 2.0, 3.0, 4.0]
    # caution 0: mean +2 with a wide spread; caution 1: mean +1, every deal +1 (lower bound +1)
    out = run({"prior": prior, 0.0: [1.0, 2.0, 3.0, 12.0], 1.0: [2.0, 3.0, 4.0, 5.0]})
    assert out["caution"] == 1.0 and out["differences"][1.0] == [1.0, 1.0, 1.0]
    assert out["differences"][0.0][0] == 2.0 and out["differences"][0.0][1] < 0
    # no lower bound above 0: play as the prior agent
    out = run({"prior": prior, 0.0: [1.0, 2.0, 3.0, 4.0], 1.0: [0.0, 3.0, 2.0, 5.0]})
    assert out["caution"] is None and out["deals"] == 4 and out["seed"] == sc.CHECK_SEED
    with pytest.raises(ValueError, match="at least 2 deals"):
        sc.self_check(Agent(), envs.spec(SOLO), None, 1)


def test_a_model_that_fails_its_check_plays_as_its_prior_agent(tmp_path):
    game = envs.spec(SOLO)
    rules = game.make_rules()
    path = prior_model(SOLO, tmp_path)
    agent = PPOAgent(rules=rules, path=str(path), check=8)
    result = agent.check_result
    assert sorted(result["differences"]) == list(sc.CAUTIONS) and result["deals"] == 8
    for mean, low, high in result["differences"].values():
        assert low <= mean <= high
    # an untrained network under a strong prior plays like it: no caution is shown better on 8 deals
    assert result["caution"] is None and agent.as_prior
    prior = make_agent(SOLO, game.prior, rules)
    agent.policy = None  # it plays as the prior agent: the network is not asked
    core = game.make_core(rules)
    state = core.init(np.arange(64, dtype=np.uint64))
    for _ in range(30):
        obs, masks = core.observe(state), core.legal_mask(state)
        live = masks.any(axis=1)
        mine = agent.act(obs, masks)
        np.testing.assert_array_equal(mine[live], prior.act(obs, masks)[live])
        core.step(state, mine)


def test_the_check_scores_the_models_seat_against_the_prior_agents_on_the_same_deals(monkeypatch):
    game = envs.spec(MULTI)
    rules = game.make_rules()
    core = game.make_core(rules)
    seeds = sc.check_seeds(12)
    opponent = make_agent(MULTI, game.opponent, rules, seed=1)
    shares = sc.seat_figures(game, core, make_agent(MULTI, game.opponent, rules, seed=1), opponent, seeds)
    # the opponent against copies of itself with the same key: a symmetric table, each seat its share
    assert shares.shape == (12,) and np.all((shares >= 0) & (shares <= 1))
    random = sc.seat_figures(game, core, make_agent(MULTI, "random", rules, seed=2), opponent, seeds)
    assert random.mean() < shares.mean()  # a random player wins less than the heuristic's seat
    solo = envs.spec(SOLO)
    score = sc.seat_figures(solo, solo.make_core(), make_agent(SOLO, solo.prior, solo.make_rules()), None, seeds[:5])
    again = sc.seat_figures(solo, solo.make_core(), make_agent(SOLO, solo.prior, solo.make_rules()), None, seeds[:5])
    np.testing.assert_array_equal(score, again)
    assert score.shape == (5,) and score.sum() > 0
    whole = sc.seat_figures(game, core, make_agent(MULTI, game.opponent, rules, seed=1), opponent, sc.check_seeds(30))
    monkeypatch.setattr(sc, "CHUNK", 12)  # in chunks (a multiple of the player count): the same seats and figures
    np.testing.assert_array_equal(
        sc.seat_figures(game, core, make_agent(MULTI, game.opponent, rules, seed=1), opponent, sc.check_seeds(30)), whole)


def test_a_check_runs_once_per_model_rules_and_deals_in_a_process(tmp_path, monkeypatch):
    rules = envs.spec(SOLO).make_rules()
    path = prior_model(SOLO, tmp_path)
    calls = []
    real = sc.self_check
    monkeypatch.setattr(sc, "self_check", lambda *a, **k: calls.append(a[3]) or real(*a, **k))
    first = PPOAgent(rules=rules, path=str(path), check=4, seed=1).check_result
    assert PPOAgent(rules=rules, path=str(path), check=4, seed=2).check_result == first
    PPOAgent(rules=rules, path=str(path), check=5)
    assert calls == [4, 5]


def test_check_needs_a_prior_and_excludes_caution_and_a_bad_sidecar_check_is_named(tmp_path):
    rules = envs.spec(SOLO).make_rules()
    (tmp_path / "plain").mkdir()
    plain = tiny_model(SOLO, tmp_path / "plain")
    with pytest.raises(ValueError, match="check= needs a model that reads a prior"):
        PPOAgent(rules=rules, path=str(plain), check=4)
    path = prior_model(SOLO, tmp_path)
    with pytest.raises(ValueError, match="give caution= or check="):
        make_agent(SOLO, f"ppo:path={path},caution=1,check=4", rules)
    with pytest.raises(ValueError, match="check"):
        make_agent(SOLO, f"ppo:path={path},check=-1", rules)
    side = path.with_suffix(".json")
    data = json.loads(side.read_text())
    side.write_text(json.dumps({**data, "check": {"deals": 4}}))
    assert PPOAgent(rules=rules, path=str(path)).check_result["deals"] == 4
    assert PPOAgent(rules=rules, path=str(path), caution=0).check_result is None  # a caution given: no check
    for bad in ({"deals": -1}, {"deals": 2.5}, 3, {"deals": True}):
        side.write_text(json.dumps({**data, "check": bad}))
        with pytest.raises(ValueError, match="the sidecar of .*: check must be"):
            PPOAgent(rules=rules, path=str(path))


def test_a_model_plays_at_the_caution_its_check_chose(tmp_path, monkeypatch):
    rules = envs.spec(SOLO).make_rules()
    path = prior_model(SOLO, tmp_path)
    monkeypatch.setattr(sc, "self_check", lambda agent, game, opponent, deals: {"deals": deals, "caution": 2.0})
    agent = PPOAgent(rules=rules, path=str(path), check=6)
    assert agent.caution == 2.0 and not agent.as_prior and agent.check_result == {"deals": 6, "caution": 2.0}


def test_a_bench_reports_what_a_models_check_chose(tmp_path, capsys):
    from aerodeck.bench.bench import Plan, print_result

    game = envs.spec(SOLO)
    path = prior_model(SOLO, tmp_path)
    spec = f"ppo:path={path},check=4"
    result = Plan.build(game, game.make_rules(), ["heuristic", spec], 6, 0).run(tmp_path / "bench", progress=False)
    assert result["self_checks"][spec]["deals"] == 4 and "heuristic" not in result["self_checks"]
    saved = json.loads((tmp_path / "bench" / "results.json").read_text())["self_checks"][spec]
    assert saved["caution"] is None and saved["prior"] == game.prior
    print_result(result)
    assert f"{spec}: its self-check under these rules (4 deals): it plays as {game.prior} (lower bounds: 0 " in capsys.readouterr().out
    assert sc.describe({"caution": 1.0, "differences": {0.0: [0.1, -0.2, 0.4], 1.0: [0.3, 0.05, 0.55]}}) == \
        "caution 1 (lower bounds: 0 -0.200, 1 +0.050)"


def test_a_multi_player_model_checks_itself_in_rotated_seats_against_the_opponent(tmp_path):
    from aerodeck.bench.bench import Plan

    game = envs.spec(MULTI)
    rules = game.make_rules()
    path = prior_model(MULTI, tmp_path)
    spec = f"ppo:path={path},check=8"
    n = game.players(rules)
    result = Plan.build(game, rules, [spec, game.opponent], 2 * n, 0, lineup=[spec] + [game.opponent] * (n - 1)).run(
        tmp_path / "bench", progress=False)
    check = result["self_checks"][spec]
    assert check["deals"] == 8 and sorted(check["differences"]) == list(sc.CAUTIONS)
    for mean, low, high in check["differences"].values():
        assert -1 <= low <= mean <= high <= 1  # differences of win shares
