"""Playing many games to the end on the batched cores, with a progress bar.

The one place where batches of games are run to completion: ``aerodeck run``, ``bench`` and the
rule-evaluation tools all call these functions. Only the core protocol (``aerodeck.envs.common.core.Core``)
is used, so every registered game plays here; a game's own end-of-game figures come from its
registry entry (``GameSpec.summary``), its look-ahead view from ``GameSpec.make_view``.
"""

from __future__ import annotations

import contextlib

import numpy as np
from tqdm.auto import tqdm

from aerodeck.agents.base import act
from aerodeck.agents.streams import decision_keys
from aerodeck.envs.common.rng import game_seeds  # noqa: F401  (the deals of a run, for the tools that play them)
from aerodeck.envs.common.checks import MAX_SEED, IllegalActionError, check_actions, check_seed, check_seeds


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
               summary=None, observers=(), game_tallies: bool = False) -> dict:
    """Play one game per seed to the end, seat ``s`` of game ``i`` played by ``agents[lineups[i, s]]``.

    ``core``: a batched core (``aerodeck.envs.common.core.Core``); ``agents``: :class:`aerodeck.agents.base.Agent`\\ s;
    ``seeds``: integers ``(G,)``; ``lineups``: integers ``(G, n)``, the agent of each seat (default:
    ``agents[0]`` in every seat). Each agent acts on all the games where one of its seats is to
    decide, in one batch. ``batch_size`` games are played at once and the batch stays full: a finished
    game's row is dealt the next game of the run at once (from games dealt ahead, one ``core.init``
    per ``batch_size`` games), until no game is left to deal.
    Every agent draws its random choices from decision keys (``aerodeck.agents.streams.decision_keys``: the
    game's seed, the agent's key, the game's decision number), so each game's play — and so every
    output — is the same for any ``batch_size``, any split of the seeds into calls, any place of the
    game in the batch.
    ``make_view(core, state, seats)`` (``GameSpec.make_view``) builds the look-ahead view for agents
    with ``needs_view``; ``summary(core, state)`` (``GameSpec.summary``) the game's own figures of
    finished games (default: the score is the sum of a seat's rewards, the standing the score).
    Every action is checked against the legal mask (:func:`legal`), so ``core`` may be built with
    ``check_actions=False``. ``observers`` (e.g. a metric recorder, ``aerodeck.envs.common.metrics``) watch
    the play: ``on_start(core, state, games)`` when games are dealt — ``state`` holds just those games,
    ``games`` (integers) their numbers (0 … G−1), called again for each refill — and ``on_step(core,
    state, actions, rewards, games)`` after each step, ``games`` being the numbers of the state's rows
    (a row's number changes when it is dealt a new game; a finished row not yet dealt keeps its own).
    ``progress``: True, a label, False, or a tqdm bar to update (one spanning several calls).

    Returns ``score`` and ``standing`` ``float64 (G, n)``, ``win_share`` ``float64 (G, n)`` (1/k for
    each of the k seats with the best standing), ``length`` ``int64 (G,)`` (the decisions played) and
    ``tallies`` ``{group: {item: float}}`` (the summary's tallies summed over the G games; with
    ``game_tallies`` each game's own, ``{group: {item: float64 (G,)}}``, to be summed in game order).
    """
    seeds = check_seeds(seeds)
    G, n = seeds.size, core.n_players
    lineups = np.zeros((G, n), np.int64) if lineups is None else np.asarray(lineups, np.int64)
    if lineups.shape != (G, n):
        raise ValueError(f"lineups must have shape ({G}, {n}) (games, seats), got {lineups.shape}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    score, standing = np.zeros((G, n)), np.zeros((G, n))
    length = np.zeros(G, np.int64)
    tallies: dict[str, dict[str, float]] = {}
    label = getattr(agents[0], "name", "games") if len(agents) == 1 else "games"
    if G == 0:
        return {"score": score, "standing": standing, "win_share": score.copy(), "length": length, "tallies": tallies}
    shoe = _Shoe(core, seeds, min(batch_size, G))
    ids, state = shoe.deal(min(batch_size, G))
    for observer in observers:
        observer.on_start(core, state, ids)
    returns = np.zeros((ids.size, n))
    decisions = np.zeros(ids.size, np.int64)
    recorded = np.zeros(ids.size, bool)
    with _progress(progress, G, label) as bar:
        while not recorded.all():
            live = ~state.done
            actions = _choose(core, agents, lineups[ids], state, live, seeds[ids], ids, decisions, make_view)
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
                    if game_tallies:
                        _put_tallies(tallies, figures.get("tallies", {}), games, G)
                    else:
                        _add_tallies(tallies, figures.get("tallies", {}))
                length[games] = decisions[ended]
                recorded[ended] = True
                bar.update(ended.size)
            free = np.flatnonzero(recorded)
            while free.size and shoe.left:  # deal the next games of the run into the finished rows
                new, dealt = shoe.deal(free.size)
                rows, free = free[: new.size], free[new.size:]
                state.put(rows, dealt)
                ids[rows], recorded[rows], returns[rows], decisions[rows] = new, False, 0.0, 0
                for observer in observers:
                    observer.on_start(core, dealt, new)
            if free.size > 0.25 * ids.size and not recorded.all():  # nothing left to deal: drop finished
                keep = np.flatnonzero(~recorded)  # games once a quarter has ended
                ids, recorded, state = ids[keep], recorded[keep], state.take(keep)
                returns, decisions = returns[keep], decisions[keep]
    best = standing == standing.max(axis=1, keepdims=True)
    return {"score": score, "standing": standing, "win_share": best / best.sum(axis=1, keepdims=True),
            "length": length, "tallies": tallies}


def _choose(core, agents, lineups, state, live, seeds, games, decisions, make_view) -> np.ndarray:
    """The actions ``int64 (B,)`` of the B games of ``state``: each agent acts, in one batch, on the live
    games (``live`` ``bool (B,)``) where one of its seats (``lineups`` ``int64 (B, n)``) is to decide;
    ``seeds``/``games``/``decisions`` ``(B,)``: each game's seed, number and decisions so far."""
    seat = np.maximum(core.to_act(state), 0)  # a finished game's seat (-1) is never used
    masks = core.legal_mask(state)
    obs = core.observe(state) if core.n_players == 1 else core.observe(state, seat)
    if len(agents) == 1:  # the whole batch at once (a finished game ignores its action)
        agent = agents[0]
        view = make_view(core, state, seat) if make_view is not None and agent.needs_view else None
        return legal(core, state, agent, decide(agent, obs, masks, view, seeds, decisions), masks, live, games=games)
    actions = np.zeros(state.batch_size, np.int64)
    owner = lineups[np.arange(state.batch_size), seat]
    for a, agent in enumerate(agents):
        rows = np.flatnonzero((owner == a) & live)
        if rows.size:
            view = make_view(core, state.take(rows), seat[rows]) if make_view is not None and agent.needs_view else None
            chosen = decide(agent, obs[rows], masks[rows], view, seeds[rows], decisions[rows])
            actions[rows] = legal(core, state, agent, chosen, masks[rows], live[rows], rows, games[rows])
    return actions


def _add_tallies(tallies: dict, figures: dict) -> None:
    """Add a summary's ``{group: {item: (k,) numbers}}`` of k finished games to the running ``tallies``."""
    for group, items in figures.items():
        sums = tallies.setdefault(group, {})
        for item, values in items.items():
            sums[item] = sums.get(item, 0.0) + float(np.sum(values))


def _put_tallies(tallies: dict, figures: dict, games: np.ndarray, n_games: int) -> None:
    """Note a summary's ``{group: {item: (k,) numbers}}`` of the k finished ``games`` in the per-game
    ``tallies`` ``{group: {item: float64 (n_games,)}}``."""
    for group, items in figures.items():
        per_game = tallies.setdefault(group, {})
        for item, values in items.items():
            per_game.setdefault(item, np.zeros(n_games))[games] = values


def decide(agent, observations, masks, view, seeds, decisions) -> np.ndarray:
    """``agent``'s actions (``int64 (R,)``) in R games seeded ``seeds`` (``uint64 (R,)``) at their decision
    number ``decisions`` (``int64 (R,)``): the agent gets the decision keys of those games
    (``aerodeck.agents.streams.decision_keys``) if its ``act`` takes keys."""
    keys = decision_keys(agent.key, seeds, decisions) if getattr(agent, "takes_keys", False) else None
    return act(agent, observations, masks, view, keys)


class _Shoe:
    """The games of a run not yet in play, dealt ahead ``ahead`` at a time (one ``core.init`` each) and
    handed out in game order."""

    def __init__(self, core, seeds: np.ndarray, ahead: int) -> None:
        self.core, self.seeds, self.ahead = core, seeds, ahead
        self.next = 0  # the first game not handed out
        self.stock, self.stock_used = None, 0  # the games dealt ahead, and how many are handed out

    @property
    def left(self) -> int:
        """Games not handed out yet."""
        return self.seeds.size - self.next

    def deal(self, count: int) -> tuple[np.ndarray, object]:
        """Up to ``count`` next games (fewer when the games dealt ahead run out): their numbers
        ``int64 (c,)`` and their state (``c`` games, a view of the games dealt ahead)."""
        if self.stock is None or self.stock_used == self.stock.batch_size:
            size = min(self.ahead, self.left)
            self.stock, self.stock_used = self.core.init(self.seeds[self.next:self.next + size]), 0
        count = min(count, self.stock.batch_size - self.stock_used)
        games = np.arange(self.next, self.next + count)
        dealt = self.stock.take(slice(self.stock_used, self.stock_used + count))
        self.next += count
        self.stock_used += count
        return games, dealt


def legal(core, state, agent, actions, masks, live, rows=None, games=None) -> np.ndarray:
    """``actions`` (``int64 (R,)``, one per row ``rows`` of ``state``, default all) if each live one is
    legal by ``masks`` (``bool (R, A)``); ``IllegalActionError`` naming the agent, the action, the game
    (``games``: the number of each of the R games, default its row) and why otherwise. The check costs
    one gather, so cores may be built with ``check_actions=False``."""
    actions = check_actions(actions, masks.shape[0], masks.shape[1], live)
    ok = masks[np.arange(actions.size), np.clip(actions, 0, masks.shape[1] - 1)] | ~live
    if not ok.all():
        r = int(np.flatnonzero(~ok)[0])
        row, action = r if rows is None else int(rows[r]), int(actions[r])
        game = row if games is None else int(games[r])
        raise IllegalActionError(f"agent {getattr(agent, 'name', agent)!r} chose {core.actions.describe(action)!r} "
                                 f"(action {action}) in game {game}: {core.explain_illegal(state, row, action)}")
    return actions


def play_solo(core, agent, seeds, *, batch_size: int = 4096, progress=True, make_view=None) -> np.ndarray:
    """Play one single-player game per seed to the end with ``agent`` (see :func:`play_games`); the
    final scores, ``float64 (G,)`` in seed order."""
    played = play_games(core, [agent], seeds, batch_size=batch_size, progress=progress, make_view=make_view)
    return played["score"][:, 0]
