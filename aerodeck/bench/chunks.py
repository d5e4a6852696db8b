"""``aerodeck bench``'s games as tasks, played here or on a Ray cluster, and put back in game order.

A bench's games are split by game index into tasks of ``chunk`` games (as ``compare``'s are,
``aerodeck.arena.backends``). Game i's seed depends only on (run seed, i), and every agent draws its
random choices from the key of (game seed, agent, decision), so a task's games are played the same way
wherever and in whatever order it runs. A task returns each of its games' own figures (scores, lengths,
standings, the game's tallies), never sums; :func:`windows` puts them back in game order and cuts them
into the bench's accumulation windows, the same windows for any task size and backend — so every
figure, summed window by window in game order, is the same bit for bit.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Iterator

import numpy as np

from aerodeck import envs
from aerodeck.arena.loop import game_seeds, play_games
from aerodeck.arena.replays import Recorder


@dataclasses.dataclass(frozen=True)
class BenchTask:
    """Games ``start … start+count−1`` of a bench of ``game`` under ``rules``.

    ``agents``: the agents (objects, shipped to the worker; on Ray a reference to them put once);
    ``names``: their names; ``limits``: a solo game's games per agent (an agent plays game i if
    i < its limit), or a tournament's ``(games,)``; ``lineups``: a tournament's agent of each seat of
    each of the task's games, ``int64 (count, n)``; the games below ``save`` are recorded as replays.
    """

    game: str
    rules: object
    agents: object
    names: tuple[str, ...]
    limits: tuple[int, ...]
    seed: int
    start: int
    count: int
    batch_size: int
    save: int = 0
    lineups: np.ndarray | None = None


def task_starts(total: int, chunk: int) -> range:
    """The first game of each task of ``chunk`` games over ``total`` games."""
    if chunk < 1:
        raise ValueError(f"--chunk must be at least 1, got {chunk}")
    return range(0, total, chunk)


def play_bench_task(task: BenchTask, progress=False) -> dict:
    """Play one task. A solo game: ``{"agents": {name: {"score": float64 (k,), "length": int64 (k,),
    "seconds": float}}}`` for each agent with games in the task (k: its games there). A tournament:
    ``score``/``standing``/``win_share`` ``float64 (count, n)``, ``length`` ``int64 (count,)``,
    ``tallies`` ``{group: {item: float64 (count,)}}`` (each game's own) and ``seconds``. Both: under
    ``"records"`` the replay records of the games below ``task.save`` (``name -> list`` for a solo
    game, a list for a tournament). ``progress``: a bar to update (anything with ``update``; for a solo
    game also a dict of them by agent name) or False."""
    spec = envs.spec(task.game)
    agents = task.agents
    shipped = not isinstance(agents, (list, tuple))
    if shipped:  # a Ray object reference, resolved in the worker
        import pickle

        import ray

        # Ray hands numpy arrays back read-only (zero-copy); a compiled agent's kernels take writable ones
        agents = pickle.loads(pickle.dumps(ray.get(agents)))
    core = spec.make_core(task.rules, check_actions=False)  # play_games checks every action
    seeds = game_seeds(task.seed, task.count, task.start)
    recording = task.start < task.save
    if spec.solo:
        out: dict = {"agents": {}, "records": {}}
        for name, agent, limit in zip(task.names, agents, task.limits):
            own = seeds[: max(0, min(task.count, limit - task.start))]
            if not own.size:
                continue
            recorder = Recorder(task.save) if recording else None
            observers = [recorder.observer(task.start, own, [[name]] * own.size)] if recorder else []
            began = time.perf_counter()
            bar = progress.get(name, False) if isinstance(progress, dict) else progress
            games = play_games(core, [agent], own, batch_size=task.batch_size, progress=bar,
                               make_view=spec.make_view, observers=observers)
            out["agents"][name] = {"score": games["score"][:, 0], "length": games["length"],
                                   "seconds": time.perf_counter() - began}
            if recorder:
                out["records"][name] = recorder.records(spec, task.rules)
        out["counts"] = _counts(agents) if shipped else {}
        return out
    recorder = Recorder(task.save) if recording else None
    seated = [[task.names[a] for a in lu] for lu in task.lineups[: max(0, task.save - task.start)]]
    began = time.perf_counter()
    games = play_games(core, list(agents), seeds, task.lineups, batch_size=task.batch_size, progress=progress,
                       make_view=spec.make_view, summary=spec.summary_of(), game_tallies=True,
                       observers=[recorder.observer(task.start, seeds, seated)] if recorder else ())
    games["seconds"] = time.perf_counter() - began
    games["records"] = recorder.records(spec, task.rules) if recorder else []
    games["counts"] = _counts(agents) if shipped else {}
    return games


#: The running counts an agent may keep while it plays (lists of ints, e.g. a trained agent's decisions
#: taken as its prior would, ``agreement``): a shipped copy's are added back to the agent here.
COUNTS = ("agreement",)


def _counts(agents) -> dict[tuple[int, str], list[int]]:
    """The running counts of the (shipped copies of the) agents: ``(agent index, name) -> counts``."""
    return {(i, key): list(getattr(agent, key)) for i, agent in enumerate(agents) for key in COUNTS
            if isinstance(getattr(agent, key, None), list)}


def add_counts(agents, result: dict) -> None:
    """Add a task's running counts (:data:`COUNTS`, counted by shipped copies) to ``agents``' own."""
    for (i, key), counts in result.get("counts", {}).items():
        own = getattr(agents[i], key)
        own[:] = [a + b for a, b in zip(own, counts)]


def play_all(tasks: Iterable[BenchTask], backend=None, progress=None, in_flight: int | None = None) -> Iterator[dict]:
    """The tasks' results (:func:`play_bench_task`) in task order: played one after another here (no
    ``backend``; ``progress`` a bar, or a solo game's bars by agent name, updated game by game), or as
    tasks of ``backend`` (``aerodeck.arena.backends``; the bars updated as each task ends)."""
    if backend is None:
        for task in tasks:
            yield play_bench_task(task, progress if progress is not None else False)
        return
    if backend.name == "ray":
        tasks = _shared_agents(backend, tasks)
    done = None if progress is None else (lambda task, seconds: _count(progress, task))
    yield from backend.imap(play_bench_task, tasks, done=done, in_flight=in_flight)


def _count(progress, task: BenchTask) -> None:
    """Move the bar (or each agent's bar) on by the games ``task`` played."""
    if isinstance(progress, dict):
        for name, limit in zip(task.names, task.limits):
            progress[name].update(max(0, min(task.count, limit - task.start)))
    else:
        progress.update(played_games(task))


def played_games(task: BenchTask) -> int:
    """The games a task plays (a solo game's: summed over its agents)."""
    if envs.spec(task.game).solo:
        return sum(max(0, min(task.count, limit - task.start)) for limit in task.limits)
    return task.count


def _shared_agents(backend, tasks: Iterable[BenchTask]) -> Iterator[BenchTask]:
    """The tasks with their agents put into Ray's object store once (a trained model is megabytes)."""
    refs: dict[int, object] = {}
    for task in tasks:
        key = id(task.agents)
        if key not in refs:
            refs[key] = (backend.ray.put(task.agents), task.agents)  # keep the agents alive: ids stay unique
        yield dataclasses.replace(task, agents=refs[key][0])


def windows(results: Iterable[dict], size: int, total: int, limits: dict[str, int] | None = None
            ) -> Iterator[tuple[int, dict]]:
    """Cut results in game order into windows of ``size`` games: ``(start, figures)`` for games
    ``start … min(start+size, total)−1``. ``figures`` maps each result key — a flat key (``score``)
    or a path (``("agents", name, "score")``, ``("tallies", group, item)``) — to the window's games.

    ``limits``: a solo game's games per agent name (an agent's arrays hold its games below its limit).
    Keys other than arrays (seconds, records) are left out; they are read from the results directly."""
    buffer: dict[tuple, list[np.ndarray]] = {}
    held: dict[tuple, int] = {}
    start = 0
    for result in results:
        arrays = dict(_arrays(result))
        if limits is None and buffer:  # a tally no game of a task had is 0 in each of its games
            before, count = held[("score",)], len(arrays[("score",)])
            arrays.update({path: np.zeros(count) for path in buffer if path not in arrays})
            for path in arrays.keys() - buffer.keys():
                buffer[path], held[path] = [np.zeros(before)], before
        for path, values in arrays.items():
            buffer.setdefault(path, []).append(values)
            held[path] = held.get(path, 0) + len(values)
        while start < total:
            stop = min(start + size, total)
            need = {path: max(0, min(stop, _limit(path, limits, total)) - start) for path in buffer}
            if any(held[path] < n for path, n in need.items()) or not buffer:
                break
            window = {}
            for path, n in need.items():
                if not buffer[path]:  # a solo agent past its games
                    window[path] = np.zeros(0)
                    continue
                joined = np.concatenate(buffer[path]) if len(buffer[path]) > 1 else buffer[path][0]
                window[path], rest = joined[:n], joined[n:]
                buffer[path], held[path] = ([rest] if len(rest) else []), len(rest)
            yield start, window
            start = stop
    if start < total:
        raise RuntimeError(f"the tasks returned games up to {start}, the bench has {total}")


def _limit(path: tuple, limits: dict[str, int] | None, total: int) -> int:
    return limits[path[1]] if limits is not None and path[0] == "agents" else total


def _arrays(result: dict, prefix: tuple = ()) -> Iterator[tuple[tuple, np.ndarray]]:
    for key, value in result.items():
        if isinstance(value, dict):
            yield from _arrays(value, prefix + (key,))
        elif isinstance(value, np.ndarray):
            yield prefix + (key,), value

