"""House rules (``aerodeck.envs.common.house``) on Flight Tycoon: its reference engine played behind the
Core interface is the batched core array for array and plays its games (hidden cards and the search's
determinizations included); the catch-up example deals the last seat one card more; a rules object
names its house rule; a class that is not the reference engine's subclass, or a house rule failing at
the deal, is refused in one line. Airport Scramble's: ``tests/airport_scramble/test_house_rules.py``."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from aerodeck import envs
from aerodeck.agents.registry import make_agent
from aerodeck.arena.loop import play_games
from aerodeck.arena.trace import Trace
from aerodeck.envs.common.house import HouseRule, HouseRuleError, house_of, plain_rules, with_house
from tests.common.house_rules import EXAMPLES, house_file, play_on_both_engines

CATCHUP = HouseRule.parse(f"{EXAMPLES}/catchup.py:LastSeatExtraCard")
FT = envs.spec("flight-tycoon")


def arrays_equal(a, b) -> None:
    """Every field of two core states equal."""
    for f in dataclasses.fields(a):
        assert np.array_equal(getattr(a, f.name), getattr(b, f.name)), f.name


@pytest.mark.parametrize("options", [{"n_players": 5}, {"n_players": 3, "tower_giveable": True}],
                         ids=["ft5", "ft3-giveable"])
def test_the_reference_engine_behind_the_core_interface_is_the_batched_core_array_for_array(options):
    play_on_both_engines(FT, options, arrays_equal)


def test_the_catchup_house_rule_deals_the_last_seat_one_card_more():
    """FT-5 then FT-7: the seat before the starting player holds hand_size + 1 cards, the others hand_size."""
    rules = with_house(FT.make_rules(n_players=5), CATCHUP)
    core = FT.make_core(rules)
    state = core.init(np.arange(40))
    sizes = np.bitwise_count(state.hand)
    last = (state.start.astype(np.int64) - 1) % 5
    assert (sizes[np.arange(40), last] == 9).all()
    assert (sizes.sum(axis=1) == 41).all()
    plain = FT.make_core(FT.make_rules(n_players=5)).init(np.arange(40))
    assert np.array_equal(plain.start, state.start)  # the same start: the extra card is drawn after it


def test_a_rules_object_carrying_a_house_rule_names_it_and_keeps_its_options():
    rules = with_house(FT.make_rules(n_players=5, vp_sharing="rank"), CATCHUP)
    assert house_of(rules) == CATCHUP and house_of(plain_rules(rules)) is None
    assert rules.label() == "n_players=5 vp_sharing=rank house=catchup.py:LastSeatExtraCard"
    assert rules != plain_rules(rules) and rules == with_house(plain_rules(rules), CATCHUP)
    assert rules.replace(n_players=4).label().endswith("house=catchup.py:LastSeatExtraCard")
    assert isinstance(rules, FT.rules_class()) and pickle.loads(pickle.dumps(rules)) == rules


def test_a_house_rule_that_is_not_a_subclass_of_the_reference_engine_is_refused_in_one_line(tmp_path):
    path = house_file(tmp_path, """
        class Loose:
            pass
        """)
    with pytest.raises(ValueError, match=r"^house rule rules.py:Loose: Loose must be a subclass of "
                                         r"aerodeck.envs.flight_tycoon.reference.ReferenceGame"):
        FT.make_core(with_house(FT.make_rules(), HouseRule.parse(f"{path}:Loose")))
    with pytest.raises(ValueError, match="has no class 'Missing'"):
        FT.make_core(with_house(FT.make_rules(), HouseRule.parse(f"{path}:Missing")))
    with pytest.raises(ValueError, match="expected FILE.py:Class"):
        HouseRule.parse("rules.txt")
    with pytest.raises(ValueError, match="no file"):
        HouseRule.parse(f"{tmp_path}/absent.py:X")


def played_on(spec, core, agent: str, seeds) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each game's decision hash, score and length with ``agent`` in every seat on ``core``."""
    trace = Trace(len(seeds))
    out = play_games(core, [make_agent(spec.id, agent, core.rules, seed=2)], seeds, progress=False, batch_size=8,
                     make_view=spec.make_view, summary=spec.summary_of(), observers=[trace])
    return trace.hash, out["score"], out["length"]


@pytest.mark.parametrize("agent, games", [("heuristic", 24), ("search:samples=1,horizon=6", 3)])
def test_flight_tycoon_on_the_reference_engine_plays_the_batched_cores_games(agent, games):
    """The slow path with hidden cards: the search's determinizations (sampled into the arrays, the games
    rebuilt from them) look ahead exactly as on the batched core."""
    rules = FT.make_rules(n_players=4)
    seeds = np.arange(500, 500 + games)
    fast = played_on(FT, FT.make_core(rules, check_actions=False), agent, seeds)
    slow = played_on(FT, FT.make_reference_core(rules, check_actions=False), agent, seeds)
    assert all(np.array_equal(a, b) for a, b in zip(fast, slow))


def test_a_house_rule_that_fails_at_the_deal_names_the_set_up(tmp_path):
    path = house_file(tmp_path, """
        from aerodeck.envs.flight_tycoon.reference import ReferenceGame
        class NoCardLeft(ReferenceGame):
            def deal(self):
                super().deal()
                self.take_random([])  # a card from nowhere
        """)
    rules = with_house(FT.make_rules(), HouseRule.parse(f"{path}:NoCardLeft"))
    with pytest.raises(HouseRuleError, match=r"^house rule rules.py:NoCardLeft: the game seeded 3, decision 0: "
                                             r"\w+ in the set-up \(the deal\): "):
        FT.make_core(rules).init([3])
