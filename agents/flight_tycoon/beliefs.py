"""Where a seat's unlocated cards may be: each card's chance of lying in each other hand, computed from
the observation alone (FT-6, FT-13, FT-14) — a network input at about the cost of the heuristic's odds.

The cards a seat cannot locate (``Facts.unknown``) fill the other hands' unlocated slots, the deck and,
before the reveal, the cards the others laid aside. Hands are sorted and each tower stands first within
its month at a public slot (FT-6, FT-13), so a tower of month m at slot s splits its hand: the real cards
before it are of months below m, those after it of month m or later. Each hand is therefore a row of
*segments* (between consecutive towers), each with a known number of slots to fill and a month range.

:func:`hand_beliefs` spreads the unknown cards over those segments and the rest (deck and laid cards) by
iterative proportional fitting: each card's chances sum to 1, each segment's to its number of free
slots. With no towers this is the exact hypergeometric marginal (every unknown card lies in a hand with
chance free slots / unknown cards); with towers it is the maximum-entropy fit of the same two sets of
sums, close to the search's sampler (``envs.flight_tycoon.knowledge``) — the tests compare the two.
"""

from __future__ import annotations

import numpy as np

from agents.flight_tycoon.facts import Facts, month_counts
from envs.common.bits import unpack_bits
from envs.flight_tycoon.observation import CARD_SCALE, ObservationLayout
from envs.flight_tycoon.rules import CARD_MONTH, N_CARDS, N_MONTHS

#: Segments a hand can have: one more than its towers (at most one per month).
N_SEGMENTS = N_MONTHS + 1


def hand_beliefs(layout: ObservationLayout, observations: np.ndarray, iterations: int = 8) -> np.ndarray:
    """``float32 (B, n − 1, 48)``: [b, t − 1, c] the chance that card c lies in the hand of offset t
    (1 … n − 1) for the seat that sees ``observations`` ``float32 (B, obs_size)`` (``layout``: the core's
    ``observation``). Located cards are 1 in their hand and 0 elsewhere, cards out of the hands (mine,
    discarded, laid and seen) 0; ``iterations`` rounds of proportional fitting spread the unknown ones.
    """
    obs = np.asarray(observations, np.float32)
    facts = Facts.read(layout, obs)
    B, n = obs.shape[0], layout.n_players
    unknown = unpack_bits(facts.unknown, N_CARDS)  # (B, 48)

    # The towers of the other hands: slot (0 … 47) by month, −1 where none (FT-13: public after the reveal).
    slots = np.rint(obs[:, layout.slice("towers")].reshape(B, n, N_MONTHS)[:, 1:] * CARD_SCALE).astype(np.int64) - 1
    tower = slots >= 0  # (B, n-1, 12)
    # Segment of each month in each hand: the towers at or below it (a tower stands first in its month).
    segment_of_month = np.cumsum(tower, axis=2)  # (B, n-1, 12), 0 … 12
    # Real cards below each tower: its slot less the towers before it; segment k lies between towers k and k+1.
    below = np.zeros((B, n - 1, N_SEGMENTS + 1), np.int64)
    real = facts.real_size[:, 1:]
    below[..., :] = real[..., None]
    k_of_tower = np.where(tower, segment_of_month, N_SEGMENTS)  # the k-th tower starts segment k
    np.put_along_axis(below, k_of_tower, slots - (segment_of_month - 1), axis=2)  # tower-less months hit the spare last entry
    below[..., 0] = 0
    below[..., N_SEGMENTS] = real
    size = np.maximum(np.diff(below, axis=2), 0)  # (B, n-1, 13): real cards in each segment
    # The unknown cards of one month are alike to the seat: the fit runs on months, [b, t, m] the chance
    # that a given unknown card of month m lies in hand t. Each (game, hand, segment) is numbered once,
    # so that a sum over a segment's months is one bincount.
    where = (np.arange(B * (n - 1)).reshape(B, n - 1, 1) * N_SEGMENTS + segment_of_month).ravel()
    cells = B * (n - 1) * N_SEGMENTS

    def per_segment(values: np.ndarray) -> np.ndarray:
        return np.bincount(where, weights=values.ravel(), minlength=cells)

    unknown_months = month_counts(facts.unknown).astype(np.float64)  # (B, 12)
    free = np.maximum(size.ravel() - per_segment(month_counts(facts.located[:, 1:])), 0)  # unlocated slots
    elsewhere = np.maximum(unknown_months.sum(1) - free.reshape(B, -1).sum(1), 0)  # (B,): deck and laid cards

    x = ((unknown_months[:, None, :] > 0) & (free[where].reshape(B, n - 1, N_MONTHS) > 0)).astype(np.float64)
    rest = ((unknown_months > 0) & (elsewhere[:, None] > 0)).astype(np.float64)  # (B, 12)
    for _ in range(iterations):
        filled = per_segment(x * unknown_months[:, None, :])
        x *= np.divide(free, filled, out=np.zeros_like(free), where=filled > 0)[where].reshape(x.shape)
        total = (rest * unknown_months).sum(1)
        rest *= np.divide(elsewhere, total, out=np.zeros_like(total), where=total > 0)[:, None]
        chance = x.sum(1) + rest
        scale = np.divide(1.0, chance, out=np.zeros_like(chance), where=chance > 0)
        x *= scale[:, None, :]
        rest *= scale
    located = unpack_bits(facts.located[:, 1:], N_CARDS)  # (B, n-1, 48)
    return np.where(located, np.float32(1), x[..., CARD_MONTH] * unknown[:, None, :]).astype(np.float32)
