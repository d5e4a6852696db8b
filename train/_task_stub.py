"""A stand-in for ``aerodeck.bench.tasks`` while that module is not there (two tasks, the same protocol:
greedy agent on held-out deals, normalized random 0 / heuristic 1). Used by ``train/ppo_lite.py`` only
when ``aerodeck.bench.tasks`` cannot be imported."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from aerodeck import envs
from aerodeck.agents.registry import make_agent
from aerodeck.arena.loop import game_seeds, play_games

EVAL_SEED = 1_000_003


@dataclasses.dataclass(frozen=True)
class StubTask:
    name: str
    game: str
    options: tuple
    opponents: tuple
    eval_games: int
    budget_steps: int = 1_000_000

    @property
    def rules(self):
        return envs.spec(self.game).rules_class().from_options(dict(self.options))

    def raw(self, agent, games: int) -> np.ndarray:
        spec = envs.spec(self.game)
        core = spec.make_core(self.rules)
        seeds = game_seeds(EVAL_SEED, games)
        if spec.solo:
            return play_games(core, [agent], seeds, progress=False, summary=spec.summary_of())["score"][:, 0]
        opp = make_agent(self.game, self.opponents[0], self.rules, seed=7)
        n = core.n_players
        seat = np.arange(games) % n
        lineups = np.ones((games, n), np.int64)
        lineups[np.arange(games), seat] = 0
        played = play_games(core, [agent, opp], seeds, lineups, progress=False, summary=spec.summary_of(),
                            make_view=spec.make_view)
        return played["win_share"][np.arange(games), seat]

    @functools.cache  # noqa: B019
    def reference(self, kind: str, games: int) -> float:
        return float(self.raw(make_agent(self.game, kind, self.rules, seed=3), games).mean())

    def evaluate(self, agent, games=None) -> dict:
        games = games or self.eval_games
        x = self.raw(agent, games)
        lo, hi = self.reference("random", games), self.reference("heuristic", games)
        half = 1.96 * x.std(ddof=1) / np.sqrt(len(x))
        norm = lambda v: (v - lo) / (hi - lo)  # noqa: E731
        return {"raw": x.mean(), "normalized": norm(x.mean()), "low": x.mean() - half, "high": x.mean() + half}


TASKS = {
    "as-standard-v0": StubTask("as-standard-v0", "airport-scramble", (), (), 2000),
    "ft4-heuristic-v0": StubTask("ft4-heuristic-v0", "flight-tycoon", (), ("heuristic",), 2000),
    "ft4-random-v0": StubTask("ft4-random-v0", "flight-tycoon", (), ("random",), 2000),
}


def task(name: str) -> StubTask:
    return TASKS[name]
