"""The warm start with Flight Tycoon teachers (their knobs): a search teacher's legal moves through its
view, the same games in one process or two, decisions that do not depend on the chunking; a teacher
in one seat gives that seat's decisions only."""

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from tests.train import teaching  # noqa: E402

GAME, TEACHER = "flight-tycoon", "search:samples=2,candidates=2,horizon=4"


def test_a_search_teacher_plays_legal_moves_through_its_view():
    teaching.check_a_search_teacher_plays_legal_moves_through_its_view(GAME, TEACHER)


def test_the_teachers_games_are_the_same_in_one_process_or_two():
    teaching.check_the_teachers_games_are_the_same_in_one_process_or_two(GAME, TEACHER)


def test_the_teachers_decisions_do_not_depend_on_the_chunking():
    teaching.check_the_teachers_decisions_do_not_depend_on_the_chunking(GAME, TEACHER)


@pytest.mark.parametrize("opponent", [None, "heuristic"])
def test_a_search_teachers_policy_weighs_its_candidates_by_value(opponent):
    teaching.check_a_search_teachers_policy_weighs_its_candidates_by_value(GAME, TEACHER, opponent)


def test_a_teacher_in_one_seat_gives_that_seats_decisions_only():
    pure = "heuristic:noise=0"  # without tie-breaking noise: the same play whoever's seed
    _, every = teaching.teacher_data(GAME, pure)
    core, one = teaching.teacher_data(GAME, pure, pure)
    assert set(np.unique(every["seats"])) == set(range(core.n_players))
    assert (one["seats"] == one["games"] % core.n_players).all()  # game i: the teacher sits in seat i mod n
    taught = every["seats"] == every["games"] % core.n_players
    for key in ("actions", "returns", "games", "inputs", "masks"):
        np.testing.assert_array_equal(np.sort(one[key], axis=0), np.sort(every[key][taught], axis=0), err_msg=key)
    # FT-15 outcome reward, paid at the end and discounted: -1/(n - 1) for a loser up to +1 for a sole winner
    assert ((one["returns"] >= -1 / 3 - 1e-6) & (one["returns"] <= 1)).all()


def test_an_unguided_search_keeps_the_heuristics_order_in_its_policy_by_its_order_knob():
    teaching.check_an_unguided_search_keeps_the_heuristics_order_in_its_policy_by_its_order_knob(GAME, TEACHER, "heuristic")
