"""The batched learner view: B games as one learner sees them, the other seats played by opponents.

``LearnerGames(num_envs, opponents=..., learner_seat=...)`` runs ``num_envs`` games on the core. Each
``step(actions)`` plays the learner's decision in every game, then lets the opponents play until
every game waits for the learner again or is over; finished games restart at once (same-step
autoreset, the finished game's last observation in ``infos[i]["terminal_observation"]``).
Observations are the learner's (seats relative to it), so one policy fits every seat.
``aerodeck.envs.flight_tycoon.sb3.FlightTycoonSB3VecEnv`` wraps this as a Stable-Baselines3 ``VecEnv``.

An opponent is a plain callable ``(observations float32 (k, O), masks bool (k, A), view) -> int64
(k,)`` deciding for k games at once (an agent's bound ``act`` method qualifies); ``view`` is the
:class:`~envs.flight_tycoon.view.FlightTycoonView` of those games for look-ahead opponents. The default
opponent plays uniformly at random among the legal actions (:func:`random_opponent`).

A pool of opponents (a self-play league, ``aerodeck.train.league``) passes ``opponents`` as a list of callables
and ``assign``: for each game dealt, the index of the one opponent playing all its other seats. The
seats of the whole batch that one opponent plays still act in one call of that opponent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from aerodeck.envs.common.batch import sample_legal
from aerodeck.envs.common.checks import check_seed
from aerodeck.envs.flight_tycoon.core import FlightTycoonCore
from aerodeck.envs.flight_tycoon.rules import FlightTycoonRules
from aerodeck.envs.flight_tycoon.state import State
from aerodeck.envs.flight_tycoon.view import FlightTycoonView

LEARNER_SEATS = ("rotate", "random")

#: ``(observations float32 (k, O), masks bool (k, A), view) -> int64 (k,)``: legal actions for k games.
Opponent = Callable[[np.ndarray, np.ndarray, FlightTycoonView], np.ndarray]


def random_opponent(seed: int | None = 0) -> Opponent:
    """An opponent playing uniformly among the legal actions, with its own ``numpy`` generator."""
    rng = np.random.default_rng(seed)

    def play(observations: np.ndarray, masks: np.ndarray, view=None) -> np.ndarray:
        return sample_legal(masks, rng.random(masks.shape[0]))

    return play


def game_outcome(standings: np.ndarray, seat: int) -> tuple[int, float]:
    """FT-12 for one seat of a finished game from its standings (``int64 (n,)``, higher is better):
    its rank (1 = best; tied seats share the best rank of their tie) and its win share (1/k for a
    k-way shared win, else 0)."""
    mine = standings[seat]
    rank = 1 + int((standings > mine).sum())
    return rank, 1.0 / int((standings == mine).sum()) if rank == 1 else 0.0


class LearnerGames:
    """``num_envs`` games with one learning seat each; see the module docstring.

    ``opponents``: one callable for every other seat, or a sequence of n−1 callables by seat offset
    from the learner (1 = next clockwise); default :func:`random_opponent` seeded with ``seed``.
    ``learner_seat``: an absolute seat, ``"rotate"`` (a game's seat is its game number modulo n:
    every seat equally often) or ``"random"``. ``seed`` fixes the game seeds and the learner seats
    (given opponents own their randomness).

    ``assign`` (optional): ``count -> integers (count,)``, called whenever ``count`` games are dealt,
    giving the index into ``opponents`` — then a list of any length, held as given (it may grow
    between deals) — of the opponent playing every other seat of each new game; an ended game's info
    gives that index back as ``opponent``.
    """

    def __init__(self, num_envs: int, rules: FlightTycoonRules | None = None, opponents=None,
                 learner_seat="rotate", seed: int = 0, assign=None, **rule_options) -> None:
        if rules is not None and rule_options:
            raise ValueError("pass either a rules object or rule options, not both")
        self.rules = rules if rules is not None else FlightTycoonRules.from_options(rule_options)
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        n = self.rules.n_players
        if not (learner_seat in LEARNER_SEATS or (isinstance(learner_seat, (int, np.integer))
                                                  and not isinstance(learner_seat, bool) and 0 <= learner_seat < n)):
            raise ValueError(f"learner_seat must be a seat 0..{n - 1}, 'rotate' or 'random', got {learner_seat!r}")
        seed = check_seed(seed)
        self.core = FlightTycoonCore(self.rules)
        self.num_envs = int(num_envs)
        self.n_actions = self.core.n_actions
        self.observation_size = self.core.obs_size
        self.learner_seat = learner_seat
        self._assign = assign
        if assign is None:
            self.opponents = self._opponents(random_opponent(seed) if opponents is None else opponents, n)
            #: each distinct opponent once (bound methods of one agent are equal) ...
            self._callables = [o for i, o in enumerate(self.opponents) if not any(o == p for p in self.opponents[:i])]
            #: ... and the one of each seat offset 1 … n−1 (``int64 (n−1,)``)
            self._by_offset = np.array([next(k for k, o in enumerate(self._callables) if o == p) for p in self.opponents])
        else:
            if not (isinstance(opponents, list) and opponents and all(callable(o) for o in opponents)
                    and callable(assign)):
                raise ValueError("with assign, opponents must be a non-empty list of callables "
                                 "(observations, masks, view) -> actions and assign a callable count -> indices")
            self.opponents = self._callables = opponents
        #: ``int64 (B, n−1)``: each game's opponent (index into ``_callables``) by seat offset 1 … n−1
        self._table = np.zeros((self.num_envs, n - 1), np.int64)
        self._seed_rng = np.random.default_rng(seed)
        self._games_started = 0
        self._reserve: State | None = None
        self._reserve_next = 0
        self.state: State | None = None
        self.learner = np.zeros(self.num_envs, np.int64)

    def seed(self, seed: int | None) -> None:
        """Deal the games from the next ``reset`` on (and every game after) from ``seed``."""
        self._seed_rng = np.random.default_rng(None if seed is None else check_seed(seed))
        self._reserve, self._reserve_next, self._games_started = None, 0, 0

    @staticmethod
    def _opponents(opponents, n: int) -> list[Opponent]:
        if callable(opponents):
            return [opponents] * (n - 1)
        if (isinstance(opponents, Sequence) and not isinstance(opponents, str) and len(opponents) == n - 1
                and all(callable(o) for o in opponents)):
            return list(opponents)
        raise ValueError(f"opponents must be a callable (observations, masks, view) -> actions, e.g. an agent's act, "
                         f"or a sequence of {n - 1} callables (one per seat offset 1..{n - 1}); got {opponents!r}")

    # --- games -----------------------------------------------------------------------------------------

    def _fresh(self, count: int) -> tuple[State, np.ndarray, np.ndarray]:
        """``count`` new games (dealt in bulk, ahead of need), their learner seats and opponents
        (``int64 (count, n−1)``, indices into ``_callables`` by seat offset)."""
        parts = []
        while count:
            if self._reserve is None or self._reserve_next == self._reserve.batch_size:
                seeds = self._seed_rng.integers(0, 2**63, size=max(self.num_envs, 64), dtype=np.uint64)
                self._reserve, self._reserve_next = self.core.init(seeds), 0
            take = min(count, self._reserve.batch_size - self._reserve_next)
            parts.append(self._reserve.take(slice(self._reserve_next, self._reserve_next + take)))
            self._reserve_next += take
            count -= take
        games = parts[0] if len(parts) == 1 else State.concatenate(parts)
        number = self._games_started + np.arange(games.batch_size)
        self._games_started += games.batch_size
        n = self.rules.n_players
        if self.learner_seat == "rotate":
            seats = number % n
        elif self.learner_seat == "random":
            seats = self._seed_rng.integers(0, n, size=games.batch_size)
        else:
            seats = np.full(games.batch_size, self.learner_seat)
        if self._assign is None:
            table = np.broadcast_to(self._by_offset, (games.batch_size, n - 1))
        else:
            drawn = np.asarray(self._assign(games.batch_size))
            if drawn.shape != (games.batch_size,) or drawn.dtype.kind not in "iu" or drawn.min() < 0 \
                    or drawn.max() >= len(self._callables):
                raise ValueError(f"assign({games.batch_size}) must give {games.batch_size} indices into the "
                                 f"{len(self._callables)} opponents, got {drawn!r}")
            table = np.repeat(drawn.astype(np.int64)[:, None], n - 1, axis=1)
        return games, seats.astype(np.int64), table

    def _play_opponents(self, rewards: np.ndarray) -> None:
        """Let the opponents decide until every game waits for its learner or is over."""
        st, core, n = self.state, self.core, self.rules.n_players
        while True:
            to_act = core.to_act(st)
            waiting = (to_act >= 0) & (to_act != self.learner)
            if not waiting.any():
                return
            offset = (to_act - self.learner) % n
            owner = self._table[np.arange(st.batch_size), np.maximum(offset - 1, 0)]
            actions = np.zeros(st.batch_size, np.int64)
            for k in np.unique(owner[waiting]):  # each distinct opponent once, on all its games
                games = np.flatnonzero(waiting & (owner == k))
                obs = core.observe(st, to_act[games], games=games)
                view = FlightTycoonView(core, st, to_act[games], games)  # for look-ahead opponents: no hidden cards
                actions[games] = self._callables[k](obs, core.legal_mask(st, games=games), view)
            played = np.flatnonzero(waiting)
            reward = core.step(st, actions, games=played)
            rewards[played] += reward[played, self.learner[played]]

    # --- the vector API ----------------------------------------------------------------------------------

    def reset(self) -> tuple[np.ndarray, np.ndarray]:
        """New games; returns the learner's observations ``float32 (B, obs)`` and masks ``bool (B, A)``."""
        games, self.learner, self._table[:] = self._fresh(self.num_envs)
        self.state = games.copy()  # not a view of the dealt-ahead games
        self._play_opponents(np.zeros(self.num_envs, np.float32))
        return self.observe(), self.action_masks()

    def observe(self) -> np.ndarray:
        """``float32 (B, obs_size)``: each game's observation for its learner."""
        return self.core.observe(self.state, self.learner)

    def action_masks(self) -> np.ndarray:
        """``bool (B, n_actions)``: the learner's legal actions (all False only in a finished game)."""
        return self.core.legal_mask(self.state)

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        """Play the learners' ``actions`` (integers (B,)); returns observations, rewards ``float32 (B,)``
        (the learner's FT-15 rewards since its last decision), dones ``bool (B,)`` and infos.

        A finished game restarts at once: its entry holds the new game's first observation and
        ``infos[i]`` has ``terminal_observation``, ``vp`` (final VP by seat, relative to the learner),
        ``learner_seat``, ``rank`` (the learner's FT-12 place, 1 = best, tied seats share the best
        rank) and ``win_share`` (1/k for a k-way shared win, else 0); with ``assign``, also
        ``opponent`` (the index of the opponent that played the other seats).
        """
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        rewards = np.zeros(self.num_envs, np.float32)
        reward = self.core.step(self.state, actions)
        rewards += reward[np.arange(self.num_envs), self.learner]
        self._play_opponents(rewards)
        dones = self.state.done.copy()
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        finished = np.flatnonzero(dones)
        if finished.size:
            terminal = self.core.observe(self.state, self.learner[finished], games=finished)
            standings = self.core.standings(self.state.take(finished))
            n = self.rules.n_players
            for i, b in enumerate(finished):
                seat = int(self.learner[b])
                order = (seat + np.arange(n)) % n
                rank, share = game_outcome(standings[i], seat)
                infos[b] = {"terminal_observation": terminal[i], "vp": self.state.vp[b, order].copy(),
                            "learner_seat": seat, "rank": rank, "win_share": share}
                if self._assign is not None:
                    infos[b]["opponent"] = int(self._table[b, 0])
            games, seats, table = self._fresh(finished.size)
            self.state.put(finished, games)
            self.learner[finished] = seats
            self._table[finished] = table
            self._play_opponents(np.zeros(self.num_envs, np.float32))  # new games: no reward carried over
        return self.observe(), rewards, dones, infos
