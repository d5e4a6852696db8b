"""The expert Flight Tycoon agent: a small search over the candidates a trained network proposes.

The plain ``search`` agent rolls every one of the heuristic's 6 best actions out in 32 samples of the
hidden cards. This agent's first candidate is its ``lead``'s choice: the network's (the shipped model)
under the rules that model was trained on, the heuristic's under any other rules (where the shipped
rule-general model, if it can lay them out, only proposes). The next candidates are the network's most
likely actions (the heuristic's best without a network), ``candidates`` in all, tried in ``samples``
determinizations with the heuristic playing every seat (``guide_rollouts=on``: the network plays the
searching seat) as in :mod:`aerodeck.agents.flight_tycoon.search` (rollouts, value). Another candidate
replaces the first only when its mean gain exceeds ``gate`` standard errors.

So the rules decide where they differ from the network's: the candidates are valued by rollouts under
the rules in play and the heuristic's choice leads there. Randomness: the tie-break noise, samples and
rollout keys come from the decision keys (``aerodeck.agents.streams``), so a game's play does not depend
on its batch.
"""

from __future__ import annotations

import numpy as np

from aerodeck.agents.airport_scramble.expert import AUTO, guide_of
from aerodeck.agents.base import Knob, candidate_policy
from aerodeck.agents.flight_tycoon.search import _NOISE, SearchAgent
from aerodeck.envs.flight_tycoon.rules import FlightTycoonRules


class ExpertAgent(SearchAgent):
    """A small search over the heuristic's and a trained network's candidates (see the module docstring).

    Knobs: ``candidates`` actions tried per decision (the network's most likely first), ``samples``
    determinizations per decision, ``guide`` (``auto``: the shipped model for the rules; ``off``: the
    heuristic's ranking; or a ppo model zip), ``guide_rollouts`` (the network plays the searching seat in
    the rollouts), and the search's ``horizon``, ``ahead``, ``margin`` and
    ``gate``. A decision costs about samples × candidates heuristic rollouts and one network pass.
    """

    name = "expert"
    needs_view = True
    knobs = {
        "samples": Knob(int, 1, doc="determinizations per decision"),
        "candidates": Knob(int, 1, doc="actions tried in each, the network's most likely first"),
        "horizon": Knob(int, 0, doc="the most decisions a rollout plays after the candidate (0: to the end)"),
        "ahead": Knob(float, 0, doc="weight of the share of seats beaten in a rollout's value"),
        "margin": Knob(float, 0, doc="weight of the VP lead in a rollout's value"),
        "gate": Knob(float, doc="standard errors by which a candidate must beat the first one"),
        "guide": Knob(str, doc="the network that proposes candidates: auto (the shipped model for the rules), "
                               "off (the heuristic's ranking), or a ppo model zip"),
        "lead": Knob(str, doc="whose choice is the first candidate, kept unless the rollouts beat it: network or "
                              "heuristic (default: the network under the rules its shipped model was trained on, "
                              "else the heuristic)"),
        "guide_rollouts": Knob(bool, doc="the network plays the searching seat in the rollouts (off: the heuristic "
                                         "plays every seat)"),
    }

    def __init__(self, seed: int | None = 0, rules: FlightTycoonRules | None = None, samples: int = 4,
                 candidates: int = 3, horizon: int = 16, ahead: float = 0.5, margin: float = 0.1, gate: float = 1.0,
                 guide: str | None = AUTO, lead: str | None = None, guide_rollouts: bool = False) -> None:
        if rules is None:
            rules = FlightTycoonRules()
        super().__init__(seed, rules, samples=samples, candidates=candidates, horizon=horizon, ahead=ahead,
                         margin=margin, gate=gate)
        self.guide_name = AUTO if guide is None else self.knobs["guide"].parse(guide, "expert agent knob 'guide'")
        self.guide = guide_of(self.rules, self.guide_name)
        self.guide_rollouts = self.knobs["guide_rollouts"].parse(guide_rollouts, "expert agent knob 'guide_rollouts'")
        if lead is None:
            lead = "network" if self.guide is not None and self.rules == type(self.rules)() else "heuristic"
        if self.knobs["lead"].parse(lead, "expert agent knob 'lead'") not in ("network", "heuristic"):
            raise ValueError(f"expert agent knob 'lead' must be network or heuristic, got {lead!r}")
        self.lead = lead

    def act_with_policy(self, observations: np.ndarray, masks: np.ndarray, view=None,
                        keys: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Actions ``int64 (B,)``, the candidates ``int64 (B, k)`` and the policy (all on the action played)
        for observations ``float32 (B, obs_size)``, masks ``bool (B, A)``, the ``FlightTycoonView`` of the
        same B games and the decision keys ``uint64 (B,)``: the first candidate is the ``lead``'s choice,
        then the network's most likely (the heuristic's best without a network)."""
        if view is None:
            raise ValueError("the expert agent needs a look-ahead view: act(observations, masks, view) with an "
                             "aerodeck.envs.flight_tycoon.view.FlightTycoonView")
        masks = np.asarray(masks, bool)
        if view.batch_size != masks.shape[0]:
            raise ValueError(f"the view holds {view.batch_size} games, the masks {masks.shape[0]}")
        self._adopt(view.rules)
        heuristic = self.heuristic.scores(observations, masks)
        heuristic += self.heuristic.noise * self.uniform(keys, heuristic.shape, part=_NOISE)
        scores = heuristic
        if self.guide is not None:
            from aerodeck.agents.ppo import masked_logits

            inputs = self.guide.inputs
            logits = masked_logits(self.guide.policy, inputs(observations, masks), inputs.family_masks(masks))
            if logits.shape == masks.shape:  # the network's actions are the game's
                scores = logits.astype(np.float64)
                if self.lead == "heuristic":  # the heuristic's choice first, then the network's order
                    rows = np.arange(len(scores))
                    scores[rows, heuristic.argmax(axis=1)] = np.nanmax(np.where(masks, scores, -np.inf), axis=1) + 1
        k = min(self.candidates, masks.shape[1])
        cand = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        valid = np.isfinite(np.take_along_axis(scores, cand, 1))
        chosen = np.zeros(len(cand), np.int64)
        search = valid.sum(1) >= 2
        if search.any():
            values = self.evaluate(view, cand, valid & search[:, None], keys)  # (B, samples, k)
            gain = values - values[:, :, :1]  # paired with the first candidate (same sample, same stream)
            mean = gain.mean(1)
            spread = gain.std(1) / np.sqrt(self.samples)
            gated = np.where((mean <= self.gate * spread) | ~valid, -np.inf, mean)
            gated[:, 0] = 0.0
            chosen[search] = gated[search].argmax(1)
        out = cand[np.arange(len(cand)), chosen]
        return out, cand, candidate_policy(np.zeros(cand.shape), valid, search, chosen, 0.0)
