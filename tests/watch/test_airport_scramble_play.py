"""``aerodeck play`` of Airport Scramble: scripted games through the real command, typed moves,
refusals, undo (AS-17), hints, line choices (AS-15)."""

import io
import re

import numpy as np
import pytest
from rich.console import Console

from aerodeck import envs
from aerodeck.agents.registry import make_agent
from aerodeck.envs.airport_scramble import text as as_text
from aerodeck.envs.airport_scramble.actions import lines
from aerodeck.envs.flight_tycoon import text as ft_text
from tests.watch.playing import play
from aerodeck.watch.play import Session


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
    status, out, _ = play(["airport-scramble", "--seed", "2"], ["hint"], monkeypatch, capsys)
    assert re.search(r"hint \(heuristic\): (play \d at \d,\d|fly [NESW]( \d)?|wait|replace [\d,]+) — ", out)


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
