"""One game of Airport Scramble, fast: what the single-game environment runs on.

A batch of one pays numpy's per-call overhead hundreds of times per decision, and the reference
engine spends its time in its plainly written observation and legal mask. :class:`SingleGame` is
the reference engine's game (its rules code steps the game) with an observation and a legal mask
written from plain Python values in one array write each: the mask from the frontier cells only,
the observation from per-rules lists of indices and values (:class:`Plan`, from the core's tables).
``tests/airport_scramble/test_env.py`` plays it against the batched core step by step
(observations bit for bit, masks, rewards, positions) over many seeds and rule variants.
"""

from __future__ import annotations

import functools

import numpy as np

from aerodeck.envs.airport_scramble.position import LINE_CHOICE
from aerodeck.envs.airport_scramble.reference import ReferenceGame
from aerodeck.envs.airport_scramble.rules import AirportScrambleRules
from aerodeck.envs.airport_scramble.tables import tables


class Plan:
    """What one game's observation and mask need of the rules, as Python ints, floats and lists.

    Float values are the float32 values of the layout (exact as Python floats); a quotient of two
    small integers computed in float64 and stored as float32 equals the float32 quotient (AS-17's
    ``scaled``), so the observation is bit for bit the core's.
    """

    def __init__(self, rules: AirportScrambleRules) -> None:
        t = self.tables = tables(rules)
        lay, comp, L = t.observation, rules.components, t.actions
        G, G2, F = t.G, t.G2, t.F
        self.G, self.G2, self.F, self.n_actions = G, G2, F, t.n_actions
        self.play = [L.play_offset + s * G2 for s in range(F)]  # first play action of slot s
        self.replace, self.line, self.wait = L.replace_offset, L.line_offset, L.wait
        #: Per cell (row-major): its in-grid neighbours as (cell, horizontal?) — AS-9 matches the H
        #: colours of the left and right neighbours, the V colours of the upper and lower ones.
        self.sides = [[(int(n), d % 2 == 1) for d, n in enumerate(t.neighbour[cell]) if n < G2]
                      for cell in range(G2)]
        self.card_h, self.card_v = comp.card_h, comp.card_v
        colour = lay.color_values.tolist()
        self.h_value = [colour[h + 1] for h in comp.card_h]
        self.v_value = [colour[v + 1] for v in comp.card_v]
        self.place_value = lay.place_values.tolist()  # by 1 + place
        self.origin, self.destination = comp.ticket_origin, comp.ticket_destination
        at = t.obs_start
        #: where blocks start in the observation
        self.cell_hv_at, self.card_place_at, self.deck_at, self.ticket_deck_at = (
            at["cell_hv"], at["card_place"], at["deck"], at["ticket_deck"])
        self.plane_at, self.slot_hv_at, self.die_at = at["plane"], at["slot_hv"], at["die"]
        self.ends = [(at["origin_cell"], at["slot_origin"], at["origin_place"], at["origin_hv"]),
                     (at["destination_cell"], at["slot_destination"], at["destination_place"], at["destination_hv"])]
        # die .. score, adjacent in the layout: their divisors
        self.scales = [lay.die_scale, rules.action_points, 1, 1, 1, 1, t.N, t.T, t.T]
        self.fly = [[d * (G - 1) + k for k in range(G - 1)] for d in range(4)]
        self.fly_ok = t.fly_table.tolist()  # by 2 * reach + stopping early affordable (AS-8)
        self.run_after, self.run_before = t.run_after.tolist(), t.run_before.tolist()
        self.replace_ok = t.replace_table  # by (filled slots, min(deck, F), affordable) (AS-10)


@functools.lru_cache(maxsize=64)
def plan(rules: AirportScrambleRules) -> Plan:
    """The (cached) :class:`Plan` of ``rules``."""
    return Plan(rules)


class SingleGame(ReferenceGame):
    """One game: ``observe()`` ``float32 (obs_size,)`` and ``legal_mask()`` ``bool (n_actions,)``
    equal to the core's row for the same game, ``step(action) -> float`` and ``snapshot()`` as the
    reference engine's."""

    def _bind(self, rules: AirportScrambleRules) -> None:
        p = self.plan = plan(rules)  # the reference's fields, from the cached tables
        self.rules, self.comp, self.G = rules, rules.components, p.G
        self.actions, self.observation = p.tables.actions, p.tables.observation

    def legal_mask(self) -> np.ndarray:
        """``bool (n_actions,)``: the legal actions now (the reference's, AS-8 … AS-11, AS-15)."""
        p, rules = self.plan, self.rules
        mask = np.zeros(p.n_actions, bool)
        if self.done:
            return mask
        if self.phase == LINE_CHOICE:  # AS-15, rare: the reference's own
            return super().legal_mask()
        G, grid = p.G, self.grid
        r0, c0 = self.plane
        row_bits = sum(1 << c for c, card in enumerate(grid[r0]) if card >= 0)
        col_bits = sum(1 << r for r in range(G) if grid[r][c0] >= 0)
        early = self.points > rules.stop_early_cost
        reach = (p.run_before[col_bits * G + r0], p.run_after[row_bits * G + c0],
                 p.run_after[col_bits * G + r0], p.run_before[row_bits * G + c0])  # AS-8: N, E, S, W
        legal = [a for d, n in enumerate(reach) if n for a, ok in zip(p.fly[d], p.fly_ok[2 * n + early]) if ok]
        # AS-9: every slot's card on every frontier cell whose neighbours' colours it matches
        flat = [card for row in grid for card in row]
        card_h, card_v, sides = p.card_h, p.card_v, p.sides
        slots = [(p.play[s], card_h[card], card_v[card]) for s, card in enumerate(self.slots) if card >= 0]
        seen = set()
        for cell, card in enumerate(flat):
            if card < 0:
                continue
            for near, _ in sides[cell]:
                if flat[near] >= 0 or near in seen:
                    continue
                seen.add(near)
                h = v = -1
                for other, horizontal in sides[near]:
                    there = flat[other]
                    if there < 0:
                        continue
                    if horizontal:
                        if h >= 0 and card_h[there] != h:
                            break  # the two neighbours ask for different colours: nothing fits
                        h = card_h[there]
                    else:
                        if v >= 0 and card_v[there] != v:
                            break
                        v = card_v[there]
                else:
                    legal += [start + near for start, ch, cv in slots if (h < 0 or ch == h) and (v < 0 or cv == v)]
        if legal:
            mask[legal] = True
        filled = sum(1 << s for s, card in enumerate(self.slots) if card >= 0)  # AS-10
        row = filled * (2 * p.F + 2) + min(len(self.deck), p.F) * 2 + (self.points >= rules.replace_cost)
        mask[p.replace : p.line] = p.replace_ok[row]
        mask[p.wait] = rules.allow_wait or not mask.any()  # AS-11
        return mask

    def observe(self) -> np.ndarray:
        """``float32 (obs_size,)`` as ``ObservationLayout`` (AS-17), equal to the reference's."""
        p = self.plan
        index: list[int] = []
        value: list[float] = []
        h_value, v_value, place = p.h_value, p.v_value, p.place_value
        cell_hv, card_place = p.cell_hv_at, p.card_place_at
        cell_of = {}
        cell = 0
        for row in self.grid:
            for card in row:
                if card >= 0:
                    cell_of[card] = cell
                    index += (cell_hv + 2 * cell, cell_hv + 2 * cell + 1, card_place + card)
                    value += (h_value[card], v_value[card], place[1 + cell])
                cell += 1
        r, c = self.plane
        index.append(p.plane_at + r * p.G + c)
        value.append(1.0)
        for s, card in enumerate(self.slots):
            if card >= 0:
                index += (p.slot_hv_at + 2 * s, p.slot_hv_at + 2 * s + 1, card_place + card)
                value += (h_value[card], v_value[card], place[1 + p.G2 + s])
        if self.ticket >= 0:  # where the ticket's two airports lie: in play, face up or in the deck
            ends = (p.origin[self.ticket], p.destination[self.ticket])
            for (cell_at, slot_at, place_at, hv_at), card in zip(p.ends, ends):
                if card in cell_of:
                    index += (cell_at + cell_of[card], place_at)
                    value += (1.0, 1.0)
                elif card in self.slots:
                    index += (slot_at + self.slots.index(card), place_at + 1)
                    value += (1.0, 1.0)
                else:
                    index.append(place_at + 2)
                    value.append(1.0)
                index += (hv_at, hv_at + 1)
                value += (h_value[card], v_value[card])
        counts = (self.die, self.points, self.aboard, self.ticket >= 0, self.phase == LINE_CHOICE, self.redraw_used,
                  len(self.deck), len(self.ticket_deck), self.score)
        index += range(p.die_at, p.die_at + 9)
        value += [x / scale for x, scale in zip(counts, p.scales)]
        index += [p.deck_at + card for card in self.deck]
        index += [p.ticket_deck_at + ticket for ticket in self.ticket_deck]
        value += [1.0] * (len(self.deck) + len(self.ticket_deck))
        obs = np.zeros(p.tables.obs_size, np.float32)
        obs[index] = value
        return obs
