"""The shared step preamble and environment options (``aerodeck.envs.common.checks``), used by both cores and
every environment."""

import numpy as np
import pytest

from aerodeck.envs.common.checks import (
    ON_ILLEGAL, IllegalActionError, check_choice, illegal_policy, refuse_illegal, rules_with_options, step_actions,
)
from tests.games import MULTI, SOLO


def test_the_step_preamble_checks_shape_always_and_range_when_asked():
    assert step_actions(np.array([0, 3], np.uint8), 2, 4).dtype == np.int64
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        step_actions(np.array([0.0, 1.0]), 2, 4, check_range=False)
    with pytest.raises(ValueError, match=r"game 1: action must be an integer in 0\.\.3, got 4"):
        step_actions([0, 4], 2, 4)
    assert step_actions([0, 4], 2, 4, live=np.array([True, False])).tolist() == [0, 4]  # a finished game's action
    assert step_actions([0, 9], 2, 4, check_range=False).tolist() == [0, 9]  # trusted callers


def test_an_illegal_action_is_refused_naming_the_first_offending_game():
    refuse_illegal(np.array([True, True]), lambda game: "never asked")
    with pytest.raises(IllegalActionError, match="game 2 is wrong"):
        refuse_illegal(np.array([True, True, False, False]), lambda game: f"game {game} is wrong")


def test_on_illegal_raises_or_lets_the_caller_terminate():
    assert ON_ILLEGAL == ("terminate", "raise")
    illegal_policy("terminate", "action 3 is illegal")  # the caller ends the episode
    with pytest.raises(IllegalActionError, match="action 3 is illegal"):
        illegal_policy("raise", "action 3 is illegal")
    with pytest.raises(ValueError, match="on_illegal='ignore' is not allowed: on_illegal must be one of terminate, raise"):
        check_choice("on_illegal", "ignore", ON_ILLEGAL)


def test_rule_options_apply_on_top_of_a_rules_object_in_every_game():
    solo, multi = SOLO.rules_class(), MULTI.rules_class()
    base, *more = next(v for v in MULTI.variants if len(v) > 1).items()  # a variant of several options
    assert rules_with_options(multi, multi(**dict([base])), dict(more)) == multi(**dict([base, *more]))
    options = next(v for v in SOLO.variants if v)
    assert rules_with_options(solo, None, options) == solo(**options)
    article = "an" if solo.__name__[0] in "AEIOU" else "a"
    with pytest.raises(TypeError, match=f"rules must be {article} {solo.__name__}, got {multi.__name__}"):
        rules_with_options(solo, multi(), {})
    with pytest.raises(ValueError, match="unknown rule option"):
        rules_with_options(multi, multi(), {"tokenz": 3})
