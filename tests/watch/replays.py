"""Replays for the tests of ``aerodeck.watch.replay``: an agent's games of a game as records, and the
``aerodeck replay`` command fed its keys."""

import io
import sys

import numpy as np

from aerodeck import envs
from aerodeck.agents.registry import make_agent
from aerodeck.cli import main as cli
from aerodeck.arena.replays import GameRecord


def agent_games(game, seeds, agent="random", **options):
    """Records of ``agent`` playing every seat of ``game`` from each seed (actions by the core, the
    result from the state itself: the sum of rewards, or the VP)."""
    spec = envs.spec(game)
    core = spec.make_core(**options)
    player = make_agent(game, agent, core.rules, seed=0)
    records = []
    for i, seed in enumerate(seeds):
        state = core.init([seed])
        actions, returns = [], np.zeros(core.n_players)
        while not state.done[0]:
            seat = int(core.to_act(state)[0])
            action = int(player.act(core.observe(state, seat), core.legal_mask(state))[0])
            returns += core.step(state, np.array([action]))[0]
            actions.append(action)
        score = [int(x) for x in (returns if spec.solo else state.vp[0])]
        result = {"score": score}
        if not spec.solo:
            standing = core.standings(state)[0]
            result["winners"] = [int(h) for h in np.flatnonzero(standing == standing.max())]
        records.append(GameRecord(seed=seed, agents=[agent] * core.n_players, actions=actions, result=result, game=i))
    return core.rules, records


def replay_command(argv, lines, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    status = cli.main(["replay", *argv])
    out = capsys.readouterr()
    return status, out.out, out.err
