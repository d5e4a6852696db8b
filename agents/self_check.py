"""A trained policy's self-check under the rules it is about to play: a safe improvement on its prior.

A rule-general model meets rules it never saw; where its departures from its prior agent (the
heuristic whose preferences it reads) are wrong under them, it plays worse than that agent. The rules
are known before the first move and the game is a simulator, so the model can test itself: before it
plays, :func:`self_check` plays ``deals`` games of its own under those rules at each caution of
:data:`CAUTIONS` (``ppo``'s ``caution`` knob) and the prior agent on the same deals, and the model then
plays at the caution whose paired difference to the prior agent has the highest lower 95% bound — or,
where no caution's bound is above 0, as the prior agent itself. (A high-confidence policy improvement
in the sense of Thomas et al., 2015: the policy replaces its baseline only where a test says it is
better.) Nothing is trained.

The check's deals are the games of run seed :data:`CHECK_SEED` (game i's seed keyed by that seed and i,
as in every run), so a check is the same on any machine; a bench should use another seed. A solo game
compares scores; a multi-player game seats the model (or the prior agent) in seat ``g mod n`` of deal g
with the game's opponent agent in the other seats and compares win shares.
"""

from __future__ import annotations

import copy
import math

import numpy as np
from tqdm.auto import tqdm

from aerodeck.agents.base import act
from aerodeck.agents.streams import decision_keys
from aerodeck.envs.common.rng import game_seeds

#: The run seed of the self-check's deals.
CHECK_SEED = 0x5E1F_C4EC
#: The cautions a self-check tries (``ppo``'s ``caution`` knob), besides playing as the prior agent.
CAUTIONS = (0.0, 1.0, 2.0)
#: Two-sided 95% normal quantile: a caution is kept only if its mean difference minus this many
#: standard errors is above 0.
Z = 1.959964
#: Games played at once (a multiple of 3, 4 and 5, so seat g mod n is the same in every chunk).
CHUNK = 4080


def check_seeds(deals: int) -> np.ndarray:
    """The seeds of the self-check's ``deals`` games: ``uint64 (deals,)``, those of a run seeded :data:`CHECK_SEED`."""
    return game_seeds(CHECK_SEED, deals)


def seat_figures(game, core, player, opponent, seeds: np.ndarray, bar=None) -> np.ndarray:
    """``player`` in seat ``g mod n`` of game g (seeded ``seeds[g]``, ``uint64 (G,)``), ``opponent`` in the
    other seats, played to the end on ``core``: ``player``'s score (solo, ``float64 (G,)``) or win share
    (1/k for each of the k seats with the best standing, by ``game.summary_of()``). Agents that need a
    look-ahead view cannot play here. ``bar``: a progress bar to update as games end. Played
    :data:`CHUNK` games at a time."""
    if seeds.size > CHUNK:
        return np.concatenate([seat_figures(game, core, player, opponent, seeds[i:i + CHUNK], bar)
                               for i in range(0, seeds.size, CHUNK)])
    G, n = seeds.size, core.n_players
    state = core.init(seeds)
    seats = np.arange(G) % n
    returns = np.zeros((G, n))
    decisions = np.zeros(G, np.int64)
    while not state.done.all():
        live = ~state.done
        seat = np.maximum(core.to_act(state), 0)
        masks = core.legal_mask(state)
        obs = core.observe(state) if n == 1 else core.observe(state, seat)
        actions = np.zeros(G, np.int64)
        mine = seat == seats
        for agent, rows in ((player, np.flatnonzero(mine & live)), (opponent, np.flatnonzero(~mine & live))):
            if rows.size:
                keys = decision_keys(agent.key, seeds[rows], decisions[rows]) if agent.takes_keys else None
                actions[rows] = act(agent, obs[rows], masks[rows], None, keys)
        returns += np.reshape(core.step(state, actions), (G, n))
        decisions += live
        if bar is not None:
            bar.update(int((live & state.done).sum()))
    if n == 1:
        return returns[:, 0]
    summary = game.summary_of()
    standing = returns if summary is None else np.asarray(summary(core, state)["standing"], np.float64)
    best = standing == standing.max(axis=1, keepdims=True)
    return (best / best.sum(axis=1, keepdims=True))[np.arange(G), seats]


def self_check(agent, game, opponent, deals: int, cautions=CAUTIONS) -> dict:
    """Check ``agent`` (a ``PPOAgent`` with a prior) under its rules on ``deals`` games (see the module
    docstring); ``opponent`` fills the other seats of a multi-player game. Returns ``{"deals", "seed",
    "prior" (the prior agent's name), "differences": {caution: [mean, low, high]}, "caution"}`` —
    ``caution`` the chosen one (a float), or ``None``: play as the prior agent. The differences are the
    model's score (win share) minus the prior agent's, paired over the same deals, with their 95%
    interval. A progress bar shows on a terminal."""
    if deals < 2:
        raise ValueError(f"a self-check needs at least 2 deals, got {deals}")
    core = game.make_core(agent.rules)
    seeds = check_seeds(deals)
    prior = agent.inputs.prior_agent
    bar = tqdm(total=deals * (len(cautions) + 1), desc="self-check", unit="game", leave=False, disable=None)
    with bar:
        base = seat_figures(game, core, prior, opponent, seeds, bar)
        figures = {}
        for caution in cautions:
            player = copy.copy(agent)
            player.caution, player.as_prior = float(caution), False
            figures[caution] = seat_figures(game, core, player, opponent, seeds, bar)
    differences = {}
    for caution, played in figures.items():
        d = played - base
        half = Z * float(d.std(ddof=1)) / math.sqrt(deals)
        differences[float(caution)] = [float(d.mean()), float(d.mean()) - half, float(d.mean()) + half]
    best = max(differences, key=lambda c: (differences[c][1], -c))
    return {"deals": deals, "seed": CHECK_SEED, "prior": getattr(agent.inputs, "prior", None),
            "differences": differences, "caution": best if differences[best][1] > 0 else None}


def describe(check: dict) -> str:
    """A check's outcome in words: ``caution 1 (lower bounds: 0 -0.130, 1 +0.060, 2 +0.050)``, or
    ``as heuristic (...)`` (its prior agent) where it found no caution better."""
    bounds = ", ".join(f"{float(c):g} {d[1]:+.3f}" for c, d in check["differences"].items())
    chosen = f"as {check.get('prior') or 'its prior agent'}" if check["caution"] is None else f"caution {check['caution']:g}"
    return f"{chosen} (lower bounds: {bounds})"
