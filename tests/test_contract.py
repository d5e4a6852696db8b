"""The game contract, checked for every registered game (built in or plugged in) under its rule variants.

The checks ship with the package (:mod:`aerodeck.testing`, whose :func:`~aerodeck.testing.check_game`
a game's author runs without a checkout); here each single case — one check under one of the game's
``variants``, for one agent of its ladder, or once for the game — is its own test, so a failure names
the game, the check and the case, and the cases run in parallel.
"""

from __future__ import annotations

import pytest

from aerodeck import envs, testing

CASES = [(spec.id, case.check, case.label) for spec in envs.specs() for case in testing.cases(spec)]


@pytest.mark.parametrize(("game", "check", "label"), CASES,
                         ids=[f"{game}-{check}" + (f"-{label}" if label else "") for game, check, label in CASES])
def test_the_game_passes_the_check(game, check, label):
    try:
        testing.run_check(game, check, label)
    except testing.SkipCheck as why:
        pytest.skip(str(why))


def test_every_check_runs_for_every_registered_game():
    """No check is left out by the parametrization: each applies to some game, with variants / agents."""
    ran = {check for _, check, _ in CASES}
    assert ran == set(testing.CHECKS)
    for spec in envs.specs():
        labels = [label for game, check, label in CASES if game == spec.id and check == "determinism"]
        assert labels == [f"v{i}" for i in range(len(spec.variants))]


def test_an_unknown_game_is_refused_naming_the_registered_ones():
    with pytest.raises(ValueError, match=f"unknown game 'no-such-game'; available: {', '.join(envs.games())}"):
        envs.spec("no-such-game")
