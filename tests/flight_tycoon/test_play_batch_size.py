"""The play loop (``aerodeck.arena.loop.play_games``) gives the same outputs for any batch size in
Flight Tycoon with a mixed lineup: a noisy heuristic, random and a small search in every seat."""

import numpy as np

from aerodeck import envs
from aerodeck.agents.registry import make_agent
from aerodeck.arena.loop import agent_seed, game_seeds, play_games

GAME = "flight-tycoon"
SPECS = ["heuristic:noise=1", "random", "search:samples=2,candidates=2,horizon=4"]


def outputs(batch_size, lineups, games=14):
    """Every output of ``play_games`` for ``games`` games by the agents ``SPECS`` (seed 6)."""
    spec = envs.spec(GAME)
    core = spec.make_core(check_actions=False)
    agents = [make_agent(GAME, s, core.rules, seed=agent_seed(6, i)) for i, s in enumerate(SPECS)]
    return play_games(core, agents, game_seeds(6, games), lineups, batch_size=batch_size, progress=False,
                      make_view=spec.make_view, summary=spec.summary_of())


def test_every_output_of_a_mixed_lineup_is_the_same_for_any_batch_size():
    n = envs.spec(GAME).make_core().n_players
    lineups = (np.arange(14)[:, None] + np.arange(n)[None, :]) % len(SPECS)  # every agent in every seat
    played = [outputs(b, lineups) for b in (1, 7, 4096)]
    for other in played[1:]:
        for key in ("score", "standing", "win_share", "length"):
            assert np.array_equal(played[0][key], other[key]), key
        assert played[0]["tallies"] == other["tallies"]
