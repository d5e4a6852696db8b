"""The warm start with an Airport Scramble search teacher (its knobs): legal moves through its view,
the same games in one process or two, decisions that do not depend on the chunking."""

import pytest

pytest.importorskip("sb3_contrib")

from tests.train import teaching  # noqa: E402

GAME, TEACHER = "airport-scramble", "search:rollouts=2,candidates=2,horizon=8"


def test_a_search_teacher_plays_legal_moves_through_its_view():
    teaching.check_a_search_teacher_plays_legal_moves_through_its_view(GAME, TEACHER)


def test_the_teachers_games_are_the_same_in_one_process_or_two():
    teaching.check_the_teachers_games_are_the_same_in_one_process_or_two(GAME, TEACHER)


def test_the_teachers_decisions_do_not_depend_on_the_chunking():
    teaching.check_the_teachers_decisions_do_not_depend_on_the_chunking(GAME, TEACHER)


def test_a_search_teachers_policy_weighs_its_candidates_by_value():
    teaching.check_a_search_teachers_policy_weighs_its_candidates_by_value(GAME, TEACHER)


def test_a_restricted_search_teaches_its_policy_among_the_allowed_actions_only():
    import numpy as np

    core, data = teaching.teacher_data(GAME, f"restricted:base=search,forbid=replace,{TEACHER[7:]},temperature=0.1")
    weighed = data["target_probs"] > 0
    kinds = core.index_kinds[data["target_actions"]]
    assert weighed.sum(1).max() >= 2  # the base search's policy, spread over its candidates
    assert not (weighed & (kinds == core.actions.kinds.index("replace"))).any()


def test_an_unguided_search_keeps_the_heuristics_order_in_its_policy_by_its_order_knob():
    teaching.check_an_unguided_search_keeps_the_heuristics_order_in_its_policy_by_its_order_knob(GAME, TEACHER)
