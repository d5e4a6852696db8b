"""The one play loop: any registered game through the core protocol, batch-size invariant, observed."""

import numpy as np
import pytest

import envs
from agents.random import RandomAgent
from train.evaluate.loop import game_seeds, play_games, play_solo


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
    spec = envs.spec("flight-tycoon")
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
    core = envs.make_core("flight-tycoon")
    with pytest.raises(ValueError, match=r"lineups must have shape \(3, 4\)"):
        play_games(core, [RandomAgent()], [1, 2, 3], np.zeros((3, 3), int), progress=False)
