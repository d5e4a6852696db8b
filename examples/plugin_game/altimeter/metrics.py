"""Altimeter's metric catalogue: what ``aerodeck compare / sweep / tune`` measure per game
(``aerodeck.envs.common.metrics``), and the recorder that measures them as a step observer of the core."""

from __future__ import annotations

import numpy as np

from altimeter.core import KINDS, LAND
from aerodeck.envs.common.metrics import Catalogue, Metric

CATALOGUE = Catalogue(
    game="altimeter",
    metrics=(
        Metric("score", "points banked in the game", "points", "AL-5, AL-6, AL-7", headline=True),
        Metric("zero_score", "games that end with no point banked", "share of games", "AL-7", kind="share",
               headline=True),
        Metric("crashes", "pots of one point or more lost to a wrong (or, with tie=crash, equal) card",
               "crashes per game", "AL-4", headline=True),
        Metric("banked_per_landing", "points banked per landing (Σ points landed / Σ landings)", "points",
               "AL-5"),
        Metric("action_mix", "share of decisions of each kind", "share of decisions", "AL-3", columns=KINDS),
    ),
    recorder="altimeter.metrics:Recorder",
    default_agents=("heuristic", "random"),
    deal_options=("n_values", "copies"),
    skill_gap="score",
)


class Recorder:
    """Measures :data:`CATALOGUE` for ``n_games`` games; ``on_start`` / ``on_step`` / ``result`` as in
    ``aerodeck.envs.common.protocols.MetricRecorder``."""

    def __init__(self, core, n_games: int, lineups=None, focus: int = 0) -> None:
        G = n_games
        self.pot = np.zeros(G, np.int64)  # kept from before each step
        self.over = np.zeros(G, bool)
        self.score = np.zeros(G, np.int64)
        self.crashes = np.zeros(G, np.int64)
        self.landed = np.zeros(G, np.int64)
        self.landings = np.zeros(G, np.int64)
        self.kinds = np.zeros((G, len(KINDS)), np.int64)

    def on_start(self, core, state, games) -> None:
        """Games ``games`` start from ``state``."""
        games = np.asarray(games, np.int64)
        self.pot[games] = state.pot
        self.over[games] = state.done

    def on_step(self, core, state, actions, rewards, games) -> None:
        """One batched step (``state`` after it)."""
        games = np.asarray(games, np.int64)
        live = np.flatnonzero(~self.over[games])
        g, a = games[live], np.asarray(actions)[live].astype(np.int64)
        np.add.at(self.kinds, (g, a), 1)
        land = a == LAND
        self.landings[g] += land
        self.landed[g] += np.where(land, self.pot[g], 0)
        # AL-4: a guess that empties a full pot crashed it; on the last card (AL-6) the pot is banked, so
        # there a crash is a guess that banks nothing
        done = state.done[live]
        banked = np.asarray(rewards).reshape(len(games), -1)[live, 0]
        emptied = np.where(done, banked == 0, state.pot[live] == 0)
        self.crashes[g] += ~land & (self.pot[g] > 0) & emptied
        self.score[g] = state.score[live]
        self.pot[games] = state.pot
        self.over[games] = state.done

    def result(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per metric ``(numerator, denominator)``, ``float64 (n_games, width)``."""
        ones = np.ones((len(self.score), 1))

        def plain(values) -> tuple[np.ndarray, np.ndarray]:
            return np.asarray(values, np.float64)[:, None], ones

        decisions = self.kinds.sum(axis=1, keepdims=True).astype(np.float64)
        return {
            "score": plain(self.score),
            "zero_score": plain(self.score == 0),
            "crashes": plain(self.crashes),
            "banked_per_landing": (self.landed.astype(np.float64)[:, None], self.landings.astype(np.float64)[:, None]),
            "action_mix": (self.kinds.astype(np.float64), np.repeat(decisions, len(KINDS), axis=1)),
        }
