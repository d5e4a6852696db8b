"""The heuristic Airport Scramble agent: plans the cheapest flight, plays the cards that make it.

Every decision is a score per action (lower is better), in sixteenths of an action point:

- The ticket's plan: board at the origin, then fly to the destination (AS-12). A ticket card not in
  play yet is the card *to place*; it can go wherever it fits (AS-9). The planner gives, for every
  card on the table, the action points still needed from there (flights at their AS-8 costs, plays 1
  point, a card still in the deck an expected replace cost). So a flight scores its cost plus what
  is left where it lands; playing the card to place scores 1 + the flight onto it + what is left from
  there; playing a *connector* (a face-up card beside which the card to place will fit, e.g. a hub
  joining two colours) scores 2 + the flight onto the card to place beside it.
- Stuck (the card to place is in the deck, or fits nowhere yet): first the flights that must happen
  anyway (when what is left after the card shows up would not fit in one turn), then plays that open
  a colour one card away from letting it fit, then replacing every spare face-up card (AS-10). A last
  point nothing needs plays a spare card (a fresh one is drawn) rather than waiting.
- Farming: while the rest of the ticket surely fits in the turns left, the agent places the ticket's
  cards and then grows the network instead of flying (every card in play is one card less to find in
  the deck for the tickets to come); it flies when the die says it is time. Points left after a
  ticket is completed also grow the network.
- AS-15 line choice: the shortest line that does not carry the plane.

The planner runs compiled (:mod:`kernel`, numba), one game at a time on its cards, runs and legal
actions; the batch is decoded from the observations with numpy (:class:`planning.Table`). It decodes
the observation (``needs_view = False``), so it also plays inside the single-game env. It is
deterministic; until issue 21 it was a batched numpy planner, kept as the test oracle in
``benchmarks/airport_scramble_heuristic_v1`` (the scores of every action agree exactly).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from aerodeck.agents.airport_scramble import kernel
from aerodeck.agents.airport_scramble.planning import Geometry, Table
from aerodeck.agents.base import Agent, Knob
from aerodeck.envs.airport_scramble.rules import DIE_SIDES, AirportScrambleRules

CHUNK = 1024  # games the search agent ranks at once (its scores matrix stays small)
UNIT = kernel.UNIT  # scores are in sixteenths of an action point; the remainder breaks ties
NONE = np.int32(kernel.NONE)  # "not a candidate"


@dataclasses.dataclass
class Plan:
    """Scores of every action of B games, int32 ``(B, n_actions)`` in action-index order (AS-19), lower
    is better, ``NONE`` = never (illegal), and each game's best action ``choice`` int64 (B,).

    By block (views of ``all``): ``fly`` (B, 4, G-1), ``play`` (B, F, G²), ``replace`` (B, 2^F-1),
    ``line`` (B, 2, G²), ``wait`` (B,).
    """

    all: np.ndarray
    choice: np.ndarray
    geo: Geometry

    def _block(self, start: int, stop: int, *shape: int) -> np.ndarray:
        return self.all[:, start:stop].reshape(self.all.shape[0], *shape)

    @property
    def fly(self) -> np.ndarray:
        lay, G = self.geo.actions, self.geo.G
        return self._block(0, lay.play_offset, 4, G - 1)

    @property
    def play(self) -> np.ndarray:
        lay = self.geo.actions
        return self._block(lay.play_offset, lay.replace_offset, self.geo.F, self.geo.G2)

    @property
    def replace(self) -> np.ndarray:
        lay = self.geo.actions
        return self.all[:, lay.replace_offset : lay.line_offset]

    @property
    def line(self) -> np.ndarray:
        lay = self.geo.actions
        return self._block(lay.line_offset, lay.wait, 2, self.geo.G2)

    @property
    def wait(self) -> np.ndarray:
        return self.all[:, self.geo.actions.wait]

    def scores(self, geo: Geometry | None = None) -> np.ndarray:
        """int32 (B, n_actions): the scores in action-index order (AS-19)."""
        return self.all

    def best(self, geo: Geometry | None = None) -> np.ndarray:
        """int64 (B,): the best-scored action of each game (the lowest index among equals; the wait
        index where nothing is legal, i.e. in a finished game)."""
        return self.choice


@dataclasses.dataclass(frozen=True)
class Style:
    """The heuristic's switches (see :class:`HeuristicAgent`)."""

    cycle: bool = True
    grow: bool = True
    farm: bool = True
    margin: int = 0


class HeuristicAgent(Agent):
    """A sensible player (see the module docstring). Deterministic: its seed is unused.

    ``cycle``: on to spend a last point that nothing else needs on playing a spare face-up card
    (a fresh card is drawn into its slot), off to wait instead; ``grow``: on to play spare cards with
    the points left after completing a ticket; ``farm``: on to grow the network while the ticket is
    sure to be completed in time, keeping ``margin`` turns to spare.
    """

    name = "heuristic"
    needs_view = False
    knobs = {
        "cycle": Knob(bool, doc="spend a last spare point on playing a spare face-up card (off: wait)"),
        "grow": Knob(bool, doc="play spare cards with the points left after completing a ticket"),
        "farm": Knob(bool, doc="grow the network while the ticket is sure to be completed in time"),
        "margin": Knob(int, 0, DIE_SIDES, doc="turns kept to spare while farming"),
    }

    def __init__(self, seed: int | None = 0, rules: AirportScrambleRules | None = None, cycle: bool = True,
                 grow: bool = True, farm: bool = True, margin: int = 0) -> None:
        super().__init__(seed, rules if rules is not None else AirportScrambleRules())
        values = {name: self.knobs[name].parse(value, f"heuristic agent knob {name!r}")
                  for name, value in (("cycle", cycle), ("grow", grow), ("farm", farm), ("margin", margin))}
        self.geo = Geometry(self.rules)
        self.style = Style(**values)

    def act(self, observations: np.ndarray, masks: np.ndarray, view=None, **ignored) -> np.ndarray:
        """Actions int64 (B,) for observations float32 (B, obs_size) and masks bool (B, n_actions).
        Deterministic: decision keys and other play-loop extras are accepted and ignored."""
        return self.decide(Table.from_observations(self.geo, observations), masks)

    def decide(self, table: Table, masks: np.ndarray) -> np.ndarray:
        """Actions int64 (B,) for a decoded table and masks bool (B, n_actions) (each legal; the wait
        index for a game without legal actions, i.e. a finished one)."""
        best = np.empty(table.batch_size, np.int64)
        _plan(self.geo, table, masks, self.style, np.empty((0, self.geo.actions.n_actions), np.int32), best)
        return best

    def plan(self, table: Table, masks: np.ndarray) -> Plan:
        """Every action's score (see :class:`Plan`)."""
        return plan_scores(self.geo, table, masks, self.style)

    def scores(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``float64 (B, A)``: the value of every action in action points (minus its plan's cost),
        ``-inf`` where the mask forbids it. Higher is better (as Flight Tycoon's heuristic; the
        ``ppo`` agent's prior reads it)."""
        cost = self.plan(Table.from_observations(self.geo, observations), masks).scores(self.geo)
        return np.where(cost >= NONE, -np.inf, -cost / UNIT)


def plan_scores(geo: Geometry, t: Table, masks: np.ndarray, style: Style | None = None) -> Plan:
    """Score every action of B games (see the module docstring); ``masks`` bool (B, n_actions)."""
    B = t.batch_size
    plan = Plan(np.empty((B, geo.actions.n_actions), np.int32), np.empty(B, np.int64), geo)
    _plan(geo, t, masks, style or Style(), plan.all, plan.choice)
    return plan


def _plan(geo: Geometry, t: Table, masks: np.ndarray, style: Style, scores: np.ndarray, best: np.ndarray) -> None:
    """Run the compiled planner (:func:`kernel.plan_batch`) on a table: ``scores`` int32 (B, A) or
    (0, A) (then only ``best`` int64 (B,) is filled)."""
    rules, A = geo.rules, geo.actions.n_actions
    masks = np.asarray(masks, dtype=bool)
    if masks.ndim != 2 or masks.shape[0] != t.batch_size or masks.shape[1] < A:
        raise ValueError(f"masks must be bool (B, {A}) for a batch of {t.batch_size}, got shape {masks.shape}")
    masks = np.ascontiguousarray(masks[:, :A])  # (columns past the last action, as in a padded buffer, are ignored)

    def small(a):  # colours
        return np.ascontiguousarray(a, dtype=np.int16)

    def wide(a):  # cells, slots, counts
        return np.ascontiguousarray(a, dtype=np.int64)

    def flag(a):
        return np.ascontiguousarray(a, dtype=bool)

    kernel.plan_batch(
        geo.G, geo.F, geo.n_colors, geo.early, rules.action_points, rules.replace_cost, rules.max_replace,
        style.cycle, style.grow, style.farm, style.margin, geo.neighbour, geo.ray, geo.row_of, geo.col_of,
        geo.centrality_table, small(t.hcol), small(t.vcol), wide(t.plane), small(t.slot_h), small(t.slot_v),
        wide(t.origin_cell), wide(t.destination_cell), wide(t.origin_slot), wide(t.destination_slot),
        small(t.origin_h), small(t.origin_v), small(t.destination_h), small(t.destination_v), flag(t.active),
        flag(t.aboard), wide(t.die), wide(t.deck_size), np.ascontiguousarray(t.available, dtype=np.int32), masks,
        scores, best)
