"""``aerodeck train --backend ray``: the warm start's teacher games and every evaluation played as Ray
tasks give the teacher data and the evaluation figures of a local run with the same seed; the progress
counts the cluster's games; a stop cancels the tasks still running."""

import csv
import time

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
ray = pytest.importorskip("ray")

from aerodeck.arena.backends import RayBackend  # noqa: E402
from aerodeck.train.warm_start import DECISION_KEYS, play_teacher  # noqa: E402
from tests.games import MULTI, SOLO  # noqa: E402
from tests.train.teaching import INPUTS, warm  # noqa: E402
from tests.train.test_train import tiny_config, train  # noqa: E402


@pytest.fixture(scope="module")
def backend():
    """A local Ray of 2 CPUs (``--backend ray`` finds it started)."""
    yield RayBackend(num_cpus=2)
    ray.shutdown()


def evaluations(folder):
    """``evaluations.csv`` without its seconds (they differ from run to run)."""
    with open(folder / "evaluations.csv", newline="") as f:
        return [{k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(f)]


def decisions(folder):
    with np.load(folder / "warm_start.npz") as f:
        return {key: f[key] for key in DECISION_KEYS}


@pytest.mark.parametrize("game", [SOLO, MULTI], ids=lambda g: g.id)
def test_the_teachers_chunks_on_ray_are_those_played_here(game, backend):
    settings = warm(game.id, teacher=game.opponent, opponent="" if game.solo else "random")
    here, counted = [], []
    local = play_teacher(game.id, game.make_rules(), settings, INPUTS, 3, 0.99, 7, chunk=2, done=here.append)
    remote = play_teacher(game.id, game.make_rules(), settings, INPUTS, 3, 0.99, 7, chunk=2, backend=backend,
                          done=counted.append)
    assert here == [2, 2, 2, 1] and sorted(counted) == sorted(here)  # the progress counts every game the cluster plays
    assert len(local) == len(remote) == 4
    for a, b in zip(local, remote):
        for key in DECISION_KEYS:
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_a_tiny_run_on_ray_has_the_teacher_data_and_evaluations_of_a_local_run(tmp_path, backend):
    config = tiny_config(tmp_path, SOLO.id)
    for where in ("local", "ray"):
        assert train(SOLO.id, "--steps", 1024, "--config", config, "--seed", 5, "--backend", where,
                     "--out", tmp_path / where) == 0
    local, remote = decisions(tmp_path / "local"), decisions(tmp_path / "ray")
    assert local["actions"].size > 0
    for key in DECISION_KEYS:
        np.testing.assert_array_equal(local[key], remote[key], err_msg=key)
    assert len(evaluations(tmp_path / "local")) >= 2
    assert evaluations(tmp_path / "local") == evaluations(tmp_path / "ray")


def test_a_stop_cancels_the_tasks_still_running(backend, monkeypatch):
    cancelled = []
    cancel = ray.cancel
    monkeypatch.setattr(ray, "cancel", lambda ref, **k: cancelled.append(ref) or cancel(ref, **k))

    def stop(item, seconds):
        raise KeyboardInterrupt  # Ctrl-C as the first task ends

    began = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        list(backend.imap(lambda seconds: time.sleep(seconds), [0.0, 300.0, 300.0], done=stop))
    assert len(cancelled) == 2 and time.perf_counter() - began < 120


def test_ray_is_refused_for_expert_iteration_and_an_address_without_it(tmp_path, capsys):
    assert train(SOLO.id, "--rounds", 2, "--backend", "ray", "--out", tmp_path / "a") == 2
    assert "expert iteration (--rounds) plays here" in capsys.readouterr().err
    assert train(SOLO.id, "--address", "localhost:1", "--out", tmp_path / "b") == 2
    assert "--address applies to --backend ray only" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())

