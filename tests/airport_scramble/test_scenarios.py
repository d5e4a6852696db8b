"""Scenario tests, one or more per rule AS-5 … AS-19: a position built by hand, loaded into both
engines (``Both`` asserts they agree on every mask, observation, reward and position), and the
exact effect the rule demands.

Standard edition reminders (AS-2): blue HND NRT KIX ICN PEK, pink LAX SFO JFK ORD SEA, purple CDG
LHR FRA AMS MAD, green SYD SIN DXB GRU JNB; hubs (H/V) HNL b/p, IST b/u, BKK b/g, YVR p/b, ATL p/u,
MEX p/g, DOH u/b, ZRH u/p, CAI u/g, DEL g/b, LIM g/p, NBO g/u.
"""

import numpy as np
import pytest

from aerodeck.envs.airport_scramble.core import AirportScrambleCore
from aerodeck.envs.airport_scramble.position import LINE_CHOICE, TURN_ACTION, make_position
from aerodeck.envs.airport_scramble.reference import ReferenceGame
from aerodeck.envs.airport_scramble.rules import AirportScrambleRules
from aerodeck.envs.common import rng
from tests.airport_scramble.harness import Both

N, E, S, W = range(4)
STANDARD = AirportScrambleRules()
COMP = STANDARD.components
T = COMP.n_tickets


def ids(*codes):
    return [COMP.card(c) for c in codes]


def kth_remaining(position, pool, draw: int = 0) -> int:
    """The card the next draw (offset ``draw``) takes from ``pool``: k-th remaining by id (AS-17)."""
    value = rng.stream(position.key, position.counter + draw)
    return sorted(pool)[rng.draw_below(value, len(pool))]


# --- AS-5 the table --------------------------------------------------------------------------------

def test_as5_centre_is_grid_size_halved_and_no_play_leaves_the_grid():
    """AS-5: (0,0) is top-left, the centre is grid_size // 2 on both axes; play actions name only
    cells inside the grid, and a card at the edge has reach 0 towards it."""
    rules = AirportScrambleRules(grid_size=4)
    game = ReferenceGame(rules, seed=3)
    assert game.grid[2][2] == COMP.ticket_origin[game.ticket]
    both = Both(rules, make_position(rules, {(0, 0): "HND", (0, 1): "NRT"}, plane=(0, 0), slots=["KIX"], ticket=5))
    mask = both.mask()
    L = both.actions
    assert not any(mask[L.fly(N, k)] or mask[L.fly(W, k)] for k in range(1, 4))
    legal_cells = {(r, c) for r in range(4) for c in range(4) if mask[L.play(0, r, c)]}
    assert legal_cells == {(0, 2), (1, 0), (1, 1)}


# --- AS-6 set-up ----------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2, 77])
def test_as6_set_up_draws_ticket_then_slots_in_order(seed):
    """AS-6: the first random value draws the ticket; its origin is at the centre under the plane,
    its destination face up in slot 0, slots 1..F-1 are the next draws in order; the die shows the
    ticket's turns and the passenger is aboard."""
    game = ReferenceGame(STANDARD, seed)
    key = rng.game_key(seed)
    ticket = rng.draw_below(rng.stream(key, 0), T)
    assert game.ticket == ticket and game.die == COMP.ticket_turns[ticket]
    origin, destination = COMP.ticket_origin[ticket], COMP.ticket_destination[ticket]
    assert game.grid[4][4] == origin and game.plane == (4, 4) and game.slots[0] == destination
    pool = sorted(set(range(32)) - {origin, destination})
    for slot in range(1, 4):
        card = pool[rng.draw_below(rng.stream(key, slot), len(pool))]
        assert game.slots[slot] == card
        pool.remove(card)
    assert game.deck == set(pool) and game.counter == 4
    assert game.aboard and game.points == 2 and game.ticket_deck == set(range(T)) - {ticket}
    core = AirportScrambleCore(STANDARD)
    assert core.snapshot(core.init([seed]), 0) == game.snapshot()


def test_as6_short_deck_leaves_slots_empty():
    """AS-6: with fewer cards than slots the remaining slots stay empty."""
    rules = AirportScrambleRules(edition="generated", n_colors=1, plain_per_color=3, hubs=False, n_tickets=2)
    game = ReferenceGame(rules, 5)
    assert sorted(s >= 0 for s in game.slots) == [False, False, True, True]
    assert game.deck == set()


# --- AS-7 action points ---------------------------------------------------------------------------

def test_as7_turn_ends_when_points_reach_zero():
    """AS-7: each action spends points; at 0 the turn ends (AS-13: the die goes down) and the next
    turn has all its points again; an action costing more than the points left is illegal."""
    both = Both(STANDARD, make_position(STANDARD, {(4, 4): "HND"}, slots=["NRT", "KIX"], ticket=5, die=4))
    L = both.actions
    both.step(L.wait)
    assert both.position.points == 1 and both.position.die == 4
    assert not both.legal(L.replace(0b01))  # costs 2 > 1 point left
    both.step(L.play(0, 4, 5))
    assert both.position.points == 2 and both.position.die == 3


# --- AS-8 fly -------------------------------------------------------------------------------------

def blue_row(rules, points=None, plane=(4, 4)):
    cards = {(4, 3): "HND", (4, 4): "NRT", (4, 5): "KIX", (4, 6): "ICN"}
    return make_position(rules, cards, plane=plane, ticket=5, points=points)


def test_as8_reach_is_the_run_of_cards_next_to_the_plane():
    """AS-8: reach E is 2 (KIX, ICN), W is 1, N and S are 0: only k <= reach is legal."""
    both = Both(STANDARD, blue_row(STANDARD))
    L, mask = both.actions, both.mask()
    legal = {(d, k) for d in range(4) for k in range(1, 9) if mask[L.fly(d, k)]}
    assert legal == {(E, 1), (E, 2), (W, 1)}


def test_as8_full_reach_costs_one_stopping_early_costs_one_plus_stop_early_cost():
    """AS-8: flying the full reach costs 1, k < reach costs 1 + stop_early_cost."""
    rules = AirportScrambleRules(action_points=3)
    both = Both(rules, blue_row(rules))
    both.step(both.actions.fly(E, 1))  # stop early: 2 points
    assert both.position.plane == (4, 5) and both.position.points == 1
    both = Both(rules, blue_row(rules))
    both.step(both.actions.fly(E, 2))  # full reach: 1 point
    assert both.position.plane == (4, 6) and both.position.points == 2
    cheap = AirportScrambleRules(action_points=3, stop_early_cost=0)
    both = Both(cheap, blue_row(cheap))
    both.step(both.actions.fly(E, 1))
    assert both.position.points == 2


def test_as8_stopping_early_is_illegal_when_it_costs_more_than_the_points_left():
    """AS-8/AS-7: with 1 point left, only full-reach flights remain."""
    both = Both(STANDARD, blue_row(STANDARD, points=1))
    L = both.actions
    assert both.legal(L.fly(E, 2)) and not both.legal(L.fly(E, 1)) and both.legal(L.fly(W, 1))
    assert "costs 2 points" in both.game.explain_illegal(L.fly(E, 1))
    assert "reach" in both.game.explain_illegal(L.fly(N, 1))


# --- AS-9 play ------------------------------------------------------------------------------------

def test_as9_horizontal_neighbours_match_h_and_vertical_neighbours_match_v():
    """AS-9: next to blue HND, a card right of it needs H blue, a card above it V blue."""
    slots = ["NRT", "LAX", "HNL", "YVR"]  # b/b, p/p, b/p, p/b
    both = Both(STANDARD, make_position(STANDARD, {(4, 4): "HND"}, slots=slots, ticket=5))
    L, mask = both.actions, both.mask()
    right = [bool(mask[L.play(s, 4, 5)]) for s in range(4)]
    above = [bool(mask[L.play(s, 3, 4)]) for s in range(4)]
    assert right == [True, False, True, False]
    assert above == [True, False, False, True]
    assert not mask[L.play(0, 2, 4)] and not mask[L.play(0, 4, 4)]  # not adjacent / occupied
    assert "not next to" in both.game.explain_illegal(L.play(0, 2, 4))


def test_as9_a_card_must_match_every_neighbour():
    """AS-9: the empty cell (3,4) has SFO to its right (H pink) and HND below (V blue): only a
    pink/blue hub (YVR) fits; LAX matches the right side only, NRT the lower side only."""
    cards = {(4, 4): "HND", (4, 5): "HNL", (3, 5): "SFO"}
    both = Both(STANDARD, make_position(STANDARD, cards, slots=["YVR", "LAX", "NRT"], ticket=5))
    L = both.actions
    assert [both.legal(L.play(s, 3, 4)) for s in range(3)] == [True, False, False]
    assert "H colour" in both.game.explain_illegal(L.play(2, 3, 4))
    assert "V colour" in both.game.explain_illegal(L.play(1, 3, 4))


def test_as9_the_slot_is_refilled_at_once_with_the_kth_remaining_card():
    """AS-9: after the play the slot holds the next draw from the airport deck."""
    position = make_position(STANDARD, {(4, 4): "HND"}, slots=["NRT", "LAX"], ticket=5, seed=11, counter=7)
    expected = kth_remaining(position, position.deck)
    both = Both(STANDARD, position)
    both.step(both.actions.play(0, 4, 5))
    after = both.position
    assert after.grid[4][5] == COMP.card("NRT") and after.slots[0] == expected
    assert expected not in after.deck and after.counter == 8


def test_as9_with_an_empty_deck_the_slot_stays_empty():
    """AS-9: no refill from an empty airport deck (and no random value is used)."""
    position = make_position(STANDARD, {(4, 4): "HND"}, slots=["NRT", "LAX"], ticket=5, deck=[])
    both = Both(STANDARD, position)
    both.step(both.actions.play(0, 4, 5))
    assert both.position.slots[:2] == (-1, COMP.card("LAX")) and both.position.counter == 0


# --- AS-10 replace --------------------------------------------------------------------------------

def test_as10_replacements_are_drawn_in_slot_order_before_the_chosen_cards_go_back():
    """AS-10: slots 0 and 2 get the next two draws (k-th remaining, the second from the deck
    without the first); only then do NRT and HNL return to the deck; it costs 2 points."""
    slots = ["NRT", "LAX", "HNL", "YVR"]
    position = make_position(STANDARD, {(4, 4): "HND"}, slots=slots, ticket=5, seed=4, counter=3)
    first = kth_remaining(position, position.deck, 0)
    second = kth_remaining(position, position.deck - {first}, 1)
    both = Both(STANDARD, position)
    both.step(both.actions.replace(0b0101))
    after = both.position
    assert after.slots == (first, COMP.card("LAX"), second, COMP.card("YVR"))
    assert {COMP.card("NRT"), COMP.card("HNL")} <= after.deck and after.counter == 5
    assert after.points == 0 or after.die == position.die - 1  # 2 points: the turn ended


def test_as10_replace_needs_enough_cards_in_the_deck_and_only_filled_slots():
    """AS-10: a deck of one card allows replacing one slot, not two; an empty slot cannot be chosen."""
    position = make_position(STANDARD, {(4, 4): "HND"}, slots=["NRT", None, "HNL"], ticket=5, deck=["PEK"])
    both = Both(STANDARD, position)
    L = both.actions
    assert both.legal(L.replace(0b001)) and both.legal(L.replace(0b100))
    assert not both.legal(L.replace(0b101))
    assert "holds 1 card" in both.game.explain_illegal(L.replace(0b101))
    assert not both.legal(L.replace(0b010)) and "slot 1 is empty" in both.game.explain_illegal(L.replace(0b010))


def test_as10_max_replace_and_replace_cost():
    """AS-10: at most max_replace slots; the cost is replace_cost."""
    rules = AirportScrambleRules(max_replace=2, replace_cost=1)
    both = Both(rules, make_position(rules, {(4, 4): "HND"}, slots=["NRT", "LAX", "HNL", "YVR"], ticket=5, points=1))
    L = both.actions
    assert both.legal(L.replace(0b0011)) and not both.legal(L.replace(0b0111))
    both.step(L.replace(0b0011))
    assert both.position.points == 2 and both.position.die == COMP.ticket_turns[5] - 1


# --- AS-11 wait -----------------------------------------------------------------------------------

def stuck(rules):
    """An isolated card, a slot card that fits nowhere, an empty deck: nothing but wait."""
    return make_position(rules, {(4, 4): "HND"}, slots=["LAX"], ticket=5, deck=[])


def test_as11_wait_costs_one_point():
    """AS-11: wait does nothing but spend one point."""
    both = Both(STANDARD, make_position(STANDARD, {(4, 4): "HND"}, slots=["NRT"], ticket=5))
    both.step(both.actions.wait)
    assert both.position.points == 1 and both.position.grid[4][4] == COMP.card("HND")


def test_as11_without_allow_wait_wait_is_legal_only_when_nothing_else_is():
    """AS-11: allow_wait=off forbids waiting while another action is legal, allows it when stuck."""
    rules = AirportScrambleRules(allow_wait=False)
    both = Both(rules, make_position(rules, {(4, 4): "HND"}, slots=["NRT"], ticket=5))
    assert not both.legal(both.actions.wait)
    assert "allow_wait is off" in both.game.explain_illegal(both.actions.wait)
    both = Both(rules, stuck(rules))
    assert np.flatnonzero(both.mask()).tolist() == [both.actions.wait]


# --- AS-12 passenger ------------------------------------------------------------------------------

def route(rules, plane, aboard=False, points=None):
    """Row 4: PEK ICN HND KIX NRT (all blue); ticket 23 is ICN -> KIX."""
    cards = {(4, 1): "PEK", (4, 2): "ICN", (4, 3): "HND", (4, 4): "KIX", (4, 5): "NRT"}
    return make_position(rules, cards, plane=plane, ticket=23, aboard=aboard, points=points)


def test_as12_boarding_at_the_origin_then_completing_at_the_destination():
    """AS-12/AS-16: ending a flight on the origin boards, on the destination completes: +1, the
    ticket is set aside, the die shows 0 and the remaining points may still be spent."""
    rules = AirportScrambleRules(action_points=5)
    both = Both(rules, route(rules, plane=(4, 5)))
    L = both.actions
    assert both.step(L.fly(W, 3)) == 0.0  # NRT -> ICN (stop early)
    assert both.position.aboard
    assert both.step(L.fly(E, 2)) == 1.0  # ICN -> KIX (stop early)
    after = both.position
    assert after.score == 1 and after.ticket == -1 and after.die == 0 and not after.aboard
    assert after.points == 1 and both.legal(L.wait)
    assert 23 not in after.ticket_deck


def test_as12_flying_over_does_nothing_without_pickup_in_flight():
    """AS-12: pickup_in_flight=off: passing ICN and KIX on the way to NRT neither boards nor completes."""
    both = Both(STANDARD, route(STANDARD, plane=(4, 1)))
    assert both.step(both.actions.fly(E, 4)) == 0.0
    assert not both.position.aboard and both.position.ticket == 23


def test_as12_pickup_in_flight_processes_the_path_in_order():
    """AS-12: pickup_in_flight=on: one flight over ICN (boards) then KIX (completes) scores;
    flying over the destination before the origin does not."""
    rules = AirportScrambleRules(pickup_in_flight=True)
    both = Both(rules, route(rules, plane=(4, 1)))
    assert both.step(both.actions.fly(E, 4)) == 1.0
    assert both.position.score == 1 and both.position.ticket == -1
    both = Both(rules, route(rules, plane=(4, 5)))
    assert both.step(both.actions.fly(W, 4)) == 0.0  # KIX first (not aboard), then ICN (boards)
    assert both.position.aboard and both.position.ticket == 23


def chain(rules, ticket_deck):
    """JFK above ZRH, CAI right of ZRH; ticket 2 is JFK -> CAI (aboard), ticket 18 CAI -> LIM."""
    cards = {(3, 4): "JFK", (4, 4): "ZRH", (4, 5): "CAI"}
    return make_position(rules, cards, plane=(3, 4), ticket=2, aboard=True, ticket_deck=ticket_deck)


@pytest.mark.parametrize("board_on_draw", [True, False])
def test_as12_board_on_draw_when_the_plane_stands_on_the_new_origin(board_on_draw):
    """AS-12/AS-13/AS-14: after completing at CAI the next turn draws ticket 18 (CAI -> LIM): the
    passenger boards at once iff board_on_draw."""
    rules = AirportScrambleRules(board_on_draw=board_on_draw)
    both = Both(rules, chain(rules, ticket_deck=[18]))
    L = both.actions
    both.step(L.fly(S, 1))
    assert both.step(L.fly(E, 1)) == 1.0
    after = both.position
    assert after.ticket == 18 and after.die == COMP.ticket_turns[18] and after.points == 2
    assert after.aboard is board_on_draw


@pytest.mark.parametrize("bonus", [1, 8])
def test_as3_ticket_turn_bonus_gives_every_ticket_more_turns_the_set_up_one_included(bonus):
    """AS-3 ``ticket_turn_bonus``: the set-up ticket's die and every drawn ticket's show the card's turns
    plus the bonus, the die drops once a turn from there, and the observation's die scale covers it."""
    rules = AirportScrambleRules(ticket_turn_bonus=bonus)
    for seed in (0, 5):
        game, core = ReferenceGame(rules, seed), AirportScrambleCore(rules)
        state = core.init(np.array([seed]))
        assert game.die == COMP.ticket_turns[game.ticket] + bonus == state.die[0]
        assert np.array_equal(game.observe(), core.observe(state)[0])
        die = core.observation.blocks["die"].start
        assert core.observe(state)[0, die] == pytest.approx(game.die / (8 + bonus))
    both = Both(rules, chain(rules, ticket_deck=[18]))
    assert both.position.die == COMP.ticket_turns[2] + bonus  # make_position reads the rules too
    L = both.actions
    both.step(L.fly(S, 1))
    assert both.step(L.fly(E, 1)) == 1.0
    after = both.position
    assert after.ticket == 18 and after.die == COMP.ticket_turns[18] + bonus
    for turn in range(after.die):  # AS-13: it fails after exactly its turns plus the bonus
        assert not both.position.done
        both.step(L.wait)
        both.step(L.wait)
    assert both.position.done and both.position.ticket == 18


# --- AS-13 end of turn ----------------------------------------------------------------------------

def test_as13_the_die_goes_down_each_turn_and_the_game_ends_at_zero():
    """AS-13/AS-16: an open ticket's die drops at the end of each turn; at 0 the game is over,
    failed, with reward 0."""
    both = Both(STANDARD, make_position(STANDARD, {(4, 4): "HND"}, slots=["NRT"], ticket=5, die=2, points=1))
    assert both.step(both.actions.wait) == 0.0
    assert both.position.die == 1 and not both.position.done
    both.step(both.actions.wait)
    assert both.step(both.actions.wait) == 0.0
    assert both.position.done and both.position.die == 0 and both.position.ticket == 5
    assert not both.mask().any()


def test_as13_a_completed_ticket_is_followed_by_a_draw_at_the_start_of_the_next_turn():
    """AS-13: completing mid-turn leaves no ticket for the rest of the turn; the die does not drop;
    the next turn starts with a new ticket and its turns on the die."""
    rules = AirportScrambleRules(action_points=3)
    both = Both(rules, chain(rules, ticket_deck=[18, 19]))
    L = both.actions
    both.step(L.fly(S, 1))
    both.step(L.fly(E, 1))
    assert both.position.ticket == -1 and both.position.die == 0 and both.position.points == 1
    both.step(L.wait)
    after = both.position
    assert after.ticket in (18, 19) and after.die == COMP.ticket_turns[after.ticket] and after.points == 3


# --- AS-14 drawing a ticket -----------------------------------------------------------------------

def test_as14_empty_ticket_deck_ends_the_game_won():
    """AS-14/AS-16: completing the last ticket with an empty ticket deck ends the game at the turn's end."""
    both = Both(STANDARD, chain(STANDARD, ticket_deck=[]))
    L = both.actions
    both.step(L.fly(S, 1))
    assert both.step(L.fly(E, 1)) == 1.0
    after = both.position
    assert after.done and after.ticket == -1 and after.score == T


# --- AS-15 pre-played tickets ---------------------------------------------------------------------

def network(rules, plane=(5, 2), ticket_deck=(20,)):
    """Row 4: HNL NRT IST (H blue); LAX under HNL (V pink), AMS under IST (V purple).
    Ticket 20 is IST -> AMS: both in play, so drawing it is pre-played. No current ticket, 1 point."""
    cards = {(4, 2): "HNL", (4, 3): "NRT", (4, 4): "IST", (5, 2): "LAX", (5, 4): "AMS"}
    return make_position(rules, cards, plane=plane, ticket_deck=ticket_deck, points=1)


def test_as15_only_lines_that_keep_the_network_connected_may_be_chosen():
    """AS-15: the pre-played ticket goes back and a line must be chosen: the two vertical lines
    (named by their top cell) may go, the horizontal one would split LAX from AMS."""
    both = Both(STANDARD, network(STANDARD))
    L = both.actions
    both.step(L.wait)
    after = both.position
    assert after.phase == LINE_CHOICE and after.ticket == -1 and 20 in after.ticket_deck
    assert np.flatnonzero(both.mask()).tolist() == [L.line(1, 4, 2), L.line(1, 4, 4)]
    assert "not all be connected" in both.game.explain_illegal(L.line(0, 4, 2))
    assert both.observe()[both.core.observation.blocks["line_choice"].slice][0] == 1.0


def test_as15_removing_a_line_relocates_the_plane_and_the_loop_repeats():
    """AS-15: removing HNL+LAX returns them to the deck; the plane on LAX moves to the nearest card
    (NRT and AMS are both 2 away: smallest row wins: NRT); ticket 20 is drawn again, still
    pre-played, so another line is chosen; then the plane moves to AMS and the ticket is kept."""
    both = Both(STANDARD, network(STANDARD))
    L = both.actions
    both.step(L.wait)
    both.step(L.line(1, 4, 2))
    after = both.position
    assert {COMP.card("HNL"), COMP.card("LAX")} <= after.deck
    assert after.plane == (4, 3) and after.phase == LINE_CHOICE
    assert np.flatnonzero(both.mask()).tolist() == [L.line(0, 4, 3), L.line(1, 4, 4)]
    both.step(L.line(0, 4, 3))
    after = both.position
    assert after.plane == (5, 4) and after.phase == TURN_ACTION
    assert after.ticket == 20 and after.die == COMP.ticket_turns[20] and not after.aboard
    assert after.cards_in_play() == {COMP.card("AMS"): (5, 4)}


def test_as15_if_no_line_may_be_chosen_the_ticket_is_kept():
    """AS-15: IST over AMS is the only line; removing it leaves no card, so ticket 20 is kept
    (and with the plane on its origin the passenger boards, AS-12)."""
    position = make_position(STANDARD, {(4, 4): "IST", (5, 4): "AMS"}, plane=(4, 4), ticket_deck=[20], points=1)
    both = Both(STANDARD, position)
    both.step(both.actions.wait)
    after = both.position
    assert after.phase == TURN_ACTION and after.ticket == 20 and after.aboard


def test_as15_redraw_happens_at_most_once_per_turn():
    """AS-15 preplayed_rule=redraw: the pre-played ticket is shuffled back and one more ticket is
    drawn; the redraw (here the same ticket again) is kept although it is pre-played."""
    rules = AirportScrambleRules(preplayed_rule="redraw")
    both = Both(rules, network(rules))
    both.step(both.actions.wait)
    after = both.position
    assert after.ticket == 20 and after.redraw_used and after.phase == TURN_ACTION
    assert after.counter == 2 and after.grid == network(rules).grid


def test_as15_off_keeps_the_preplayed_ticket():
    """AS-15 preplayed_rule=off: nothing happens; the ticket is simply drawn."""
    rules = AirportScrambleRules(preplayed_rule="off")
    both = Both(rules, network(rules))
    both.step(both.actions.wait)
    after = both.position
    assert after.ticket == 20 and not after.redraw_used and after.counter == 1


# --- AS-16 score and reward -----------------------------------------------------------------------

def test_as16_reward_is_one_per_completed_ticket_and_zero_otherwise():
    """AS-16: rewards over a scripted game: 0 for moves, +1 at the completion; score counts them."""
    rules = AirportScrambleRules(action_points=6)
    both = Both(rules, route(rules, plane=(4, 5)))
    L = both.actions
    rewards = [both.step(a) for a in (L.wait, L.fly(W, 3), L.fly(E, 2))]
    assert rewards == [0.0, 0.0, 1.0] and both.position.score == 1


# --- AS-17 randomness and hidden information ------------------------------------------------------

def test_as17_the_observation_shows_the_decks_contents_but_not_their_order():
    """AS-17: two games that differ only in their random stream look the same; the deck segment
    shows exactly the cards in the deck."""
    a = make_position(STANDARD, {(4, 4): "HND"}, slots=["NRT"], ticket=5, seed=1)
    b = make_position(STANDARD, {(4, 4): "HND"}, slots=["NRT"], ticket=5, seed=2, counter=9)
    obs_a, obs_b = Both(STANDARD, a).observe(), Both(STANDARD, b).observe()
    assert np.array_equal(obs_a, obs_b)
    deck = obs_a[AirportScrambleCore(STANDARD).observation.blocks["deck"].slice]
    assert set(np.flatnonzero(deck)) == set(a.deck)


def test_as17_the_observation_shows_which_card_lies_in_each_cell_and_slot():
    """AS-17 hides only the decks' order: plain blue HND and NRT have the same colours, but the
    ``card_place`` block tells them apart: per card id, (1 + place) / (G² + F) with place its cell
    r·G + c or G² + its slot, 0 in the airport deck; every cell's and slot's card can be read back."""
    a = make_position(STANDARD, {(4, 4): "HND", (4, 5): "NRT"}, slots=["KIX", None, "PEK"], ticket=5)
    b = make_position(STANDARD, {(4, 4): "NRT", (4, 5): "HND"}, slots=["PEK", None, "KIX"], ticket=5)
    obs_a, obs_b = Both(STANDARD, a).observe(), Both(STANDARD, b).observe()
    blocks = AirportScrambleCore(STANDARD).observation.blocks
    for name in ("cell_hv", "slot_hv", "deck"):
        assert np.array_equal(obs_a[blocks[name].slice], obs_b[blocks[name].slice])  # alike but for the cards
    place = np.rint(obs_a[blocks["card_place"].slice] * (81 + 4)).astype(int) - 1  # -1: in the deck
    cell_of = {card: p for card, p in enumerate(place) if 0 <= p < 81}
    slot_of = {card: p - 81 for card, p in enumerate(place) if p >= 81}
    assert cell_of == {COMP.card("HND"): 4 * 9 + 4, COMP.card("NRT"): 4 * 9 + 5}
    assert slot_of == {COMP.card("KIX"): 0, COMP.card("PEK"): 2}
    assert set(np.flatnonzero(place < 0)) == set(a.deck)
    assert not np.array_equal(obs_a, obs_b)


def test_as17_a_draw_takes_the_kth_remaining_card_by_id():
    """AS-17: drawing is uniform over the remaining cards: the k-th by id, k from the stream."""
    position = make_position(STANDARD, {(4, 4): "HND"}, slots=["NRT"], ticket=5, seed=123, counter=40, deck=["PEK", "JFK", "LIM"])
    both = Both(STANDARD, position)
    both.step(both.actions.play(0, 4, 5))
    k = rng.draw_below(rng.stream(rng.game_key(123), 40), 3)
    assert both.position.slots[0] == sorted(ids("PEK", "JFK", "LIM"))[k]


# --- AS-18 decision points ------------------------------------------------------------------------

def test_as18_forced_steps_happen_inside_a_step_and_line_choice_is_a_decision():
    """AS-18: a wait that ends the turn draws the ticket inside the same step; the AS-15 choice is
    the next decision and offers only remove-line actions."""
    both = Both(STANDARD, network(STANDARD))
    L = both.actions
    both.step(L.wait)
    mask = both.mask()
    assert mask.any() and not mask[: L.line_offset].any() and not mask[L.wait]


# --- AS-19 action indices -------------------------------------------------------------------------

def test_as19_indices_at_default_rules():
    """AS-19: G=9, F=4: 534 actions; fly d(G-1)+k-1, play 4(G-1)+sG²+rG+c, replace, line, wait."""
    L = AirportScrambleCore(STANDARD).actions
    assert L.n_actions == 534
    assert L.fly(E, 3) == 10
    assert L.play(2, 3, 4) == 32 + 2 * 81 + 3 * 9 + 4
    assert L.replace(0b1010) == 32 + 4 * 81 + 9
    assert L.line(1, 2, 3) == 32 + 4 * 81 + 15 + 81 + 2 * 9 + 3
    assert L.wait == 533
