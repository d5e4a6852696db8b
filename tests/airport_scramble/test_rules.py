"""The rules object: options, validation, the standard edition as tabled (AS-1..AS-3), generated
editions (AS-4), TOML / key=value loading and their errors."""

import pytest

from aerodeck.envs.airport_scramble.rules import COLOR_NAMES, AirportScrambleRules, generated_card_count

# AS-2 and AS-3 exactly as tabled in the rules file.
PLAIN = ["HND NRT KIX ICN PEK", "LAX SFO JFK ORD SEA", "CDG LHR FRA AMS MAD", "SYD SIN DXB GRU JNB"]
HUBS = "HNL b p, IST b u, BKK b g, YVR p b, ATL p u, MEX p g, DOH u b, ZRH u p, CAI u g, DEL g b, LIM g p, NBO g u"
TICKETS = """CDG JFK 8, ATL ORD 3, JFK CAI 5, SEA NBO 5, HND SFO 5, MAD SIN 5, DEL HND 3, GRU DEL 4,
ZRH DXB 5, SYD FRA 8, BKK LAX 5, HNL MAD 8, AMS PEK 6, LIM ATL 4, PEK BKK 4, DOH YVR 4, YVR NRT 5,
SFO ICN 5, CAI LIM 3, ORD ZRH 4, IST AMS 4, LAX JNB 7, MEX GRU 5, ICN KIX 5"""


def test_as1_four_route_colours_in_order():
    """AS-1: colours 0 blue, 1 pink, 2 purple, 3 green."""
    assert COLOR_NAMES[:4] == ("blue", "pink", "purple", "green")
    assert AirportScrambleRules().components.n_colors == 4


def test_as2_standard_cards_in_id_order_with_their_colours():
    """AS-2: 32 cards; ids 0-19 plain by colour, 20-31 hubs with the tabled H and V."""
    comp = AirportScrambleRules().components
    letter = {"b": 0, "p": 1, "u": 2, "g": 3}
    expected = [(code, color, color) for color, row in enumerate(PLAIN) for code in row.split()]
    expected += [(c, letter[h], letter[v]) for c, h, v in (hub.split() for hub in HUBS.split(", "))]
    assert list(zip(comp.codes, comp.card_h, comp.card_v)) == expected
    assert [comp.is_hub(i) for i in range(32)] == [False] * 20 + [True] * 12


def test_as3_standard_tickets_in_id_order():
    """AS-3: 24 tickets (origin, destination, turns) as tabled."""
    comp = AirportScrambleRules().components
    got = [(comp.codes[o], comp.codes[d], t) for o, d, t in zip(comp.ticket_origin, comp.ticket_destination, comp.ticket_turns)]
    assert got == [(o, d, int(t)) for o, d, t in (x.split() for x in TICKETS.replace("\n", " ").split(", "))]


def test_as4_generated_editions_are_a_function_of_their_parameters():
    """AS-4: same parameters, same cards; another deck_seed, other codes and tickets."""
    options = dict(edition="generated", n_colors=3, plain_per_color=4, n_tickets=10, ticket_turns=(2, 6), deck_seed=9)
    a, b = AirportScrambleRules(**options).components, AirportScrambleRules(**options).components
    assert a == b
    other = AirportScrambleRules(**{**options, "deck_seed": 10}).components
    assert other.codes != a.codes and (other.ticket_origin, other.ticket_destination) != (a.ticket_origin, a.ticket_destination)
    assert a.n_cards == generated_card_count(3, 4, True) == 3 * 4 + 6
    assert len(set(a.codes)) == a.n_cards and all(len(c) == 3 and c.isalpha() and c.isupper() for c in a.codes)
    pairs = list(zip(a.ticket_origin, a.ticket_destination))
    assert len(set(pairs)) == 10 and all(o != d for o, d in pairs)
    assert all(2 <= t <= 6 for t in a.ticket_turns)
    hubs = [(h, v) for h, v in zip(a.card_h, a.card_v) if h != v]
    assert hubs == sorted(hubs) and len(hubs) == 6


def test_as4_generated_without_hubs_has_only_plain_cards():
    """AS-4: hubs=off gives plain_per_color cards of each colour."""
    comp = AirportScrambleRules(edition="generated", n_colors=2, plain_per_color=3, hubs=False, n_tickets=5).components
    assert comp.card_h == comp.card_v == (0, 0, 0, 1, 1, 1)


def test_defaults_match_the_rules_file():
    rules = AirportScrambleRules()
    assert (rules.edition, rules.grid_size, rules.action_points, rules.face_up, rules.max_replace) == ("standard", 9, 2, 4, 4)
    assert (rules.replace_cost, rules.stop_early_cost, rules.allow_wait, rules.board_on_draw) == (2, 1, True, True)
    assert (rules.pickup_in_flight, rules.preplayed_rule) == (False, "remove_line")


@pytest.mark.parametrize(
    "options, message",
    [
        ({"grid_size": 2}, r"'grid_size'.*an integer in 3\.\.15"),
        ({"face_up": 7}, r"'face_up'.*1\.\.6"),
        ({"preplayed_rule": "skip"}, r"'preplayed_rule'.*remove_line, redraw, off"),
        ({"allow_wait": "sometimes"}, r"'allow_wait'.*on/off"),
        ({"grid": 9}, r"unknown rule option 'grid'.*did you mean 'grid_size'"),
        ({"face_up": 2}, r"'max_replace'=4 and 'face_up'=2"),
        ({"replace_cost": 3}, r"'replace_cost'=3 and 'action_points'=2: a replace could never be played.*1\.\.2"),
        ({"action_points": 1}, r"'replace_cost'=2 and 'action_points'=1: a replace could never be played.*1\.\.1"),
        ({"n_colors": 3}, r"'n_colors'.*only to generated editions"),
        ({"edition": "generated", "ticket_turns": (6, 2)}, r"'ticket_turns'=6,2"),
        ({"edition": "generated", "ticket_turns": (0, 2)}, r"'ticket_turns'.*1\.\.8"),
        ({"edition": "generated", "n_colors": 1, "plain_per_color": 2, "n_tickets": 3}, r"'n_tickets'=3.*only 2"),
        ({"edition": "generated", "n_colors": 1, "plain_per_color": 1}, r"1 airport card"),
    ],
)
def test_bad_options_name_the_option_and_what_is_allowed(options, message):
    with pytest.raises(ValueError, match=message):
        AirportScrambleRules.from_options(**options)


def test_key_value_strings_and_toml_variant_files(tmp_path):
    rules = AirportScrambleRules.from_strings(["grid_size=7", "allow_wait=off", "preplayed_rule=redraw"])
    assert (rules.grid_size, rules.allow_wait, rules.preplayed_rule) == (7, False, "redraw")
    path = tmp_path / "variants.toml"
    path.write_text('[variants.small]\nedition = "generated"\nn_colors = 2\nticket_turns = [2, 4]\n')
    rules = AirportScrambleRules.from_toml(path, table="variants.small")
    assert rules.n_colors == 2 and rules.ticket_turns == (2, 4)


def test_malformed_toml_and_bad_strings_are_refused(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("grid_size = = 9\n")
    with pytest.raises(ValueError, match="bad.toml.*not valid TOML"):
        AirportScrambleRules.from_toml(path)
    path.write_text("grid_size = 99\n")
    with pytest.raises(ValueError, match=r"bad.toml.*'grid_size'"):
        AirportScrambleRules.from_toml(path)
    with pytest.raises(ValueError, match="key=value"):
        AirportScrambleRules.from_strings(["grid_size"])


def test_rules_are_hashable_and_labelled():
    assert hash(AirportScrambleRules()) == hash(AirportScrambleRules())
    assert AirportScrambleRules(grid_size=7).label() == "grid_size=7"
    assert "preplayed_rule" in AirportScrambleRules.describe_options()


def test_a_replace_that_takes_the_whole_turn_is_allowed():
    """AS-10: replace_cost may equal action_points (a replace is then a turn's only action)."""
    assert AirportScrambleRules(action_points=1, replace_cost=1).replace_cost == 1
    assert AirportScrambleRules(action_points=3, replace_cost=3, max_replace=1).max_replace == 1
