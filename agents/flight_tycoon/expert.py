"""The expert Flight Tycoon agent: a small search over the candidates a trained network proposes.

The plain ``search`` agent rolls every one of the heuristic's 6 best actions out in 32 samples of the
hidden cards; this agent asks a network (the shipped model for these rules, else the shipped
rule-general one, else none: then the heuristic's ranking, as the plain search) for its ``candidates``
most likely actions, its choice first, and tries them in ``samples`` determinizations with the
heuristic playing every seat (``aerodeck.agents.flight_tycoon.search``: the rollouts, their value and
the gate as there). The best mean wins, ties to the network's order.

The rules decide, never the network alone: the candidates are valued by rollouts under the rules in
play, so under rule variants the agent adapts as the search does. Randomness: samples and rollout keys
come from the decision keys (``aerodeck.agents.streams``), so a game's play does not depend on its batch.
"""

from __future__ import annotations

from aerodeck.agents.airport_scramble.expert import AUTO, guide_of
from aerodeck.agents.base import Knob
from aerodeck.agents.flight_tycoon.search import SearchAgent
from aerodeck.envs.flight_tycoon.rules import FlightTycoonRules


class ExpertAgent(SearchAgent):
    """The search's strength at a fraction of its cost (see the module docstring).

    Knobs: ``candidates`` actions tried per decision (the network's most likely first), ``samples``
    determinizations per decision, ``guide`` (``auto``: the shipped model for the rules; ``off``: the
    heuristic's ranking; or a ppo model zip), and the search's ``horizon``, ``ahead``, ``margin`` and
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
    }

    def __init__(self, seed: int | None = 0, rules: FlightTycoonRules | None = None, samples: int = 4,
                 candidates: int = 3, horizon: int = 16, ahead: float = 0.5, margin: float = 0.1, gate: float = 0.0,
                 guide: str | None = AUTO) -> None:
        if rules is None:
            rules = FlightTycoonRules()
        super().__init__(seed, rules, samples=samples, candidates=candidates, horizon=horizon, ahead=ahead,
                         margin=margin, gate=gate)
        self.guide_name = AUTO if guide is None else self.knobs["guide"].parse(guide, "expert agent knob 'guide'")
        self.guide = guide_of(self.rules, self.guide_name)
        self.guide_rollouts = False
