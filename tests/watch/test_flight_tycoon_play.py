"""``aerodeck play`` of Flight Tycoon: a game against heuristic opponents to its end, hints, bad seats
and opponents refused, and a player's screen never shows what their seat may not know (FT-6, FT-14)."""

import io
import re

import numpy as np
import pytest
from rich.console import Console

from aerodeck import envs
from aerodeck.agents.registry import make_agent
from aerodeck.envs.common.bits import unpack_bits
from aerodeck.envs.flight_tycoon import text as ft_text
from aerodeck.envs.flight_tycoon.rules import N_CARDS, TOWER, card_name
from tests.watch.playing import play
from aerodeck.watch.play import Session
from aerodeck.arena.replays import read


def test_hint_names_a_legal_move_and_why(monkeypatch, capsys):
    status, out, _ = play(["flight-tycoon", "--seed", "1", "--seat", "0", "--hint", "heuristic"],
                          ["hint"], monkeypatch, capsys)
    assert status == 0
    hint = re.search(r"hint \(heuristic\): (tower \d+[A-D]) — your tower takes month", out)
    assert hint, out[-2000:]
    ratings = re.search(r"its ratings: (.*)", out).group(1)  # the heuristic rates every action (higher is better)
    assert hint.group(1) in ratings


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
    (["flight-tycoon", "--players", "3", "--seat", "3"], "--seat must be a seat 0..2"),
    (["flight-tycoon", "--players", "4", "--opponents", "random,heuristic"], "names 2 agents for the 3 other seats"),
])
def test_bad_seats_and_opponents_are_refused_before_the_game(argv, message, monkeypatch, capsys):
    status, out, err = play(argv, [], monkeypatch, capsys)
    assert status == 2 and message in err and out == ""
