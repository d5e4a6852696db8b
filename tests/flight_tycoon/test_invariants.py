"""Invariants checked after every step of many random games on the core."""

import numpy as np
import pytest

from aerodeck.envs.common.batch import sample_legal
from aerodeck.envs.common.bits import BIT
from aerodeck.envs.flight_tycoon.core import FlightTycoonCore
from aerodeck.envs.flight_tycoon.rules import FlightTycoonRules

from .differential import VARIANTS

ALL = np.uint64((1 << 48) - 1)


def _laid_bits(st):
    return np.bitwise_or.reduce(np.where(st.laid >= 0, BIT[np.maximum(st.laid, 0)], np.uint64(0)), axis=1)


def _check(core, st, before_vp):
    n, rules = core.n_players, core.rules
    # every card in exactly one place: a hand, the deck, the discard pile or laid aside (FT-1, FT-6)
    places = [st.hand[:, p] for p in range(n)] + [st.deck, st.discard, _laid_bits(st)]
    union = np.zeros(st.batch_size, np.uint64)
    count = np.zeros(st.batch_size, np.int64)
    for word in places:
        assert not (union & word).any(), "a card is in two places"
        union |= word
        count += np.bitwise_count(word)
    chosen = (st.laid >= 0).all(1) | (st.phase != 0)
    assert (union[chosen] == ALL).all() and (count[chosen] == 48).all()
    # tokens are conserved (FT-4)
    assert (st.stock + st.tokens.sum(1) == rules.tokens).all()
    assert (st.tokens >= 0).all() and (st.stock >= 0).all()
    # each tower is in its holder's tower set, one per month
    for t in range(n):
        held = (st.tower_holder[:, t] >= 0) & (st.laid[:, t] >= 0)
        rows = np.flatnonzero(held)
        months = (st.laid[rows, t] >> 2).astype(np.uint16)
        assert ((st.tower_months[rows, st.tower_holder[rows, t]] >> months) & 1).all()
    assert (np.bitwise_count(st.tower_months).sum(1) == ((st.tower_holder >= 0) & (st.laid >= 0)).sum(1)).all()
    # knowledge: a seat knows its hand and every public card (FT-13, FT-14)
    assert ((st.known & st.hand) == st.hand).all()
    assert ((st.known & st.discard[:, None]) == st.discard[:, None]).all()
    revealed = st.phase != 0
    assert ((st.known[revealed] & _laid_bits(st)[revealed, None]) == _laid_bits(st)[revealed, None]).all()
    assert not (st.known & st.deck[:, None]).any()  # nobody can locate a card in the deck
    # VP never decreases; a game in play has a decision with a legal action
    assert (st.vp >= before_vp).all()
    playing = ~st.done
    assert core.legal_mask(st)[playing].any(1).all()


@pytest.mark.parametrize("options", VARIANTS[::2], ids=lambda o: FlightTycoonRules(**o).label())
def test_invariants_hold_after_every_step(options):
    core = FlightTycoonCore(FlightTycoonRules(**options))
    rng = np.random.default_rng(3)
    st = core.init(np.arange(200))
    vp_paid = np.zeros((200, core.n_players))
    _check(core, st, st.vp.copy())
    while not st.done.all():
        before = st.vp.copy()
        was_playing = ~st.done
        rewards = core.step(st, sample_legal(core.legal_mask(st), rng.random(200)))
        _check(core, st, before)
        assert (rewards[~was_playing] == 0).all()
        if core.rules.reward == "vp":
            vp_paid += rewards
        ended = was_playing & st.done
        if core.rules.reward == "outcome" and ended.any():
            n = core.n_players
            winners = (rewards[ended] > 0).sum(1)
            assert (rewards[ended] > 0).any(1).all()
            expected_sum = 1 - (n - winners) / (n - 1)
            assert np.allclose(rewards[ended].sum(1), expected_sum, atol=1e-5)
            assert np.allclose(rewards[ended][winners == 1].sum(1), 0, atol=1e-5)  # FT-15: no tie, sum 0
    if core.rules.reward == "vp":
        assert np.array_equal(vp_paid, st.vp)  # every VP was paid at its landing
