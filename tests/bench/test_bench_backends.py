"""``aerodeck bench`` on a backend: tasks by game index, put back in game order; on Ray (and in any task
size here) games.csv and the replays byte for byte, and every figure of results.json but the timings,
the same as one local run's — for every agent the game offers, randomised ones included."""

import numpy as np
import pytest

from aerodeck.agents.registry import agent_names
from aerodeck.bench.chunks import windows
from tests.games import MULTI, SOLO
from tests.bench.benching import results, run


def files(folder):
    """What a bench wrote that must not depend on where it ran: games.csv and games.jsonl as bytes, and
    results.json without its timings."""
    return (folder / "games.csv").read_bytes(), (folder / "games.jsonl").read_bytes(), results(folder)


def solo_agents():
    """Every agent of the solo game with a few games each (a strong one's games are few: they are slow)."""
    few = {"random": 70, SOLO.opponent: 40}
    return [f"{name}:games={few.get(name, 6)}" for name in agent_names(SOLO.id)]


def test_windows_are_the_same_for_any_split_of_the_games():
    scores = np.arange(23.0)
    length = np.arange(23) * 2
    expected = [(s, scores[s:s + 5]) for s in range(0, 23, 5)]
    for cuts in ([23], [1] * 23, [4, 9, 10], [7, 7, 7, 2]):
        edges = np.cumsum([0, *cuts])
        parts = [{"score": scores[a:b], "length": length[a:b], "seconds": 1.0, "records": []}
                 for a, b in zip(edges[:-1], edges[1:])]
        got = list(windows(iter(parts), 5, 23))
        assert [s for s, _ in got] == [s for s, _ in expected]
        for (_, window), (_, want) in zip(got, expected):
            assert np.array_equal(window[("score",)], want)
            assert set(window) == {("score",), ("length",)}


def test_a_solo_agents_windows_stop_at_its_own_games():
    parts = [{"agents": {"a": {"score": np.arange(s, min(s + 3, 8.0))}, **({"b": {"score": np.arange(s, s + 3.0)}})}}
             for s in (0, 3, 6)]
    parts[-1]["agents"]["a"]["score"] = np.arange(6, 8.0)  # a plays 8 games, b 9
    got = dict(windows(iter(parts), 4, 9, {"a": 8, "b": 9}))
    assert got[8][("agents", "a", "score")].size == 0 and got[8][("agents", "b", "score")].tolist() == [8.0]
    assert got[4][("agents", "a", "score")].tolist() == [4.0, 5.0, 6.0, 7.0]


def test_any_task_size_here_gives_the_same_files(tmp_path):
    argv = [SOLO.id, "--agent", "random", "--agent", f"{SOLO.opponent}:games=90", "--games", "130", "--seed", "5",
            "--save-games", "3", "--batch-size", "32"]
    assert run([*argv, "--out", str(tmp_path / "whole")]) == 0
    assert run([*argv, "--chunk", "7", "--out", str(tmp_path / "tasks")]) == 0
    assert files(tmp_path / "whole") == files(tmp_path / "tasks")


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray of 2 CPUs for the module's tests (``--backend ray`` finds it started)."""
    ray = pytest.importorskip("ray")
    from aerodeck.arena.backends import RayBackend

    RayBackend(num_cpus=2)
    yield ray
    ray.shutdown()


def test_ray_gives_the_local_files_for_every_solo_agent(tmp_path, local_ray):
    argv = [SOLO.id, *[x for spec in solo_agents() for x in ("--agent", spec)], "--seed", "9", "--save-games", "4",
            "--batch-size", "16"]
    assert run([*argv, "--out", str(tmp_path / "local")]) == 0
    assert run([*argv, "--backend", "ray", "--chunk", "9", "--out", str(tmp_path / "ray")]) == 0
    local = files(tmp_path / "local")
    assert local == files(tmp_path / "ray")
    assert set(local[2]["agents"]) == set(solo_agents())


def test_ray_gives_the_local_files_for_a_tournament(tmp_path, local_ray):
    argv = [MULTI.id, "--agent", "random", "--agent", MULTI.opponent, "--players", "3", "--games", "150",
            "--seed", "4", "--save-games", "3", "--batch-size", "16"]
    assert run([*argv, "--out", str(tmp_path / "local")]) == 0
    assert run([*argv, "--backend", "ray", "--chunk", "11", "--out", str(tmp_path / "ray")]) == 0
    local = files(tmp_path / "local")
    assert local == files(tmp_path / "ray")
    assert local[2]["tallies"]  # the game's own tallies, summed game by game in game order


def test_a_bad_chunk_or_an_address_without_ray_is_refused(tmp_path, capsys):
    assert run([SOLO.id, "--games", "5", "--chunk", "0", "--out", str(tmp_path / "a")]) == 2
    assert "--chunk must be at least 1, got 0" in capsys.readouterr().err
    assert run([SOLO.id, "--games", "5", "--address", "localhost:1", "--out", str(tmp_path / "b")]) == 2
    assert "--address applies to --backend ray only" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
