"""The games played in the browser: one :class:`Table` per game, kept on the server, several at once.

A table is one game between a person (``seat``) and the agents of the other seats. In a solo game
the agent plays a *rival* copy of the same deal, shown one decision for each of the person's, so the
two scores can be set side by side at the end (the rival never sees the person's moves: its game is
played in a background thread from the start, :class:`Ahead`). The page asks for the agents'
decisions one at a time (:meth:`Table.advance`) so that each is drawn as it comes; every call of a
table runs under the table's lock, in the server's thread pool, so a slow agent never holds up
another tab.

Everything about a game comes through the registry (``aerodeck.envs.spec(game)``): the core, the agents
(:func:`aerodeck.agents.registry.make_agent`), the game in words (``GameSpec.text``: moves, events,
summary) and on the page (``GameSpec.web``). The web module offers (``state`` is a batch of one game)::

    board(core, state, seat) -> str        the table as HTML, as ``seat`` sees it (its own observation
                                           only); ``seat=None``: a spectator of a recorded game
    parts(core, state, action) -> [str]    the clickable board parts (``data-part``) a move is made of,
                                           in the order they are clicked; [] for a move of the list only
    STYLE                                  the board's CSS
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import OrderedDict
from pathlib import Path

import numpy as np

from aerodeck import envs
from aerodeck.agents.registry import make_agent
from aerodeck.arena.replays import GameRecord, header, play_back, read
from aerodeck.arena.output import write_file
from aerodeck.arena.args import check_games, load_rules
from aerodeck.envs.common.checks import check_seed
from aerodeck.watch.play import split_specs

#: The person's seat in a replay file.
HUMAN = "human"
#: How many of an agent's rated moves a decision keeps (the replay's ``candidates``).
TOP = 5
#: The log lines a page shows.
LOG_LINES = 40


class BadRequest(ValueError):
    """Input the page sent that cannot be used: the message says what and what is allowed (HTTP 400)."""


class NotFound(LookupError):
    """A game, file or folder that does not exist (HTTP 404)."""


def _plain(renderable) -> str:
    return getattr(renderable, "plain", str(renderable))


def _rated(agent, core, state, seat: int) -> list | None:
    """The agent's top moves with their values, ``[[action, value], ...]`` best first, where it rates
    every move (an agent with ``scores``), else None."""
    scores = getattr(agent, "scores", None)
    if not callable(scores):
        return None
    values = np.asarray(scores(core.observe(state, seat), core.legal_mask(state)), np.float64)[0]
    best = [int(a) for a in np.argsort(-values, kind="stable")[:TOP] if np.isfinite(values[a])]
    return [[a, round(float(values[a]), 4)] for a in best]


class Line:
    """One game on one core: its state, actions, what the viewer saw (log) and the agents' ratings."""

    def __init__(self, spec, rules, seed: int, viewer: int) -> None:
        self.spec, self.text, self.web = spec, spec.text_module(), spec.web_module()
        self.core = spec.make_core(rules)
        self.state = self.core.init(np.array([seed], np.uint64))
        self.viewer = viewer
        self.actions: list[int] = []
        self.candidates: list[list | None] = []
        self.log: list[str] = []
        #: Seconds the last agent decision took to choose (its ``act``), None before any.
        self.thought: float | None = None

    @property
    def done(self) -> bool:
        return bool(self.state.done[0])

    def to_act(self) -> int:
        return int(self.core.to_act(self.state)[0])

    def step(self, action: int, candidates=None) -> None:
        before = self.state.copy()
        self.core.step(self.state, np.array([action]))
        self.actions.append(int(action))
        self.candidates.append(candidates)
        self.log += self.text.events(self.core, before, self.state, int(action), self.viewer)

    def agent_step(self, agent) -> None:
        seat = self.to_act()
        obs = self.core.observe(self.state, seat)
        mask = self.core.legal_mask(self.state)
        start = time.perf_counter()
        view = self.spec.make_view(self.core, self.state, np.array([seat])) if agent.needs_view else None
        action = int(agent.act(obs, mask, view)[0])
        self.thought = time.perf_counter() - start
        self.step(action, _rated(agent, self.core, self.state, seat))


class Ahead:
    """The solo rival's game played in a background thread from the moment the table is made: the
    rival never sees the person's moves, so its decisions are ready before the page asks for them.
    :meth:`get` gives decision i ``(action, candidates, seconds it took)``, waiting for it if need be."""

    def __init__(self, spec, rules, seed: int, agent) -> None:
        self.line, self.agent = Line(spec, rules, seed, 0), agent
        self.decisions: list[tuple[int, list | None, float]] = []
        self.error: BaseException | None = None
        self.finished = False
        self.ready = threading.Condition()
        threading.Thread(target=self._play, name="aerodeck-serve-rival", daemon=True).start()

    def _play(self) -> None:
        try:
            while not self.line.done:
                self.line.agent_step(self.agent)
                with self.ready:
                    self.decisions.append((self.line.actions[-1], self.line.candidates[-1], self.line.thought))
                    self.ready.notify_all()
        except BaseException as err:  # noqa: BLE001 — handed to the request that asks for the decision
            self.error = err
        finally:
            with self.ready:
                self.finished = True
                self.ready.notify_all()

    def get(self, i: int) -> tuple[int, list | None, float]:
        with self.ready:
            self.ready.wait_for(lambda: len(self.decisions) > i or self.finished)
            if len(self.decisions) > i:
                return self.decisions[i]
        raise RuntimeError(f"the rival's game stopped before decision {i + 1}") from self.error


class Table:
    """One game in a browser tab (see the module's docstring). Made by :func:`new_table`."""

    def __init__(self, table_id: str, spec, rules, seed: int, seat: int, specs: dict[int, str], agents: dict,
                 hint: tuple[str, object], rival: tuple[str, object] | None, games_dir: Path | None) -> None:
        self.id, self.spec, self.rules, self.seed, self.seat = table_id, spec, rules, seed, seat
        self.specs, self.agents, self.hint_spec, self.hint_agent = specs, agents, hint[0], hint[1]
        self.main = Line(spec, rules, seed, seat)
        self.rival_spec, self.rival_agent = rival if rival else (None, None)
        self.rival = Line(spec, rules, seed, 0) if rival else None
        self.ahead = Ahead(spec, rules, seed, self.rival_agent) if rival else None
        self.games_dir = games_dir
        self.label = rules.label()
        self.saved: Path | None = None
        #: Each game's result (``aerodeck.arena.replays.result_of``) once all are over: the person's, the rival's.
        self.results: list[dict] | None = None
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        self.hints = 0
        n = spec.players(rules)
        self.by_seat = [HUMAN if h == seat else specs[h] for h in range(n)]
        self.names = ["you"] if spec.solo else [f"player_{h} ({'you' if h == seat else specs[h]})" for h in range(n)]

    # --- what the page may do ---------------------------------------------------------------------

    def pending(self) -> str | None:
        """Who plays next without the person: ``"agent"`` (a seat of the game), ``"rival"`` (the solo
        rival, while it is behind or the person has finished), or None (the person's turn, or the end)."""
        if not self.main.done and self.main.to_act() != self.seat:
            return "agent"
        if self.rival is not None and not self.rival.done and (
                self.main.done or len(self.rival.actions) < len(self.main.actions)):
            return "rival"
        return None

    def move(self, action, reply: bool = False) -> dict:
        """The person plays ``action``; ``BadRequest`` (nothing changes) for a move that is not theirs,
        not a move, or not legal now (the engine says why). With ``reply``, the next agent decision is
        played in the same call: the page after it, holding the page after the person's move as
        ``moved`` (one round trip for a move and its answer)."""
        with self.lock:
            if self.main.done:
                raise BadRequest("the game is over: no more moves")
            if self.main.to_act() != self.seat:
                raise BadRequest(f"it is player_{self.main.to_act()}'s turn, not yours: wait for the agents' moves")
            n = self.main.core.n_actions
            if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < n:
                raise BadRequest(f"move must be an action number in 0..{n - 1}, got {action!r}")
            if not self.main.core.legal_mask(self.main.state)[0, action]:
                why = self.main.core.explain_illegal(self.main.state, 0, action)
                words = self.main.text.words(self.main.core, self.main.state, action)
                raise BadRequest(f"move {action} ({words}) is not allowed now: {why}")
            self.main.step(action)
            self._finish()
            if not reply or self.pending() is None:
                return self.view()
            moved = self.view()
            out = self._advance()
            out["moved"] = moved
            return out

    def advance(self) -> dict:
        """Play the next agent decision (:meth:`pending`), if any; the page after it."""
        with self.lock:
            return self._advance()

    def _advance(self) -> dict:
        """:meth:`advance` under the lock already held."""
        who = self.pending()
        if who == "agent":
            self.main.agent_step(self.agents[self.main.to_act()])
        elif who == "rival":
            action, candidates, thought = self.ahead.get(len(self.rival.actions))
            self.rival.step(action, candidates)
            self.rival.thought = thought
        self._finish()
        return self.view()

    def hint(self) -> dict:
        """The hint agent's move for the person now, why, and its ratings where it rates moves."""
        with self.lock:
            line = self.main
            if line.done or line.to_act() != self.seat:
                raise BadRequest("a hint is for your own turn")
            obs = line.core.observe(line.state, self.seat)
            mask = line.core.legal_mask(line.state)
            view = self.spec.make_view(line.core, line.state, np.array([self.seat])) if self.hint_agent.needs_view else None
            action = int(self.hint_agent.act(obs, mask, view)[0])
            self.hints += 1
            return {"agent": self.hint_spec, "action": action, "words": line.text.words(line.core, line.state, action),
                    "why": line.text.why(line.core, line.state, action),
                    "ratings": [[a, line.text.words(line.core, line.state, a), value] for a, value in
                                _rated(self.hint_agent, line.core, line.state, self.seat) or []] or None}

    # --- the page ---------------------------------------------------------------------------------

    def view(self) -> dict:
        """The page's data: the seat's board (HTML), its legal moves with their board parts, the log,
        whose turn, the end; for a solo game the rival's board."""
        line, core = self.main, self.main.core
        yours = not line.done and line.to_act() == self.seat
        moves = []
        if yours:
            moves = [{"action": a, "words": w, "note": note, "parts": line.web.parts(core, line.state, a)}
                     for a, w, note in line.text.moves(core, line.state)]
        out = {
            "id": self.id, "game": self.spec.id, "title": self.spec.title, "seed": str(self.seed),
            "rules": self.label, "seat": self.seat, "names": self.names, "agents": self.by_seat,
            "board": line.web.board(core, line.state, self.seat), "decisions": len(line.actions),
            "to_act": -1 if line.done else line.to_act(), "your_turn": yours, "moves": moves,
            "log": line.log[-LOG_LINES:], "pending": self.pending(), "done": line.done, "hints": self.hints,
            "thought_ms": None if line.thought is None else round(1000 * line.thought, 1),
        }
        if line.done:
            out["summary"] = _plain(line.text.summary(core, line.state, self.seat, self.names))
        if self.rival is not None:
            rival = self.rival
            out["rival"] = {"agent": self.rival_spec, "board": rival.web.board(rival.core, rival.state, 0),
                            "decisions": len(rival.actions), "done": rival.done, "log": rival.log[-8:],
                            "thought_ms": None if rival.thought is None else round(1000 * rival.thought, 1)}
            if rival.done:
                out["rival"]["summary"] = _plain(rival.text.summary(rival.core, rival.state, 0, [self.rival_spec]))
        if self.results is not None and self.rival is not None:
            mine, theirs = self.results[0]["score"][0], self.results[1]["score"][0]
            verdict = "you win" if mine > theirs else f"{self.rival_spec} wins" if theirs > mine else "a tie"
            out["versus"] = f"On the same deal: you scored {mine}, {self.rival_spec} scored {theirs} — {verdict}."
        if self.saved is not None:
            out["saved"] = str(self.saved)
            out["saved_name"] = self.saved.name
        return out

    # --- the end: the replay file -----------------------------------------------------------------

    def records(self) -> list[tuple[GameRecord, list]]:
        """The finished game (and the solo rival's) as replay records with the agents' ratings."""
        lines = [(self.main, self.by_seat)] + ([(self.rival, [self.rival_spec])] if self.rival else [])
        results = play_back(self.spec, self.rules, [(self.seed, line.actions) for line, _ in lines])
        return [(GameRecord(seed=self.seed, agents=list(agents), actions=list(line.actions), result=result, game=i),
                 line.candidates) for i, ((line, agents), result) in enumerate(zip(lines, results))]

    def replay_text(self, records=None) -> str:
        """The replay file (``aerodeck replay`` reads it): the header, then the person's game and, in a
        solo game, the rival's on the same deal. Each game line also holds ``candidates``: per decision,
        the deciding agent's top moves ``[action, value]`` (best first) where it rates moves, else null."""
        lines = [json.dumps(header(self.spec.id, self.rules, f"aerodeck serve ({self.id})"), separators=(",", ":"))]
        for record, candidates in records if records is not None else self.records():
            data = json.loads(record.to_json())
            data["candidates"] = candidates
            lines.append(json.dumps(data, separators=(",", ":")))
        return "\n".join(lines) + "\n"

    def _finish(self) -> None:
        """Once the game (and the rival's) is over, save it as a replay file in ``games_dir``."""
        self.touched = time.monotonic()
        if self.results is not None or not self.main.done or self.pending() is not None:
            return
        records = self.records()
        self.results = [record.result for record, _ in records]
        if self.games_dir is None:
            return
        path = self.games_dir / f"{self.spec.id}-seed{self.seed}-{self.id}.jsonl"
        self.games_dir.mkdir(parents=True, exist_ok=True)
        write_file(path, self.replay_text(records))
        read(path)  # the file replays as recorded (aerodeck replay reads it)
        self.saved = path


def new_table(game: str, rules_items: list[str], players, seat, opponents: str | None, hint: str | None,
              seed, games_dir: Path | None) -> Table:
    """A new game: ``game`` (an id of the registry), rule options ``key=value`` (checked as the CLI
    checks ``--rule``), the player count, the person's seat, the agents of the other seats (``a,b,c``
    in seat order, or one for all; default the game's opponent agent), the hint agent, the deal's seed
    (default: a random one). ``BadRequest`` naming what is wrong."""
    try:
        spec = envs.spec(game)
    except ValueError as err:
        raise BadRequest(str(err)) from None
    try:
        spec.web_module()
        if not isinstance(rules_items, list) or not all(isinstance(x, str) for x in rules_items):
            raise ValueError("rules must be a list of 'key=value' strings")
        items = [x.strip() for x in rules_items if x.strip() and not x.strip().startswith("#")]
        if players is not None and not (isinstance(players, int) and not isinstance(players, bool)):
            raise ValueError(f"players must be a whole number, got {players!r}")
        rules = load_rules(spec, None, items, None, None if spec.solo else players)
        n = spec.players(rules)
        seat = 0 if seat is None else seat
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be a seat 0..{n - 1}, got {seat!r}")
        if seed is None or seed == "":
            seed = secrets.randbelow(10**6)
        try:
            seed = check_seed(int(seed), "seed")
        except (TypeError, ValueError):
            raise ValueError(f"seed must be an integer in 0..2**64-1, got {seed!r}") from None
        others = [h for h in range(n) if h != seat]
        specs = split_specs(opponents or spec.opponent)
        if spec.solo:
            if len(specs) != 1:
                raise ValueError(f"{spec.id} is played solo: name one agent to play the same deal beside you")
            rival_spec = specs[0]
            rival = (rival_spec, make_agent(spec.id, rival_spec, rules, seed=seed + 1))
            agents, by_seat = {}, {}
        else:
            if len(specs) == 1:
                specs *= len(others)
            if len(specs) != len(others):
                raise ValueError(f"opponents names {len(specs)} agents for the {len(others)} other seats: give one "
                                 f"for all or one per seat")
            agents = {h: make_agent(spec.id, s, rules, seed=seed + 1 + h) for h, s in zip(others, specs)}
            by_seat, rival = dict(zip(others, specs)), None
        hint_spec = hint or spec.opponent
        hint_agent = make_agent(spec.id, hint_spec, rules, seed=seed)
    except (ValueError, TypeError, OSError) as err:
        message = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise BadRequest(message.replace("--players", "players", 1) if message.startswith("--players") else message) from None
    return Table(secrets.token_hex(6), spec, rules, seed, seat, by_seat, agents, (hint_spec, hint_agent), rival,
                 games_dir)


class Tables:
    """The games being played, by id (at most ``limit``: the one left alone longest goes first)."""

    def __init__(self, games_dir: Path | None, limit: int = 64) -> None:
        self.games_dir, self.limit = games_dir, check_games(limit, "limit")
        self._tables: OrderedDict[str, Table] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, table: Table) -> Table:
        with self._lock:
            self._tables[table.id] = table
            while len(self._tables) > self.limit:
                self._tables.popitem(last=False)
        return table

    def get(self, table_id: str) -> Table:
        with self._lock:
            table = self._tables.get(table_id)
            if table is None:
                raise NotFound(f"no game {table_id!r} here (the server was restarted, or the game was closed): "
                               f"start a new one")
            self._tables.move_to_end(table_id)
            return table
