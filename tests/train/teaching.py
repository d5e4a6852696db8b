"""The teacher's decisions of the warm start, for its tests (``test_warm_start.py`` here and the
``test_warm_start_*.py`` of each game's tests): a teacher's data, the warm-start settings, and the checks
of a search teacher, whose knobs are the game's."""

import dataclasses

import numpy as np
import pytest

from aerodeck import envs
from aerodeck.agents.ppo import Inputs
from aerodeck.train.config import default_config
from aerodeck.train.warm_start import play_teacher

INPUTS = {"mask": True, "prior": "heuristic", "prior_units": 4.0, "prior_ties": "first"}


def teacher_data(game_id, teacher, opponent=None, games=6):
    from aerodeck.agents.registry import make_agent
    from aerodeck.arena.loop import game_seeds
    from aerodeck.train.warm_start import teacher_decisions

    game = envs.spec(game_id)
    rules = game.make_rules()
    inputs = Inputs.make(game_id, rules, mask=True, prior="heuristic")
    data = teacher_decisions(game, rules, make_agent(game_id, teacher, rules, seed=1), game_seeds(4, games), inputs, 0.99,
                             opponent=opponent and make_agent(game_id, opponent, rules, seed=2))
    return game.make_core(rules), data


def warm(game_id, **changes):
    return dataclasses.replace(default_config(game_id).warm_start, **changes)


def check_a_search_teacher_plays_legal_moves_through_its_view(game_id, teacher):
    core, data = teacher_data(game_id, teacher, None if envs.spec(game_id).solo else "random", games=4)
    assert len(data["actions"]) > 0
    assert data["masks"][np.arange(len(data["actions"])), data["actions"]].all()
    assert data["inputs"].shape[1] == core.obs_size + 2 * core.n_actions


def check_the_teachers_games_are_the_same_in_one_process_or_two(game_id, teacher):
    game = envs.spec(game_id)
    settings = warm(game_id, teacher=teacher)
    chunks = []
    one = play_teacher(game_id, game.make_rules(), settings, INPUTS, 3, 0.99, 6, chunk=2, workers=1, done=chunks.append)
    two = play_teacher(game_id, game.make_rules(), settings, INPUTS, 3, 0.99, 6, chunk=2, workers=2)
    assert chunks == [2, 2, 2] and len(one) == len(two) == 3
    for a, b in zip(one, two):
        for key in a:
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    games = np.concatenate([part["games"] for part in one])
    np.testing.assert_array_equal(np.unique(games), np.arange(6))  # numbered across the chunks
    if settings.opponent:  # game i: the teacher in seat i mod n, in every chunk
        seats = np.concatenate([part["seats"] for part in one])
        assert (seats == games % game.make_core().n_players).all()


def check_the_teachers_decisions_do_not_depend_on_the_chunking(game_id, teacher):
    game = envs.spec(game_id)
    settings = warm(game_id, teacher=teacher)
    whole = play_teacher(game_id, game.make_rules(), settings, INPUTS, 3, 0.99, 6, chunk=6)
    split = play_teacher(game_id, game.make_rules(), settings, INPUTS, 3, 0.99, 6, chunk=4)
    assert len(whole) == 1 and len(split) == 2
    joined = {key: np.concatenate([part[key] for part in split]) for key in whole[0]}
    # the decisions of a batch are recorded step by step across its games: compare game by game, in time order
    a, b = np.argsort(whole[0]["games"], kind="stable"), np.argsort(joined["games"], kind="stable")
    for key in whole[0]:
        np.testing.assert_array_equal(whole[0][key][a], joined[key][b], err_msg=key)


def check_a_search_teachers_policy_weighs_its_candidates_by_value(game_id, teacher, opponent=None):
    """With a ``temperature`` the search's policy (the cloning target) spreads over its legal candidates
    without changing its play — an unguided search at gate 0 plays a most probable one; at 0 it is all
    on the move played."""
    _, hard = teacher_data(game_id, teacher, opponent)
    _, soft = teacher_data(game_id, f"{teacher},temperature=0.05", opponent)
    for key in ("actions", "games", "seats", "inputs"):  # the same play
        np.testing.assert_array_equal(hard[key], soft[key], err_msg=key)
    rows = np.arange(len(hard["actions"]))
    assert (hard["target_probs"].max(1) == 1).all()
    np.testing.assert_array_equal(hard["target_actions"][rows, hard["target_probs"].argmax(1)], hard["actions"])
    probs, weighed = soft["target_probs"], soft["target_actions"]
    np.testing.assert_allclose(probs.sum(1), 1, rtol=1e-5)
    assert soft["masks"][np.repeat(rows, probs.shape[1]), weighed.reshape(-1)][probs.reshape(-1) > 0].all()
    played = np.where(weighed == soft["actions"][:, None], probs, 0).sum(1)
    np.testing.assert_allclose(played, probs.max(1), rtol=1e-6)  # gate 0: a best candidate is played
    assert ((probs > 0).sum(1) >= 2).mean() > 0.2  # searched decisions spread over their candidates


def check_an_unguided_search_keeps_the_heuristics_order_in_its_policy_by_its_order_knob(game_id, teacher, opponent=None):
    """``order=o``: an unguided search's taught policy gives each later candidate (the heuristic's order)
    o logits less before the values — more of it on the heuristic's best — and plays the same games."""
    from aerodeck.agents.registry import make_agent

    _, even = teacher_data(game_id, f"{teacher},temperature=0.05", opponent)
    _, ordered = teacher_data(game_id, f"{teacher},temperature=0.05,order=2", opponent)
    for key in ("actions", "games", "seats", "inputs", "target_actions"):  # the same play and candidates
        np.testing.assert_array_equal(even[key], ordered[key], err_msg=key)
    spread = (even["target_probs"] > 0).sum(1) >= 2
    assert spread.any()
    first, later = even["target_probs"][spread], ordered["target_probs"][spread]
    assert later[:, 0].mean() > first[:, 0].mean()
    ratio = later / np.where(first > 0, first, 1)  # ∝ exp(−2 j) within a decision
    valid = first[:, 1] > 0
    np.testing.assert_allclose(ratio[valid, 1] / ratio[valid, 0], np.exp(-2.0), rtol=1e-3)
    game = envs.spec(game_id)
    with pytest.raises(ValueError, match="'order' is for a search without a guide"):
        make_agent(game_id, f"{teacher},order=1,guide=x.zip", game.make_rules())
