"""The expert Airport Scramble agent: a small search whose candidates a trained network proposes.

A decision of the full ``search`` agent costs ``candidates × rollouts`` = 4 × 32 rollouts of the
heuristic; this agent, by default, 2 × 4 (a sixteenth). Its candidates are the
heuristic's choice first (the action every other candidate is compared with, on the same random
streams), then the ``guided`` most likely actions of a network (the shipped model for these rules,
else the shipped rule-general one, else none), then the heuristic's next best, up to ``candidates``
in all, each action once. Each candidate is tried in ``rollouts`` determinizations and the heuristic
plays on (compiled, on the rules in play), exactly as in :mod:`aerodeck.agents.airport_scramble.search`
(tickets, horizon, network value and gate knobs as there); the best mean wins, ties to the first.

The rules decide, never the network alone: a network only proposes, and a candidate is played only
when rollouts under the rules in play value it above the heuristic's choice. So under rule variants
the agent adapts as the search does (a variant no network can lay out is searched on the heuristic's
candidates alone). Randomness: the determinizations are seeded from the decision keys
(``aerodeck.agents.streams``), so a game's play does not depend on its batch; the network and the
heuristic are deterministic.
"""

from __future__ import annotations

import numpy as np

from aerodeck.agents.airport_scramble.search import SearchAgent
from aerodeck.agents.airport_scramble.planning import Table
from aerodeck.agents.base import Knob
from aerodeck.envs.airport_scramble.rules import AirportScrambleRules

#: ``guide`` values: the shipped model that fits the rules (``auto``), or no network (``off``).
AUTO, OFF = "auto", "off"


def shipped_guide(rules) -> object | None:
    """A ``PPOAgent`` to propose candidates under ``rules``: the shipped model trained on these rules
    (when they are the game's defaults), else the shipped rule-general model if it can lay them out,
    else ``None`` (also when the ``train`` extra is missing). Its self-check and caution are off: only
    its logits are read."""
    try:
        from aerodeck.agents.ppo import PPOAgent, shipped_misfit
    except ImportError:
        return None
    standard = rules == type(rules)()
    for general in ((False, True) if standard else (True,)):
        if shipped_misfit(rules, general) is None:
            return PPOAgent(rules=rules, general=general, caution=0.0, check=0)
    return None


def guide_of(rules, guide: str | None):
    """The guide named by the ``guide`` knob: ``auto`` → :func:`shipped_guide`, ``off`` → none, else a
    ppo model zip (a ``PPOAgent`` of these rules)."""
    if guide is None or guide == AUTO:
        return shipped_guide(rules)
    if guide == OFF:
        return None
    from aerodeck.agents.ppo import PPOAgent

    return PPOAgent(rules=rules, path=guide, caution=0.0, check=0)


def merge_candidates(groups: list[tuple[np.ndarray, np.ndarray]], k: int) -> tuple[np.ndarray, np.ndarray]:
    """The first ``k`` distinct valid actions per row from ``groups`` (each ``(actions int64 (B, m),
    valid bool (B, m))``) in order: ``int64 (B, k)`` and ``valid bool (B, k)`` (an invalid slot repeats
    the row's first action)."""
    acts = np.concatenate([a for a, _ in groups], axis=1)
    ok = np.concatenate([v for _, v in groups], axis=1).copy()
    for j in range(1, acts.shape[1]):  # a repeat of an earlier valid action is dropped
        ok[:, j] &= ~((acts[:, :j] == acts[:, j:j + 1]) & ok[:, :j]).any(axis=1)
    order = np.argsort(~ok, axis=1, kind="stable")[:, :k]
    cand = np.take_along_axis(acts, order, axis=1)
    valid = np.take_along_axis(ok, order, axis=1)
    return np.where(valid, cand, cand[:, :1]), valid


class ExpertAgent(SearchAgent):
    """A small search over the heuristic's and a trained network's candidates (see the module docstring).

    Knobs: ``candidates`` actions tried per decision (the heuristic's choice, then ``guided`` of the
    network's, then the heuristic's order), ``rollouts`` determinizations per candidate, ``guide``
    (``auto``: the shipped model for the rules; ``off``; or a ppo model zip), ``disputed`` (search only
    where the network's choice is not the heuristic's), and the search's ``tickets``, ``horizon``,
    ``network`` and ``gate``. A decision costs about candidates × rollouts
    heuristic rollouts and one network pass.
    """

    name = "expert"
    needs_view = True
    knobs = {
        "candidates": Knob(int, 1, doc="actions tried per decision: the heuristic's choice, the network's, then "
                                       "the heuristic's next"),
        "guided": Knob(int, 0, doc="how many of the candidates the network proposes (its most likely first)"),
        "rollouts": Knob(int, 1, doc="determinizations (rollouts) per candidate"),
        "tickets": Knob(int, 1, doc="completed tickets that end a rollout"),
        "horizon": Knob(int, 1, doc="the most decisions a rollout plays"),
        "network": Knob(float, 0, doc="weight of the share of cards in play in a rollout's value"),
        "gate": Knob(float, doc="standard errors by which a candidate must beat the heuristic's choice"),
        "guide": Knob(str, doc="the network that proposes candidates: auto (the shipped model for the rules), "
                               "off, or a ppo model zip"),
        "disputed": Knob(bool, doc="search only where the network's choice differs from the heuristic's (off: "
                                   "wherever there are two candidates)"),
    }

    def __init__(self, seed: int | None = 0, rules: AirportScrambleRules | None = None, candidates: int = 2,
                 guided: int = 1, rollouts: int = 4, tickets: int = 1, horizon: int = 60, network: float = 1.0,
                 gate: float = 0.0, guide: str | None = AUTO, disputed: bool = False) -> None:
        super().__init__(seed, rules, candidates=candidates, rollouts=rollouts, tickets=tickets, horizon=horizon,
                         network=network, gate=gate)
        self.guided_count = self.knobs["guided"].parse(guided, "expert agent knob 'guided'")
        self.guide_name = AUTO if guide is None else self.knobs["guide"].parse(guide, "expert agent knob 'guide'")
        self.proposer = guide_of(self.rules, self.guide_name) if self.guided_count else None
        self.disputed = self.knobs["disputed"].parse(disputed, "expert agent knob 'disputed'")
        self._agree = None

    def act_with_policy(self, observations: np.ndarray, masks: np.ndarray, view=None,
                        keys: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Actions int64 (B,), the candidates int64 (B, k) and the policy (all on the action played) for
        observations float32 (B, obs_size), masks bool (B, n_actions), the look-ahead ``view`` and the
        decision keys uint64 (B,)."""
        if view is None:
            raise ValueError("the expert agent needs a look-ahead view: act(observations, masks, view); "
                             "aerodeck.arena.loop.play_solo and envs.view_of_env give one")
        masks = np.asarray(masks, bool)
        table = Table.from_observations(self.geo, observations)
        cand, valid, best = self.proposed(table, observations, masks)
        search = self.searched(table, valid, best)
        if self.disputed and self._agree is not None:
            search &= ~self._agree
        chosen = np.zeros(len(best), np.int64)
        games = np.flatnonzero(search)
        if games.size:
            values = self.evaluate(view, games, cand[games], valid[games], None if keys is None else keys[games])
            mean = (values - values[:, :, :1]).mean(axis=1)  # paired with the heuristic's choice
            spread = (values - values[:, :, :1]).std(axis=1) / np.sqrt(self.rollouts)
            gated = np.where((mean <= self.gate * spread) | ~valid[games], 0.0, mean)
            chosen[games] = gated.argmax(axis=1)
        out = best.copy()
        out[games] = cand[games, chosen[games]]
        policy = np.zeros(cand.shape, np.float32)
        policy[np.arange(len(best)), chosen] = 1.0
        return out, cand, policy

    def proposed(self, table: Table, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                                              np.ndarray]:
        """The candidates int64 (B, k), their ``valid`` bool (B, k) and the heuristic's choice int64 (B,):
        the heuristic's choice, the network's ``guided`` most likely legal actions, the heuristic's next."""
        ranked, ok, best, _ = self.ranked(table, masks)
        groups = [(ranked[:, :1], ok[:, :1])]
        if self.proposer is not None and self.guided_count:
            from aerodeck.agents.ppo import masked_logits

            inputs = self.proposer.inputs
            logits = masked_logits(self.proposer.policy, inputs(observations, masks), inputs.family_masks(masks))
            top = np.argsort(-logits, axis=1, kind="stable")[:, :self.guided_count]
            live = np.isfinite(np.take_along_axis(logits, top, axis=1))
            acts = inputs.variant_actions(np.where(live, top, 0).reshape(-1)).reshape(top.shape)
            groups.append((acts, live))
            self._agree = acts[:, 0] == best
        groups.append((ranked[:, 1:], ok[:, 1:]))
        cand, valid = merge_candidates(groups, min(self.candidates, ranked.shape[1]))
        return cand, valid, best
