"""The hidden-card sampler: determinizations consistent with a seat's knowledge, and covering it."""

import numpy as np
import pytest

from aerodeck.envs.common.batch import sample_legal
from aerodeck.envs.common.rng import game_keys
from aerodeck.envs.flight_tycoon.core import FlightTycoonCore
from aerodeck.envs.flight_tycoon.rules import DISCARD, GIVE, MONTH_CARDS, FlightTycoonRules

from .helpers import hidden_swap, random_states
from .test_invariants import _check

RULES = [FlightTycoonRules(n_players=3), FlightTycoonRules(), FlightTycoonRules(n_players=5, tower_giveable=True)]


def _located_per_hand(st, seat, n):
    return np.stack([np.bitwise_count(st.known[:, o, None] & st.hand) for o in range(n)], 1)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.label())
def test_a_determinization_is_a_game_the_seat_cannot_tell_from_the_real_one(rules):
    core, n = FlightTycoonCore(rules), rules.n_players
    st = random_states(core, 200, seed=11)
    for seat in range(n):
        sample = core.sample_hidden(st, seat, np.arange(200) + 1000 * seat)
        assert np.array_equal(core.observe(sample, seat), core.observe(st, seat))
        acting = core.to_act(st) == seat
        assert np.array_equal(core.legal_mask(sample)[acting], core.legal_mask(st)[acting])
        _check(core, sample, sample.vp)  # a valid state: cards, tokens, towers, knowledge
        assert np.array_equal(np.bitwise_count(sample.hand), np.bitwise_count(st.hand))
        located = st.known[:, seat, None] & st.hand
        assert np.array_equal(sample.hand & st.known[:, seat, None], located)  # located cards stay put
        assert np.array_equal(_located_per_hand(sample, seat, n), _located_per_hand(st, seat, n))
        assert (sample.hand != st.hand).any(1).mean() > 0.9  # the hidden cards were dealt again
        assert np.array_equal(sample.key, game_keys(np.arange(200) + 1000 * seat)) and not sample.counter.any()


def test_a_determinization_plays_on_to_the_end():
    core = FlightTycoonCore(FlightTycoonRules())
    st = random_states(core, 100, seed=12)
    sample = core.sample_hidden(st, 2, np.arange(100))
    rng = np.random.default_rng(0)
    while not sample.done.all():
        before = sample.vp.copy()
        core.step(sample, sample_legal(core.legal_mask(sample), rng.random(100)))
        _check(core, sample, before)


def test_another_seats_decision_in_progress_keeps_its_choices():  # FT-16
    core = FlightTycoonCore(FlightTycoonRules())
    st = random_states(core, 600, seed=13)
    deciding = np.isin(st.phase, (GIVE, DISCARD))
    assert deciding.sum() > 100
    for seat in range(4):
        sample = core.sample_hidden(st, seat, np.arange(600))
        assert (core.legal_mask(sample)[deciding].sum(1) >= 2).all()
        discard = np.flatnonzero(st.phase == DISCARD)
        month_cards = MONTH_CARDS[st.received[discard] >> 2]
        held = np.unpackbits(sample.hand[discard, st.active[discard]].view(np.uint8).reshape(-1, 8), axis=1,
                             bitorder="little")[:, :48].astype(bool)
        assert ((held & month_cards).sum(1) >= 2).all()


def test_a_card_the_seat_cannot_locate_turns_up_in_several_places():
    core = FlightTycoonCore(FlightTycoonRules())
    st = random_states(core, 1, seed=5, max_steps=40).repeat(200)
    sample = core.sample_hidden(st, 0, np.arange(200))
    unknown = [c for c in range(48) if not int(st.known[0, 0]) >> c & 1]
    holders = {c: set() for c in unknown}
    for b in range(200):
        for c in unknown:
            place = next((h for h in range(4) if int(sample.hand[b, h]) >> c & 1), "deck")
            holders[c].add(place)
    spread = [len(places) for places in holders.values()]
    assert np.mean(spread) >= 2 and max(spread) >= 3


def test_without_anchors_the_deal_is_uniform():
    """Before any tower is chosen, seat 0 knows only its hand: each unknown card is in each other hand
    with probability 8/40 and in the deck with probability 16/40."""
    core = FlightTycoonCore(FlightTycoonRules())
    st = core.init([3]).repeat(4000)
    sample = core.sample_hidden(st, 0, np.arange(4000))
    unknown = [c for c in range(48) if not int(st.known[0, 0]) >> c & 1]
    share = np.array([[np.mean((sample.hand[:, h] >> np.uint64(c)) & np.uint64(1)) for h in (1, 2, 3)]
                      for c in unknown])
    assert np.abs(share - 0.2).max() < 0.035
    assert np.abs(share.mean() - 0.2) < 0.005


def test_samples_depend_only_on_what_the_seat_knows_and_the_seeds():
    core = FlightTycoonCore(FlightTycoonRules())
    st = random_states(core, 150, seed=14)
    for seat in range(4):
        swapped, changed = hidden_swap(core, st, seat, np.random.default_rng(seat))
        assert changed.mean() > 0.5
        a = core.sample_hidden(st, seat, np.arange(150))
        b = core.sample_hidden(swapped, seat, np.arange(150))
        for field in ("hand", "deck", "known", "laid", "tower_months"):
            assert np.array_equal(getattr(a, field), getattr(b, field)), field
    again = core.sample_hidden(st, 1, np.arange(150))
    other = core.sample_hidden(st, 1, np.arange(150) + 7)
    assert np.array_equal(again.hand, core.sample_hidden(st, 1, np.arange(150)).hand)
    assert (other.hand != again.hand).any(1).mean() > 0.9


def test_pending_tower_choices_are_drawn_in_the_sample():  # FT-6
    core = FlightTycoonCore(FlightTycoonRules())
    st = core.init(np.arange(50))
    core.step(st, core.legal_mask(st)[:, :48].argmax(1))  # seat 0 chooses
    core.step(st, core.legal_mask(st)[:, :48].argmax(1))  # seat 1 chooses
    sample = core.sample_hidden(st, 2, np.arange(50))
    assert np.array_equal(core.observe(sample, 2), core.observe(st, 2))
    assert (sample.laid[:, :2] >= 0).all() and (sample.laid[:, 2:] == -1).all()
    assert (sample.laid[:, 0] != st.laid[:, 0]).mean() > 0.5
    months = (np.uint16(1) << (sample.laid[:, :2] >> 2).astype(np.uint16))
    assert np.array_equal(sample.tower_months[:, :2], months)


def test_a_bad_seat_is_refused():
    core = FlightTycoonCore(FlightTycoonRules())
    with pytest.raises(ValueError, match="seat must be in 0..3"):
        core.sample_hidden(core.init([1]), 4, [0])
