"""``aerodeck play`` in every game: the words of every legal move read back as that move, the end of
input, options refused before the game, opponent specs. Each game's play (typed moves, refusals,
undo, hints, what a seat may not see): ``test_<game>_play.py`` here."""

import pytest

from aerodeck import envs
from aerodeck.agents.registry import make_agent
from tests.games import MULTI, SOLO
from tests.watch.playing import play
from aerodeck.agents.specs import split_specs


@pytest.mark.parametrize("game, options", [(s.id, v) for s in envs.specs() if s.text for v in s.variants])
def test_the_words_of_every_legal_move_read_back_as_that_move(game, options):
    spec = envs.spec(game)
    core = spec.make_core(**options)
    text = spec.text_module()
    agent = make_agent(game, "random", core.rules, seed=1)
    for seed in range(2):
        state = core.init([seed])
        for _ in range(30):
            if state.done[0]:
                break
            for action, words, _ in text.moves(core, state):
                assert text.parse(core, state, words) == action, words
            core.step(state, agent.act(core.observe(state, int(core.to_act(state)[0])), core.legal_mask(state)))


def test_end_of_input_leaves_cleanly(monkeypatch, capsys):
    status, out, err = play([MULTI.id, "--seed", "4"], [], monkeypatch, capsys)
    assert status == 0 and err == ""
    assert "End of input: the game is left unfinished (seed 4)." in out
    status, out, _ = play([SOLO.id, "--seed", "4"], ["quit"], monkeypatch, capsys)
    assert status == 0 and "You left: the game is left unfinished (seed 4)." in out


@pytest.mark.parametrize("argv, message", [
    ([SOLO.id, "--seat", "1"], "played solo"),
    ([SOLO.id, "--players", "3"], "--players applies to multi-player games"),
    ([MULTI.id, "--opponents", "genius"], "unknown agent 'genius'"),
    ([MULTI.id, "--save", "/"], "is a folder"),
    ([MULTI.id, "--save", "/no-such-aerodeck-folder/game.jsonl"],
     "--save '/no-such-aerodeck-folder/game.jsonl': the folder '/no-such-aerodeck-folder' does not exist"),
])
def test_bad_options_are_refused_before_the_game(argv, message, monkeypatch, capsys):
    status, out, err = play(argv, [], monkeypatch, capsys)
    assert status == 2 and message in err and out == ""


def test_opponent_specs_may_carry_parameters():
    assert split_specs("heuristic,search:budget=8,depth=2,random") == ["heuristic", "search:budget=8,depth=2", "random"]
    with pytest.raises(ValueError, match="empty agent"):
        split_specs("heuristic,,random")
