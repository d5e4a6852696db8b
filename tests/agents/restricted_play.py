"""Restricted play of a game, for the tests of ``aerodeck.agents.restricted`` (``test_restricted_play.py`` of
each game's tests)."""

from aerodeck import envs
from aerodeck.agents.registry import make_agent
from aerodeck.arena.loop import game_seeds, play_games


def play(game: str, spec: str, games: int = 40):
    """Play ``games`` games with the agent of ``spec``; the agent and the kinds of the actions it chose."""
    game_spec = envs.spec(game)
    core = game_spec.make_core(check_actions=False)
    agent = make_agent(game, spec, core.rules, seed=3)
    chosen = []

    class Kinds:  # a step observer: the kind of each action chosen, read before the step (by game number)
        def __init__(self):
            self.kinds = {}

        def on_start(self, core, state, ids):  # called again for the games dealt into finished rows
            self.kinds.update(zip(ids.tolist(), core.action_kinds(state)))

        def on_step(self, core, state, actions, rewards, ids):
            for game, action in zip(ids.tolist(), actions.tolist()):
                if self.kinds[game].max() >= 0:  # the game was still playing
                    chosen.append(int(self.kinds[game][action]))
            self.kinds.update(zip(ids.tolist(), core.action_kinds(state)))

    play_games(core, [agent], game_seeds(0, games), progress=False, make_view=game_spec.make_view,
               observers=[Kinds()])
    return agent, [core.actions.kinds[k] for k in chosen]
