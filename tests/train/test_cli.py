"""The ``aerodeck`` command line: a bad value is one line without the usage block, a command line it
cannot read keeps the usage (SIGTERM during a search: tests/airport_scramble/test_tune_sigterm.py)."""

import pytest

from tests.games import MULTI, SOLO
from train import cli


@pytest.mark.parametrize("command, named", [
    (["bench", SOLO.id, "--games", "0"], "--games must be an integer in 1.."),
    (["compare", MULTI.id, "--games", "0"], "--games must be an integer in 1.."),
    (["tune", SOLO.id, "--games", "0", "--target", "score=4"], "--games must be an integer in 1.."),
    (["bench", SOLO.id, "--games", "many"], "--games must be an integer, got 'many'"),
    (["tune", SOLO.id, "--trials", "abc", "--target", "score=4"], "argument --trials: invalid int value"),
    (["run", "--seed", "-1"], "--seed must be an integer in 0..2**64-1"),
    (["play", SOLO.id, "--seat", "x"], "argument --seat: invalid int value: 'x'"),
    (["bench", "no-such-game"], "argument game: invalid choice: 'no-such-game' (choose from"),
])
def test_a_bad_value_is_one_line_without_the_usage_block(capsys, command, named):
    # Before: argparse printed its 7-10-line usage block above the error.
    assert cli.main(command) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "usage:" not in err
    assert err.startswith(f"aerodeck {command[0]}: error: ") and named in err


@pytest.mark.parametrize("command", [["bench", SOLO.id, "--gamez", "3"], ["bench"], ["no-such-command"]])
def test_a_command_line_argparse_cannot_read_keeps_the_usage(capsys, command):
    assert cli.main(command) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: aerodeck") and "error:" in err
