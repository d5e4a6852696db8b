"""The compiled Airport Scramble heuristic (``agents/airport_scramble/kernel.py``) decides exactly as the
numpy planner it replaced kept frozen in ``benchmarks/airport_scramble_heuristic_v1`` as the
oracle: games played on the batched core over many rule variants and the agent's knobs, every score of
every action of every decision compared (the search agent ranks candidates by them and the ppo prior
reads them), the chosen actions compared, and random tables (disconnected networks, a plane on an empty
cell, random masks) the rules never deal compared as well."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from aerodeck.agents.airport_scramble.heuristic import HeuristicAgent
from aerodeck.agents.airport_scramble.planning import Table
from aerodeck.envs import make_core
from aerodeck.envs.airport_scramble.rules import AirportScrambleRules
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # the frozen planner
from airport_scramble_heuristic_v1 import heuristic as v1  # noqa: E402
from airport_scramble_heuristic_v1.planning import Table as V1Table  # noqa: E402

# Rule variants: grid sizes (3 … 15), face-up slots, AS-11 wait, AS-15 pre-played tickets, costs, AS-4
# generated editions (one colour to six, with and without hubs), ticket turns.
VARIANTS = [
    {},
    {"grid_size": 3},
    {"grid_size": 5, "face_up": 2, "max_replace": 2},
    {"grid_size": 15, "face_up": 6, "max_replace": 3},
    {"face_up": 1, "max_replace": 1, "action_points": 1, "replace_cost": 1},
    {"face_up": 6, "max_replace": 6, "replace_cost": 3, "action_points": 3},
    {"allow_wait": False},
    {"preplayed_rule": "redraw"},
    {"preplayed_rule": "off", "board_on_draw": False},
    {"action_points": 5, "stop_early_cost": 0, "replace_cost": 3, "pickup_in_flight": True},
    {"stop_early_cost": 3, "ticket_turn_bonus": 2},
    {"edition": "generated", "n_colors": 2, "plain_per_color": 2, "n_tickets": 10, "deck_seed": 3, "grid_size": 5,
     "ticket_turns": (2, 6)},
    {"edition": "generated", "n_colors": 6, "plain_per_color": 0, "hubs": True, "n_tickets": 40, "deck_seed": 8},
    {"edition": "generated", "n_colors": 3, "plain_per_color": 4, "hubs": False, "n_tickets": 12, "deck_seed": 1,
     "allow_wait": False, "preplayed_rule": "redraw"},
    {"edition": "generated", "n_colors": 1, "plain_per_color": 3, "hubs": False, "n_tickets": 6, "grid_size": 4,
     "face_up": 2, "max_replace": 2},
]
# The agent's knobs (cycle, grow, farm, margin): the defaults, each switched.
STYLES = [{}, {"cycle": False}, {"grow": False}, {"farm": False}, {"margin": 2}]


def label(options: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items()) or "standard"


def as_v1(table: Table) -> V1Table:
    """The same table as the frozen planner's own class."""
    return V1Table(**{name: getattr(table, name) for name in V1Table.__dataclass_fields__})


def play_and_compare(options: dict, style: dict, n_games: int, seed: int, steps: int | None = None) -> int:
    """Play ``n_games`` with the new heuristic for ``steps`` steps (``None``: to their end); before every
    step compare every action's score, the best action and the agent's choice with the frozen
    planner's. Returns the decisions compared (in live games)."""
    rules = AirportScrambleRules(**options)
    core = make_core("airport-scramble", rules)
    old, new = v1.HeuristicAgent(rules=rules, **style), HeuristicAgent(rules=rules, **style)
    state = core.init(np.arange(seed, seed + n_games))
    compared = 0
    for step in range(steps or 5000):
        if state.done.all():
            return compared
        obs, masks = core.observe(state), core.legal_mask(state)
        # Tables read from the observations (the agent's path) and from the state (the search's rollouts).
        table = Table.from_observations(new.geo, obs) if step % 2 else Table.from_state(new.geo, state)
        want = old.plan(as_v1(table), masks)
        got = new.plan(table, masks)
        where = f"{label(options)} {style}, step {step}"
        np.testing.assert_array_equal(got.scores(new.geo), want.scores(old.geo), err_msg=where)
        np.testing.assert_array_equal(got.best(new.geo), want.best(old.geo), err_msg=where)
        actions = new.act(obs, masks)
        np.testing.assert_array_equal(actions, want.best(old.geo), err_msg=where)
        assert actions.dtype == np.int64
        if step % 7 == 0:  # the ppo prior's view of the same scores
            np.testing.assert_array_equal(new.scores(obs, masks), old.scores(obs, masks), err_msg=where)
        compared += int((~state.done).sum())
        core.step(state, actions)
    assert steps is not None, f"games of {label(options)} did not end in 5000 steps"
    return compared


# The frozen planner is slow (a few milliseconds per step whatever the batch): the default suite plays
# the first 50 steps of 48 games (many games end by then; the long test plays every game to its end).
@pytest.mark.parametrize("options", VARIANTS, ids=label)
def test_the_same_scores_and_decisions_step_by_step(options):
    assert play_and_compare(options, {}, n_games=48, seed=100 * len(options), steps=50) > 48


@pytest.mark.parametrize("style", STYLES[1:], ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()))
@pytest.mark.parametrize("options", [VARIANTS[0], VARIANTS[6]], ids=label)
def test_the_same_decisions_with_each_knob(options, style):
    assert play_and_compare(options, style, n_games=32, seed=7, steps=30) > 32


@pytest.mark.parametrize("n_games", [8, 96])  # (the deck counts are summed one way for few games, another for many)
@pytest.mark.parametrize("options", [VARIANTS[0], VARIANTS[3], VARIANTS[12]], ids=label)
def test_the_tables_decode_as_before(options, n_games):
    rules = AirportScrambleRules(**options)
    core = make_core("airport-scramble", rules)
    old, new = v1.HeuristicAgent(rules=rules), HeuristicAgent(rules=rules)
    state = core.init(np.arange(n_games))
    for step in range(40):
        obs = core.observe(state)
        for got, want in ((Table.from_observations(new.geo, obs), V1Table.from_observations(old.geo, obs)),
                          (Table.from_state(new.geo, state), V1Table.from_state(old.geo, state))):
            for name in V1Table.__dataclass_fields__:
                np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=f"{name}, step {step}")
                assert getattr(got, name).dtype == getattr(want, name).dtype, name
        core.step(state, new.act(obs, core.legal_mask(state)))


def random_tables(geo, B: int, rng: np.random.Generator) -> Table:
    """B tables no deal produces: random colours on a random share of the cells (networks in pieces,
    cards that do not match), the plane anywhere (on an empty cell too), ticket airports in play, face
    up or in the deck at random, random counts."""
    G2, F, nc = geo.G2, geo.F, geo.n_colors
    occupied = rng.random((B, G2)) < rng.random((B, 1))
    hcol = np.where(occupied, rng.integers(0, nc, (B, G2)), -1).astype(np.int16)
    vcol = np.where(occupied, rng.integers(0, nc, (B, G2)), -1).astype(np.int16)
    filled = rng.random((B, F)) < 0.8
    active = rng.random(B) < 0.85

    def airport_cell():
        cell = rng.integers(0, G2, B)
        return np.where(occupied[np.arange(B), cell] & (rng.random(B) < 0.6), cell, -1).astype(np.int64)

    def slot(cell):
        return np.where((cell < 0) & (rng.random(B) < 0.5), rng.integers(0, F, B), -1).astype(np.int64)

    def colour():
        return np.where(active, rng.integers(0, nc, B), -1).astype(np.int16)

    origin, destination = airport_cell(), airport_cell()
    return Table(
        hcol=hcol, vcol=vcol, plane=rng.integers(0, G2, B).astype(np.int64),
        slot_h=np.where(filled, rng.integers(0, nc, (B, F)), -1).astype(np.int16),
        slot_v=np.where(filled, rng.integers(0, nc, (B, F)), -1).astype(np.int16),
        origin_cell=origin, destination_cell=destination, origin_slot=slot(origin), destination_slot=slot(destination),
        origin_h=colour(), origin_v=colour(), destination_h=colour(), destination_v=colour(), active=active,
        aboard=(rng.random(B) < 0.4) & active, choosing=rng.random(B) < 0.1,
        points=rng.integers(0, 3, B).astype(np.int64), die=rng.integers(0, 9, B).astype(np.int64),
        deck_size=rng.integers(0, 40, B).astype(np.int64),
        available=rng.integers(0, 3, (B, nc * nc)).astype(np.int32),
    )


@pytest.mark.parametrize("options", VARIANTS, ids=label)
def test_the_same_scores_on_tables_no_game_deals(options):
    rules = AirportScrambleRules(**options)
    rng = np.random.default_rng(len(label(options)))
    for style in STYLES[:2] + STYLES[3:4]:
        old, new = v1.HeuristicAgent(rules=rules, **style), HeuristicAgent(rules=rules, **style)
        table = random_tables(new.geo, 150, rng)
        masks = rng.random((150, new.geo.actions.n_actions)) < rng.random((150, 1))
        want, got = old.plan(as_v1(table), masks), new.plan(table, masks)
        np.testing.assert_array_equal(got.scores(new.geo), want.scores(old.geo))
        np.testing.assert_array_equal(got.best(new.geo), want.best(old.geo))
        np.testing.assert_array_equal(new.decide(table, masks), want.best(old.geo))


def test_plan_blocks_are_views_of_the_scores_in_action_order():
    rules = AirportScrambleRules()
    core = make_core("airport-scramble", rules)
    agent = HeuristicAgent(rules=rules)
    state = core.init(np.arange(8))
    plan = agent.plan(Table.from_state(agent.geo, state), core.legal_mask(state))
    G, F, lay = agent.geo.G, agent.geo.F, core.actions
    assert plan.fly.shape == (8, 4, G - 1) and plan.play.shape == (8, F, G * G)
    assert plan.replace.shape == (8, 2**F - 1) and plan.line.shape == (8, 2, G * G) and plan.wait.shape == (8,)
    scores = plan.scores(agent.geo)
    assert scores.dtype == np.int32 and scores.shape == (8, core.n_actions)
    np.testing.assert_array_equal(plan.play.reshape(8, -1), scores[:, lay.play_offset : lay.replace_offset])
    np.testing.assert_array_equal(plan.wait, scores[:, lay.wait])


def test_the_agent_ignores_decision_keys():
    rules = AirportScrambleRules()
    core = make_core("airport-scramble", rules)
    agent = HeuristicAgent(rules=rules)
    state = core.init(np.arange(16))
    obs, masks = core.observe(state), core.legal_mask(state)
    keys = np.arange(16, dtype=np.uint64)
    np.testing.assert_array_equal(agent.act(obs, masks, None, keys=keys), agent.act(obs, masks))


@pytest.mark.long
@pytest.mark.parametrize("options", VARIANTS, ids=label)
def test_the_same_decisions_over_many_games(options):
    """Every knob on every variant, 400 games each to their end (minutes: the frozen planner is slow)."""
    for i, style in enumerate(STYLES):
        assert play_and_compare(options, style, n_games=400, seed=10_000 * (i + 1)) > 400
