"""House rules (``aerodeck.envs.common.house``) on Airport Scramble: its reference engine played behind the
Core interface — exact (the plain reference engine through the adapter is the batched core, array for
array), faithful (the in-flight delivery house rule plays the very games of ``pickup_in_flight=on``),
and a broken house rule stops with one line naming the rule, the game and the decision. Flight Tycoon's:
``tests/flight_tycoon/test_house_rules.py``."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from aerodeck import envs
from aerodeck.agents.registry import make_agent
from aerodeck.arena.loop import play_games
from aerodeck.arena.trace import Trace
from aerodeck.envs.common.house import HouseRule, HouseRuleError, with_house
from tests.airport_scramble.house_rules import BROKEN, WHAT
from tests.common.house_rules import EXAMPLES, house_file, play_on_both_engines

IN_FLIGHT = HouseRule.parse(f"{EXAMPLES}/delivery_in_flight.py:DeliveryInFlight")
AS = envs.spec("airport-scramble")


def arrays_equal(a, b) -> None:
    """Every field of two core states equal (``placed`` up to ``n_placed``: past it the slots are unused;
    ``nb`` but its last column, the off-grid scratch cell, always occupied, where the batched core drops
    the demands of edge cards)."""
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.name == "nb":
            x, y = x[:, :-1], y[:, :-1]
        if f.name == "placed":
            x = np.where(np.arange(x.shape[1]) < a.n_placed[:, None], x, 0)
            y = np.where(np.arange(y.shape[1]) < b.n_placed[:, None], y, 0)
        assert np.array_equal(x, y), f.name


@pytest.mark.parametrize("options", [{}, {"grid_size": 7, "face_up": 3, "max_replace": 2}], ids=["as", "as-small"])
def test_the_reference_engine_behind_the_core_interface_is_the_batched_core_array_for_array(options):
    play_on_both_engines(AS, options, arrays_equal)


def played(spec, rules, agent: str, seeds) -> dict:
    """Every game's actions, scores and length with ``agent`` in every seat."""
    core = spec.make_core(rules, check_actions=False)
    trace = Trace(len(seeds), keep=True)
    out = play_games(core, [make_agent(spec.id, agent, rules, seed=5)], seeds, progress=False, batch_size=16,
                     make_view=spec.make_view, summary=spec.summary_of(), observers=[trace])
    return {"actions": trace.actions, "hash": trace.hash, "score": out["score"], "length": out["length"]}


@pytest.mark.parametrize("agent, games", [("random", 120), ("heuristic", 60),
                                          ("search:candidates=2,rollouts=2,horizon=6", 8)])
def test_delivery_in_flight_as_a_house_rule_plays_the_games_of_the_built_in_option(agent, games):
    """The proof that the slow path is faithful: the same actions, scores and ends on the same seeds,
    the search's look-ahead included (its rollouts run on the house-ruled engine)."""
    seeds = np.arange(1000, 1000 + games)
    option = played(AS, AS.make_rules(pickup_in_flight=True), agent, seeds)
    house = played(AS, with_house(AS.make_rules(), IN_FLIGHT), agent, seeds)
    width = max(option["actions"].shape[1], house["actions"].shape[1])
    pad = lambda a: np.pad(a, ((0, 0), (0, width - a.shape[1])), constant_values=-1)  # noqa: E731
    assert np.array_equal(pad(option["actions"]), pad(house["actions"]))
    assert np.array_equal(option["hash"], house["hash"])
    assert np.array_equal(option["score"], house["score"]) and np.array_equal(option["length"], house["length"])
    assert option["score"].sum() > 0


def test_a_rules_object_carrying_the_in_flight_house_rule_names_it():
    assert with_house(AS.make_rules(), IN_FLIGHT).label() == "house=delivery_in_flight.py:DeliveryInFlight"


def broken_rules(tmp_path: Path, kind: str):
    cls = {"raises": "Raises", "empty": "Empty", "endless": "Endless"}[kind]
    path = house_file(tmp_path, BROKEN[kind], f"{kind}.py")
    return with_house(AS.make_rules(), HouseRule.parse(f"{path}:{cls}"))


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_broken_house_rule_stops_with_one_line_naming_the_rule_the_game_and_the_decision(tmp_path, kind):
    rules = broken_rules(tmp_path, kind)
    with pytest.raises(HouseRuleError) as caught:
        play_games(AS.make_core(rules, check_actions=False), [make_agent(AS.id, "random", rules, seed=1)],
                   np.arange(7, 11), progress=False)
    err = caught.value
    line = str(err)
    assert "\n" not in line and line.startswith(f"house rule {kind}.py:")
    assert WHAT[kind] in line and f"the game seeded {err.seed}, decision {err.decision}" in line
    assert err.seed in range(7, 11) and err.decision >= (150 if kind == "endless" else 0)


@pytest.mark.long
@pytest.mark.parametrize("agent, games", [("random", 3000), ("heuristic", 1500),
                                          ("search:candidates=2,rollouts=2,horizon=6", 80)])
def test_delivery_in_flight_plays_the_option_games_on_thousands_of_deals(agent, games):
    seeds = np.arange(games)
    option = played(AS, AS.make_rules(pickup_in_flight=True), agent, seeds)
    house = played(AS, with_house(AS.make_rules(), IN_FLIGHT), agent, seeds)
    assert np.array_equal(option["hash"], house["hash"])
    assert np.array_equal(option["score"], house["score"]) and np.array_equal(option["length"], house["length"])


def test_copies_and_takes_are_branches_that_stepping_the_original_leaves_alone():
    core = AS.make_core(with_house(AS.make_rules(), IN_FLIGHT))
    state = core.init(np.arange(6))
    masks, obs = core.legal_mask(state), core.observe(state)
    branch, part = state.copy(), state.take([1, 4])
    actions = masks.argmax(1)
    core.step(state, actions)
    assert np.array_equal(core.legal_mask(branch), masks) and np.array_equal(core.observe(part), obs[[1, 4]])
    core.step(branch, actions)
    core.step(part, actions[[1, 4]])
    arrays_equal(state, branch)
    arrays_equal(state.take([1, 4]), part)
