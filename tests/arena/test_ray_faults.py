"""Faults on Ray: a worker process killed (SIGKILL) in the middle of a task of ``aerodeck bench``,
``compare``, ``tune`` and training's teacher play changes no result — Ray runs the task again on another
worker (``max_retries``) and, since a task's games depend only on (run seed, game index), the files are
those of a run without the fault; a cluster that cannot be reached, or that dies in the middle of a
run, is one line and exit 2 with nothing written.

A local Ray of 2 CPUs; a killer thread watches this process's descendants and kills the first worker
seen running the named task (its process title ``ray::<task>``), once, and the test checks it did.
``-m long`` (about four minutes on 2 busy cores)::

    .venv/bin/python -m pytest -p no:xdist -q -m long tests/arena/test_ray_faults.py
"""

from __future__ import annotations

import json
import signal
import socket
import threading
import time

import numpy as np
import pytest

ray = pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")

from aerodeck.cli import main as cli  # noqa: E402
from tests.games import MULTI, SOLO  # noqa: E402

pytestmark = pytest.mark.long


class WorkerKiller(threading.Thread):
    """Kills (SIGKILL) the first Ray worker among this process's descendants whose title says it runs
    ``task`` (``ray::<task>``), once; ``killed`` is its title then."""

    def __init__(self, task: str) -> None:
        super().__init__(daemon=True)
        self.task, self.killed, self.done = task, None, threading.Event()

    def run(self) -> None:
        me = psutil.Process()
        while not self.done.is_set():
            for proc in me.children(recursive=True):
                try:
                    title = " ".join(proc.cmdline())
                except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                    continue
                if title.startswith(f"ray::{self.task}"):
                    time.sleep(0.05)  # in the middle of the task, not at its first line
                    try:
                        proc.send_signal(signal.SIGKILL)
                    except psutil.NoSuchProcess:
                        continue
                    self.killed = title
                    return
            time.sleep(0.01)

    def __enter__(self) -> WorkerKiller:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        self.join(5)


@pytest.fixture(scope="module")
def local_ray():
    from aerodeck.arena.backends import RayBackend

    RayBackend(num_cpus=2)
    yield
    ray.shutdown()


def results(folder, drop=("seconds", "games_per_second", "decisions_per_second")):
    """``results.json`` without its timings, recursively."""

    def clean(x):
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items() if k not in drop}
        if isinstance(x, list):
            return [clean(v) for v in x]
        return x

    return clean(json.loads((folder / "results.json").read_text()))


def written(folder):
    """What a run wrote that must not depend on where (or how often) its tasks ran."""
    return results(folder), (folder / "games.csv").read_bytes()


def test_a_worker_killed_mid_bench_changes_no_result(tmp_path, local_ray):
    argv = ["bench", MULTI.id, "--agent", MULTI.opponent, "--agent", "random", "--players", "3", "--games", "240",
            "--seed", "4", "--chunk", "20", "--backend", "ray", "--no-progress"]
    assert cli.main([*argv, "--out", str(tmp_path / "clean")]) == 0
    with WorkerKiller("play_bench_task") as killer:
        assert cli.main([*argv, "--out", str(tmp_path / "killed")]) == 0
    assert killer.killed, "no worker was seen running a bench task"
    assert written(tmp_path / "clean") == written(tmp_path / "killed")


def test_a_worker_killed_mid_compare_changes_no_result(tmp_path, local_ray):
    argv = ["compare", SOLO.id, "--variant", "easy:ticket_turn_bonus=1", "--agent", SOLO.opponent, "--agent", "random",
            "--games", "300", "--seed", "2", "--chunk", "25", "--backend", "ray", "--no-progress"]
    assert cli.main([*argv, "--out", str(tmp_path / "clean")]) == 0
    with WorkerKiller("play_task") as killer:
        assert cli.main([*argv, "--out", str(tmp_path / "killed")]) == 0
    assert killer.killed, "no worker was seen running a compare task"
    assert written(tmp_path / "clean") == written(tmp_path / "killed")
    assert (tmp_path / "clean" / "report.md").read_bytes() == (tmp_path / "killed" / "report.md").read_bytes()


def test_a_worker_killed_mid_tune_changes_no_result(tmp_path, local_ray):
    pytest.importorskip("optuna")
    argv = ["tune", SOLO.id, "--param", "ticket_turn_bonus=0..2", "--target", "decisions=40", "--trials", "3",
            "--trial-games", "60", "--games", "80", "--seed", "3", "--chunk", "10", "--agent", SOLO.opponent,
            "--judges", SOLO.opponent, "--backend", "ray", "--no-progress"]
    assert cli.main([*argv, "--out", str(tmp_path / "clean")]) == 0
    with WorkerKiller("play_task") as killer:
        assert cli.main([*argv, "--out", str(tmp_path / "killed")]) == 0
    assert killer.killed, "no worker was seen running a tune task"
    assert written(tmp_path / "clean") == written(tmp_path / "killed")


def test_a_worker_killed_mid_teacher_play_changes_no_decision(local_ray):
    from aerodeck.arena.backends import RayBackend
    from aerodeck.train.warm_start import DECISION_KEYS, play_teacher
    from tests.train.teaching import INPUTS, warm

    settings = warm(SOLO.id, teacher=SOLO.opponent)
    backend = RayBackend()
    clean = play_teacher(SOLO.id, SOLO.make_rules(), settings, INPUTS, 3, 0.99, 24, chunk=3, backend=backend)
    with WorkerKiller("_teacher_task") as killer:
        killed = play_teacher(SOLO.id, SOLO.make_rules(), settings, INPUTS, 3, 0.99, 24, chunk=3, backend=backend)
    assert killer.killed, "no worker was seen playing teacher games"
    assert len(clean) == len(killed) == 8
    for a, b in zip(clean, killed):
        for key in DECISION_KEYS:
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def closed_port() -> int:
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("command", ["bench", "compare"])
def test_an_unreachable_cluster_is_one_line_and_exit_2_with_nothing_written(command, tmp_path, capsys):
    ray.shutdown()  # (the earlier tests' Ray: a command finding Ray started would use it)
    argv = [command, SOLO.id, "--games", "10", "--backend", "ray", "--address", f"127.0.0.1:{closed_port()}",
            "--out", str(tmp_path / "out"), "--no-progress"]
    if command == "compare":
        argv[2:2] = ["--variant", "easy:ticket_turn_bonus=1"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unreachable" in err[0], err
    assert not (tmp_path / "out").exists() and not list(tmp_path.iterdir())


def test_rllib_training_refuses_an_unreachable_cluster_in_one_line(tmp_path, capsys):
    from aerodeck.train import rllib

    ray.shutdown()
    status = rllib.main([SOLO.id, "--steps", "64", "--address", f"127.0.0.1:{closed_port()}",
                             "--out", str(tmp_path / "run")])
    assert status == 2
    err = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert len(err) == 1 and "unreachable" in err[0], err
    assert not (tmp_path / "run").exists()


def test_a_cluster_that_dies_mid_run_is_one_line_and_exit_2_with_nothing_written(tmp_path):
    """``aerodeck bench --backend ray`` in its own process (its own local Ray); once a task runs, the
    cluster's GCS and raylet are killed: the bench stops within seconds with one line of its own, exit 2,
    and neither its folder nor a temporary one is left (Ray's client adds lines of its own)."""
    import subprocess
    import sys

    out = tmp_path / "bench"
    proc = subprocess.Popen([sys.executable, "-m", "aerodeck.cli.main", "bench", MULTI.id, "--agent", MULTI.opponent,
                             "--agent", "random", "--players", "3", "--games", "4000", "--chunk", "40", "--backend", "ray",
                             "--out", str(out), "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    driver, killed = psutil.Process(proc.pid), []
    deadline = time.monotonic() + 240
    while proc.poll() is None and not killed and time.monotonic() < deadline:
        titles = {}
        for child in driver.children(recursive=True):
            try:
                titles[child] = " ".join(child.cmdline())
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                pass
        if any(t.startswith("ray::play_bench_task") for t in titles.values()):
            for child, title in titles.items():
                if "gcs_server" in title or "/raylet" in title:
                    child.kill()
                    killed.append(title.split()[0])
        time.sleep(0.1)
    try:
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert len(killed) == 2, ("the cluster's GCS and raylet were not both seen", killed)
    ours = [line for line in err.splitlines() if line.startswith("aerodeck ")]
    assert proc.returncode == 2 and len(ours) == 1 and "stopped answering in the middle of the run" in ours[0], err[-2000:]
    assert not list(tmp_path.iterdir())  # no folder, no temporary sibling, no lock


def test_no_ray_process_is_left_behind():
    """Run last in this module: after the shutdown, no Ray process started by this one lives on."""
    if ray.is_initialized():
        ray.shutdown()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        left = [p for p in psutil.Process().children(recursive=True)
                if p.status() != psutil.STATUS_ZOMBIE and "ray" in " ".join(p.cmdline())]
        if not left:
            break
        time.sleep(0.5)
    assert not left, [" ".join(p.cmdline())[:80] for p in left]
