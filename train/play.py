"""Playing many games to the end on the batched cores, with a progress bar.

The one place where batches of games are run to completion: ``aerodeck run``, ``bench`` and the
rule-evaluation tools all call these functions.
"""

from __future__ import annotations

import numpy as np
from tqdm.auto import tqdm

from envs.common import rng as crng


def game_seeds(seed: int, n_games: int) -> np.ndarray:
    """The seeds of games ``0 .. n_games-1`` of a run seeded ``seed``: ``uint64 (n_games,)``.

    Game i's seed depends only on (seed, i), so every agent of a benchmark meets the same deals
    (common random numbers) and a run is reproduced exactly by its seed.
    """
    key = crng.game_key(seed)
    return crng.stream_array(np.full(n_games, key, np.uint64), np.arange(n_games))


def play_solo(core, agent, seeds: np.ndarray, *, batch_size: int = 4096, progress: bool | str = True,
              make_view=None) -> np.ndarray:
    """Play one Airport Scramble-style (single-player) game per seed to the end.

    ``core``: a batched core (``init``, ``legal_mask``, ``observe``, ``step``; ``state.done``,
    ``state.score``); ``agent``: an :class:`agents.base.Agent`; ``seeds``: integer ``(G,)``.
    ``make_view(core, state)`` builds the look-ahead view for agents with ``needs_view``.
    Returns the final scores, ``int64 (G,)`` in seed order. Finished games are dropped from the
    batch as they end, so a long game never keeps the whole batch busy.
    """
    seeds = np.asarray(seeds)
    scores = np.zeros(len(seeds), np.int64)
    label = progress if isinstance(progress, str) else getattr(agent, "name", "games")
    with tqdm(total=len(seeds), desc=label, unit="game", disable=not progress, leave=False) as bar:
        for start in range(0, len(seeds), batch_size):
            ids = np.arange(start, min(start + batch_size, len(seeds)))
            state = core.init(seeds[ids])
            recorded = np.zeros(ids.size, bool)
            while not recorded.all():
                masks = core.legal_mask(state)
                obs = core.observe(state)
                view = make_view(core, state) if make_view is not None and agent.needs_view else None
                core.step(state, agent.act(obs, masks, view))
                ended = state.done & ~recorded
                if ended.any():
                    scores[ids[ended]] = state.score[ended]
                    recorded |= ended
                    bar.update(int(ended.sum()))
                live = np.flatnonzero(~recorded)
                if 0 < live.size < 0.75 * ids.size:  # drop finished games once a quarter has ended
                    ids, recorded, state = ids[live], recorded[live], state.take(live)
    return scores


def play_tournament(core, agents, lineups: np.ndarray, seeds: np.ndarray, *, batch_size: int = 4096,
                    progress: bool | str = True, make_view=None) -> dict[str, np.ndarray]:
    """Play multi-player games (Flight Tycoon) to the end, seat ``s`` of game ``i`` played by ``agents[lineups[i, s]]``.

    ``core``: a multi-player batched core (``init``, ``to_act``, ``legal_mask(state, games)``,
    ``observe(state, seat, games)``, ``step``, ``standings``; ``state.done``, ``state.vp``);
    ``lineups``: ``int (G, n_seats)``; ``seeds``: integers ``(G,)``. Each agent acts on all the games
    where one of its seats is to decide, in one batch. ``make_view(core, state, games, seats)`` builds
    the look-ahead view for agents with ``needs_view``.
    Returns ``vp`` ``int64 (G, n)``, ``standing`` ``int64 (G, n)`` (FT-12 order: VP, then real cards in
    hand; equal standings share the win), ``win_share`` ``float64 (G, n)`` (1/k for each of k winners),
    and the final ``tokens`` ``int64 (G, 24)`` on each square (the landings there, FT-11), ``deck``
    ``int64 (G,)`` cards left in the deck and ``stock`` ``int64 (G,)`` tokens left in the stock (FT-12).
    """
    seeds = np.asarray(seeds)
    G, n = lineups.shape
    vp = np.zeros((G, n), np.int64)
    standing = np.zeros((G, n), np.int64)
    tokens = None
    deck = np.zeros(G, np.int64)
    stock = np.zeros(G, np.int64)
    label = progress if isinstance(progress, str) else "games"
    with tqdm(total=G, desc=label, unit="game", disable=not progress, leave=False) as bar:
        for start in range(0, G, batch_size):
            ids = np.arange(start, min(start + batch_size, G))
            state = core.init(seeds[ids])
            if tokens is None:
                tokens = np.zeros((G, state.tokens.shape[1]), np.int64)
            recorded = np.zeros(ids.size, bool)
            while not recorded.all():
                seat = core.to_act(state)
                owner = lineups[ids, np.maximum(seat, 0)]
                actions = np.zeros(ids.size, np.int64)
                for a, agent in enumerate(agents):
                    games = np.flatnonzero((owner == a) & ~state.done)
                    if games.size == 0:
                        continue
                    obs = core.observe(state, seat[games], games=games)
                    masks = core.legal_mask(state, games=games)
                    view = make_view(core, state, games, seat[games]) if make_view and agent.needs_view else None
                    actions[games] = agent.act(obs, masks, view)
                core.step(state, actions)
                ended = state.done & ~recorded
                if ended.any():
                    vp[ids[ended]] = state.vp[ended]
                    standing[ids[ended]] = core.standings(state)[ended]
                    tokens[ids[ended]] = state.tokens[ended]
                    deck[ids[ended]] = np.bitwise_count(state.deck[ended])
                    stock[ids[ended]] = state.stock[ended]
                    recorded |= ended
                    bar.update(int(ended.sum()))
                live = np.flatnonzero(~recorded)
                if 0 < live.size < 0.75 * ids.size:
                    ids, recorded, state = ids[live], recorded[live], state.take(live)
    winners = standing == standing.max(axis=1, keepdims=True)
    return {"vp": vp, "standing": standing, "win_share": winners / winners.sum(axis=1, keepdims=True),
            "tokens": tokens, "deck": deck, "stock": stock}
