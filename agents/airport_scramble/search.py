"""The search Airport Scramble agent: rollouts of the heuristic from each of its best candidate actions.

For every game of the batch, the heuristic's ``candidates`` best-scored legal actions are each tried
in ``rollouts`` determinizations of the game (``AirportScrambleView.determinize``: fresh random streams, so
the rollouts never replay the real future draws, AS-17), and every branch is played on by the heuristic until
``tickets`` more tickets are completed, the game ends, or ``horizon`` decisions have passed. A
rollout is worth the tickets it completed plus ``network`` × the share of the airport cards in play
at the end (every card in play is one card less to find in the deck for the next ticket). The
candidate with the best mean value is played; it must beat the heuristic's own choice, compared on
the same random streams (common random numbers: all candidates of a game share their rollouts'
streams), by more than ``gate`` standard errors, and ties go to the heuristic's order.
All candidates' rollouts of all games run as one batch on the core.

Guided by a trained network (``guide=MODEL.zip``, a ``ppo`` model of these rules — the search of expert
iteration): the candidates are the network's ``candidates`` most likely actions (its choice first), the
rollouts play its moves, and with ``depth`` d > 0 a rollout ends after d decisions (or at the end of the
game) and is worth the tickets it completed plus the network's value of where it stopped (the
tickets it expects to complete from there) — the ticket and horizon knobs then play no part.

With ``only`` (kinds of action joined by ``+``, e.g. ``only=replace``) the search may depart from
its first candidate only to actions of those kinds (a flight, stopping early or not, is ``fly``); the
other candidates are not tried. The plain search's gain over the heuristic is mostly in its
departures to plays, then to replaces (``research/search_gain_by_kind.py``).

Games where the choice is plain are not searched: a single candidate, or a flight that completes
the ticket now. The rollouts' random streams are seeded from the decision's key (``aerodeck.agents.streams``;
the heuristic itself is deterministic), so a game's choice never depends on the batch it is in.
"""

from __future__ import annotations

import numpy as np

from aerodeck.agents.airport_scramble.heuristic import CHUNK, NONE, HeuristicAgent
from aerodeck.agents.airport_scramble.planning import Table
from aerodeck.agents.base import Agent, Knob, candidate_policy, rank_prior
from aerodeck.envs.airport_scramble.actions import FLY, KINDS, PLAY, REMOVE_LINE, REPLACE, WAIT
from aerodeck.envs.airport_scramble.core import AirportScrambleCore
from aerodeck.envs.airport_scramble.rules import AirportScrambleRules


#: The kinds of action ``only`` may name (an action index's kind: a flight is ``fly``, stopping early or not).
DEPARTURE_KINDS = (FLY, PLAY, REPLACE, WAIT, REMOVE_LINE)


class SearchAgent(Agent):
    """Plans ahead with the batched core (see the module docstring).

    Budget knobs: ``candidates`` actions tried per decision (the heuristic's best first),
    ``rollouts`` branches per candidate, ``tickets`` completed tickets that end a rollout, ``horizon``
    the most decisions a rollout plays. A decision costs about candidates × rollouts × (rollout
    length) heuristic moves. Value knobs: ``network`` (the weight of the cards in play) and ``gate``
    (standard errors by which a candidate must beat the heuristic's choice). ``only``: the kinds of
    action it may depart to (``None``: any).
    """

    name = "search"
    needs_view = True
    knobs = {
        "candidates": Knob(int, 1, doc="actions tried per decision, the heuristic's best first"),
        "rollouts": Knob(int, 1, doc="determinizations (rollouts) per candidate"),
        "tickets": Knob(int, 1, doc="completed tickets that end a rollout"),
        "horizon": Knob(int, 1, doc="the most decisions a rollout plays"),
        "network": Knob(float, 0, doc="weight of the share of cards in play in a rollout's value"),
        "gate": Knob(float, doc="standard errors by which a candidate must beat the heuristic's choice"),
        "guide": Knob(str, doc="a ppo model zip: its policy chooses the candidates and plays the rollouts"),
        "depth": Knob(int, 0, doc="with a guide: decisions before its value ends a rollout (0: as without one)"),
        "temperature": Knob(float, 0, doc="its policy as a training target: candidates weighted exp(mean gain / "
                                          "temperature), times its guide's policy (0: all on its choice)"),
        "order": Knob(float, 0, doc="with a temperature and no guide: logits its policy gives each later "
                                    "candidate less, in the heuristic's order (0: even before their values)"),
        "only": Knob(str, doc="the kinds of action it may depart to, joined by '+': "
                              f"{', '.join(DEPARTURE_KINDS)} (default: any)"),
    }

    def __init__(self, seed: int | None = 0, rules: AirportScrambleRules | None = None, candidates: int = 4,
                 rollouts: int = 32, tickets: int = 1, horizon: int = 60, network: float = 1.0,
                 gate: float = 0.0, guide: str | None = None, depth: int = 0, temperature: float = 0.0,
                 order: float = 0.0, only: str | None = None) -> None:
        super().__init__(seed, rules if rules is not None else AirportScrambleRules())
        given = dict(candidates=candidates, rollouts=rollouts, tickets=tickets, horizon=horizon, network=network,
                     gate=gate, depth=depth, temperature=temperature, order=order)
        if depth and not guide:
            raise ValueError("search agent knob 'depth' needs a guide (guide=MODEL.zip): its value ends the rollouts")
        v = {name: SearchAgent.knobs[name].parse(value, f"search agent knob {name!r}") for name, value in given.items()}
        if v["order"] and guide:
            raise ValueError("search agent knob 'order' is for a search without a guide (a guide's logits are its "
                             "policy's prior)")
        self.heuristic = HeuristicAgent(rules=self.rules)
        self.geo = self.heuristic.geo
        self.candidates, self.rollouts, self.tickets, self.horizon = (v["candidates"], v["rollouts"], v["tickets"],
                                                                      v["horizon"])
        self.network, self.gate, self.depth, self.temperature = v["network"], v["gate"], v["depth"], v["temperature"]
        self.order = v["order"]
        self.only = None if only is None else self._kinds(only)
        self.kind_of = np.array(KINDS)[self.geo.actions.index_kinds()]  # str (n_actions,)
        self._rollout_cores: dict = {}
        self.guide = None
        if guide:
            from aerodeck.agents.ppo import PPOAgent

            self.guide = PPOAgent(rules=self.rules, path=guide)

    def act(self, observations: np.ndarray, masks: np.ndarray, view=None, keys: np.ndarray | None = None) -> np.ndarray:
        """Actions int64 (B,) for observations float32 (B, obs_size), masks bool (B, n_actions), the
        look-ahead ``view`` of the same B games (:class:`~envs.airport_scramble.view.AirportScrambleView`)
        and the decision keys uint64 (B,) (``None``: the agent's generator)."""
        return self.act_with_policy(observations, masks, view, keys)[0]

    def act_with_policy(self, observations: np.ndarray, masks: np.ndarray, view=None,
                        keys: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`act`, with its policy (``Agent.act_with_policy``): the candidates ``int64 (B, k)`` and,
        with a ``temperature``, their weights by mean value (and its guide's logits) where it searched, else
        all on its choice."""
        if view is None:
            raise ValueError("the search agent needs a look-ahead view: act(observations, masks, view); "
                             "aerodeck.arena.loop.play_solo and envs.view_of_env give one")
        masks = np.asarray(masks, bool)
        table = Table.from_observations(self.geo, observations)
        cand, valid, best, prior = self.ranked(table, masks) if self.guide is None else self.guided(observations, masks)
        if self.only is not None:  # the first candidate stays; the others only of these kinds
            valid[:, 1:] &= np.isin(self.kind_of[cand[:, 1:]], self.only)
        search = self.searched(table, valid, best)
        chosen = np.zeros(len(best), np.int64)
        gains = np.zeros(cand.shape)
        games = np.flatnonzero(search)
        if games.size:
            values = self.evaluate(view, games, cand[games], valid[games], None if keys is None else keys[games])
            gain = values - values[:, :, :1]  # paired with the heuristic's choice (same random streams)
            gains[games] = mean = gain.mean(axis=1)
            spread = gain.std(axis=1) / np.sqrt(self.rollouts)
            gated = np.where((mean <= self.gate * spread) | ~valid[games], 0.0, mean)
            chosen[games] = gated.argmax(axis=1)  # the first best: the heuristic's order breaks ties
        out = best.copy()
        out[games] = cand[games, chosen[games]]
        return out, cand, candidate_policy(gains, valid, search, chosen, self.temperature, prior)

    def _kinds(self, only: str) -> list[str]:
        """The kinds named by the ``only`` knob (``'+'``-joined text)."""
        names = only.split("+")
        wrong = [name for name in names if name not in DEPARTURE_KINDS]
        if wrong:
            raise ValueError(f"search agent knob 'only' names {'+'.join(wrong) or 'no kind'!r}: it takes kinds of "
                             f"action joined by '+', of {', '.join(DEPARTURE_KINDS)}")
        return names

    def ranked(self, table: Table, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                     np.ndarray | None]:
        """The heuristic's ``candidates`` best legal actions per game, best first: actions int64
        (B, k), ``valid`` bool (B, k) (False past a game's legal actions), its choice int64 (B,), and the
        prior of its policy (``aerodeck.agents.base.rank_prior``: ``order`` logits less per rank, or none)."""
        B, A = masks.shape
        scores = np.empty((B, A), np.int64)
        best = np.empty(B, np.int64)
        for start in range(0, B, CHUNK):
            part = np.arange(start, min(start + CHUNK, B))
            plan = self.heuristic.plan(table.take(part), masks[part])
            scores[part], best[part] = plan.scores(self.geo), plan.best(self.geo)
        k = min(self.candidates, A)
        key = scores * A + np.arange(A)  # by score, then by index (as Plan.best breaks ties)
        cand = np.argpartition(key, k - 1, axis=1)[:, :k]
        rows = np.arange(B)[:, None]
        cand = np.take_along_axis(cand, np.argsort(key[rows, cand], axis=1), axis=1)
        valid = scores[rows, cand] < NONE
        return cand, valid, best, rank_prior(cand.shape, self.order)

    def guided(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                             np.ndarray]:
        """As :meth:`ranked`, by the guide's logits: its ``candidates`` most likely legal actions, and
        their logits float32 (B, k) (the prior of its policy)."""
        from aerodeck.agents.ppo import masked_logits

        inputs = self.guide.inputs
        logits = masked_logits(self.guide.policy, inputs(observations, masks), inputs.family_masks(masks))
        k = min(self.candidates, logits.shape[1])
        order = np.argsort(-logits, axis=1, kind="stable")[:, :k]
        valid = np.isfinite(np.take_along_axis(logits, order, axis=1))
        cand = inputs.variant_actions(np.where(valid, order, order[:, :1]))
        return cand, valid, cand[:, 0].copy(), np.take_along_axis(logits, order, axis=1)

    def searched(self, table: Table, valid: np.ndarray, best: np.ndarray) -> np.ndarray:
        """bool (B,): the games whose choice is searched — two or more ``valid`` candidates and a first
        choice ``best`` (int64 (B,)) that does not complete the ticket now."""
        return (valid.sum(axis=1) >= 2) & ~self._completes(table, best)

    def _completes(self, table: Table, action: np.ndarray) -> np.ndarray:
        """bool (B,): the action is a flight landing on the destination with the passenger aboard."""
        landing = self.geo.landing(table.plane, action)
        return table.aboard & (landing == table.destination_cell) & (landing >= 0)

    def evaluate(self, view, games: np.ndarray, cand: np.ndarray, valid: np.ndarray,
                 keys: np.ndarray | None = None) -> np.ndarray:
        """float64 (n, rollouts, k): the value of each rollout after each candidate action of the games
        ``games`` (cand int64 (n, k), legal where ``valid``); the rollouts' streams seeded from the
        games' decision keys ``keys`` uint64 (n,) (``None``: from the agent's generator)."""
        n, k = cand.shape
        branches, first = self.determinized(view, games, cand, valid, keys, self.rollouts)
        return self.rollout(self._rollout_core(view), branches, first).reshape(n, self.rollouts, k)

    def determinized(self, view, games: np.ndarray, cand: np.ndarray, valid: np.ndarray, keys: np.ndarray | None,
                 samples: int):
        """``samples`` determinizations of each of the games ``games``, one row per candidate: the State
        (row (j·samples + r)·k + c; all candidates of a determinization share its random streams) and
        the candidate of each row, int64 (n·samples·k,) (an invalid candidate repeats the first, legal,
        one). Streams seeded as :meth:`evaluate` says."""
        n, k = cand.shape
        seeds = self.draws(keys, (n, samples)).reshape(-1)
        branches = view.determinize(seeds, samples, games).repeat(k)
        first = np.where(valid, cand, cand[:, :1])
        return branches, np.broadcast_to(first[:, None, :], (n, samples, k)).reshape(-1)

    def _rollout_core(self, view) -> AirportScrambleCore:
        """A core for the view's rules that skips the action check: rollouts play legal actions only, and
        checking each would cost one more legal mask per step. A view over another core (a house rule's
        reference engine, ``aerodeck.envs.common.house``) rolls out on that core: the rules it plays."""
        if not isinstance(view.core, AirportScrambleCore):
            return view.core
        rules = view.rules
        core = self._rollout_cores.get(rules)
        if core is None:
            core = self._rollout_cores[rules] = AirportScrambleCore(rules, check_actions=False)
        return core

    def rollout(self, core, state, first: np.ndarray) -> np.ndarray:
        """Play ``first`` (int64 (M,)) in each game of ``state`` (mutated), then the heuristic until
        ``tickets`` more tickets are completed, the game ends, or ``horizon`` decisions. Returns the
        value of each, float64 (M,): the tickets completed, plus ``network`` × the share of the airport
        cards in play when the last of them was completed (a larger network leaves fewer cards to find
        in the deck for the next ticket)."""
        start = state.score.astype(np.int64)
        M = state.batch_size
        value = np.zeros(M)
        ids = np.arange(M)
        settled = np.zeros(M, bool)  # the rollout has ended: its value is final
        n_cards = self.geo.n_cards
        core.step(state, first)
        if self.depth:
            return self._guided_rollout(core, state, start)
        for _ in range(self.horizon):
            got = state.score - start[ids]
            ended = state.done | (got >= self.tickets)
            # An ended rollout kept in the batch (until a quarter have ended) keeps its value from the
            # step it ended on, so a rollout's value never depends on the others in its batch.
            now = ~settled[ids]
            value[ids[now]] = got[now]
            if self.network:
                in_play = (state.grid >= 0).sum(axis=(1, 2)) / n_cards
                value[ids[now]] += np.where(got >= self.tickets, self.network * in_play, 0.0)[now]
            settled[ids[ended]] = True
            if ended.all():
                return value
            if ended.mean() > 0.25:  # drop finished rollouts so they cost nothing more
                live = np.flatnonzero(~ended)
                state, ids = state.take(live), ids[live]
            masks = core.legal_mask(state)
            core.step(state, self.heuristic.decide(Table.from_state(self.geo, state), masks))
        return value

    def _guided_rollout(self, core, state, start: np.ndarray) -> np.ndarray:
        """The guide plays ``depth`` decisions in every game of ``state`` (ended games stay as they
        are); each is worth the tickets completed since ``start`` (int64 (M,)) plus the guide's value
        of where it stopped (0 for an ended game). float64 (M,)."""
        from aerodeck.agents.ppo import value_of

        for _ in range(self.depth):
            live = np.flatnonzero(~state.done)
            if not len(live):
                break
            part = state.take(live)
            masks = core.legal_mask(part)
            core.step(part, self.guide.act(core.observe(part), masks))
            state.put(live, part)
        value = (state.score - start).astype(np.float64)
        live = np.flatnonzero(~state.done)
        if len(live):
            part = state.take(live)
            value[live] += value_of(self.guide, core.observe(part), core.legal_mask(part))
        return value
