"""Where the games of a rule evaluation are played: here (``local``) or on a Ray cluster (``ray``).

The games of each cell — one rules variant played by one table of agents — are split into chunks by
game index (``chunk`` games each). A chunk is a self-contained task: game i's seed depends only on
(run seed, i) (:func:`aerodeck.arena.loop.game_seeds`), the agents are seeded from (run seed, agent
index) (:func:`aerodeck.arena.loop.agent_seed`) and draw every random choice from the key of (game
seed, agent, decision) (``aerodeck.agents.streams``) — never from the chunk, the worker, the batch or the order
in which tasks run. So a game is played the same way for any ``--chunk``, backend or worker count;
the results are put back in task order, and every output is the same, byte for byte.
"""

from __future__ import annotations

import dataclasses
import logging
import socket
import time
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

from aerodeck import envs
from aerodeck.envs.common.metrics import Catalogue
from aerodeck.arena.tournament import lineup_rotation

#: Games per task (and per batch stepped at once) unless told otherwise.
CHUNK = 4096
#: The backends ``--backend`` accepts.
BACKENDS = ("local", "ray")


@dataclasses.dataclass(frozen=True)
class Cell:
    """One rules variant played by one table of agents.

    ``agents``: agent specs; ``lineup``: the agent index of each seat, rotated over the seats game by
    game (game i uses rotation ``i mod n``; ``None``: ``agents[0]`` in every seat). A multi-player
    game's skill gap is the share of the win of ``agents[0]``'s seats.
    """

    variant: str
    table: str
    rules: object
    agents: tuple[str, ...]
    lineup: tuple[int, ...] | None = None


@dataclasses.dataclass(frozen=True)
class Task:
    """Games ``start … start + count − 1`` of one cell (chunk number ``chunk`` of it); the cell's games
    below ``save`` are recorded as replays."""

    game: str
    cell: Cell
    seed: int
    start: int
    count: int
    chunk: int
    save: int = 0
    #: Keep every game's actions (``aerodeck.arena.trace.Trace``; a hash of them is always kept).
    trace: bool = False


def lineups_of(cell: Cell, n_players: int, start: int, count: int) -> np.ndarray:
    """The agent of each seat of games ``start … start+count−1``: ``int64 (count, n_players)``."""
    if cell.lineup is None:
        return np.zeros((count, n_players), np.int64)
    if len(cell.lineup) != n_players:
        raise ValueError(f"table {cell.table!r}: its lineup has {len(cell.lineup)} seats, the game {n_players}")
    return lineup_rotation(list(cell.lineup))[(start + np.arange(count)) % n_players]


def tasks_of(game: str, cells: Sequence[Cell], n_games: int, seed: int, chunk: int = CHUNK, save: int = 0) -> list[Task]:
    """Every cell's ``n_games`` games as tasks of ``chunk`` games, cell by cell, in game order; the first
    ``save`` games of each cell are recorded as replays."""
    if chunk < 1:
        raise ValueError(f"chunk must be at least 1, got {chunk}")
    return [Task(game, cell, seed, start, min(chunk, n_games - start), start // chunk, save)
            for cell in cells for start in range(0, n_games, chunk)]


def play_task(task: Task) -> dict:
    """Play one task; its metrics' ``(numerator, denominator)`` arrays ``float64 (count, width)`` under
    ``"metrics"``, under ``"restricted"`` per restricted agent ``[decisions, fallbacks]``, under
    ``"replays"`` the replay records (``aerodeck.arena.replays.GameRecord``) of its games below ``task.save``,
    under ``"trace"`` each game's decisions (``aerodeck.arena.trace.Trace``: a hash and a count, the
    actions too with ``task.trace``) and under ``"outcome"`` each game's ``score`` and ``win_share``
    ``float64 (count, n)``."""
    from aerodeck.agents.registry import make_agent
    from aerodeck.agents.restricted import RestrictedAgent
    from aerodeck.arena.loop import agent_seed, game_seeds, play_games
    from aerodeck.arena.replays import Recorder
    from aerodeck.arena.trace import Trace

    spec = envs.spec(task.game)
    cell = task.cell
    core = spec.make_core(cell.rules, check_actions=False)
    agents = [make_agent(task.game, a, cell.rules, seed=agent_seed(task.seed, i)) for i, a in enumerate(cell.agents)]
    lineups = lineups_of(cell, core.n_players, task.start, task.count)
    seeds = game_seeds(task.seed, task.count, task.start)
    observers = [catalogue(task.game).make_recorder(core, task.count, lineups=lineups)]
    trace = Trace(task.count, keep=task.trace)
    observers.append(trace)
    replays = Recorder(task.save) if task.start < task.save else None
    if replays is not None:
        observers.append(replays.observer(task.start, seeds, [[cell.agents[a] for a in row] for row in lineups]))
    played = play_games(core, agents, seeds, lineups, batch_size=CHUNK, progress=False, make_view=spec.make_view,
                        summary=spec.summary_of(), observers=observers)
    restricted = {a: [agent.decisions, agent.fallbacks] for a, agent in zip(cell.agents, agents)
                  if isinstance(agent, RestrictedAgent)}
    return {"metrics": observers[0].result(), "restricted": restricted,
            "replays": replays.records(spec, cell.rules) if replays is not None else [],
            "trace": trace.result(), "outcome": {"score": played["score"], "win_share": played["win_share"]}}


def catalogue(game: str) -> Catalogue:
    """The metric catalogue of ``game`` (``GameSpec.metrics``); ``ValueError`` if it has none."""
    return envs.spec(game).catalogue()


class LocalBackend:
    """Plays the tasks one after another in this process."""

    name = "local"

    def run(self, tasks: Sequence[Task], done: Callable[[int], None] = lambda n: None) -> list[dict]:
        """The results of ``tasks``, in order; ``done(games)`` is called as each task ends."""
        results = []
        for task in tasks:
            results.append(play_task(task))
            done(task.count)
        return results

    def imap(self, fn: Callable, items: Iterable, done: Callable | None = None, in_flight: int | None = None) -> Iterator:
        """``fn(item)`` for each of ``items`` (taken one at a time), here, in order; ``done(item, seconds)``
        after each (``in_flight`` is ignored: one at a time)."""
        for item in items:
            began = time.perf_counter()
            result = fn(item)
            if done is not None:
                done(item, time.perf_counter() - began)
            yield result


#: Seconds a wait for Ray tasks lasts before the cluster is checked (:meth:`RayBackend.wait`).
WATCH = 2.0


class ClusterLost(ValueError):
    """The Ray cluster stopped answering in the middle of a run (a ``ValueError``: one line, exit 2)."""


class RayBackend:
    """Plays the tasks as Ray tasks on the cluster at ``address``, or on a local Ray started here when
    ``address`` is ``None`` (``num_cpus``: its CPUs, default all). ``ValueError`` when Ray is not
    installed or the cluster cannot be reached — before any game is played.

    Faults: a worker process that dies in the middle of a task (killed, out of memory) costs that task a
    second run on another worker (Ray's ``max_retries``), and since a task's games depend only on the run's
    seed and the games' numbers, nothing else. A cluster that stops answering (its GCS gone) is noticed
    within :data:`WATCH` seconds of waiting and raised as :class:`ClusterLost`, before Ray's own client
    gives up on it (a minute later, ending the process)."""

    name = "ray"

    def __init__(self, address: str | None = None, num_cpus: int | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise ValueError("--backend ray needs Ray: pip install 'ray[default]' into this environment "
                             "(the README's setup installs it with the dev extra)") from None
        self.ray = ray
        if not ray.is_initialized():
            if address is not None:
                check_reachable(address)
            try:
                if address is None:
                    ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
                             logging_level=logging.ERROR)
                else:
                    ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
            except Exception as err:  # Ray raises ConnectionError, RuntimeError, ... for a bad address
                where = f"the Ray cluster at {address!r}" if address else "a local Ray"
                raise ValueError(f"--backend ray: cannot reach {where}: {err}") from None
        self._play = ray.remote(play_task)
        self.gcs = ray.get_runtime_context().gcs_address

    def wait(self, refs: list) -> list:
        """The refs of ``refs`` that have ended (at least one), checking every :data:`WATCH` seconds
        of waiting that the cluster still answers (:class:`ClusterLost` when not)."""
        while True:
            ready, _ = self.ray.wait(refs, num_returns=1, timeout=WATCH)
            if ready:
                return ready
            host, _, port = self.gcs.rpartition(":")
            try:
                socket.create_connection((host, int(port)), timeout=WATCH).close()
            except OSError as err:
                raise ClusterLost(f"--backend ray: the Ray cluster at {self.gcs} stopped answering in the middle "
                                  f"of the run ({err.strerror or err}); nothing was written") from None

    def run(self, tasks: Sequence[Task], done: Callable[[int], None] = lambda n: None) -> list[dict]:
        """The results of ``tasks``, in task order whatever order they finish in."""
        refs = [self._play.remote(task) for task in tasks]
        index = {ref: i for i, ref in enumerate(refs)}
        results: list[dict | None] = [None] * len(refs)
        pending = list(refs)
        while pending:
            ready = self.wait(pending)
            finished = set(ready)
            pending = [ref for ref in pending if ref not in finished]
            for ref in ready:
                i = index[ref]
                results[i] = self.ray.get(ref)
                done(tasks[i].count)
        return results

    def cpus(self) -> int:
        """The cluster's CPUs (at least 1)."""
        return max(1, int(self.ray.cluster_resources().get("CPU", 1)))

    def imap(self, fn: Callable, items: Iterable, done: Callable | None = None, in_flight: int | None = None) -> Iterator:
        """``fn(item)`` for each of ``items`` as Ray tasks, at most ``in_flight`` at once (default: all);
        ``items`` is read one item at a time as tasks are started (so it may depend on what ``done`` saw).
        The results are yielded in the items' order, each as soon as it and those before it have ended;
        ``done(item, seconds)`` is called as each task ends (seconds since it was started). The tasks still
        running are cancelled when the caller stops early (an error, Ctrl-C)."""
        remote = self.ray.remote(fn)
        source = iter(items)
        running: dict = {}  # ref -> (index, item, started)
        finished: dict[int, object] = {}
        started, yielded = 0, 0
        try:
            while True:
                while in_flight is None or len(running) < in_flight:
                    item = next(source, _END)
                    if item is _END:
                        break
                    running[remote.remote(item)] = (started, item, time.perf_counter())
                    started += 1
                if not running:
                    break
                ready = self.wait(list(running))
                for ref in ready:
                    i, item, began = running.pop(ref)
                    finished[i] = self.ray.get(ref)
                    if done is not None:
                        done(item, time.perf_counter() - began)
                while yielded in finished:
                    yield finished.pop(yielded)
                    yielded += 1
        except ClusterLost:
            running.clear()  # nothing to cancel on a cluster that is gone
            raise
        finally:
            for ref in running:
                self.ray.cancel(ref, force=True)


_END = object()


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Refuse (``ValueError``) a Ray address (``host:port`` or ``ray://host:port``) whose port does not
    answer within ``timeout`` seconds — Ray itself would retry for minutes. ``auto`` is left to Ray."""
    if address == "auto":
        return
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(f"--address {address!r}: expected HOST:PORT or ray://HOST:PORT (or auto)")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as err:
        raise ValueError(f"--backend ray: the Ray cluster at {address!r} is unreachable ({err})") from None


def make_backend(name: str, address: str | None = None, num_cpus: int | None = None):
    """The backend called ``name`` (``local`` or ``ray``); ``ValueError`` for another name, or for an
    ``address`` without Ray."""
    if name == "local":
        if address is not None:
            raise ValueError("--address applies to --backend ray only")
        return LocalBackend()
    if name == "ray":
        return RayBackend(address, num_cpus)
    raise ValueError(f"unknown backend {name!r}; backends: {', '.join(BACKENDS)}")


def merge(results: Sequence[dict], tasks: Sequence[Task]) -> dict[tuple[str, str], dict]:
    """The tasks' results put together per cell ``(variant, table)``: ``"metrics"`` name ->
    ``(numerator, denominator)`` over all the cell's games in game order, ``"restricted"`` summed,
    ``"replays"`` in game order, ``"trace"`` and ``"outcome"`` in game order."""
    from aerodeck.arena.trace import merge_traces

    cells: dict[tuple[str, str], dict] = {}
    for task, result in zip(tasks, results):
        key = (task.cell.variant, task.cell.table)
        out = cells.setdefault(key, {"parts": [], "restricted": {}, "replays": []})
        out["parts"].append(result["metrics"])
        out.setdefault("traces", []).append(result["trace"])
        out.setdefault("outcomes", []).append(result["outcome"])
        out["replays"] += result["replays"]
        for agent, counts in result["restricted"].items():
            total = out["restricted"].setdefault(agent, [0, 0])
            total[0] += counts[0]
            total[1] += counts[1]
    for out in cells.values():
        parts = out.pop("parts")
        out["trace"] = merge_traces(out.pop("traces"))
        outcomes = out.pop("outcomes")
        out["outcome"] = {k: np.concatenate([o[k] for o in outcomes]) for k in ("score", "win_share")}
        out["metrics"] = {name: (np.concatenate([p[name][0] for p in parts]), np.concatenate([p[name][1] for p in parts]))
                          for name in parts[0]}
    return cells
