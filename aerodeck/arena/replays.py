"""The replay file: recorded games, how they are written, read and checked (``aerodeck replay``, in
:mod:`aerodeck.watch.replay`, watches them; ``aerodeck bench --save-games K``, ``aerodeck compare
--save-games K`` and ``aerodeck play --save FILE`` write them).

A game depends only on its seed and its actions (``aerodeck.envs.common.core``), so a recorded game is its
seed, its actions and the agents that chose them.

File format (JSON lines, UTF-8), version 1::

    line 1      {"format": "aerodeck-replay", "version": 1, "game": "airport-scramble",
                 "rules": {every rule option}, "players": 1, "source": "aerodeck bench ..."}
    each other  {"game": 0, "seed": 123, "agents": ["heuristic"], "actions": [17, 250, ...],
                 "result": {"score": [3]}}

Games played under a house rule (``aerodeck.envs.common.house``) add ``"house": "/abs/path/FILE.py:Class"``
to line 1, and are played back on that house rule's engine.

``agents`` names the agent of each seat; ``result.score`` is each seat's final score (the game's
``GameSpec.summary`` score, else the sum of the seat's rewards) and, for a multi-player game,
``result.winners`` the seats with the best standing. Reading a file replays every game on the core
and checks that each action was legal when played and that the result is the recorded one; any
difference (a file from other rules or another engine, an edited or corrupt line) is an error that
names the line.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np

from aerodeck import envs
from aerodeck.envs.common.house import HouseRule, house_of, with_house
from aerodeck.envs.common.checks import MAX_SEED
from aerodeck.arena.output import write_file

FORMAT = "aerodeck-replay"
VERSION = 1


@dataclasses.dataclass
class GameRecord:
    """One recorded game: ``seed``, ``agents`` (a name per seat), ``actions`` (every decision, in
    order), ``result`` (``{"score": [per seat], "winners": [seats]}``), ``game`` (its number in the
    run that played it) and ``line`` (its line in the file it was read from; 0 if not read)."""

    seed: int
    agents: list[str]
    actions: list[int]
    result: dict
    game: int = 0
    line: int = 0

    def to_json(self) -> str:
        """The record as one JSON line (without the newline)."""
        return json.dumps({"game": self.game, "seed": self.seed, "agents": self.agents, "actions": self.actions,
                           "result": self.result}, separators=(",", ":"))


@dataclasses.dataclass
class Replay:
    """A replay file read and checked: the game id, its rules object, the records, where it came from."""

    game: str
    rules: object
    records: list[GameRecord]
    source: str = ""
    path: str = ""

    @property
    def spec(self):
        """The game's registry entry."""
        return envs.spec(self.game)


class Recorder:
    """Records games ``0 … k−1`` of a run as ``aerodeck.arena.loop.play_games`` plays them (runs are played in
    chunks): pass ``recorder.observer(first, seeds, agents)`` among the ``observers`` of a call whose
    game 0 is game ``first`` of the run, with that call's ``seeds`` and each of its games' agent names
    by seat. :meth:`records` gives the replay records."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.games: dict[int, GameRecord] = {}
        self._over: set[int] = set()

    def observer(self, first: int, seeds, agents) -> _Observer:
        """The ``play_games`` observer of a call whose game j is game ``first + j`` of the run, played from
        ``seeds[j]`` by ``agents[j]`` (a name per seat)."""
        for j in range(max(0, min(len(seeds), self.k - first))):
            self.games[first + j] = GameRecord(seed=int(seeds[j]), agents=list(agents[j]), actions=[], result={},
                                               game=first + j)
        return _Observer(self, first)

    def records(self, spec, rules) -> list[GameRecord]:
        """The recorded games in order, each result found by playing its actions back (:func:`play_back`)."""
        games = [self.games[i] for i in sorted(self.games)]
        for record, result in zip(games, play_back(spec, rules, [(r.seed, r.actions) for r in games])):
            record.result = result
        return games


class _Observer:
    """``play_games``' observer protocol (``on_start``, ``on_step``) for a :class:`Recorder`."""

    def __init__(self, recorder: Recorder, first: int) -> None:
        self.recorder, self.first = recorder, first

    def on_start(self, core, state, games) -> None:
        pass

    def on_step(self, core, state, actions, rewards, games) -> None:
        rec = self.recorder
        for j in np.flatnonzero(np.asarray(games) + self.first < rec.k):
            game = int(games[j]) + self.first
            if game in rec._over:  # a finished game's action is not played
                continue
            rec.games[game].actions.append(int(actions[j]))
            if state.done[j]:
                rec._over.add(game)


def _number(x):
    """A score as JSON keeps it: an int when it is a whole number."""
    x = float(x)
    return int(x) if x.is_integer() else x


def result_of(spec, score, standing) -> dict:
    """The recorded result of one game from its final ``score`` and ``standing`` (per seat)."""
    out = {"score": [_number(x) for x in score]}
    if not spec.solo:
        best = max(standing)
        out["winners"] = [h for h, x in enumerate(standing) if x == best]
    return out


# --- writing -------------------------------------------------------------------------------------

def header(game: str, rules, source: str = "") -> dict:
    """The first line of a replay file."""
    spec = envs.spec(game)
    n = spec.players(rules)
    out = {"format": FORMAT, "version": VERSION, "game": game, "rules": rules.to_dict(), "players": n,
           "source": source}
    house = house_of(rules)
    if house is not None:  # the house rule the games were played under (aerodeck.envs.common.house)
        out["house"] = f"{house.path}:{house.cls}"
    return out


def replay_text(game: str, rules, records: list[GameRecord], source: str = "") -> str:
    """The whole replay file as text."""
    lines = [json.dumps(header(game, rules, source), separators=(",", ":"))]
    lines += [r.to_json() for r in records]
    return "\n".join(lines) + "\n"


def write(path: str | Path, game: str, rules, records: list[GameRecord], source: str = "") -> Path:
    """Write a replay file atomically (``aerodeck.arena.output.write_file``); returns its path."""
    path = Path(path)
    write_file(path, replay_text(game, rules, records, source))
    return path


# --- reading -------------------------------------------------------------------------------------

class ReplayError(ValueError):
    """A replay file that cannot be read or does not replay (the message names the file and line)."""


def read(path: str | Path, check: bool = True) -> Replay:
    """Read a replay file; with ``check`` (default) replay every game on the core and compare its
    result (:func:`check_games`). ``ReplayError`` naming the line for anything wrong."""
    path = Path(path)
    if path.is_dir():
        raise ReplayError(f"replay file {str(path)!r} is a folder")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ReplayError(f"replay file {str(path)!r} does not exist") from None
    where = str(path)

    def fail(line: int, message: str) -> ReplayError:
        return ReplayError(f"{where} line {line}: {message}")

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise fail(line, "not UTF-8 text (is this a replay file?)") from None
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise ReplayError(f"{where}: empty; a replay file starts with a header line (format {FORMAT!r})")
    head = _json_object(lines[0], 1, fail)
    if head.get("format") != FORMAT:
        raise fail(1, f"not a replay header (expected \"format\": {FORMAT!r}, got {head.get('format')!r})")
    if head.get("version") != VERSION:
        raise fail(1, f"replay format version {head.get('version')!r}; this aerodeck reads version {VERSION}")
    try:
        spec = envs.spec(head.get("game"))
    except ValueError as err:
        raise fail(1, str(err)) from None
    if not isinstance(head.get("rules"), dict):
        raise fail(1, "\"rules\" must be an object of rule options")
    try:
        rules = spec.rules_class().from_options(head["rules"])
        if head.get("house"):
            rules = with_house(rules, HouseRule.parse(str(head["house"])))
    except (ValueError, TypeError) as err:
        raise fail(1, f"rules: {err}") from None
    n = spec.players(rules)
    n_actions = spec.make_core(rules).n_actions
    records = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        data = _json_object(line, number, fail)
        if data.get("format") == FORMAT:
            raise fail(number, "a second header: one file holds the games of one game under one rules set")
        records.append(_record(data, number, n, n_actions, fail))
    replay = Replay(game=spec.id, rules=rules, records=records, source=str(head.get("source", "")), path=where)
    if check:
        check_games(replay)
    return replay


def _json_object(line: str, number: int, fail) -> dict:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as err:
        raise fail(number, f"not valid JSON ({err.msg} at column {err.colno})") from None
    if not isinstance(data, dict):
        raise fail(number, f"expected a JSON object, got {type(data).__name__}")
    return data


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _record(data: dict, number: int, n: int, n_actions: int, fail) -> GameRecord:
    """One game line, its fields checked."""
    missing = [k for k in ("seed", "agents", "actions", "result") if k not in data]
    if missing:
        raise fail(number, f"a game line needs {', '.join(missing)} (fields: game, seed, agents, actions, result)")
    seed, agents, actions, result = data["seed"], data["agents"], data["actions"], data["result"]
    if not _is_int(seed) or not 0 <= seed <= MAX_SEED:
        raise fail(number, f"seed must be an integer in 0..2**64-1, got {seed!r}")
    if not isinstance(agents, list) or len(agents) != n or not all(isinstance(a, str) for a in agents):
        raise fail(number, f"agents must list {n} agent name(s), one per seat, got {agents!r}")
    if not isinstance(actions, list) or not all(_is_int(a) and 0 <= a < n_actions for a in actions):
        bad = next((a for a in actions if not (_is_int(a) and 0 <= a < n_actions)), None) if isinstance(actions, list) else actions
        raise fail(number, f"actions must be a list of integers in 0..{n_actions - 1}, found {bad!r} (was it "
                           f"recorded under other rules?)")
    score = result.get("score") if isinstance(result, dict) else None
    if not isinstance(score, list) or len(score) != n:
        raise fail(number, f"result must hold \"score\", a list of {n} number(s), got {result!r}")
    game = data.get("game", 0)
    if not _is_int(game) or game < 0:
        raise fail(number, f"game must be a whole number, got {game!r}")
    return GameRecord(seed=seed, agents=list(agents), actions=list(actions), result=result, game=game, line=number)


def play_back(spec, rules, games: list[tuple[int, list[int]]], fail=None) -> list[dict]:
    """Replay ``games`` (seed, actions) on the core, all in one batch, and return their results
    (:func:`result_of`). Each action must be legal when it is played and each game must end with its
    last action: otherwise ``fail(i, message)`` (default: ``ReplayError(message)``) is raised for game i."""
    if not games:
        return []
    fail = fail or (lambda i, message: ReplayError(f"game {i}: {message}"))
    core = spec.make_core(rules)
    state = core.init(np.array([seed for seed, _ in games], np.uint64))
    B, n = len(games), core.n_players
    returns = np.zeros((B, n))
    lengths = np.array([len(actions) for _, actions in games])
    for t in range(int(lengths.max(initial=0)) + 1):
        live, has = ~state.done, t < lengths
        if (live & ~has).any():
            i = int(np.flatnonzero(live & ~has)[0])
            raise fail(i, f"the game is not over after its {lengths[i]} recorded actions")
        if (has & ~live).any():
            i = int(np.flatnonzero(has & ~live)[0])
            raise fail(i, f"the game is over after {t} decisions but {lengths[i]} actions are recorded")
        if not live.any():
            break
        actions = np.array([a[t] if t < len(a) else 0 for _, a in games], np.int64)
        legal = core.legal_mask(state)[np.arange(B), actions]
        if (live & ~legal).any():
            i = int(np.flatnonzero(live & ~legal)[0])
            why = core.explain_illegal(state, i, int(actions[i]))
            raise fail(i, f"decision {t + 1}: action {actions[i]} ({core.actions.describe(int(actions[i]))}) "
                          f"is illegal: {why}")
        returns += np.reshape(core.step(state, actions), (B, n))
    summary = spec.summary_of()
    if summary is None:
        score = standing = returns
    else:
        figures = summary(core, state)
        score, standing = np.asarray(figures["score"]), np.asarray(figures["standing"])
    return [result_of(spec, score[i], standing[i]) for i in range(B)]


def check_games(replay: Replay) -> None:
    """Replay every game of ``replay`` (:func:`play_back`) and compare its result with the recorded
    one; ``ReplayError`` naming the line of the first game that differs."""
    records = replay.records
    if not records:
        return

    def fail(i: int, message: str) -> ReplayError:
        return ReplayError(f"{replay.path} line {records[i].line}: {message}; was it recorded under other rules "
                           f"or another version of the game?")

    results = play_back(replay.spec, replay.rules, [(r.seed, r.actions) for r in records], fail)
    for i, (r, replayed) in enumerate(zip(records, results)):
        recorded = {k: r.result.get(k) for k in replayed}
        if replayed != recorded:
            raise fail(i, f"replaying gives {replayed}, the file records {recorded}")
