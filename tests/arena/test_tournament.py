"""Seat rotation, head-to-head tables and ratings."""

import numpy as np
import pytest

from aerodeck.arena.tournament import Ratings, balanced_games, head_to_head, pair_results, schedule, seat_rotation


@pytest.mark.parametrize("n_agents, n_seats", [(1, 4), (2, 4), (3, 4), (2, 3), (3, 5), (4, 4)])
def test_every_agent_plays_every_seat_equally_often(n_agents, n_seats):
    lineups = seat_rotation(n_agents, n_seats)
    for agent in range(n_agents):
        per_seat = (lineups == agent).sum(axis=0)
        assert len(set(per_seat.tolist())) == 1, per_seat
    totals = [(lineups == a).sum() for a in range(n_agents)]
    assert len(set(totals)) == 1


def test_schedule_refuses_unbalanced_game_counts():
    assert schedule(24, 3, 4).shape == (24, 4)
    assert np.array_equal(schedule(24, 3, 4, start=5, stop=20), schedule(24, 3, 4)[5:20])
    with pytest.raises(ValueError, match="multiple of 12.*24"):
        schedule(13, 3, 4)
    assert balanced_games(13, 3, 4) == 24


def test_head_to_head_counts_seat_pairs_and_ties():
    lineups = np.array([[0, 1, 1], [1, 0, 1]])
    standings = np.array([[5.0, 3.0, 5.0], [2.0, 2.0, 1.0]])
    ahead, count = head_to_head(lineups, standings, 2)
    # game 0: agent0 vs seats 1 (ahead), 2 (tie); game 1: agent0 vs seat 0 (tie), seat 2 (ahead)
    assert count[0, 1] == 4 and ahead[0, 1] == pytest.approx(1 + 0.5 + 0.5 + 1)
    assert ahead[1, 0] == pytest.approx(count[1, 0] - ahead[0, 1])
    # sums: the two games one by one add up to both at once
    parts = [head_to_head(lineups[i : i + 1], standings[i : i + 1], 2) for i in range(2)]
    assert np.array_equal(parts[0][0] + parts[1][0], ahead) and np.array_equal(parts[0][1] + parts[1][1], count)
    assert pair_results(lineups, standings, 0, 1).tolist() == [0.75, 0.75]


def test_ratings_order_a_stronger_agent_first():
    rng = np.random.default_rng(0)
    lineups = schedule(48, 2, 4)
    standings = rng.random(lineups.shape) + (lineups == 1) * 0.5  # agent 1 usually ahead
    r = Ratings(["weak", "strong"]).update(lineups, standings).result()
    assert r["strong"]["mu"] > r["weak"]["mu"]
    in_two = Ratings(["weak", "strong"]).update(lineups[:20], standings[:20]).update(lineups[20:], standings[20:])
    assert in_two.result() == r  # game by game: chunks change nothing


def test_a_lineup_rotates_so_every_seat_sees_each_agent_in_proportion():
    from aerodeck.arena.tournament import lineup_rotation

    rot = lineup_rotation([0, 1, 1, 1])
    assert rot.tolist() == [[0, 1, 1, 1], [1, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0]]
    assert schedule(8, 2, 4, lineup=[0, 1, 1, 1]).shape == (8, 4)
    with pytest.raises(ValueError, match="multiple of 4"):
        schedule(6, 2, 4, lineup=[0, 1, 1, 1])
