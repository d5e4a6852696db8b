"""Airport Scramble's rate metrics in ``aerodeck compare``: intervals inside [0, 1], and a metric without
events says so."""

import numpy as np

from aerodeck.stats import significance as sig
from aerodeck.judge.analysis import estimate
from aerodeck.arena.backends import catalogue
from aerodeck.judge.wording import interval

AS = "airport-scramble"


def test_rate_intervals_stay_inside_0_and_1_and_say_when_nothing_happened():
    metric = catalogue(AS).metric("ticket_completion")
    rng = np.random.default_rng(3)
    attempts = rng.integers(0, 3, size=(80, 3)).astype(float)
    attempts[:, 2] = 0  # a ticket nobody attempted
    done = np.zeros_like(attempts)
    attempts[5, 0] = done[5, 0] = 1  # one completion in 80 games
    done[:, 1] = attempts[:, 1]  # always completed
    rare, always, never = estimate(metric, done, attempts, seed=0)
    assert sig.ratio_estimate(done[:, 0], attempts[:, 0])[1] < 0  # the delta method's interval would leave [0, 1]
    assert 0 <= rare["low"] <= rare["value"] <= rare["high"] <= 1 and rare["low"] < rare["value"] < rare["high"]
    assert always["value"] == always["high"] == 1 and 0 < always["low"] < 1
    assert never is None
    no_win = estimate(catalogue(AS).metric("won"), np.zeros((50, 1)), np.ones((50, 1)))[0]
    assert no_win["note"] == "no events" and no_win["low"] == 0 < no_win["high"] < 0.1  # Wilson: how rare it can be
    removals = estimate(catalogue(AS).metric("line_removals"), np.zeros((50, 1)), np.ones((50, 1)))[0]
    assert interval(removals) == "0 (no events in 50 games)"
