"""The heuristic Flight Tycoon agent: a sensible player that reasons only from its own observation.

Every decision scores each legal action and plays the best (ties broken by the agent's seeded
randomness). The scores come from :class:`~agents.flight_tycoon.facts.Facts` — the observation
decoded — and a hypergeometric model of the hands it cannot see: the cards it cannot locate are
spread uniformly over the other hands' unlocated slots and the deck.

* **Tower** (FT-6): the tower counts as the laid card's month for the whole game and never leaves
  the hand (unless ``tower_giveable``), so that month is blocked for its own landings for good. It
  lays aside a card of a month it holds twice (the month stays blocked by the twin anyway), else one
  whose month sits among the months it already holds on the big squares (season, half-year,
  odd/even), keeping the other side of those squares open for landings.
* **Request** (FT-8, FT-10, FT-11): for every other player and square, the chance of a landing times
  its VP. The target is assumed to give the card that hurts most (FT-9: a card meeting the square,
  of a month the requester holds, if it has one), so a landing needs the target to hold a card
  meeting the square and none of those of the requester's months — or, holding nothing meeting the
  square, no card of the requester's months at all. Located cards make these certain; the rest is
  the chance over the target's unlocated cards. VP are shared by the tokens already on the square.
* **Give** (FT-9): the allowed card most likely to collide — a month the requester is seen to hold
  (its tower, a located card) first, else the month it most likely holds among its unlocated cards;
  then a card whose loss frees one of its own months.
* **Discard** (FT-10): of the colliding month's cards, the one whose airline it holds least, so its
  hand covers few airlines and airline requests leave it free to choose what to give (FT-9).

Vectorized over the batch (loops over seats and squares only), deterministic given its seed and the
decision keys (``aerodeck.agents.streams``), and needs nothing beyond the observation and the mask, so it plays
inside the AEC env as well.
"""

from __future__ import annotations

import numpy as np

from aerodeck.agents.base import Agent, Knob
from aerodeck.agents.flight_tycoon.facts import (
    CARD_MONTH, CARD_SUIT, DISCARD, GIVE, MONTHS_CARDS, REQUEST, SQUARE_BITS, SUIT_BITS, TOWER, Facts,
    landing_vp_table, month_counts, months_of, none_base, none_held, none_table, rules_for,
)
from aerodeck.envs.flight_tycoon.observation import ObservationLayout
from aerodeck.envs.flight_tycoon.rules import N_CARDS, N_MONTHS, N_SQUARES, SQUARE_KIND, SQUARE_MONTHS, FlightTycoonRules

#: ``uint16 (24,)``: the months whose tower meets each square (month-based squares only, FT-9 ``tower_giveable``).
_TOWER_MEETS = (SQUARE_MONTHS * (1 << np.arange(N_MONTHS))).sum(1).astype(np.uint16)
#: The squares made of several months (season, half-year, odd/even) and their months.
_GROUPS = np.flatnonzero((SQUARE_KIND > 0) & (SQUARE_KIND < 4))
_GROUP_MONTHS = SQUARE_MONTHS[_GROUPS].astype(np.float64)  # (8, 12)


class HeuristicAgent(Agent):
    """A rule-of-thumb player (see the module docstring).

    ``land_bonus``: value of a landing beyond its VP (a card more in hand, FT-12's tie-break; it also
    makes a landing worth trying on a square that pays 0 VP). ``noise``: scale of the random
    tie-break added to the scores (0 = lowest action index wins ties).
    """

    name = "heuristic"
    knobs = {
        "land_bonus": Knob(float, doc="value of a landing beyond its VP (a card more in hand, FT-12's tie-break)"),
        "noise": Knob(float, 0, doc="scale of the random tie-break added to the scores (0: lowest action wins ties)"),
    }

    def __init__(self, seed: int | None = 0, rules: FlightTycoonRules | None = None, land_bonus: float = 0.25,
                 noise: float = 1e-4) -> None:
        super().__init__(seed, rules)
        self.land_bonus = self.knobs["land_bonus"].parse(land_bonus, "heuristic agent knob 'land_bonus'")
        self.noise = self.knobs["noise"].parse(noise, "heuristic agent knob 'noise'")
        self._tables: dict = {}

    def setup(self, n_actions: int) -> tuple[FlightTycoonRules, ObservationLayout, np.ndarray]:
        """The rules, observation layout and landing VP table (``landing_vp_table``) for masks of width ``n_actions``."""
        if n_actions not in self._tables:
            rules = rules_for(self.rules, n_actions)
            self._tables[n_actions] = (rules, ObservationLayout(rules), landing_vp_table(rules).astype(np.float32))
        return self._tables[n_actions]

    def act(self, observations: np.ndarray, masks: np.ndarray, view=None, keys: np.ndarray | None = None) -> np.ndarray:
        """Actions ``int64 (B,)`` for observations ``float32 (B, obs_size)``, masks ``bool (B, A)`` and
        decision keys ``uint64 (B,)`` (the tie-break noise; ``None``: the agent's generator)."""
        masks = np.asarray(masks, bool)
        layout = self.setup(masks.shape[1])[1]
        return self.act_on(Facts.read(layout, observations), masks, keys)

    def act_on(self, facts: Facts, masks: np.ndarray, keys: np.ndarray | None = None) -> np.ndarray:
        """Actions ``int64 (B,)`` from decoded :class:`Facts`, masks ``bool (B, A)`` and decision keys
        ``uint64 (B,)`` or ``None``."""
        out = np.zeros(masks.shape[0], np.int64)
        for rows, block, scores in self._by_kind(facts, masks):
            if self.noise > 0:
                scores += self.noise * self.uniform(None if keys is None else keys[rows], scores.shape,
                                                    dtype=np.float32)
            np.putmask(scores, ~masks[rows, block], -np.inf)
            out[rows] = scores.argmax(1) + block.start
        return out

    def scores(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``float64 (B, A)``: the value of every action, ``-inf`` where the mask forbids it. Higher is better."""
        masks = np.asarray(masks, bool)
        return self.scores_on(Facts.read(self.setup(masks.shape[1])[1], observations), masks)

    def scores_on(self, facts: Facts, masks: np.ndarray) -> np.ndarray:
        """:meth:`scores` from decoded :class:`Facts`."""
        out = np.zeros(masks.shape)
        for rows, block, scores in self._by_kind(facts, masks):
            out[rows, block] = scores
        out[~masks] = -np.inf
        return out

    def _by_kind(self, facts: Facts, masks: np.ndarray):
        """Per decision kind present: (rows int64 (r,), the block of actions it chooses from (a slice),
        scores float32 (r, block width))."""
        rules, _, vp_table = self.setup(masks.shape[1])
        # the decision kind; a finished game's observation says none: read it off the mask
        kind = np.where(facts.decision >= 0, facts.decision, np.where(masks[:, N_CARDS:].any(1), REQUEST, GIVE))
        cards, requests = slice(0, N_CARDS), slice(N_CARDS, masks.shape[1])
        for which in (TOWER, REQUEST, GIVE, DISCARD):
            rows = np.flatnonzero(kind == which)
            if rows.size == 0:
                continue
            part = facts.take(rows) if rows.size < kind.size else facts
            if which == REQUEST:
                yield rows, requests, request_scores(part, rules, vp_table, self.land_bonus)
            else:
                score = {TOWER: tower_scores, GIVE: give_scores, DISCARD: discard_scores}[which]
                yield rows, cards, score(part, rules).astype(np.float32)


def tower_scores(facts: Facts, rules: FlightTycoonRules) -> np.ndarray:
    """``float64 (B, 48)``: how good each card of my hand is to lay aside for the tower (FT-6).

    A month held twice scores 2 (the tower adds no block the twin does not already make), once 1; plus
    up to 0.5 for how much the month's big squares (season, half-year, odd/even, weighted by VP) are
    already blocked by my other months, so the tower closes a side I cannot land on anyway.
    """
    per_month = month_counts(facts.hand).astype(np.float64)  # (B, 12)
    vp = np.asarray(rules.vp_table, np.float64)[SQUARE_KIND[_GROUPS]]  # (8,)
    blocked = (per_month > 0) @ _GROUP_MONTHS.T / _GROUP_MONTHS.sum(1)  # (B, 8): share of its months I hold
    cluster = (blocked * vp) @ _GROUP_MONTHS / np.maximum(vp @ _GROUP_MONTHS, 1e-9)  # (B, 12) in [0, 1]
    return (np.minimum(per_month, 2.0) + 0.5 * cluster)[:, CARD_MONTH]


def request_scores(facts: Facts, rules: FlightTycoonRules, vp_table: np.ndarray, land_bonus: float) -> np.ndarray:
    """``float32 (B, (n−1)·24)``: expected value of every request (FT-8), in action order (FT-17).

    Value = P(landing) × (VP of the square with the new token, FT-11, + ``land_bonus``); see the module
    docstring for the model of P(landing) and :func:`request_odds`.
    """
    p_land, known_bad, value = request_odds(facts, rules, vp_table, land_bonus)
    return np.where(known_bad, np.float32(0), p_land * value[:, None, :]).reshape(facts.batch_size, -1)


def request_odds(facts: Facts, rules: FlightTycoonRules, vp_table: np.ndarray,
                 land_bonus: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The parts of :func:`request_scores`: P(landing) ``float32 (B, n−1, 24)`` for each target offset
    and square, ``known_bad`` ``bool (B, n−1, 24)`` (the target surely holds a card of my months meeting
    the square, so it collides), and the square's value if it lands ``float32 (B, 24)`` (FT-11's VP
    with my token, + ``land_bonus``)."""
    mine = facts.months  # (B,) uint16: a card of these months collides (FT-10)
    bad = MONTHS_CARDS[mine]  # (B,) the cards of my months
    unknown = facts.unknown
    # cards I cannot locate meeting each square: all of them, those of my months, and either — (B, 1, 24)
    loose = np.bitwise_count(unknown[:, None] & SQUARE_BITS).astype(np.int32)[:, None, :]
    loose_bad = np.bitwise_count((unknown & bad)[:, None] & SQUARE_BITS).astype(np.int32)[:, None, :]
    loose_either = loose - loose_bad + np.bitwise_count(unknown & bad).astype(np.int32)[:, None, None]
    others = facts.located[:, 1:]  # (B, n−1): what I can locate in each possible target's hand
    meets = others[:, :, None] & SQUARE_BITS  # (B, n−1, 24)
    meets_bad = meets & bad[:, None, None]
    known_bad = meets_bad != 0
    known_good = meets != meets_bad
    known_bad_any = (others & bad[:, None]) != 0  # (B, n−1)
    if rules.tower_giveable:  # a tower meets month-based squares by its month and may be given (FT-9)
        towers = facts.towers[:, 1:]
        known_bad |= ((towers & mine[:, None])[:, :, None] & _TOWER_MEETS) != 0
        known_good |= ((towers & ~mine[:, None])[:, :, None] & _TOWER_MEETS) != 0
        known_bad_any |= (towers & mine[:, None]) != 0
    table = none_table()
    base = none_base(np.bitwise_count(unknown)[:, None, None], facts.hidden[:, 1:, None])  # (B, n−1, 1)
    no_bad = table[base + loose_bad]  # no unlocated card of my months meets the square
    # FT-9, the target choosing what hurts me: a landing needs every meeting card off my months (and one) …
    p_land = np.where(known_good, no_bad, no_bad - table[base + loose])
    # … or nothing meeting the square and no card at all of my months
    free = ~(known_good | known_bad_any[:, :, None])
    p_land += np.where(free, table[base + loose_either], np.float32(0))
    count = np.minimum(facts.tokens + 1, vp_table.shape[1] - 1)  # tokens with mine (FT-11)
    value = vp_table[np.arange(N_SQUARES), count] + np.float32(land_bonus)  # (B, 24)
    return p_land, known_bad, value


def give_scores(facts: Facts, rules: FlightTycoonRules) -> np.ndarray:
    """``float64 (B, 48)``: how good each card is to give (FT-9): P(it collides in the requester's hand),
    plus 0.01 if giving it frees one of my months."""
    B = facts.batch_size
    rows = np.arange(B)
    asker = np.maximum(facts.requester, 1)
    seen = facts.towers[rows, asker] | months_of(facts.located[rows, asker])  # (B,) months it surely holds
    seen = (seen[:, None] >> np.arange(N_MONTHS, dtype=np.uint16)) & 1 != 0  # (B, 12)
    unknown = facts.unknown
    loose = month_counts(unknown)  # (B, 12)
    hidden = facts.hidden[rows, asker][:, None]
    pool = np.bitwise_count(unknown).astype(np.int64)[:, None]
    collide = np.where(seen, 1.0, 1.0 - none_held(loose, hidden, pool))  # (B, 12)
    # my cards of each month, the tower included (with tower_giveable a tower is named by its laid card)
    mine = month_counts(facts.hand) + ((facts.towers[:, :1] >> np.arange(N_MONTHS, dtype=np.uint16)) & 1)
    return (collide + 0.01 * (mine == 1))[:, CARD_MONTH]


def discard_scores(facts: Facts, rules: FlightTycoonRules) -> np.ndarray:
    """``float64 (B, 48)``: how good each card is to discard after a collision (FT-10): minus the cards
    of its airline in my hand, so the rarest airline goes."""
    suits = np.bitwise_count(facts.hand[:, None] & SUIT_BITS).astype(np.float64)  # (B, 4)
    return -suits[:, CARD_SUIT]
