"""The one play loop: any registered game through the core protocol, batch-size invariant, observed."""

import numpy as np
import pytest

from aerodeck import envs
from aerodeck.agents.random import RandomAgent
from tests.games import MULTI, SOLO
from aerodeck.arena.loop import game_seeds, play_games, play_solo


@pytest.mark.parametrize("game", envs.games())
def test_every_registered_game_plays_to_the_end_through_the_protocol(game):
    spec = envs.spec(game)
    core = spec.make_core(check_actions=False)
    n = core.n_players
    lineups = np.tile(np.arange(n) % 2, (40, 1))  # two agents sharing the seats (one in a solo game)
    agents = [RandomAgent(1), RandomAgent(2)][: 1 if n == 1 else 2]
    out = play_games(core, agents, game_seeds(3, 40), lineups, batch_size=7, progress=False, summary=spec.summary_of())
    assert out["score"].shape == out["standing"].shape == (40, n) and out["length"].min() >= 1
    assert np.allclose(out["win_share"].sum(1), 1.0)


def test_solo_scores_are_the_summed_rewards_and_the_same_for_any_batch_size():
    spec = next(envs.spec(g) for g in envs.games() if envs.spec(g).solo)
    core = spec.make_core()
    seeds = game_seeds(0, 60)

    class Greedy(RandomAgent):  # deterministic: the lowest legal action, whatever the batch
        def act(self, observations, masks, view=None):
            return np.argmax(masks, axis=1)

    scores = [play_solo(core, Greedy(), seeds, batch_size=b, progress=False) for b in (60, 16, 1)]
    assert np.array_equal(scores[0], scores[1]) and np.array_equal(scores[0], scores[2])


def test_observers_see_every_game_start_and_every_step():
    spec = MULTI
    core = spec.make_core(check_actions=False)

    class Totals:
        def __init__(self, n_games):
            self.started = np.zeros(n_games, int)
            self.rewards = np.zeros((n_games, core.n_players))

        def on_start(self, core, state, games):
            self.started[games] += 1

        def on_step(self, core, state, actions, rewards, games):
            self.rewards[games] += rewards

    seen = Totals(30)
    out = play_games(core, [RandomAgent(4)], game_seeds(1, 30), batch_size=8, progress=False, observers=[seen])
    assert seen.started.tolist() == [1] * 30
    assert np.allclose(seen.rewards, out["score"])  # no summary: the score is the summed rewards


def test_lineups_must_give_every_seat_of_every_game_an_agent():
    core = MULTI.make_core()
    n = core.n_players
    with pytest.raises(ValueError, match=rf"lineups must have shape \(3, {n}\)"):
        play_games(core, [RandomAgent()], [1, 2, 3], np.zeros((3, n - 1), int), progress=False)


def outputs(game, specs, batch_size, lineups=None, games=14):
    """Every output of ``play_games`` for ``games`` games of ``game`` by the agents ``specs`` (seed 6)."""
    from aerodeck.agents.registry import make_agent
    from aerodeck.arena.loop import agent_seed

    spec = envs.spec(game)
    core = spec.make_core(check_actions=False)
    agents = [make_agent(game, s, core.rules, seed=agent_seed(6, i)) for i, s in enumerate(specs)]
    return play_games(core, agents, game_seeds(6, games), lineups, batch_size=batch_size, progress=False,
                      make_view=spec.make_view, summary=spec.summary_of())


@pytest.mark.parametrize("game,specs", [(SOLO.id, ["random"]), (SOLO.id, [SOLO.opponent])])
def test_every_output_is_the_same_for_any_batch_size(game, specs):
    """(A multi-player game's mixed lineup: tests/flight_tycoon/test_play_batch_size.py.)"""
    n = envs.spec(game).make_core().n_players
    lineups = (np.arange(14)[:, None] + np.arange(n)[None, :]) % len(specs)  # every agent in every seat
    played = [outputs(game, specs, b, lineups) for b in (1, 7, 4096)]
    for other in played[1:]:
        for key in ("score", "standing", "win_share", "length"):
            assert np.array_equal(played[0][key], other[key]), key
        assert played[0]["tallies"] == other["tallies"]


def test_finished_games_are_replaced_at_once_while_games_are_left_to_deal():
    spec = MULTI
    core = spec.make_core(check_actions=False)

    class Rows:  # per step: the rows in play, and those holding a game that had ended before the step
        def __init__(self):
            self.over, self.steps = set(), []

        def on_start(self, core, state, games):
            assert not self.over & set(games.tolist())  # a game is dealt once

        def on_step(self, core, state, actions, rewards, games):
            stale = sum(g in self.over for g in games.tolist())
            self.steps.append((len(games), stale, max(games)))
            self.over |= set(games[state.done].tolist())

    rows = Rows()
    play_games(core, [RandomAgent(1)], game_seeds(2, 50), batch_size=8, progress=False, observers=[rows])
    dealing = [(size, stale) for size, stale, last in rows.steps if last < 49]  # game 49 is the last dealt
    assert len(dealing) > 20 and all(size == 8 and stale == 0 for size, stale in dealing)
    assert rows.over == set(range(50))
