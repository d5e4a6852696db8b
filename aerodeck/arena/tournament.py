"""Seat-rotated tournaments for multi-player games: schedules, head-to-head tables and ratings.

Game-agnostic: a game's result is a ``standing`` per seat (higher is better; equal standings are a
tie, e.g. a shared win), so the same code serves any number of seats.
"""

from __future__ import annotations

import itertools

import numpy as np


def seat_rotation(n_agents: int, n_seats: int) -> np.ndarray:
    """The balanced schedule of lineups: ``int64 (L, n_seats)``, entry = agent index.

    Every agent sits in every seat equally often over the ``L`` lineups, and every agent fills the
    same number of seats overall: the agent list is cycled to fill the table, and both the table
    (seat rotation) and the list (which agent starts) are rotated.
    """
    if n_agents < 1 or n_seats < 1:
        raise ValueError("a tournament needs at least one agent and one seat")
    lineups = []
    for shift in range(n_agents):
        base = [(shift + i) % n_agents for i in range(n_seats)]
        for r in range(n_seats):
            lineups.append(base[r:] + base[:r])
    return np.array(lineups, dtype=np.int64)


def lineup_rotation(lineup: list[int]) -> np.ndarray:
    """The seat rotations of one lineup (agent index per seat): ``int64 (n_seats, n_seats)``.

    E.g. ``[H, R, R, R]`` gives H in seat 0, 1, 2, 3 in turn: every agent plays every seat equally
    often, in the proportions of the lineup.
    """
    if not lineup:
        raise ValueError("a lineup needs at least one seat")
    n = len(lineup)
    return np.array([lineup[-r:] + lineup[:-r] if r else list(lineup) for r in range(n)], dtype=np.int64)


def schedule(n_games: int, n_agents: int, n_seats: int, lineup: list[int] | None = None,
             start: int = 0, stop: int | None = None) -> np.ndarray:
    """The lineups of games ``start .. stop-1`` (default all) of a tournament of ``n_games`` games,
    ``int64 (stop - start, n_seats)``: the rotation repeated (game i plays rotation row i mod its length).

    Raises ``ValueError`` unless ``n_games`` is a multiple of the rotation length (so that the seat
    balance is exact); :func:`balanced_games` rounds a wish up to such a count. With ``lineup`` (agent
    index per seat) the rotation is that lineup's (:func:`lineup_rotation`).
    """
    rotation = seat_rotation(n_agents, n_seats) if lineup is None else lineup_rotation(lineup)
    if n_games % len(rotation):
        raise ValueError(
            f"--games {n_games} does not balance the seats: use a multiple of {len(rotation)} "
            f"({n_agents} agents × {n_seats} seats), e.g. {balanced_games(n_games, n_agents, n_seats)}"
        )
    stop = n_games if stop is None else stop
    return rotation[np.arange(start, stop) % len(rotation)]


def balanced_games(n_games: int, n_agents: int, n_seats: int, lineup: list[int] | None = None) -> int:
    """The smallest multiple of the rotation length that is at least ``n_games``."""
    period = len(seat_rotation(n_agents, n_seats)) if lineup is None else len(lineup)
    return -(-n_games // period) * period


def head_to_head(lineups: np.ndarray, standings: np.ndarray, n_agents: int) -> tuple[np.ndarray, np.ndarray]:
    """How often agent i finished ahead of agent j when both played the same game, as sums (add them
    up over batches of games; ``ahead / count`` is the rate).

    ``lineups``: ``int (G, S)`` agent index per seat; ``standings``: ``float (G, S)`` (higher is better).
    Returns ``(ahead, count)``, both ``float64 (n_agents, n_agents)``: ``count[i, j]`` = seat pairs
    (i in one seat, j in another) observed, ``ahead[i, j]`` = their sum of 1 (i ahead), ½ (tie), 0.
    The diagonal compares an agent with its own other seats.
    """
    G, S = lineups.shape
    ahead = np.zeros((n_agents, n_agents))
    count = np.zeros((n_agents, n_agents))
    for a, b in itertools.permutations(range(S), 2):
        result = np.where(standings[:, a] > standings[:, b], 1.0, np.where(standings[:, a] == standings[:, b], 0.5, 0.0))
        np.add.at(ahead, (lineups[:, a], lineups[:, b]), result)
        np.add.at(count, (lineups[:, a], lineups[:, b]), 1.0)
    return ahead, count


def pair_results(lineups: np.ndarray, standings: np.ndarray, i: int, j: int) -> np.ndarray:
    """Per game containing agents i and j: the mean over their seat pairs of 1/½/0 (i ahead of j).

    Returns ``float64 (G',)`` for the ``G'`` games where both took part — independent samples for a
    confidence interval on the head-to-head score.
    """
    G, S = lineups.shape
    total = np.zeros(G)
    pairs = np.zeros(G)
    for a, b in itertools.permutations(range(S), 2):
        both = (lineups[:, a] == i) & (lineups[:, b] == j)
        result = np.where(standings[:, a] > standings[:, b], 1.0, np.where(standings[:, a] == standings[:, b], 0.5, 0.0))
        total += np.where(both, result, 0.0)
        pairs += both
    keep = pairs > 0
    return total[keep] / pairs[keep]


class Ratings:
    """OpenSkill (Plackett–Luce) ratings of the agents, updated game by game from finishing orders.

    Each seat is rated as a one-player team; when one agent holds several seats of a game, each seat
    starts from the agent's current rating and the agent keeps the mean of its seats' updates.
    """

    def __init__(self, names: list[str]) -> None:
        from openskill.models import PlackettLuce

        self.names = list(names)
        self.model = PlackettLuce()
        self.current = [self.model.rating(name=n) for n in self.names]

    def update(self, lineups: np.ndarray, standings: np.ndarray) -> Ratings:
        """Rate the games ``lineups`` ``int (G, S)`` / ``standings`` ``(G, S)`` (higher is better), in order."""
        model, current = self.model, self.current
        for lineup, standing in zip(lineups, standings):
            teams = [[model.rating(mu=current[a].mu, sigma=current[a].sigma)] for a in lineup]
            ranks = [float(-s) for s in standing]  # lower rank = better; equal ranks tie
            new = model.rate(teams, ranks=ranks)
            for agent in set(lineup.tolist()):
                seats = [k for k, a in enumerate(lineup) if a == agent]
                mu = float(np.mean([new[k][0].mu for k in seats]))
                sigma = float(np.mean([new[k][0].sigma for k in seats]))
                current[agent] = model.rating(mu=mu, sigma=sigma, name=self.names[agent])
        return self

    def result(self) -> dict[str, dict[str, float]]:
        """``{name: {"mu", "sigma", "ordinal"}}``."""
        return {n: {"mu": r.mu, "sigma": r.sigma, "ordinal": float(r.ordinal())} for n, r in zip(self.names, self.current)}
