"""``aerodeck play``: scripted games through the real command, typed moves, refusals, undo, hints,
the end of input, and that a Flight Tycoon player's screen never shows what their seat may not know."""

import io
import re
import sys

import numpy as np
import pytest
from rich.console import Console

import envs
from agents.registry import make_agent
from envs.airport_scramble import text as as_text
from envs.airport_scramble.actions import lines
from envs.common.bits import unpack_bits
from envs.flight_tycoon import text as ft_text
from envs.flight_tycoon.rules import N_CARDS, TOWER, card_name
from train import cli
from train.watch.play import Session, split_specs
from train.watch.replay import read


def play(argv, lines, monkeypatch, capsys):
    """Run ``aerodeck play ARGV`` with ``lines`` as its input; (exit status, stdout, stderr)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    status = cli.main(["play", *argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def first_legal_game(game, seed, **options):
    """Play ``game`` from ``seed`` always taking the lowest legal action (menu move 1): (decisions, returns)."""
    core = envs.make_core(game, **options)
    state = core.init([seed])
    decisions, returns = 0, np.zeros(core.n_players)
    while not state.done[0]:
        action = int(np.flatnonzero(core.legal_mask(state)[0])[0])
        returns += core.step(state, np.array([action]))[0]
        decisions += 1
    return decisions, returns


def test_a_full_airport_scramble_game_by_menu_numbers_to_its_end(monkeypatch, capsys):
    decisions, returns = first_legal_game("airport-scramble", 2)
    status, out, _ = play(["airport-scramble", "--seed", "2"], ["1"] * 100, monkeypatch, capsys)
    assert status == 0
    assert "Game over: the ticket" in out and "failed (AS-13)" in out
    assert f"Score: {int(returns[0])} ticket" in out
    assert f"seed 2 · {decisions} decisions in the game" in out
    assert "ticket completed (+1)" in out  # the event log (AS-12)
    assert out.count("your move> 1") == decisions


def test_a_full_airport_scramble_game_typed_in_words(monkeypatch, capsys):
    """Every move typed as the words the menu shows reads back as that move (AS-19 actions by name)."""
    core = envs.make_core("airport-scramble")
    state = core.init([3])
    typed = []
    while not state.done[0]:
        action, words, _ = as_text.moves(core, state)[-1]  # the last menu move: often a wait or a replace
        typed.append(words)
        core.step(state, np.array([action]))
    status, out, _ = play(["airport-scramble", "--seed", "3"], typed, monkeypatch, capsys)
    assert status == 0 and "refused" not in out
    assert f"seed 3 · {len(typed)} decisions in the game" in out


@pytest.mark.parametrize("game, options", [("airport-scramble", {}), ("airport-scramble", {"grid_size": 5}),
                                           ("flight-tycoon", {}), ("flight-tycoon", {"n_players": 5})])
def test_the_words_of_every_legal_move_read_back_as_that_move(game, options):
    spec = envs.spec(game)
    core = spec.make_core(**options)
    text = __import__(spec.text, fromlist=["parse"])
    agent = make_agent(game, "random", core.rules, seed=1)
    for seed in range(2):
        state = core.init([seed])
        for _ in range(30):
            if state.done[0]:
                break
            for action, words, _ in text.moves(core, state):
                assert text.parse(core, state, words) == action, words
            core.step(state, agent.act(core.observe(state, int(core.to_act(state)[0])), core.legal_mask(state)))


@pytest.mark.parametrize("line, message", [
    ("fly Q", "fly needs a direction"),
    ("play 9 at 1,1", "the slot must be a number 0..3"),
    ("teleport", "unknown move 'teleport'"),
    ("play 0 at 0,0", "is not allowed now: cell (0, 0) is not next to a card in play"),
    ("fly W 3", "is not allowed now: the plane's reach W is 0"),
    ("99", "there is no move 99"),
    ("replace 0,0", "a slot is named twice"),
])
def test_illegal_and_malformed_moves_are_refused_with_the_legal_moves_and_no_change(line, message, monkeypatch,
                                                                                     capsys):
    core = envs.make_core("airport-scramble")
    state = core.init([2])
    legal = [words for _, words, _ in as_text.moves(core, state)]
    status, out, _ = play(["airport-scramble", "--seed", "2"], [line], monkeypatch, capsys)
    assert status == 0
    refusal = out[out.index("refused: "):]
    assert message in refusal.splitlines()[0]
    assert "legal moves now:" in refusal
    assert all(f") {words} —" in refusal for words in legal)
    assert "End of input" in refusal  # nothing was played: the next thing is the end of input


def test_a_refused_move_leaves_the_game_exactly_as_it_was():
    lines = iter(["fly W 3", "play 0 at 0,0", "nonsense", "42", "undo", "hint", "moves", "help"])
    spec = envs.spec("airport-scramble")
    console = Console(file=io.StringIO(), width=120)
    session = Session(spec, spec.make_rules(), 2, 0, {}, ("heuristic", make_agent("airport-scramble", "heuristic")),
                      console, lambda prompt: next(lines, None), ["you"], ["human"])
    before = session.core.save(session.state)
    assert session.run() == 0
    after = session.core.save(session.state)
    assert all(np.array_equal(before[k], after[k]) for k in before) and session.actions == []


def test_end_of_input_leaves_cleanly(monkeypatch, capsys):
    status, out, err = play(["flight-tycoon", "--seed", "4"], [], monkeypatch, capsys)
    assert status == 0 and err == ""
    assert "End of input: the game is left unfinished (seed 4)." in out
    status, out, _ = play(["airport-scramble", "--seed", "4"], ["quit"], monkeypatch, capsys)
    assert status == 0 and "You left: the game is left unfinished (seed 4)." in out


def test_undo_takes_back_a_move_that_drew_nothing_within_the_turn_only():
    """AS-17: a wait or a flight that leaves points in the turn shows nothing hidden; a play draws a
    card into its slot and a move that ends the turn moves the die (AS-13): those stay."""
    spec = envs.spec("airport-scramble")
    script = iter(["wait", "undo", "undo", "play 0 at 3,4", "undo"])
    console = Console(file=io.StringIO(), width=120)
    session = Session(spec, spec.make_rules(), 3, 0, {}, ("heuristic", make_agent("airport-scramble", "heuristic")),
                      console, lambda prompt: next(script, None), ["you"], ["human"])
    start = session.core.save(session.state)
    session.run()
    out = console.file.getvalue()
    assert "took back: wait" in out
    assert "cannot take back: nothing left to take back this turn" in out
    assert "cannot take back: a card or a ticket was drawn" in out
    assert session.actions == [session.core.actions.play(0, 3, 4)]
    replayed = session.core.restore(start)
    session.core.step(replayed, np.array(session.actions))
    assert all(np.array_equal(v, session.core.save(replayed)[k]) for k, v in session.core.save(session.state).items())
    core = session.core
    state = core.init([3])
    core.step(state, np.array([core.actions.wait]))
    ended = state.copy()
    core.step(ended, np.array([core.actions.wait]))  # the second point: the turn ends, the die goes down
    assert "turn is over" in as_text.undo_refusal(core, state, ended)
    assert "seen by the other players" in ft_text.undo_refusal(None, None, None)


def test_hint_names_a_legal_move_and_why(monkeypatch, capsys):
    status, out, _ = play(["flight-tycoon", "--seed", "1", "--seat", "0", "--hint", "heuristic"],
                          ["hint"], monkeypatch, capsys)
    assert status == 0
    hint = re.search(r"hint \(heuristic\): (tower \d+[A-D]) — your tower takes month", out)
    assert hint, out[-2000:]
    ratings = re.search(r"its ratings: (.*)", out).group(1)  # the heuristic rates every action (higher is better)
    assert hint.group(1) in ratings
    status, out, _ = play(["airport-scramble", "--seed", "2"], ["hint"], monkeypatch, capsys)
    assert re.search(r"hint \(heuristic\): (play \d at \d,\d|fly [NESW]( \d)?|wait|replace [\d,]+) — ", out)


def test_a_flight_tycoon_game_against_heuristic_opponents_to_its_end(tmp_path, monkeypatch, capsys):
    save = tmp_path / "game.jsonl"
    status, out, _ = play(["flight-tycoon", "--players", "3", "--seat", "1", "--opponents", "heuristic",
                           "--seed", "5", "--save", str(save)], ["1"] * 300, monkeypatch, capsys)
    assert status == 0
    assert "Final standings (FT-12" in out
    assert re.search(r"player_\d asks (you|player_\d) for a card on '", out)  # the public event log
    assert "it lands" in out and "it collides" in out
    replay = read(save)  # replaying reproduces the recorded result exactly (else read raises)
    record = replay.records[0]
    assert record.agents == ["heuristic", "human", "heuristic"] and record.seed == 5
    for h, vp in enumerate(record.result["score"]):
        assert re.search(rf"player_{h} \(\w+\)\s+{vp} VP", out)


def _hidden_names(core, state, seat):
    """Card names of the cards another seat holds that ``seat`` cannot know (FT-14), and the towers
    another seat laid aside while the choices are still hidden (FT-6)."""
    known = set(np.flatnonzero(unpack_bits(state.known[0, seat], N_CARDS)))
    hidden = set()
    for h in range(core.n_players):
        if h != seat:
            hidden |= set(np.flatnonzero(unpack_bits(state.hand[0, h], N_CARDS))) - known
            if state.phase[0] == TOWER and state.laid[0, h] >= 0:
                hidden.add(int(state.laid[0, h]))
    return {card_name(c) for c in hidden}


@pytest.mark.parametrize("seat, seed", [(0, 11), (2, 12)])
def test_the_flight_tycoon_screen_never_shows_what_the_seat_may_not_know(seat, seed):
    spec = envs.spec("flight-tycoon")
    rules = spec.make_rules()
    console = Console(file=io.StringIO(), width=200)
    checked = []

    def read_line(prompt):
        screen = console.file.getvalue()
        console.file.seek(0)
        console.file.truncate()
        for name in _hidden_names(session.core, session.state, seat):
            assert not re.search(rf"(?<![0-9A-Za-z]){name}(?![0-9A-Za-z])", screen), (name, screen)
        checked.append(len(screen))
        return "1"

    agents = {h: make_agent("flight-tycoon", "heuristic", rules, seed=h) for h in range(4) if h != seat}
    session = Session(spec, rules, seed, seat, agents, ("heuristic", make_agent("flight-tycoon", "heuristic", rules)),
                      console, read_line, [f"player_{h}" for h in range(4)], ["heuristic"] * 4)
    assert session.run() == 0 and session.done
    assert len(checked) > 10  # every screen of the game was checked
    hidden = _hidden_names(session.core, session.state, seat)
    final = console.file.getvalue()
    assert hidden and not any(re.search(rf"(?<![0-9A-Za-z]){n}(?![0-9A-Za-z])", final) for n in hidden)


def test_the_flight_tycoon_screen_is_built_from_the_observation_alone():
    """Two states with the same observation for a seat give the same screen (hidden cards swapped)."""
    core = envs.make_core("flight-tycoon")
    state = core.init([7])
    for card in np.flatnonzero(core.legal_mask(state)[0])[:1]:
        core.step(state, np.array([card]))
    screen = ft_text.screen_of(core, ft_text.Seen.read(core, core.observe(state, 1)[0], 1))
    other = state.copy()
    other.hand[0, 2], other.hand[0, 3] = state.hand[0, 3], state.hand[0, 2]  # two hidden hands swapped
    assert np.array_equal(core.observe(other, 1), core.observe(state, 1))
    render = Console(file=io.StringIO(), width=200)
    render.print(screen)
    again = Console(file=io.StringIO(), width=200)
    again.print(ft_text.screen(core, other, 1))
    assert render.file.getvalue() == again.file.getvalue()


@pytest.mark.parametrize("argv, message", [
    (["airport-scramble", "--seat", "1"], "played solo"),
    (["airport-scramble", "--players", "3"], "--players applies to multi-player games"),
    (["flight-tycoon", "--players", "3", "--seat", "3"], "--seat must be a seat 0..2"),
    (["flight-tycoon", "--players", "4", "--opponents", "random,heuristic"], "names 2 agents for the 3 other seats"),
    (["flight-tycoon", "--opponents", "genius"], "unknown agent 'genius'"),
    (["flight-tycoon", "--save", "/"], "is a folder"),
    (["flight-tycoon", "--save", "/no-such-aerodeck-folder/game.jsonl"],
     "--save '/no-such-aerodeck-folder/game.jsonl': the folder '/no-such-aerodeck-folder' does not exist"),
])
def test_bad_options_are_refused_before_the_game(argv, message, monkeypatch, capsys):
    status, out, err = play(argv, [], monkeypatch, capsys)
    assert status == 2 and message in err and out == ""


def test_opponent_specs_may_carry_parameters():
    assert split_specs("heuristic,search:budget=8,depth=2,random") == ["heuristic", "search:budget=8,depth=2", "random"]
    with pytest.raises(ValueError, match="empty agent"):
        split_specs("heuristic,,random")


def test_an_airport_scramble_line_choice_is_typed_as_a_row_or_a_column():
    """AS-15: after a pre-played ticket the player removes a line, named by its row or column."""
    core = envs.make_core("airport-scramble")
    agent = make_agent("airport-scramble", "heuristic", core.rules)
    state = core.init([12])
    for _ in range(9):  # the heuristic's game from this deal reaches a line choice at its 10th decision
        core.step(state, agent.act(core.observe(state), core.legal_mask(state)))
    legal = as_text.moves(core, state)
    assert legal and all(words.startswith("remove ") for _, words, _ in legal)
    shorthand = 0
    for action, words, note in legal:
        assert as_text.parse(core, state, words) == action and note.endswith("back into the deck")
        orientation, r, c = core.actions.decode(action)[1:]
        along = r if orientation == 0 else c
        there = [line for line in lines(core.snapshot(state, 0)) if line[0] == orientation and line[1 + orientation] == along]
        if len(there) == 1:  # the only line of its row (column): where it starts may be left out
            shorthand += 1
            assert as_text.parse(core, state, f"remove {('row', 'column')[orientation]} {along}") == action
    assert shorthand
    screen = Console(file=io.StringIO(), width=120)
    screen.print(as_text.screen(core, state))
    assert "choose a line to remove (AS-15)" in screen.file.getvalue()
