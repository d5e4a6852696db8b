"""Playing many games to the end on the batched cores, with a progress bar.

The one place where batches of games are run to completion: ``aerodeck run``, ``bench`` and the
rule-evaluation tools all call these functions. Only the core protocol (``envs.common.core.Core``)
is used, so every registered game plays here; a game's own end-of-game figures come from its
registry entry (``GameSpec.summary``), its look-ahead view from ``GameSpec.make_view``.
"""

from __future__ import annotations

import contextlib

import numpy as np
from tqdm.auto import tqdm

from envs.common import rng as crng
from envs.common.checks import MAX_SEED, IllegalActionError, check_actions, check_seed, check_seeds


def game_seeds(seed: int, n_games: int, start: int = 0) -> np.ndarray:
    """The seeds of games ``start .. start+n_games-1`` of a run seeded ``seed``: ``uint64 (n_games,)``.

    ``seed``: an integer in ``[0, 2**64)`` (:func:`envs.common.checks.check_seed`); every game seed
    lies in the same range. Game i's seed depends only on (seed, i), so every agent of a benchmark
    meets the same deals (common random numbers), a run is reproduced exactly by its seed, and games
    can be played in chunks (``start``) with the same seeds as all at once.
    """
    key = crng.game_key(check_seed(seed))
    counters = np.arange(start, start + n_games, dtype=np.uint64)
    return crng.stream_array(np.full(n_games, key, np.uint64), counters)


def agent_seed(seed: int, index: int) -> int:
    """The seed of the ``index``-th agent of a run seeded ``seed`` (``seed + 1 + index``, wrapped into
    ``[0, 2**64)``)."""
    return (check_seed(seed) + 1 + index) % (MAX_SEED + 1)


@contextlib.contextmanager
def _progress(progress, total: int, label: str):
    """A bar for ``total`` games: the caller's own bar (anything with ``update``) or a new one
    (``progress``: True, a label, or False for none)."""
    if hasattr(progress, "update"):
        yield progress
        return
    with tqdm(total=total, desc=progress if isinstance(progress, str) else label, unit="game",
              disable=not progress, leave=False) as bar:
        yield bar


def play_games(core, agents, seeds, lineups=None, *, batch_size: int = 4096, progress=True, make_view=None,
               summary=None, observers=()) -> dict:
    """Play one game per seed to the end, seat ``s`` of game ``i`` played by ``agents[lineups[i, s]]``.

    ``core``: a batched core (``envs.common.core.Core``); ``agents``: :class:`agents.base.Agent`\\ s;
    ``seeds``: integers ``(G,)``; ``lineups``: integers ``(G, n)``, the agent of each seat (default:
    ``agents[0]`` in every seat). Each agent acts on all the games where one of its seats is to
    decide, in one batch; ``batch_size`` games are played at once, and finished games are dropped
    from the batch as they end, so a long game never keeps the whole batch busy.
    ``make_view(core, state, seats)`` (``GameSpec.make_view``) builds the look-ahead view for agents
    with ``needs_view``; ``summary(core, state)`` (``GameSpec.summary``) the game's own figures of
    finished games (default: the score is the sum of a seat's rewards, the standing the score).
    Every action is checked against the legal mask (:func:`legal`), so ``core`` may be built with
    ``check_actions=False``. ``observers`` (e.g. a metric recorder, ``envs.common.metrics``) watch
    the play: ``on_start(core, state, games)`` when a batch of games starts and ``on_step(core,
    state, actions, rewards, games)`` after each step, ``games`` being the numbers (0 … G−1) of the
    state's rows.
    ``progress``: True, a label, False, or a tqdm bar to update (one spanning several calls).

    Returns ``score`` and ``standing`` ``float64 (G, n)``, ``win_share`` ``float64 (G, n)`` (1/k for
    each of the k seats with the best standing), ``length`` ``int64 (G,)`` (the decisions played) and
    ``tallies`` ``{group: {item: float}}`` (the summary's tallies summed over the G games).
    """
    seeds = check_seeds(seeds)
    G, n = seeds.size, core.n_players
    lineups = np.zeros((G, n), np.int64) if lineups is None else np.asarray(lineups, np.int64)
    if lineups.shape != (G, n):
        raise ValueError(f"lineups must have shape ({G}, {n}) (games, seats), got {lineups.shape}")
    score, standing = np.zeros((G, n)), np.zeros((G, n))
    length = np.zeros(G, np.int64)
    tallies: dict[str, dict[str, float]] = {}
    label = getattr(agents[0], "name", "games") if len(agents) == 1 else "games"
    with _progress(progress, G, label) as bar:
        for start in range(0, G, batch_size):
            ids = np.arange(start, min(start + batch_size, G))
            state = core.init(seeds[ids])
            for observer in observers:
                observer.on_start(core, state, ids)
            returns = np.zeros((ids.size, n))
            decisions = np.zeros(ids.size, np.int64)
            recorded = np.zeros(ids.size, bool)
            while not recorded.all():
                live = ~state.done
                seat = np.maximum(core.to_act(state), 0)  # a finished game's seat (-1) is never used
                masks = core.legal_mask(state)
                obs = core.observe(state) if n == 1 else core.observe(state, seat)
                if len(agents) == 1:  # the whole batch at once (a finished game ignores its action)
                    view = make_view(core, state, seat) if make_view is not None and agents[0].needs_view else None
                    actions = legal(core, state, agents[0], agents[0].act(obs, masks, view), masks, live)
                else:
                    actions = np.zeros(ids.size, np.int64)
                    owner = lineups[ids, seat]
                    for a, agent in enumerate(agents):
                        rows = np.flatnonzero((owner == a) & live)
                        if rows.size:
                            view = (make_view(core, state.take(rows), seat[rows])
                                    if make_view is not None and agent.needs_view else None)
                            actions[rows] = legal(core, state, agent, agent.act(obs[rows], masks[rows], view),
                                                  masks[rows], live[rows], rows)
                rewards = core.step(state, actions)
                for observer in observers:
                    observer.on_step(core, state, actions, rewards, ids)
                returns += np.reshape(rewards, (ids.size, n))
                decisions += live
                ended = np.flatnonzero(state.done & ~recorded)
                if ended.size:
                    games = ids[ended]
                    if summary is None:
                        score[games] = standing[games] = returns[ended]
                    else:
                        figures = summary(core, state.take(ended))
                        score[games], standing[games] = figures["score"], figures["standing"]
                        for group, items in figures.get("tallies", {}).items():
                            sums = tallies.setdefault(group, {})
                            for item, values in items.items():
                                sums[item] = sums.get(item, 0.0) + float(np.sum(values))
                    length[games] = decisions[ended]
                    recorded[ended] = True
                    bar.update(ended.size)
                keep = np.flatnonzero(~recorded)
                if 0 < keep.size < 0.75 * ids.size:  # drop finished games once a quarter has ended
                    ids, recorded, state = ids[keep], recorded[keep], state.take(keep)
                    returns, decisions = returns[keep], decisions[keep]
    best = standing == standing.max(axis=1, keepdims=True)
    return {"score": score, "standing": standing, "win_share": best / best.sum(axis=1, keepdims=True),
            "length": length, "tallies": tallies}


def legal(core, state, agent, actions, masks, live, rows=None) -> np.ndarray:
    """``actions`` (``int64 (R,)``, one per row ``rows`` of ``state``, default all) if each live one is
    legal by ``masks`` (``bool (R, A)``); ``IllegalActionError`` naming the agent, the action and why
    otherwise. The check costs one gather, so cores may be built with ``check_actions=False``."""
    actions = check_actions(actions, masks.shape[0], masks.shape[1], live)
    ok = masks[np.arange(actions.size), np.clip(actions, 0, masks.shape[1] - 1)] | ~live
    if not ok.all():
        r = int(np.flatnonzero(~ok)[0])
        game, action = r if rows is None else int(rows[r]), int(actions[r])
        raise IllegalActionError(f"agent {getattr(agent, 'name', agent)!r} chose {core.actions.describe(action)!r} "
                                 f"(action {action}) in game {game}: {core.explain_illegal(state, game, action)}")
    return actions


def play_solo(core, agent, seeds, *, batch_size: int = 4096, progress=True, make_view=None) -> np.ndarray:
    """Play one single-player game per seed to the end with ``agent`` (see :func:`play_games`); the
    final scores, ``float64 (G,)`` in seed order."""
    played = play_games(core, [agent], seeds, batch_size=batch_size, progress=progress, make_view=make_view)
    return played["score"][:, 0]
