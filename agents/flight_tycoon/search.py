"""The search Flight Tycoon agent: information-set rollouts over sampled hidden cards.

For every game of the batch the heuristic ranks the legal actions and its ``candidates`` best are
tried. The agent never sees the real hidden cards: it asks its :class:`~aerodeck.envs.flight_tycoon.view.FlightTycoonView`
for ``samples`` determinizations — full states dealt consistently with what its seat knows, with
fresh random streams — and in each of them plays every candidate, then lets the heuristic play
every seat (each one reading only its own facts of the sampled state) until the game ends or
``horizon`` decisions have passed. A rollout is worth the seat's share of the win (FT-12: VP, then
real cards; shared wins split), plus ``ahead`` × the share of the other seats it stands ahead of,
plus ``margin`` × its VP lead over the best other seat (÷ 10, clipped to ±1) — read at the end, or
at the horizon as if the game ended there; with ``reward=vp`` (FT-15) it is the seat's VP.
The candidate with the best mean over the samples is played; ties and gains within ``gate``
standard errors of the heuristic's own choice go to the heuristic's order.

Guided by a trained network (``guide=MODEL.zip``, a ``ppo`` model of these rules — the search of expert
iteration): the candidates are the network's most likely actions (its choice first) and in the
rollouts the network plays the searching seat, the heuristic the others (the table the search is
judged at) — or, with ``guide_rollouts=off``, the heuristic plays every seat as in the plain search,
which keeps its time per decision.

All games × samples × candidates run as one batch on the core (in chunks of at most ``chunk``
rollouts). The candidates of one sample share its random stream (common random numbers), so they
are compared on the same deck draws as far as their paths allow.

Randomness (``aerodeck.agents.streams``): a decision's key gives the tie-break noise (part 0), the seeds of
its samples (part 1) and one key per sample (part 2), from which the rollout heuristic's decision
keys are made (sample key × rollout step) — so a game's choice never depends on the batch.
"""

from __future__ import annotations

import numpy as np

from aerodeck.agents.base import Agent, Knob, candidate_policy, rank_prior
from aerodeck.agents.flight_tycoon.facts import Facts
from aerodeck.agents.flight_tycoon.heuristic import HeuristicAgent
from aerodeck.agents.streams import decision_keys
from aerodeck.envs.flight_tycoon.core import FlightTycoonCore
from aerodeck.envs.flight_tycoon.rules import FlightTycoonRules
from aerodeck.envs.flight_tycoon.view import FlightTycoonView


#: The parts of a decision's stream (``aerodeck.agents.streams``): tie-break noise, sample seeds, rollout keys.
_NOISE, _SAMPLES, _ROLLOUTS = 0, 1, 2


class SearchAgent(Agent):
    """Plans ahead over sampled hidden cards (see the module docstring).

    Budget knobs: ``samples`` determinizations per decision, ``candidates`` actions tried in each (the
    heuristic's best first), ``horizon`` the most decisions (all seats together) a rollout plays after
    the candidate (0 = to the end of the game). A decision costs about samples × candidates ×
    (rollout length) heuristic moves. ``ahead`` and ``margin``: weights of the seats beaten and of the
    VP lead in a rollout's value (besides the win share);
    ``gate``: how many standard errors a candidate must gain over the heuristic's choice to be played;
    ``chunk``: the most rollouts stepped at once (memory).
    """

    name = "search"
    needs_view = True
    knobs = {
        "samples": Knob(int, 1, doc="determinizations per decision"),
        "candidates": Knob(int, 1, doc="actions tried in each, the heuristic's best first"),
        "horizon": Knob(int, 0, doc="the most decisions a rollout plays after the candidate (0: to the end)"),
        "ahead": Knob(float, 0, doc="weight of the share of seats beaten in a rollout's value"),
        "margin": Knob(float, 0, doc="weight of the VP lead in a rollout's value"),
        "gate": Knob(float, doc="standard errors by which a candidate must beat the heuristic's choice"),
        "chunk": Knob(int, 1, doc="the most rollouts stepped at once (memory)"),
        "guide": Knob(str, doc="a ppo model zip: its policy chooses the candidates and plays the searching seat"),
        "guide_rollouts": Knob(bool, doc="with a guide: it plays the searching seat in the rollouts (off: the "
                                         "heuristic plays every seat, as without a guide, in the plain search's time)"),
        "temperature": Knob(float, 0, doc="its policy as a training target: candidates weighted exp(mean gain / "
                                          "temperature), times its guide's policy (0: all on its choice)"),
        "order": Knob(float, 0, doc="with a temperature and no guide: logits its policy gives each later "
                                    "candidate less, in the heuristic's order (0: even before their values)"),
    }

    def __init__(self, seed: int | None = 0, rules: FlightTycoonRules | None = None, samples: int = 32,
                 candidates: int = 6, horizon: int = 16, ahead: float = 0.5, margin: float = 0.1, gate: float = 0.0,
                 chunk: int = 8192, guide: str | None = None, temperature: float = 0.0,
                 order: float = 0.0, guide_rollouts: bool = True) -> None:
        self.heuristic = HeuristicAgent(seed=seed, rules=rules)  # ranks the candidates
        self.rollout_policy = HeuristicAgent(seed=None if seed is None else seed + 1, rules=rules)  # plays every seat
        super().__init__(seed, rules)
        given = dict(samples=samples, candidates=candidates, horizon=horizon, ahead=ahead, margin=margin, gate=gate,
                     chunk=chunk, temperature=temperature, order=order, guide_rollouts=guide_rollouts)
        v = {name: SearchAgent.knobs[name].parse(value, f"search agent knob {name!r}") for name, value in given.items()}
        if v["order"] and guide:
            raise ValueError("search agent knob 'order' is for a search without a guide (a guide's logits are its "
                             "policy's prior)")
        self.samples, self.candidates, self.horizon, self.chunk = v["samples"], v["candidates"], v["horizon"], v["chunk"]
        self.ahead, self.margin, self.gate, self.temperature = v["ahead"], v["margin"], v["gate"], v["temperature"]
        if not v["guide_rollouts"] and not guide:
            raise ValueError("search agent knob 'guide_rollouts' is for a guided search (give guide=MODEL.zip)")
        self.order, self.guide_rollouts = v["order"], v["guide_rollouts"]
        self._cores: dict = {}
        self.guide = None
        if guide:
            from aerodeck.agents.ppo import PPOAgent

            if rules is None:
                raise ValueError("a guided search needs the rules its guide plays under")
            self.guide = PPOAgent(rules=rules, path=guide)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the agent and its heuristics."""
        super().reset(seed)
        self.heuristic.reset(seed)
        self.rollout_policy.reset(None if seed is None else seed + 1)

    def act(self, observations: np.ndarray, masks: np.ndarray, view: FlightTycoonView | None = None,
            keys: np.ndarray | None = None) -> np.ndarray:
        """Actions ``int64 (B,)`` for observations ``float32 (B, obs_size)``, masks ``bool (B, A)``, the
        ``FlightTycoonView`` of the same B games (``aerodeck.envs.view_of_env`` gives one for the AEC env) and the
        decision keys ``uint64 (B,)`` (``None``: the agents' generators)."""
        return self.act_with_policy(observations, masks, view, keys)[0]

    def act_with_policy(self, observations: np.ndarray, masks: np.ndarray, view: FlightTycoonView | None = None,
                        keys: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`act`, with its policy (``Agent.act_with_policy``): the candidates ``int64 (B, k)`` and,
        with a ``temperature``, their weights by mean value (and its guide's logits) where it searched, else
        all on its choice."""
        if view is None:
            raise ValueError("the search agent needs a look-ahead view: act(observations, masks, view) with an "
                             "aerodeck.envs.flight_tycoon.view.FlightTycoonView; aerodeck.arena.loop.play_games passes one, and "
                             "aerodeck.envs.view_of_env(aec) makes one for the AEC env")
        masks = np.asarray(masks, bool)
        if view.batch_size != masks.shape[0]:
            raise ValueError(f"the view holds {view.batch_size} games, the masks {masks.shape[0]}")
        self._adopt(view.rules)
        if self.guide is None:
            scores = self.heuristic.scores(observations, masks)
            scores += self.heuristic.noise * self.uniform(keys, scores.shape, part=_NOISE)
        else:
            from aerodeck.agents.ppo import masked_logits

            inputs = self.guide.inputs
            scores = masked_logits(self.guide.policy, inputs(observations, masks), inputs.family_masks(masks))
        k = min(self.candidates, masks.shape[1])
        cand = np.argsort(-scores, axis=1, kind="stable")[:, :k]  # (B, k), the heuristic's best first
        valid = np.isfinite(np.take_along_axis(scores, cand, 1))
        chosen = np.zeros(len(cand), np.int64)
        search = valid.sum(1) >= 2
        if not search.any():
            return cand[:, 0].copy(), cand, candidate_policy(np.zeros(cand.shape), valid, search, chosen, 0.0)
        values = self.evaluate(view, cand, valid & search[:, None], keys)  # (B, samples, k); none where plain
        gain = values - values[:, :, :1]  # paired with the heuristic's choice (same sample, same stream)
        mean = gain.mean(1)
        spread = gain.std(1) / np.sqrt(self.samples)
        gated = np.where((mean <= self.gate * spread) | ~valid, -np.inf, mean)
        gated[:, 0] = 0.0
        chosen[search] = gated[search].argmax(1)  # the first best: the heuristic's order breaks ties
        out = cand[np.arange(len(cand)), chosen]
        prior = rank_prior(cand.shape, self.order) if self.guide is None else np.take_along_axis(scores, cand, 1)
        return out, cand, candidate_policy(mean, valid, search, chosen, self.temperature, prior)

    def _adopt(self, rules: FlightTycoonRules) -> None:
        """Play by the view's rules when built without any (the heuristics score VP by them)."""
        if self.rules is None:
            self.rules = self.heuristic.rules = self.rollout_policy.rules = rules
        elif self.rules != rules:
            raise ValueError(f"the search agent was built for {self.rules.label()}, the view plays {rules.label()}")

    def core_for(self, view: FlightTycoonView) -> FlightTycoonCore:
        """A core for the rollouts (actions unchecked: the players are the heuristic, legal by construction);
        a view over another core (a house rule's reference engine, ``aerodeck.envs.common.house``) rolls
        out on that core: the rules it plays."""
        if not isinstance(view.core, FlightTycoonCore):
            return view.core
        if view.rules not in self._cores:
            self._cores[view.rules] = FlightTycoonCore(view.rules, check_actions=False)
        return self._cores[view.rules]

    def evaluate(self, view: FlightTycoonView, cand: np.ndarray, valid: np.ndarray,
                 keys: np.ndarray | None = None) -> np.ndarray:
        """``float64 (B, samples, k)``: the value of candidate j of game i in sample s (0 where invalid).

        ``cand`` int64 (B, k) actions, ``valid`` bool (B, k); ``keys`` the decision keys ``uint64 (B,)``
        (``None``: the agents' generators). Samples come from ``view.determinize`` only.
        """
        B, k = cand.shape
        S = self.samples
        core = self.core_for(view)
        seeds = self.draws(keys, (B, S), _SAMPLES).reshape(-1)
        sampled = view.determinize(seeds, S)  # game i's samples are rows i·S … i·S + S − 1
        sample_keys = None if keys is None else self.draws(keys, (B, S), _ROLLOUTS).reshape(-1)
        # the (sample, candidate) pairs to play: valid candidates only, a sample's candidates together
        sample, which = np.nonzero(np.repeat(valid, S, axis=0))
        game = sample // S
        values = np.zeros((B * S, k))
        for start in range(0, sample.size, self.chunk):
            part = slice(start, start + self.chunk)
            branch = sampled.take(sample[part])
            core.step(branch, cand[game[part], which[part]])
            values[sample[part], which[part]] = self.rollout(
                core, branch, view.seats[game[part]], None if sample_keys is None else sample_keys[sample[part]])
        return values.reshape(B, S, k)

    def rollout(self, core: FlightTycoonCore, state, seat: np.ndarray,
                keys: np.ndarray | None = None) -> np.ndarray:
        """Play ``state`` (R games, modified) on with the heuristic in every seat; ``float64 (R,)``: each
        game's value for its ``seat`` (absolute, int (R,)) at the end or after ``horizon`` decisions.
        ``keys`` (``uint64 (R,)``, one per rollout; ``None``: the rollout heuristic's generator) key the
        heuristic's decisions, step by step."""
        R = state.batch_size
        values = np.zeros(R)
        ids = np.arange(R)
        steps = 0
        policy = self.rollout_policy
        while True:
            done = state.done
            if done.all() or (self.horizon and steps >= self.horizon):
                break
            if done.mean() > 0.25:  # drop finished games from the batch
                values[ids[done]] = self.value(core, state.take(done), seat[done])
                keep = ~done
                ids, seat, state = ids[keep], seat[keep], state.take(keep)
                keys = None if keys is None else keys[keep]
            to_act = np.maximum(core.to_act(state), 0)
            facts = Facts.of_state(core, state, to_act)
            step_keys = None if keys is None else decision_keys(0, keys, np.full(keys.size, steps))
            masks = core.legal_mask(state)
            actions = policy.act_on(facts, masks, step_keys)
            if self.guide is not None and self.guide_rollouts:  # the searching seat plays the guide's moves
                mine = np.flatnonzero((to_act == seat) & ~state.done)
                if mine.size:
                    actions[mine] = self.guide.act(core.observe(state, seat[mine], games=mine), masks[mine])
            core.step(state, actions)
            steps += 1
        values[ids] = self.value(core, state, seat)
        return values

    def value(self, core: FlightTycoonCore, state, seat: np.ndarray) -> np.ndarray:
        """``float64 (R,)``: a position's worth for ``seat`` (see the module docstring)."""
        rows = np.arange(state.batch_size)
        vp = state.vp.astype(np.float64)
        if core.rules.reward == "vp":
            return vp[rows, seat]
        standing = core.standings(state)
        top = standing.max(1)
        winners = (standing == top[:, None]).sum(1)
        share = np.where(standing[rows, seat] == top, 1.0 / winners, 0.0)
        mine = standing[rows, seat][:, None]
        ahead = ((mine > standing).sum(1) + 0.5 * (mine == standing).sum(1) - 0.5) / (core.n_players - 1)
        others = vp.copy()
        others[rows, seat] = -np.inf
        lead = np.clip((vp[rows, seat] - others.max(1)) / 10.0, -1.0, 1.0)
        return share + self.ahead * ahead + self.margin * lead
