"""Helpers of the agents' tests (game-agnostic): rule variants drawn from the ranges of a game's shipped
rule-general model, and the check that an agent plays the same games in any batch."""

from __future__ import annotations

import numpy as np

from aerodeck import envs
from aerodeck.agents.registry import make_agent
from aerodeck.arena.loop import agent_seed, game_seeds, play_games


def drawn_variants(game_id: str, players: int | None, n: int, seed: int) -> list:
    """``n`` rule variants drawn from the ranges of the game's shipped rule-general model."""
    from aerodeck.agents.ppo import read_sidecar, shipped_path
    from aerodeck.agents.variants import VariantSpace

    game = envs.spec(game_id)
    base = game.make_rules(**({} if players is None else {game.players_option: players}))
    space = VariantSpace.from_dict(game, read_sidecar(shipped_path(game, base, True))["inputs"]["variants"])
    return [space.draw(seed, i) for i in range(n)]


class Moves:
    """An observer keeping every game's actions."""

    def __init__(self):
        self.moves = {}

    def on_start(self, core, state, games):
        pass

    def on_step(self, core, state, actions, rewards, games):
        for g, a in zip(games, actions):
            self.moves.setdefault(int(g), []).append(int(a))


def same_games_in_any_batch(game_id: str, spec: str, n: int) -> None:
    """``n`` games of ``game_id`` with agent ``spec`` (the game's heuristic in the other seats) play the same
    moves in batches of n, 1 and 3."""
    game = envs.spec(game_id)
    core = game.make_core(check_actions=False)
    lineups = None if game.solo else (np.arange(core.n_players)[None, :] + np.arange(n)[:, None] > 0).astype(np.int64)
    played = []
    for batch_size in (n, 1, 3):
        agents = [make_agent(game_id, spec, core.rules, seed=agent_seed(3, 0))]
        if not game.solo:
            agents.append(make_agent(game_id, "heuristic", core.rules, seed=agent_seed(3, 1)))
        moves = Moves()
        result = play_games(core, agents, game_seeds(0, n), lineups, batch_size=batch_size, progress=False,
                            make_view=game.make_view, summary=game.summary_of(), observers=[moves])
        played.append({g: m[:result["length"][g]] for g, m in moves.moves.items()})
    assert played[0] == played[1] == played[2]
