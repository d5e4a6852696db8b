"""Backends: deterministic chunks, the recorder's figures against plain play, Ray = local exactly."""

import sys

import numpy as np
import pytest

from aerodeck.agents.registry import make_agent
from tests.games import MULTI, SOLO
from tests.judge.options import changes
from aerodeck.arena.loop import agent_seed, game_seeds, play_solo
from aerodeck.arena.backends import (
    Cell,
    LocalBackend,
    RayBackend,
    check_reachable,
    make_backend,
    merge,
    play_task,
    tasks_of,
)

GAME = SOLO.id
CELLS = [Cell("base", "random", SOLO.make_rules(), ("random",)),
         Cell("wide", "random", SOLO.make_rules(**changes(SOLO)), ("random",))]


def test_tasks_split_every_cell_into_chunks_by_game_index():
    tasks = tasks_of(GAME, CELLS, 10, seed=3, chunk=4)
    assert [(t.cell.variant, t.start, t.count, t.chunk) for t in tasks] == [
        ("base", 0, 4, 0), ("base", 4, 4, 1), ("base", 8, 2, 2), ("wide", 0, 4, 0), ("wide", 4, 4, 1), ("wide", 8, 2, 2)]


def test_a_tasks_scores_are_those_of_plain_play_on_the_same_seeds():
    task = tasks_of(GAME, CELLS[:1], 50, seed=7, chunk=50)[0]
    recorded = play_task(task)["metrics"]["score"][0][:, 0]
    rules = CELLS[0].rules
    from aerodeck.envs.registry import spec

    agent = make_agent(GAME, "random", rules, seed=agent_seed(7, 0))
    scores = play_solo(spec(GAME).make_core(rules), agent, game_seeds(7, 50), progress=False)
    assert np.array_equal(recorded, scores)


def test_merge_puts_chunks_back_in_game_order():
    tasks = tasks_of(GAME, CELLS, 9, seed=1, chunk=4)
    results = LocalBackend().run(tasks)
    cells = merge(results, tasks)
    assert set(cells) == {("base", "random"), ("wide", "random")}
    num, den = cells[("base", "random")]["metrics"]["decisions"]
    assert num.shape == den.shape == (9, 1)
    assert np.array_equal(num[4:8], results[1]["metrics"]["decisions"][0])


def test_multi_player_tables_rotate_their_lineup_by_game_index():
    rules = MULTI.make_rules(**{MULTI.players_option: 3})
    cell = Cell("base", f"{MULTI.opponent} vs random", rules, (MULTI.opponent, "random"), (0, 1, 1))
    from aerodeck.arena.backends import lineups_of

    # rotation r puts the first agent in seat r; game i uses rotation i mod 3
    assert lineups_of(cell, 3, 2, 4).tolist() == [[1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 1, 0]]
    with pytest.raises(ValueError, match="lineup has 3 seats, the game 4"):
        lineups_of(cell, 4, 0, 1)


def test_ray_gives_the_local_numbers_exactly():
    ray = pytest.importorskip("ray")
    cells = CELLS + [Cell("base", SOLO.opponent, SOLO.make_rules(), (SOLO.opponent,))]
    tasks = tasks_of(GAME, cells, 12, seed=11, chunk=5)
    whole = tasks_of(GAME, cells, 12, seed=11, chunk=12)  # other chunks, the same games (per-game randomness)
    local = merge(LocalBackend().run(whole), whole)
    try:
        remote = merge(RayBackend(num_cpus=2).run(tasks), tasks)
    finally:
        ray.shutdown()
    assert local.keys() == remote.keys()
    for key in local:
        for name, (num, den) in local[key]["metrics"].items():
            assert np.array_equal(num, remote[key]["metrics"][name][0]), (key, name)
            assert np.array_equal(den, remote[key]["metrics"][name][1]), (key, name)


def test_bad_backends_are_refused_with_clear_errors(monkeypatch):
    with pytest.raises(ValueError, match="unknown backend 'dask'; backends: local, ray"):
        make_backend("dask")
    with pytest.raises(ValueError, match="--address applies to --backend ray only"):
        make_backend("local", "10.0.0.1:6379")
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    with pytest.raises(ValueError, match="--backend ray needs Ray: pip install"):
        make_backend("ray")


def test_an_unreachable_cluster_is_refused_at_once():
    import socket

    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ValueError, match="unreachable"):
        check_reachable(f"127.0.0.1:{port}", timeout=2)
    with pytest.raises(ValueError, match="expected HOST:PORT"):
        check_reachable("nowhere")
