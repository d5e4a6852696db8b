"""The analytic beliefs (agents/flight_tycoon/beliefs.py): what a seat can work out of where its unlocated
cards lie, from its observation alone (FT-6 towers' slots, FT-13 public facts, FT-14 located cards)."""

import numpy as np
import pytest

from agents.flight_tycoon.beliefs import hand_beliefs
from agents.flight_tycoon.facts import Facts
from envs.common.bits import unpack_bits
from envs.flight_tycoon.core import FlightTycoonCore
from envs.flight_tycoon.rules import FlightTycoonRules

from .helpers import card, random_states, revealed

RULES = [FlightTycoonRules(n_players=3), FlightTycoonRules(), FlightTycoonRules(n_players=5, tower_giveable=True)]


def seen(core, st):
    seat = np.maximum(core.to_act(st), 0)
    return seat, core.observe(st, seat)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.label())
def test_located_cards_are_certain_and_every_unknown_card_is_somewhere(rules):  # FT-14
    core = FlightTycoonCore(rules)
    st = random_states(core, 200, seed=rules.n_players + 10)
    seat, obs = seen(core, st)
    facts = Facts.read(core.observation, obs)
    beliefs = hand_beliefs(core.observation, obs)
    assert beliefs.shape == (200, rules.n_players - 1, 48) and beliefs.dtype == np.float32
    located = unpack_bits(facts.located[:, 1:], 48)
    assert np.array_equal(beliefs[located], np.ones(located.sum(), np.float32))
    unknown = unpack_bits(facts.unknown, 48)
    out_of_reach = ~unknown[:, None, :] & ~located  # mine, discarded, laid and seen, or located in another hand
    assert not beliefs[out_of_reach].any()
    assert (beliefs <= 1 + 1e-5).all()
    # in the hands: each hand's share of the unknown cards is its unlocated slots (the rest: deck, laid
    # cards) — to the fit's precision after its rounds (a few tight hands converge slowly)
    gap = np.abs((beliefs * unknown[:, None, :]).sum(2) - facts.hidden[:, 1:])
    assert gap.mean() < 0.02 and gap.max() < 0.5


def test_without_towers_every_unknown_card_lies_in_a_hand_with_its_share_of_the_slots():
    """Before the reveal nobody's tower is public: the plain hypergeometric marginal, hidden[t] / unknown."""
    core = FlightTycoonCore(FlightTycoonRules())
    st = core.init(np.arange(50))
    seat, obs = seen(core, st)
    facts = Facts.read(core.observation, obs)
    beliefs = hand_beliefs(core.observation, obs)
    unknown = unpack_bits(facts.unknown, 48)
    share = facts.hidden[:, 1:] / unknown.sum(1, keepdims=True)  # (B, 3)
    assert np.allclose(beliefs, share[:, :, None] * unknown[:, None, :], atol=1e-6)


def test_a_towers_slot_splits_its_hand_by_month():  # FT-6: the tower stands first within its month
    # Seat 1's tower of month 6 stands at slot 2: its two real cards before it are of months 1–5.
    position = revealed(["1A 2A 3A 4A 5A", "1B 2B 6B 7B 8B", "1C 2C 3C 4C 5C", "1D 2D 3D 4D 5D"],
                        ["12A", "6C", "12C", "12D"])
    core = FlightTycoonCore(FlightTycoonRules())
    st = core.load_positions([position])
    obs = core.observe(st, 0)
    beliefs = hand_beliefs(core.observation, obs)[0, 0]  # seat 0's view of seat 1
    early = [c for c in range(48) if c < card("6A")]
    late = [c for c in range(48) if c >= card("6A")]
    unknown = unpack_bits(Facts.read(core.observation, obs).unknown, 48)[0]
    assert beliefs[[c for c in early if unknown[c]]].sum() == pytest.approx(2, abs=0.02)
    assert beliefs[[c for c in late if unknown[c]]].sum() == pytest.approx(3, abs=0.02)


def test_the_beliefs_are_close_to_the_search_samplers_marginals():
    """The sampler (envs/flight_tycoon/knowledge.py) also honours the slots of located cards, which the
    observation does not hold: close on average, not everywhere."""
    rules = FlightTycoonRules()
    core = FlightTycoonCore(rules)
    st = random_states(core, 40, seed=3, max_steps=60)
    seat, obs = seen(core, st)
    beliefs = hand_beliefs(core.observation, obs)
    rows, order = np.arange(40)[:, None], (seat[:, None] + np.arange(4)) % 4
    freq = np.zeros_like(beliefs)
    samples = 400
    for s in range(samples):
        sample = core.sample_hidden(st, seat, np.arange(40) * 1000 + s)
        freq += unpack_bits(sample.hand[rows, order][:, 1:], 48)
    freq /= samples
    uniform = np.broadcast_to(freq.mean(2, keepdims=True), freq.shape)
    assert np.abs(freq - beliefs).mean() < 0.4 * np.abs(freq - uniform).mean()
