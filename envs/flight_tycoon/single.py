"""One game of Flight Tycoon, fast: what the AEC environment runs on.

A batch of one pays numpy's per-call overhead hundreds of times per decision; the reference engine
steps one game in plain Python several times faster, but spends most of a decision in its plainly
written observation. :class:`SingleGame` is the reference engine's game with the observation written
from plain Python values in one array write, and :meth:`SingleGame.core_state` gives the game as the
core's batch of one (for look-ahead agents: ``aerodeck.envs.view_of_env``).
``tests/flight_tycoon/test_env.py`` plays it against the batched core step by step (every seat's
observation bit for bit, masks, rewards, states) over the differential tests' rule variants.
"""

from __future__ import annotations

import bisect
import functools

import numpy as np

from aerodeck.envs.common.rng import game_key
from aerodeck.envs.flight_tycoon.observation import CARD_SCALE, ObservationLayout, inverse
from aerodeck.envs.flight_tycoon.reference import ReferenceGame
from aerodeck.envs.flight_tycoon.actions import request_action
from aerodeck.envs.flight_tycoon.rules import N_CARDS, N_MONTHS, N_SQUARES, N_SUITS, REQUEST, FlightTycoonRules, month_of
from aerodeck.envs.flight_tycoon.state import State


class Plan:
    """The observation's block offsets and scale factors for one rules object, as Python values.

    A scaled count is ``float32(count) * inverse(scale)`` in both engines; the product of two float32
    values computed in float64 and stored as float32 is that same float32 product, so the values
    below (Python floats) give the core's observation bit for bit.
    """

    def __init__(self, rules: FlightTycoonRules) -> None:
        lay = self.layout = ObservationLayout(rules)
        self.at = {name: block.start for name, block in lay.blocks.items()}
        self.per_card = float(inverse(CARD_SCALE))
        self.per_vp = float(inverse(lay.vp_scale))
        self.per_token = float(inverse(lay.token_scale))


@functools.lru_cache(maxsize=64)
def plan(rules: FlightTycoonRules) -> Plan:
    """The (cached) :class:`Plan` of ``rules``."""
    return Plan(rules)


def _bits(cards) -> np.uint64:
    return np.uint64(sum(1 << c for c in cards))


class SingleGame(ReferenceGame):
    """One game: ``observe(seat)`` ``float32 (obs_size,)`` equal to the core's, ``legal_mask()``,
    ``step(action)`` and ``to_act`` as the reference engine's; :meth:`core_state` the same game as
    the core's ``State`` of one game."""

    def _setup(self, rules: FlightTycoonRules, seed: int) -> None:
        super()._setup(rules, seed)
        self.seed = seed
        self.plan = plan(rules)

    def items(self, seat: int) -> list:
        """The hand of ``seat`` as held, slot by slot (the reference's, without a sort: hands are kept
        sorted by id, which is card order, and a tower goes first within its month, FT-6)."""
        hand = self.hands[seat]
        towers = sorted((t.laid // N_SUITS, t.owner) for t in self.towers if t.holder == seat and t.laid is not None)
        if not towers:
            return list(hand)
        items, at = [], 0
        for month, owner in towers:
            below = bisect.bisect_left(hand, N_SUITS * month, at)
            items += hand[at:below]
            items.append(("T", owner))
            at = below
        return items + hand[at:]

    def step(self, action: int) -> list[float]:
        """The reference's step (the mask of the decision is worked out once)."""
        try:
            return super().step(action)
        finally:
            self._mask = None

    def legal_mask(self) -> np.ndarray:
        """``bool (n_actions,)`` for the seat in ``to_act`` (the reference's; FT-8 requests by block);
        read-only, worked out once per decision."""
        if getattr(self, "_mask", None) is not None:
            return self._mask
        if self.phase != REQUEST:
            mask = super().legal_mask()
        else:
            mask = np.zeros(self.n_actions, bool)
            for offset in range(1, self.n):  # FT-8: a target holding a real card, any square
                if self.hands[(self.active + offset) % self.n]:
                    mask[request_action(offset, 0) : request_action(offset, 0) + N_SQUARES] = True
        mask.flags.writeable = False
        self._mask = mask
        return mask

    def explain_illegal(self, action: int) -> str | None:
        """The reference's answer, read from the mask when the action is legal."""
        if 0 <= action < self.n_actions and self.legal_mask()[action]:
            return None
        return super().explain_illegal(action)

    def observe(self, seat: int) -> np.ndarray:
        """``float32 (obs_size,)``: what ``seat`` may know (FT-13, FT-14), as the reference's."""
        p, n = self.plan, self.n
        at = p.at
        hand = at["hand"]
        index = [hand + c for c in self.hands[seat]]
        if self.views is not None:  # FT-14: the cards ``seat`` can locate in other hands
            for h, view in enumerate(self.views[seat]):
                if h != seat:
                    start = hand + (h - seat) % n * N_CARDS
                    index += [start + e for e in view if type(e) is int]  # (not a tower, not unknown)
        index += [at["discard"] + c for c in self.discard]
        value = [1.0] * len(index)
        held = [len(cards) for cards in self.hands]  # hand sizes, towers included (FT-13)
        months: list[list[int]] = [[] for _ in range(n)]  # the months of the towers each seat holds
        for tower in self.towers:
            if tower.laid is not None and tower.holder is not None:
                held[tower.holder] += 1
                months[tower.holder].append(tower.laid // N_SUITS)
        for tower in self.towers:
            if tower.laid is None or not (self.revealed or tower.owner == seat):
                continue  # FT-6: a pending choice is hidden from the others
            index.append(at["laid"] + tower.laid)
            value.append(1.0)
            holder = tower.holder
            if holder is not None:  # FT-6: a tower sorts first within its month (hands are kept sorted)
                month = tower.laid // N_SUITS
                slot = bisect.bisect_left(self.hands[holder], N_SUITS * month) + sum(m < month for m in months[holder])
                index.append(at["towers"] + (holder - seat) % n * N_MONTHS + month)
                value.append((slot + 1) * p.per_card)
        for q in range(n):
            index += (at["hand_size"] + (q - seat) % n, at["vp"] + (q - seat) % n)
            value += (held[q] * p.per_card, self.vp[q] * p.per_vp)
        index += range(at["tokens"], at["tokens"] + N_SQUARES)
        value += [t * p.per_token for t in self.tokens]
        index += (at["deck"], at["stock"])
        value += (len(self.deck) * p.per_card, self.stock * p.per_token)
        if not self.done:
            index += (at["decision"] + self.phase, at["decider"] + (self.to_act - seat) % n)
            value += (1.0, 1.0)
        rec = self.record
        if rec["active"] >= 0:
            index += (at["turn_active"] + (rec["active"] - seat) % n, at["turn_outcome"] + rec["outcome"])
            value += (1.0, 1.0)
        if rec["target"] >= 0:
            index += (at["turn_target"] + (rec["target"] - seat) % n, at["turn_square"] + rec["square"])
            value += (1.0, 1.0)
        for i, name in enumerate(("give", "land", "discard", "draw")):
            if rec[name] >= 0:
                index.append(at["turn_slots"] + i)
                value.append((rec[name] + 1) * p.per_card)
        obs = np.zeros(p.layout.size, np.float32)
        obs[index] = value
        return obs

    def core_state(self) -> State:
        """The game now as the core's ``State`` of one game: every field the core reads (the
        stale ``target``, ``square`` and ``received`` of a finished turn are −1 here)."""
        n = self.n
        st = State.empty(1, n)
        snap = self.snapshot()
        for q in range(n):
            st.hand[0, q] = _bits(self.hands[q])
            st.known[0, q] = _bits(snap["known"][q])
        st.deck[0], st.discard[0] = _bits(self.deck), _bits(self.discard)
        for t, tower in enumerate(self.towers):
            st.laid[0, t] = -1 if tower.laid is None else tower.laid
            st.tower_holder[0, t] = -1 if tower.holder is None else tower.holder
            if tower.holder is not None and tower.laid is not None:
                st.tower_months[0, tower.holder] |= np.uint16(1 << month_of(tower.laid))
        st.tokens[0], st.stock[0], st.vp[0] = self.tokens, self.stock, self.vp
        st.phase[0], st.active[0], st.start[0] = self.phase, self.active, self.start
        st.target[0] = -1 if self.target is None else self.target
        st.square[0] = -1 if self.square is None else self.square
        st.received[0] = -1 if self.received is None else self.received
        st.record[0] = list(self.record.values())
        st.key[0], st.counter[0], st.done[0] = game_key(self.seed), self.counter, self.done
        return st

