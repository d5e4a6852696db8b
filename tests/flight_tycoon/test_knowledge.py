"""No leaks (FT-13, FT-14): an observation never changes when hidden information it cannot know changes."""

import numpy as np
import pytest

from aerodeck.envs.common.bits import unpack_bits
from aerodeck.envs.flight_tycoon.core import FlightTycoonCore
from aerodeck.envs.flight_tycoon.observation import ObservationLayout
from aerodeck.envs.flight_tycoon.rules import FlightTycoonRules

from .helpers import hidden_swap, random_states

RULES = [FlightTycoonRules(n_players=3), FlightTycoonRules(), FlightTycoonRules(n_players=5, tower_giveable=True)]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.label())
def test_swapping_cards_a_seat_cannot_know_leaves_its_observation_unchanged(rules):
    core = FlightTycoonCore(rules)
    st = random_states(core, 150, seed=rules.n_players)
    rng = np.random.default_rng(0)
    for seat in range(rules.n_players):
        swapped, changed = hidden_swap(core, st, seat, rng)
        assert changed.mean() > 0.5  # the hidden cards really differ in most games
        assert not np.array_equal(swapped.hand, st.hand)
        assert np.array_equal(core.observe(swapped, seat), core.observe(st, seat))
        acting = core.to_act(st) == seat
        assert np.array_equal(core.legal_mask(swapped)[acting], core.legal_mask(st)[acting])


def test_the_swapped_cards_do_show_in_their_holders_observations():
    """The swap test can fail: the holders of the swapped cards see the difference."""
    core = FlightTycoonCore(FlightTycoonRules())
    st = random_states(core, 100, seed=9)
    swapped, changed = hidden_swap(core, st, 0, np.random.default_rng(1))
    differs = np.zeros(st.batch_size, bool)
    for seat in range(1, 4):
        differs |= (core.observe(swapped, seat) != core.observe(st, seat)).any(1)
    holders_saw = differs[changed]
    assert holders_saw.mean() > 0.8  # the rest: both cards were in the deck's place and a hand nobody looks at


def test_a_pending_tower_choice_is_hidden_from_the_other_seats():  # FT-6
    core = FlightTycoonCore(FlightTycoonRules())
    a = core.init(np.arange(300))
    b = a.copy()
    mask = core.legal_mask(a)
    low = mask[:, :48].argmax(1)
    high = 47 - mask[:, 47::-1].argmax(1)
    core.step(a, low)
    core.step(b, high)
    for seat in range(1, 4):
        assert np.array_equal(core.observe(a, seat), core.observe(b, seat))
    assert (core.observe(a, 0) != core.observe(b, 0)).any(1).all()


def test_the_observation_shows_only_cards_the_seat_holds_or_located():
    core = FlightTycoonCore(FlightTycoonRules())
    st = random_states(core, 200, seed=4)
    lay = ObservationLayout(core.rules)
    for seat in range(4):
        hand = core.observe(st, seat)[:, lay.slice("hand")].reshape(-1, 4, 48)
        truth = unpack_bits(st.hand[:, (seat + np.arange(4)) % 4], 48)
        known = unpack_bits(st.known[:, seat], 48)[:, None, :]
        assert np.array_equal(hand.astype(bool), truth & known)  # never a card elsewhere: no guesses
        assert np.array_equal(hand[:, 0].astype(bool), truth[:, 0])  # my whole hand
        assert (hand[:, 1:].sum((1, 2)) < truth[:, 1:].sum((1, 2))).mean() > 0.9  # most of the others hidden
