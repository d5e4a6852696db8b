"""Replay files on a web page: a file's games, and one game played out decision by decision.

The file is read and checked as ``aerodeck replay`` reads it (:func:`aerodeck.arena.replays.read`: every
action legal when played, every result as recorded); a file that does not read is refused with the
reader's one-line message. Each decision shows the table before it (a spectator's board: every hand
as its owner sees it), the legal moves then, the move chosen and what it did, and — where the file
records them (games played with ``aerodeck serve``) — the deciding agent's rated candidates.
"""

from __future__ import annotations

import json
from pathlib import Path

from aerodeck.arena.replays import ReplayError, read
from aerodeck.serve.tables import BadRequest
from aerodeck.watch.replay import caption, film

#: The longest game a page plays out at once.
MAX_DECISIONS = 5000


def _read(path: Path):
    try:
        return read(path)
    except ReplayError as err:
        message = str(err).splitlines()[0] if str(err) else "not a replay file"
        raise BadRequest(f"cannot read the replay: {message}") from None


def games(path: Path, name: str) -> dict:
    """The games of a replay file: game, rules, source, and per game its seed (a string: JavaScript's
    numbers do not hold 64 bits), agents, length, result."""
    replay = _read(path)
    return {"game": replay.game, "title": replay.spec.title, "rules": replay.rules.label(), "source": replay.source,
            "name": name, "games": [{"index": i, "game": r.game, "seed": str(r.seed), "agents": r.agents,
                                     "decisions": len(r.actions), "result": r.result}
                                    for i, r in enumerate(replay.records)]}


def _candidates(path: Path, line: int) -> list | None:
    """The ``candidates`` a game line records (games played with ``aerodeck serve``: per decision
    ``[[action, value], ...]`` or null), or None."""
    try:
        with open(path, encoding="utf-8") as f:
            for number, text in enumerate(f, start=1):
                if number == line:
                    value = json.loads(text).get("candidates")
                    return value if isinstance(value, list) else None
    except (OSError, ValueError):
        return None
    return None


def frames(path: Path, name: str, index) -> dict:
    """Game ``index`` of a replay file played out: ``frames[i]`` is the table before decision i+1
    (``frames[-1]`` the end) with its caption, the legal moves there (the chosen one marked), what
    the decision did and the agent's candidates where recorded."""
    replay = _read(path)
    try:
        index = int(index)
    except (TypeError, ValueError):
        raise BadRequest(f"game must be a game number of the file, got {index!r}") from None
    if not 0 <= index < len(replay.records):
        raise BadRequest(f"game {index}: the file holds games 0..{len(replay.records) - 1}")
    record = replay.records[index]
    if len(record.actions) > MAX_DECISIONS:
        raise BadRequest(f"game {index} has {len(record.actions)} decisions; a page plays out at most {MAX_DECISIONS}")
    spec = replay.spec
    text, web = spec.text_module(), spec.web_module()
    core = spec.make_core(replay.rules)
    f = film(replay, index, core, text)
    recorded = _candidates(path, record.line) if record.line else None
    out = []
    for i, state in enumerate(f.states):
        frame = {"caption": caption(replay, f, i, core, text), "board": web.board(core, state, None),
                 "did": f.logs[i - 1] if i else [], "moves": [], "chosen": None, "actor": None, "candidates": None}
        if i < len(record.actions):
            chosen = record.actions[i]
            frame["chosen"] = chosen
            frame["actor"] = f.actors[i]
            frame["next"] = caption(replay, f, i + 1, core, text)
            frame["moves"] = [{"action": a, "words": w, "note": note} for a, w, note in text.moves(core, state)]
            if recorded is not None and i < len(recorded) and isinstance(recorded[i], list):
                frame["candidates"] = [[int(a), text.words(core, state, int(a)), value] for a, value in
                                       (c for c in recorded[i] if isinstance(c, list) and len(c) == 2)
                                       if isinstance(a, int) and 0 <= a < core.n_actions]
        out.append(frame)
    return {"game": spec.id, "title": spec.title, "name": name, "index": index, "seed": str(record.seed),
            "agents": record.agents, "result": record.result, "rules": replay.rules.label(), "frames": out}
