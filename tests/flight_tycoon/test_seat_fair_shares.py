"""``aerodeck compare`` on Flight Tycoon tests each seat's win share against the fair share once per seat
(``win_by_position`` / 1st is ``first_player_win``, no seat beyond the player count)."""

import numpy as np

from aerodeck.envs.flight_tycoon.rules import FlightTycoonRules
from aerodeck.judge.analysis import _fair_shares
from aerodeck.arena.backends import catalogue
from aerodeck.judge.compare import Question, Table

FT = "flight-tycoon"


def seat_table(win_probs, games: int, seed: int):
    """A synthetic 4-player cell whose seat position k wins with probability ``win_probs[k]``."""
    rng = np.random.default_rng(seed)
    n = len(win_probs)
    winner = rng.choice(n, size=games, p=win_probs)
    by_position = np.zeros((games, 5))
    by_position[np.arange(games), winner] = 1
    den = np.zeros((games, 5))
    den[:, :n] = 1
    return {"metrics": {"first_player_win": (by_position[:, :1].copy(), np.ones((games, 1))),
                        "win_by_position": (by_position, den)}}


def test_seat_shares_are_tested_against_the_fair_share_once_per_seat():
    rules = FlightTycoonRules().replace(n_players=4)
    question = Question(FT, {"base": rules}, (Table("biased", ("random",)), Table("fair", ("random",))), 4000, 0,
                        ("first_player_win", "win_by_position"))
    cells = {("base", "biased"): seat_table([0.3, 0.25, 0.25, 0.2], 4000, 1),
             ("base", "fair"): seat_table([0.25] * 4, 4000, 2)}
    metrics_of = {"base": {m.name: m for m in catalogue(FT).metrics}}
    tests = {(f["table"], f["metric"], f["column"]): f["test"] for f in _fair_shares(question, cells, metrics_of)}
    assert ("biased", "win_by_position", "1st") not in tests  # first_player_win is that seat, tested once
    assert ("biased", "win_by_position", "5th") not in tests  # no 5th seat at 4 players
    first, fourth = tests[("biased", "first_player_win", "")], tests[("biased", "win_by_position", "4th")]
    assert first.against == fourth.against == 0.25
    assert first.p_value < 1e-6 and first.value > 0.25 and first.low > 0.25
    assert fourth.p_value < 1e-6 and fourth.high < 0.25
    assert tests[("fair", "first_player_win", "")].p_value > 0.05
    for t in tests.values():  # the score test is the one the Wilson interval inverts
        assert (t.p_value < 0.05) == (not t.low <= t.against <= t.high)
