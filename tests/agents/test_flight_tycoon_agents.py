"""The Flight Tycoon heuristic and search agents: legal always, blind to hidden cards, sensible in
hand-built positions, and stronger than the players below them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from aerodeck.agents.flight_tycoon.facts import Facts, none_held
from aerodeck.agents.flight_tycoon.heuristic import HeuristicAgent
from aerodeck.agents.flight_tycoon.search import SearchAgent
from aerodeck.agents.random import RandomAgent
from aerodeck.agents.registry import make_agent
from aerodeck import envs
from aerodeck.envs import view_of_env
from aerodeck.envs.flight_tycoon.actions import decode_action, request_action
from aerodeck.envs.flight_tycoon.core import FlightTycoonCore
from aerodeck.envs.flight_tycoon.env import env as make_env
from aerodeck.envs.flight_tycoon.position import Position
from aerodeck.envs.flight_tycoon.rules import DISCARD, GIVE, REQUEST, SQUARE_MONTHS, TOWER, FlightTycoonRules
from aerodeck.envs.flight_tycoon.view import FlightTycoonView
from tests.flight_tycoon.helpers import card, cards, hidden_swap, random_states, revealed
from aerodeck.arena.loop import game_seeds, play_games
from aerodeck.stats.estimates import against_value, mean_ci

# Rule variants the agents must handle: player counts, VP sharing, tables, giveable towers, rewards, deals.
VARIANTS = [
    {},
    {"n_players": 3},
    {"n_players": 5},
    {"vp_sharing": "first_only"},
    {"vp_sharing": "rank", "rank_step": 3},
    {"n_players": 5, "tower_giveable": True},
    {"tower_giveable": True, "vp_sharing": "rank"},
    {"reward": "vp", "vp_table": (2, 2, 9, 0, 12)},
    {"n_players": 3, "hand_size": 2, "tokens": 12},
    {"n_players": 5, "hand_size": 9, "tokens": 5},
]


def variant_id(options: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items()) or "standard"


def play_checked(rules: FlightTycoonRules, agents: list, n_games: int, seed: int = 0) -> tuple[int, object]:
    """Play ``n_games``, seat s by ``agents[s % len(agents)]`` rotated by game, asserting before every
    step that each deciding agent's action is legal. Returns the decisions checked and the final state."""
    core = FlightTycoonCore(rules)
    n = rules.n_players
    state = core.init(game_seeds(seed, n_games))
    owner = (np.arange(n)[None, :] + np.arange(n_games)[:, None]) % len(agents)  # agent of each seat
    checked = 0
    for _ in range(2000):
        if state.done.all():
            return checked, state
        seat = core.to_act(state)
        actions = np.zeros(n_games, np.int64)
        for a, agent in enumerate(agents):
            games = np.flatnonzero(~state.done & (owner[np.arange(n_games), np.maximum(seat, 0)] == a))
            if games.size == 0:
                continue
            masks = core.legal_mask(state, games=games)
            view = FlightTycoonView(core, state, seat[games], games) if agent.needs_view else None
            chosen = agent.act(core.observe(state, seat[games], games=games), masks, view)
            assert chosen.dtype == np.int64 and chosen.shape == (games.size,)
            bad = np.flatnonzero(~masks[np.arange(games.size), chosen])
            assert bad.size == 0, (f"{agent.name} chose an illegal action in {rules.label()}: game {games[bad[0]]}: "
                                   f"{core.explain_illegal(state, int(games[bad[0]]), int(chosen[bad[0]]))}")
            actions[games] = chosen
            checked += games.size
        core.step(state, actions)
    raise AssertionError(f"games of {rules.label()} did not end")


# --- what the agents read --------------------------------------------------------------------------

@pytest.mark.parametrize("options", [{}, {"n_players": 3}, {"n_players": 5, "tower_giveable": True}], ids=variant_id)
def test_facts_from_an_observation_equal_the_facts_computed_from_the_state(options):
    rules = FlightTycoonRules(**options)
    core = FlightTycoonCore(rules)
    st = random_states(core, 200, seed=rules.n_players)
    for seat in range(rules.n_players):
        read = Facts.read(core.observation, core.observe(st, seat))
        direct = Facts.of_state(core, st, np.full(st.batch_size, seat))
        for field in dataclasses.fields(Facts):
            assert np.array_equal(getattr(read, field.name), getattr(direct, field.name)), field.name


def test_the_hidden_cards_of_a_hand_are_counted_from_public_sizes():
    core = FlightTycoonCore(FlightTycoonRules())
    st = random_states(core, 200, seed=3)
    started = st.phase != TOWER
    facts = Facts.of_state(core, st, np.zeros(st.batch_size, np.int64))
    real = np.bitwise_count(st.hand).astype(np.int64)
    assert np.array_equal(facts.real_size[started], real[started])
    located = np.bitwise_count(st.hand & st.known[:, :1]).astype(np.int64)
    assert np.array_equal(facts.hidden[started, 1:], (real - located)[started, 1:])
    # every card seat 0 cannot locate is in another hand's hidden part or in the deck
    pool = np.bitwise_count(facts.unknown)
    assert np.array_equal(pool[started], (facts.hidden.sum(1) + np.bitwise_count(st.deck))[started])


def test_the_chance_of_holding_none_is_hypergeometric():
    assert none_held(0, 5, 20) == pytest.approx(1.0)
    assert none_held(4, 0, 20) == pytest.approx(1.0)
    assert none_held(1, 5, 20) == pytest.approx(15 / 20)
    assert none_held(2, 3, 10) == pytest.approx((8 * 7 * 6) / (10 * 9 * 8))
    assert none_held(8, 3, 10) == 0.0  # two cards left, three to hold


# --- legality ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("options", VARIANTS, ids=variant_id)
def test_the_heuristic_only_chooses_legal_actions(options):
    rules = FlightTycoonRules(**options)
    heuristic = HeuristicAgent(seed=1, rules=rules)
    checked, state = play_checked(rules, [heuristic, RandomAgent(seed=2)], 120, seed=len(options))
    assert checked > 120 * 10
    assert state.done.all()


@pytest.mark.parametrize("options", VARIANTS[::2] + [VARIANTS[5]], ids=variant_id)
def test_the_search_agent_only_chooses_legal_actions(options):
    rules = FlightTycoonRules(**options)
    search = SearchAgent(seed=3, rules=rules, samples=2, candidates=3, horizon=12)
    checked, _ = play_checked(rules, [search, HeuristicAgent(seed=4, rules=rules)], 6, seed=11)
    assert checked > 6 * 10


def test_every_decision_kind_reaches_the_agents():
    rules = FlightTycoonRules()
    core = FlightTycoonCore(rules)
    st = random_states(core, 400, seed=5)
    kinds = set(st.phase[~st.done].tolist())
    assert {TOWER, REQUEST, GIVE, DISCARD} <= kinds  # so the legality tests above see all four


# --- no peeking --------------------------------------------------------------------------------------

def same_choices_after_hidden_swaps(rules: FlightTycoonRules, make, n_states: int, seed: int) -> int:
    """For every seat, swap cards it cannot know (``hidden_swap``) in the games where it decides and assert
    that a fresh agent from ``make()`` (same seed) chooses the same actions in the real and the swapped
    games. Returns the number of games compared."""
    core = FlightTycoonCore(rules)
    st = random_states(core, n_states, seed=seed)
    rng = np.random.default_rng(seed)
    tested = 0
    for seat in range(rules.n_players):
        swapped, changed = hidden_swap(core, st, seat, rng)
        games = np.flatnonzero((core.to_act(st) == seat) & ~st.done & changed)
        assert (swapped.hand[games] != st.hand[games]).any(1).all()  # the hidden cards really differ
        choices = []
        for state in (st, swapped):
            agent = make()
            view = FlightTycoonView(core, state, np.full(games.size, seat), games)
            choices.append(agent.act(view.observation(), view.legal_mask(), view if agent.needs_view else None))
        assert np.array_equal(*choices)
        tested += games.size
    return tested


@pytest.mark.parametrize("options", [{}, {"n_players": 3, "tower_giveable": True}, {"n_players": 5}], ids=variant_id)
def test_the_heuristic_choice_is_unchanged_when_cards_it_cannot_know_are_swapped(options):
    rules = FlightTycoonRules(**options)
    assert same_choices_after_hidden_swaps(rules, lambda: HeuristicAgent(seed=9, rules=rules), 400, seed=7) > 100


@pytest.mark.parametrize("options", [{}, {"n_players": 3, "tower_giveable": True}], ids=variant_id)
def test_the_search_choice_is_unchanged_when_cards_it_cannot_know_are_swapped(options):
    rules = FlightTycoonRules(**options)

    def make():
        return SearchAgent(seed=5, rules=rules, samples=4, candidates=4, horizon=16)

    assert same_choices_after_hidden_swaps(rules, make, 160, seed=8) > 40


def test_the_search_agent_asks_for_a_view():
    agent = SearchAgent(rules=FlightTycoonRules())
    core = FlightTycoonCore(agent.rules)
    st = core.init([0])
    with pytest.raises(ValueError, match="look-ahead view"):
        agent.act(core.observe(st, 0), core.legal_mask(st))


# --- sensible moves in hand-built positions ------------------------------------------------------------

def observe_seat(core, st, seat):
    return core.observe(st, seat), core.legal_mask(st)


def test_the_tower_goes_on_a_month_held_twice():  # FT-6
    rules = FlightTycoonRules()
    core = FlightTycoonCore(rules)
    hands = [cards("1A 3B 5A 5C 7D 9A 11B 12C"), cards("2A 2B 4C 6D 8A 10B 12A 1B"),
             cards("3A 4A 6A 7A 8B 9B 10C 11C"), cards("1C 2C 3C 4B 6B 7B 8C 9C")]
    st = core.load_positions([Position(hands=hands, laid=[None] * 4)])
    assert st.phase[0] == TOWER and core.to_act(st)[0] == 0
    choice = HeuristicAgent(rules=rules).act(*observe_seat(core, st, 0))[0]
    assert choice in cards("5A 5C")


def test_the_heuristic_requests_a_square_none_of_whose_months_it_holds():  # FT-8, FT-10
    rules = FlightTycoonRules()
    core = FlightTycoonCore(rules)
    # seat 0 holds odd months only (its tower: month 1); it gave 2A to seat 1, so it knows seat 1 holds it
    position = revealed(["3A 5B 7C 9D 11A 1B", "2A 4B 6C 8D 10A", "2B 4C 6D 8A 12A", "2C 4D 6A 8B 12B"],
                        ["1A", "10B", "12C", "10C"], known=[cards("2A"), [], [], []], active=0)
    st = core.load_positions([position])
    action = HeuristicAgent(rules=rules).act(*observe_seat(core, st, 0))[0]
    kind, offset, square = decode_action(int(action))
    assert kind == "request"
    held = {c // 4 for c in cards("3A 5B 7C 9D 11A 1B 1A")}
    assert not any(SQUARE_MONTHS[square, m] for m in held)  # every card meeting it lands
    assert square == 19 and offset == 1  # even months (10 VP) from the seat surely holding one


def test_the_heuristic_prefers_an_empty_square_when_vp_is_split():  # FT-11
    rules = FlightTycoonRules()
    core = FlightTycoonCore(rules)
    tokens = [0] * 24
    tokens[19] = 4  # even months already pays 10 // 5 = 2
    position = revealed(["3A 5B 7C 9D 11A 1B", "2A 4B 6C 8D 10A", "2B 4C 6D 8A 12A", "2C 4D 6A 8B 12B"],
                        ["1A", "10B", "12C", "10C"], known=[cards("2A"), [], [], []], active=0, tokens=tokens)
    st = core.load_positions([position])
    kind, offset, square = decode_action(int(HeuristicAgent(rules=rules).act(*observe_seat(core, st, 0))[0]))
    assert kind == "request" and square != 19


def test_the_heuristic_gives_a_card_of_a_month_the_requester_is_known_to_hold():  # FT-9
    rules = FlightTycoonRules()
    core = FlightTycoonCore(rules)
    # seat 0 once gave 5A to seat 1 (so it can locate it); seat 1 now asks seat 0 for spring (3-5)
    position = revealed(["3B 5C 8A 10D", "5A 7B 9C 11D 1A", "2A 4B 6C 8D 10A", "2B 4C 6D 8B 12A"],
                        ["12B", "12C", "12D", "10C"], known=[cards("5A"), [], [], []], active=1)
    st = core.load_positions([position])
    core.step(st, np.array([request_action(3, 12)]))  # offset 3 from seat 1 = seat 0; square 12 = spring
    assert st.phase[0] == GIVE and core.to_act(st)[0] == 0
    assert HeuristicAgent(rules=rules).act(*observe_seat(core, st, 0))[0] == card("5C")


def test_the_heuristic_gives_the_tower_month_of_the_requester():  # FT-9, FT-10: the tower counts
    rules = FlightTycoonRules()
    core = FlightTycoonCore(rules)
    position = revealed(["3B 5C 8A 10D", "4A 7B 9C 11D 1A", "2A 4B 6C 8D 10A", "2B 4C 6D 8B 12A"],
                        ["12B", "3C", "12D", "10C"], active=1)  # seat 1's tower is month 3
    st = core.load_positions([position])
    core.step(st, np.array([request_action(3, 12)]))
    assert HeuristicAgent(rules=rules).act(*observe_seat(core, st, 0))[0] == card("3B")


def test_the_heuristic_discards_the_card_of_its_rarest_airline():  # FT-10
    rules = FlightTycoonRules()
    core = FlightTycoonCore(rules)
    # seat 0 holds 5A and 5B, airline A elsewhere too; seat 1's only month-5 card is 5C (a forced give)
    position = revealed(["1A 3A 5A 5B 7A 9A", "5C 7B 9C 11D", "2A 4B 6C 8D 10A", "2B 4C 6D 8B 12A"],
                        ["12B", "12C", "12D", "10C"], active=0)
    st = core.load_positions([position])
    core.step(st, np.array([request_action(1, 4)]))  # ask seat 1 for month 5: a collision
    assert st.phase[0] == DISCARD and core.to_act(st)[0] == 0
    assert HeuristicAgent(rules=rules).act(*observe_seat(core, st, 0))[0] == card("5B")


def test_the_search_agent_plays_for_the_win_with_the_last_token():  # FT-11, FT-12
    rules = FlightTycoonRules()
    core = FlightTycoonCore(rules)
    # one token left and seat 0 is 9 VP behind seat 1: "months 1-6" (8 VP) lands surely but ends the game
    # lost; only "even months" (10 VP) can win, though seat 1 may hold a month-8 or -12 card that collides
    tokens = [0] * 24
    tokens[:5] = [6, 6, 6, 6, 5]
    position = revealed(["7C 8D 9D 11A 12B", "2A 4B 6C 10A 1A", "2B 4C 6D 8A 10B", "2C 4D 6A 8B 10C"],
                        ["7A", "12C", "12D", "10D"], active=0, tokens=tokens, vp=[20, 29, 10, 10],
                        known=[cards("2A"), [], [], []])
    st = core.load_positions([position])
    view = FlightTycoonView(core, st, np.array([0]))
    heuristic = HeuristicAgent(rules=rules).act(view.observation(), view.legal_mask())[0]
    assert decode_action(int(heuristic)) == ("request", 1, 16)  # the sure 8 VP
    search = SearchAgent(seed=0, rules=rules, samples=16, candidates=8)
    kind, _, square = decode_action(int(search.act(view.observation(), view.legal_mask(), view)[0]))
    assert kind == "request" and square == 19


# --- strength ----------------------------------------------------------------------------------------

def one_against_rest(agent, rest, rules, n_games: int, seed: int = 0):
    """``agent`` in one seat, ``rest`` in the others, the seat rotated; its per-game win share."""
    n = rules.n_players
    lineups = np.array([[int(s != r) for s in range(n)] for r in range(n)])
    lineups = np.tile(lineups, (n_games // n, 1))
    core = FlightTycoonCore(rules)
    game = envs.spec("flight-tycoon")
    out = play_games(core, [agent, rest], game_seeds(seed, len(lineups)), lineups, progress=False,
                     make_view=game.make_view, summary=game.summary_of())
    return (out["win_share"] * (lineups == 0)).sum(1)


def test_the_heuristic_beats_three_random_players():
    rules = FlightTycoonRules()
    wins = one_against_rest(HeuristicAgent(seed=1, rules=rules), RandomAgent(seed=2), rules, 400)
    estimate = mean_ci(wins)
    assert estimate.low > 0.5, estimate  # fair share 0.25; it wins almost always


@pytest.mark.parametrize("options", [{"n_players": 3}, {"n_players": 5, "vp_sharing": "rank"}], ids=variant_id)
def test_the_heuristic_beats_random_players_in_other_editions(options):
    rules = FlightTycoonRules(**options)
    wins = one_against_rest(HeuristicAgent(seed=1, rules=rules), RandomAgent(seed=2), rules, 300)
    assert mean_ci(wins).low > 1.5 / rules.n_players


@pytest.mark.long
def test_the_search_agent_beats_three_heuristic_players():
    rules = FlightTycoonRules()
    search = SearchAgent(seed=1, rules=rules)  # the default budget: 32 samples × 6 candidates, horizon 16
    wins = one_against_rest(search, HeuristicAgent(seed=2, rules=rules), rules, 600)
    estimate = against_value(wins, 0.25)
    assert estimate.low > 0.25, estimate  # about 0.38 over 10,000 games


# --- the agents in the tools and the AEC env ------------------------------------------------------------

def test_the_registry_builds_both_agents_with_their_parameters():
    rules = FlightTycoonRules(n_players=3)
    heuristic = make_agent("flight-tycoon", "heuristic:land_bonus=0.5", rules, seed=3)
    search = make_agent("flight-tycoon", "search:samples=2,candidates=3,horizon=8", rules, seed=4)
    assert isinstance(heuristic, HeuristicAgent) and heuristic.land_bonus == 0.5
    assert isinstance(search, SearchAgent) and (search.samples, search.candidates, search.horizon) == (2, 3, 8)
    assert search.needs_view and not heuristic.needs_view
    with pytest.raises(ValueError, match="has no knob 'depth'"):
        make_agent("flight-tycoon", "search:depth=3", rules)
    with pytest.raises(ValueError, match="samples"):
        make_agent("flight-tycoon", "search:samples=0", rules)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("heuristic:land_bonus=abc", r"knob 'land_bonus' must be a finite number, got 'abc'"),
        ("heuristic:noise=-1", r"knob 'noise' must be a finite number >= 0, got '-1'"),
        ("search:margin=nan", r"knob 'margin' must be a finite number >= 0, got 'nan'"),
        ("search:horizon=-1", r"knob 'horizon' must be an integer >= 0, got '-1'"),
        ("search:samples=1.5", r"knob 'samples' must be a positive integer, got '1.5'"),
        ("search:chunk=0", r"knob 'chunk' must be a positive integer, got '0'"),
    ],
)
def test_a_bad_knob_is_refused_naming_it_and_what_is_allowed(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent("flight-tycoon", spec, FlightTycoonRules())


def test_the_constructors_check_their_knobs_too():
    with pytest.raises(ValueError, match="search agent knob 'candidates' must be a positive integer"):
        SearchAgent(candidates=2.5)
    with pytest.raises(ValueError, match="heuristic agent knob 'land_bonus' must be a finite number"):
        HeuristicAgent(land_bonus=float("inf"))


def test_the_agents_play_inside_the_aec_env():
    aec = make_env(n_players=3, vp_sharing="rank")
    rules = aec.unwrapped.rules
    agents = [HeuristicAgent(seed=1, rules=rules), SearchAgent(seed=2, rules=rules, samples=2, candidates=2, horizon=6),
              HeuristicAgent(seed=3)]  # the last one infers the player count from the mask
    aec.reset(seed=4)
    steps = 0
    for name in aec.agent_iter():
        observation, reward, terminated, truncated, info = aec.last()
        if terminated or truncated:
            aec.step(None)
            continue
        agent = agents[int(name.split("_")[1])]
        view = view_of_env(aec) if agent.needs_view else None
        action = agent.act_one(observation["observation"], observation["action_mask"], view)
        assert observation["action_mask"][action]
        aec.step(action)
        steps += 1
    assert steps > 20
    assert all("illegal_action" not in aec.infos.get(a, {}) for a in aec.possible_agents)


def test_the_agents_are_deterministic_given_their_seed():
    rules = FlightTycoonRules()
    core = FlightTycoonCore(rules)
    st = random_states(core, 60, seed=2)
    live = np.flatnonzero(~st.done)
    seats = core.to_act(st)[live]
    view = FlightTycoonView(core, st, seats, live)
    runs = [[HeuristicAgent(seed=s, rules=rules).act(view.observation(), view.legal_mask()),
             SearchAgent(seed=s, rules=rules, samples=2, candidates=3, horizon=8).act(view.observation(),
                                                                                   view.legal_mask(), view)]
            for s in (7, 7)]
    assert all(np.array_equal(a, b) for a, b in zip(*runs))


def test_the_agents_serve_as_opponents_in_the_learner_view():
    from aerodeck.envs.flight_tycoon.learner import LearnerGames

    rules = FlightTycoonRules()
    opponents = [HeuristicAgent(seed=1, rules=rules).act,
                 SearchAgent(seed=2, rules=rules, samples=2, candidates=2, horizon=4).act,
                 HeuristicAgent(seed=3, rules=rules).act]
    selfplay = LearnerGames(16, rules, opponents=opponents, seed=5)
    learner = HeuristicAgent(seed=4, rules=rules)
    observations, masks = selfplay.reset()
    ended = 0
    for _ in range(60):
        actions = learner.act(observations, masks)
        assert masks[np.arange(16), actions].all()
        observations, rewards, dones, infos = selfplay.step(actions)
        masks = selfplay.action_masks()
        ended += int(dones.sum())
    assert ended > 0
