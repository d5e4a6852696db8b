"""The warm start: the teacher's decisions through the play loop, in chunks and processes, stopped at a
deadline; saved and reused; behaviour cloning. A search teacher and a teacher in one seat: the
``test_warm_start_*.py`` of each game's tests."""

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from aerodeck.agents.ppo import Inputs  # noqa: E402
from tests.games import MULTI, SOLO  # noqa: E402
from tests.train.teaching import INPUTS, teacher_data, warm  # noqa: E402
from aerodeck.train.warm_start import (PolicyTap, clone, load_decisions, play_teacher, reread_inputs,  # noqa: E402
                                     save_decisions)


def test_a_solo_teachers_returns_are_its_discounted_scores():
    core, data = teacher_data(SOLO.id, "heuristic", games=5)
    for g in range(5):  # the first decision of a game: the score discounted by the decisions before each ticket
        rows = np.flatnonzero(data["games"] == g)
        assert rows.size > 1 and np.all(np.diff(data["returns"][rows][::-1]) <= 1 + 1e-6)
    assert data["masks"][np.arange(len(data["actions"])), data["actions"]].all()


@pytest.mark.parametrize("workers", [1, 2])
def test_teacher_play_stops_on_a_whole_chunk_when_the_next_would_pass_the_deadline(workers):
    game = SOLO
    ticks = iter(range(1000))
    clock = lambda: float(next(ticks))  # noqa: E731 - every reading one second later
    deadline = 6.0
    parts = play_teacher(game.id, game.make_rules(), warm(game.id, teacher="heuristic"), INPUTS, 0, 0.99, 40,
                         chunk=4, workers=workers, now=clock, fits=lambda s: clock() + s <= deadline)
    assert 0 < len(parts) < 10  # stopped before the 40 games
    games = np.concatenate([part["games"] for part in parts])
    np.testing.assert_array_equal(np.unique(games), np.arange(games.max() + 1))  # a prefix of the games


def test_teacher_play_fills_its_time_with_smaller_chunks_as_the_deadline_nears(monkeypatch):
    """Each game takes one second of the (fake) clock: chunks of 8 while they fit, then halved, until
    not one more game fits before the deadline at 21 s — not the stop at 16 s of whole chunks."""
    from aerodeck.train import warm_start

    now = [0.0]

    def chunk(*task):
        start, count = task[-2:]
        now[0] += count
        return {"games": np.arange(start, start + count)}

    monkeypatch.setattr(warm_start, "teacher_chunk", chunk)
    sizes = []
    parts = play_teacher(SOLO.id, SOLO.make_rules(), warm(SOLO.id, teacher="heuristic"), INPUTS, 0, 0.99, 100,
                         chunk=8, now=lambda: now[0], fits=lambda s: now[0] + s <= 21.0, done=sizes.append)
    assert sizes == [8, 8, 4, 1] and now[0] == 21.0
    np.testing.assert_array_equal(np.concatenate([part["games"] for part in parts]), np.arange(21))


def test_a_teacher_that_cannot_be_made_stops_the_play_in_the_workers_too():
    with pytest.raises(ValueError, match="grandmaster"):
        play_teacher(SOLO.id, SOLO.make_rules(), warm(SOLO.id, teacher="grandmaster"),
                     {"mask": True, "prior": None, "prior_units": 4.0, "prior_ties": "even"}, 0, 0.99, 8, chunk=2,
                     workers=2)


def test_saved_decisions_are_reused_by_a_run_needing_as_many_games_or_fewer(tmp_path):
    _, data = teacher_data(SOLO.id, "heuristic", games=6)
    path = tmp_path / "warm_start.npz"
    meta = {"game": SOLO.id, "teacher": "heuristic", "seed": 4}
    save_decisions(path, data, {**meta, "games": 6, "play_seconds": 1.5})
    again, stored = load_decisions(path, meta, 4)
    assert stored["play_seconds"] == 1.5 and set(np.unique(again["games"])) == {0, 1, 2, 3}
    np.testing.assert_array_equal(again["actions"], data["actions"][data["games"] < 4])
    with pytest.raises(ValueError, match=r"made for another run: teacher \(file 'heuristic', this run 'search'\)"):
        load_decisions(path, {**meta, "teacher": "search"}, 4)
    with pytest.raises(ValueError, match="games .file 6, this run needs 8"):
        load_decisions(path, meta, 8)
    older = tmp_path / "older.npz"  # saved before the teacher's policy was kept: its actions are the targets
    save_decisions(older, {k: v for k, v in data.items() if not k.startswith("target_")}, {**meta, "games": 6})
    again, _ = load_decisions(older, meta, 6)
    np.testing.assert_array_equal(again["target_actions"][:, 0], data["actions"])
    assert (again["target_probs"] == 1).all() and again["target_probs"].shape == (len(data["actions"]), 1)
    load_decisions(older, {**meta, "player": ""}, 6)  # saved before the player was kept: the teacher played
    with pytest.raises(ValueError, match=r"player \(file '', this run 'heuristic'\)"):
        load_decisions(older, {**meta, "player": "heuristic"}, 6)
    broken = tmp_path / "broken.npz"
    broken.write_bytes(path.read_bytes()[:300])
    with pytest.raises(ValueError, match="not the teacher's decisions written by aerodeck train"):
        load_decisions(broken, meta, 4)


def test_added_decisions_are_numbered_after_the_runs_and_their_targets_padded_to_the_widest(tmp_path):
    from aerodeck.train.warm_start import with_more_decisions

    _, own = teacher_data(SOLO.id, "heuristic", games=3)  # a policy on the action played: k = 1
    _, searched = teacher_data(SOLO.id, "search", games=2)  # on the search's candidates
    k = searched["target_actions"].shape[1]
    assert k > 1 and own["target_actions"].shape[1] == 1
    meta = {"game": SOLO.id, "rules": {"r": 1}, "layout": {"l": 2}, "gamma": 0.99}
    path = tmp_path / "search.npz"
    save_decisions(path, searched, {**meta, "teacher": "search", "inputs": INPUTS, "games": 2})
    inputs = Inputs.make(SOLO.id, SOLO.make_rules(), mask=True, prior="heuristic")
    both = with_more_decisions(dict(own), [path], {**meta, "teacher": "heuristic"}, inputs, SOLO.make_core().obs_size)
    n = len(own["actions"])
    np.testing.assert_array_equal(both["games"], np.concatenate([own["games"], searched["games"] + 3]))
    np.testing.assert_array_equal(both["target_actions"][n:], searched["target_actions"])
    assert both["target_actions"].shape[1] == k and (both["target_probs"][:n, 1:] == 0).all()
    np.testing.assert_array_equal(both["target_actions"][:n, 0], own["actions"])
    with pytest.raises(ValueError, match=r"\[warm_start\] also = .* made for another run: gamma \(file 0.99, this run 0.9\)"):
        with_more_decisions(dict(own), [path], {**meta, "gamma": 0.9}, inputs, SOLO.make_core().obs_size)


def test_a_players_games_do_not_depend_on_the_chunking_even_under_a_teacher_without_random_choices():
    """The player's keys derive from the decision keys (game, decision), which the tap asks for whatever
    its teacher draws: a random player under the heuristic plays the same games in chunks of 6 or 3."""
    settings = warm(SOLO.id, teacher="heuristic", player="random")
    whole = play_teacher(SOLO.id, SOLO.make_rules(), settings, INPUTS, 3, 0.99, 6, chunk=6)
    split = play_teacher(SOLO.id, SOLO.make_rules(), settings, INPUTS, 3, 0.99, 6, chunk=3)
    joined = {key: np.concatenate([part[key] for part in split]) for key in whole[0]}
    a, b = np.argsort(whole[0]["games"], kind="stable"), np.argsort(joined["games"], kind="stable")
    for key in whole[0]:
        np.testing.assert_array_equal(whole[0][key][a], joined[key][b], err_msg=key)


def test_a_rule_general_runs_decisions_are_refused_by_name_before_any_game(tmp_path):
    from aerodeck.train.warm_start import check_more_decisions

    _, data = teacher_data(SOLO.id, "heuristic", games=2)
    path = tmp_path / "general.npz"
    meta = {"game": SOLO.id, "rules": {"r": 1}, "layout": {"l": 2}, "gamma": 0.99}
    save_decisions(path, data, {**meta, "inputs": {**INPUTS, "variants": {"ranges": {"face_up": [3, 5]}}}, "games": 2})
    inputs = Inputs.make(SOLO.id, SOLO.make_rules(), mask=True, prior="heuristic")
    with pytest.raises(ValueError, match=r"\[warm_start\] also = .*general.npz.*: a rule-general teacher's decisions"):
        check_more_decisions([path], meta, inputs)


@pytest.mark.parametrize("game", [SOLO, MULTI], ids=lambda g: g.id)
def test_with_a_player_the_teacher_labels_the_states_the_players_moves_reach(game):
    """DAgger (``[warm_start] player``): the games are the player's — whichever agent labels them, the
    same states and returns — and the actions kept are the teacher's: the search's departs from the
    heuristic's on the same states."""
    from aerodeck.agents.registry import make_agent
    from aerodeck.arena.loop import game_seeds
    from aerodeck.train.warm_start import teacher_decisions

    rules = game.make_rules()
    inputs = Inputs.make(game.id, rules, mask=True, prior="heuristic")
    opponent = None if game.solo else make_agent(game.id, "random", rules, seed=2)

    def decisions(teacher):
        return teacher_decisions(game, rules, make_agent(game.id, teacher, rules, seed=1), game_seeds(4, 6), inputs,
                                 0.99, opponent=opponent, player=make_agent(game.id, "heuristic", rules, seed=3))

    by_heuristic, by_search = decisions("heuristic"), decisions("search")
    assert PolicyTap(make_agent(game.id, "search", rules), make_agent(game.id, "heuristic", rules)).name == \
        "heuristic (labelled by search)"  # an illegal move is the player's
    for key in ("inputs", "masks", "returns", "games", "seats"):
        np.testing.assert_array_equal(by_heuristic[key], by_search[key], err_msg=key)
    assert (by_search["actions"] != by_heuristic["actions"]).any()
    rows = np.arange(len(by_search["actions"]))
    np.testing.assert_array_equal(by_search["target_actions"][rows, by_search["target_probs"].argmax(1)],
                                  by_search["actions"])  # the search's own choice, not the move played


def tiny_model(game, inputs, **policy):
    from sb3_contrib import MaskablePPO

    from aerodeck.agents.ppo import PriorPolicy
    from aerodeck.train.model import learner_env

    venv = learner_env(game.make_sb3(4, rules=game.make_rules(), seed=0), inputs)
    return MaskablePPO(PriorPolicy if inputs.prior else "MlpPolicy", venv, n_steps=8, batch_size=32, seed=0,
                       policy_kwargs={"net_arch": [32], **policy})


def test_behaviour_cloning_reports_held_out_accuracy_from_before_the_first_pass_and_never_nan():
    game = SOLO
    core, data = teacher_data(game.id, "heuristic", games=40)
    data["inputs"] = data["inputs"][:, :core.obs_size + core.n_actions]  # observation + mask: no prior
    model = tiny_model(game, Inputs(mask=True))
    calls = []
    result = clone(model, data, 3, 64, 3e-3, 0, log=lambda *a: calls.append(a), holdout=0.25)
    assert [c[0] for c in calls] == [0, 1, 2, 3] and calls[0][1] is None and calls[0][2] is None
    assert all(all(x is not None and np.isfinite(x) for x in c[1:]) for c in calls[1:])
    assert len(result) == 3 and all(0 <= a <= 1 and 0 <= h <= 1 for a, h in result)
    assert result[-1][0] > calls[0][3]  # it learnt something from the teacher
    few = {key: value[:5] for key, value in data.items()}  # too few to hold any out: said, not NaN
    assert clone(model, few, 1, 64, 1e-3, 0, holdout=0.1)[0][1] is None


def test_behaviour_cloning_fits_the_teachers_policy_not_only_its_action():
    game = SOLO
    core, data = teacher_data(game.id, "heuristic", games=40)
    data["inputs"] = data["inputs"][:, :core.obs_size + core.n_actions]
    first = data["masks"].argmax(1)  # a policy that differs from the moves played: the first legal action
    data["target_actions"] = np.stack([first, data["actions"]], 1)
    data["target_probs"] = np.tile(np.float32([0.9, 0.1]), (len(first), 1))
    model = tiny_model(game, Inputs(mask=True))
    clone(model, data, 8, 64, 3e-3, 0, holdout=0.0)
    import torch

    policy = model.policy
    with torch.no_grad():
        x = torch.as_tensor(data["inputs"], dtype=torch.float32)
        latent_pi, _ = policy.mlp_extractor(policy.extract_features(x, policy.pi_features_extractor))
        chosen = policy.action_net(latent_pi).masked_fill(~torch.as_tensor(data["masks"]), -1e9).argmax(1).numpy()
    departs = first != data["actions"]
    assert departs.mean() > 0.5 and (chosen == first)[departs].mean() > 0.8  # it learnt the policy's favourite


def test_behaviour_cloning_stops_at_the_deadline_within_a_pass():
    game = SOLO
    core, data = teacher_data(game.id, "heuristic", games=40)
    data["inputs"] = data["inputs"][:, :core.obs_size + core.n_actions]
    model = tiny_model(game, Inputs(mask=True))
    batches = []
    result = clone(model, data, 50, 16, 1e-3, 0, fits=lambda s: batches.append(s) or len(batches) <= 5,
                   now=lambda: 0.0)
    assert len(result) == 1  # five batches, then the deadline: one pass, cut short


@pytest.mark.parametrize("learn", [False, True])
def test_the_prior_scale_is_learnt_only_when_the_config_says_so(learn):
    import torch

    game = SOLO
    rules = game.make_rules()
    _, data = teacher_data(game.id, "random", games=8)  # departs from the prior: the scale is pulled
    model = tiny_model(game, Inputs.make(game.id, rules, mask=True, prior="heuristic"), prior_scale=32.0,
                       learn_prior_scale=learn)
    head = model.policy.action_net
    before = [p.detach().clone() for p in model.policy.parameters()]
    clone(model, data, 1, 64, 1e-2, 0)
    assert (head.log_scale.item() != pytest.approx(np.log(32.0))) == learn
    assert sum(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters())) > 1  # the rest learns


def test_saved_decisions_are_reread_for_a_student_that_reads_other_inputs():
    game = SOLO
    rules = game.make_rules()
    core, data = teacher_data(game.id, "heuristic", games=4)  # saved with the heuristic's scores as prior
    saved = Inputs.make(game.id, rules, mask=True, prior="heuristic")
    assert reread_inputs(data, saved.to_dict(), saved, core.obs_size) is data["inputs"]
    ranks = Inputs.make(game.id, rules, mask=True, prior="heuristic", prior_ranks=4)
    reread = reread_inputs(data, saved.to_dict(), ranks, core.obs_size)
    np.testing.assert_array_equal(reread, ranks(data["inputs"][:, :core.obs_size], data["masks"]))
    assert not np.array_equal(reread, data["inputs"])
    plain = reread_inputs(data, saved.to_dict(), Inputs(), core.obs_size)
    np.testing.assert_array_equal(plain, data["inputs"][:, :core.obs_size])
