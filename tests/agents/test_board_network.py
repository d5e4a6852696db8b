"""benchmarks/board_network.py: the teacher's decisions do not depend on the chunking, each network reads
the candidates the student reads, an untrained board network plays the heuristic's moves, the three steps
run end to end, and bad input is one line."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch

import envs

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "board_network.py"
spec = importlib.util.spec_from_file_location("board_network", SCRIPT)
script = importlib.util.module_from_spec(spec)
spec.loader.exec_module(script)

TEACHER = "search:candidates=3,rollouts=2"


def test_the_teachers_decisions_do_not_depend_on_the_chunking():
    whole = script.play_chunk(TEACHER, 7, 0, 6)
    parts = [script.play_chunk(TEACHER, 7, 0, 4), script.play_chunk(TEACHER, 7, 4, 2)]
    split = {key: np.concatenate([p[key] for p in parts]) for key in script.DATA_KEYS}
    # a chunk lists its decisions step by step across its games: compare them game by game
    a, b = np.argsort(whole["game"], kind="stable"), np.argsort(split["game"], kind="stable")
    for key in script.DATA_KEYS:
        assert np.array_equal(whole[key][a], split[key][b]), key
    assert set(np.unique(whole["game"])) == set(range(6))


def test_each_decision_holds_the_heuristics_candidates_in_rank_order_and_the_teachers_among_them():
    data = script.play_chunk(TEACHER, 3, 0, 4)
    n = len(data["label"])
    assert n > 0 and data["cand"].shape == (n, script.K) and data["local"].shape[:2] == (n, script.K)
    # the rank features fall from the first candidate on (0: no candidate), and the teacher (3 candidates)
    # chose one of the heuristic's first three
    value = data["value"]
    assert (value[:, 0] == 1).all() and (np.diff(value, axis=1) <= 0).all()
    assert ((data["label"] >= 0) & (data["label"] < 3)).all()
    # each cell's code: the plane stands on a card (AS-5: it always stands on a card in play)
    G2 = data["codes"].shape[1]
    plane_bit = 1 << 9
    on = (data["codes"] & plane_bit) > 0
    assert (on.sum(axis=1) == 1).all() and ((data["codes"][on] & 1) == 1).all() and G2 == 81


def test_an_untrained_board_network_plays_the_heuristics_moves(tmp_path):
    from agents.registry import make_agent
    from train.evaluate.loop import game_seeds, play_solo

    model = script.BoardNet(script.LocalFeatures(script.AirportScrambleRules(), 3, plan=True).size, width=16, layers=1)
    script.save_model(model, "board", tmp_path / "board.pt")
    game = envs.spec(script.GAME)
    rules = game.rules_class()()
    seeds = game_seeds(11, 30)
    heuristic = play_solo(game.make_core(rules), make_agent(script.GAME, "heuristic", rules), seeds, progress=False)
    board = play_solo(game.make_core(rules), script.NetworkAgent(str(tmp_path / "board.pt"), rules), seeds,
                      progress=False)
    assert np.array_equal(board, heuristic)
    # the file holds the weights in float16: they come back as saved
    loaded = script.load_model(str(tmp_path / "board.pt")).state_dict()
    assert all(torch.equal(loaded[k], v.half().float()) for k, v in model.state_dict().items())


def test_play_fit_and_bench_run_end_to_end(tmp_path, capsys):
    data = tmp_path / "data.npz"
    assert script.main(["play", "--teacher", TEACHER, "--games", "12", "--workers", "1", "--chunk", "5",
                        "--out", str(data)]) == 0
    assert "played 12 games" in capsys.readouterr().out and not list(tmp_path.glob(".*partial"))
    assert script.main(["fit", "--data", str(data), "--seconds", "0.5", "--width", "8", "--layers", "1",
                        "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "local: epoch 1" in out and "board: epoch 1" in out
    models = [str(tmp_path / "board.pt"), str(tmp_path / "local.pt")]
    assert script.main(["bench", "--models", *models, "--games", "8", "--out", str(tmp_path)]) == 0
    rows = (tmp_path / "games.csv").read_text().splitlines()
    assert rows[0] == "seed,heuristic,board,local" and len(rows) == 9


def test_a_bad_teacher_is_one_line_naming_it(capsys):
    for teacher, named in (("serch", "unknown agent 'serch'"), ("heuristic", "give a search agent")):
        with pytest.raises(SystemExit) as stop:
            script.main(["play", "--teacher", teacher, "--games", "3"])
        assert stop.value.code == 2 and named in capsys.readouterr().err


@pytest.mark.parametrize("argv, says", [
    (["play", "--games", "0"], "--games: must be above 0, got 0"),
    (["fit", "--data", "no/such.npz"], "no data file no/such.npz"),
    (["fit", "--width", "10"], "--width must be a multiple of 4"),
    (["bench", "--models", "no/such.pt"], "no model file no/such.pt"),
])
def test_bad_input_is_one_line(capsys, argv, says):
    with pytest.raises(SystemExit) as stop:
        script.main(argv)
    assert stop.value.code == 2 and says in capsys.readouterr().err


def test_a_file_of_another_kind_is_refused_by_name(tmp_path, capsys):
    other = tmp_path / "other.npz"
    np.savez(other, x=np.zeros(3))
    for argv in (["fit", "--data", str(other)], ["bench", "--models", str(other)]):
        with pytest.raises(SystemExit) as stop:
            script.main(argv)
        assert stop.value.code == 2 and f"{other} is not a" in capsys.readouterr().err
