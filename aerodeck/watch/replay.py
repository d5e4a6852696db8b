"""``aerodeck replay``: watch recorded games in the terminal or as a GIF; the replay file format.

A game depends only on its seed and its actions (``aerodeck.envs.common.core``), so a recorded game is its
seed, its actions and the agents that chose them. ``aerodeck bench --save-games K`` and ``aerodeck
play --save FILE`` write replay files; ``aerodeck replay FILE [--game I]`` steps through game I
(``n`` next, ``b`` back, ``j N`` jump to decision N, ``s`` start, ``e`` end, ``q`` quit, ``?`` the keys),
``--gif OUT.gif`` draws it as an animation from the env's ``rgb_array`` pictures, one frame per decision
(into a folder that exists; the file appears whole or not at all; an existing GIF is replaced, and the
line that names the new one says so; an existing file that is not a GIF is refused, never overwritten).

File format (JSON lines, UTF-8), version 1::

    line 1      {"format": "aerodeck-replay", "version": 1, "game": "airport-scramble",
                 "rules": {every rule option}, "players": 1, "source": "aerodeck bench ..."}
    each other  {"game": 0, "seed": 123, "agents": ["heuristic"], "actions": [17, 250, ...],
                 "result": {"score": [3]}}

``agents`` names the agent of each seat; ``result.score`` is each seat's final score (the game's
``GameSpec.summary`` score, else the sum of the seat's rewards) and, for a multi-player game,
``result.winners`` the seats with the best standing. Reading a file replays every game on the core
and checks that each action was legal when played and that the result is the recorded one; any
difference (a file from other rules or another engine, an edited or corrupt line) is an error that
names the line.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.text import Text

from aerodeck import envs
from aerodeck.envs.common.checks import MAX_SEED
from aerodeck.arena.output import check_file, replacing, write_file

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
    return {"format": FORMAT, "version": VERSION, "game": game, "rules": rules.to_dict(), "players": n,
            "source": source}


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


# --- watching ----------------------------------------------------------------------------------

@dataclasses.dataclass
class Film:
    """One recorded game played out: ``states[i]`` the table before decision i+1 (``states[-1]`` the
    end), ``actors[i]`` the seat that took decision i+1, ``logs[i]`` what it did, in words."""

    record: GameRecord
    states: list
    actors: list[int]
    logs: list[list[str]]


def film(replay: Replay, index: int, core, text) -> Film:
    """Play game ``index`` of ``replay`` out, keeping the table before every decision."""
    record = replay.records[index]
    state = core.init(np.array([record.seed], np.uint64))
    states, actors, logs = [state.copy()], [], []
    for action in record.actions:
        before = state.copy()
        actors.append(int(core.to_act(state)[0]))
        core.step(state, np.array([action]))
        logs.append(text.events(core, before, state, action, None))
        states.append(state.copy())
    return Film(record, states, actors, logs)


def caption(replay: Replay, f: Film, i: int, core, text) -> str:
    """``"decision 3/41: player_1 (heuristic) — ask player_2 for odd months"`` for the decision that
    leads to table i (``i`` ≥ 1), or the game's title for the deal (``i`` = 0)."""
    r = f.record
    if i == 0:
        return f"{replay.spec.title} · game {r.game} · seed {r.seed} · the deal"
    who = r.agents[f.actors[i - 1]] if replay.spec.solo else f"player_{f.actors[i - 1]} ({r.agents[f.actors[i - 1]]})"
    return f"decision {i}/{len(r.actions)}: {who} — {text.words(core, f.states[i - 1], r.actions[i - 1])}"


#: The first bytes of a GIF file (GIF87a or GIF89a).
GIF_MAGIC = (b"GIF87a", b"GIF89a")


def check_gif(path: Path) -> bool:
    """Whether ``--gif path`` replaces an existing GIF (True) or makes a new file (False); ``ValueError``
    when the path cannot be written (:func:`~aerodeck.arena.output.check_file`) or holds a file that is
    not a GIF, which is never overwritten."""
    check_file(path, "--gif")
    if not path.exists():
        return False
    try:
        with open(path, "rb") as f:
            head = f.read(6)
    except OSError as err:
        raise ValueError(f"--gif {str(path)!r} exists and cannot be read ({err.strerror}); choose another file") from None
    if head not in GIF_MAGIC:
        raise ValueError(f"--gif {str(path)!r} exists and is not a GIF; it is left as it is: choose another file "
                         "name, or remove that file first")
    return True


def write_gif(path: Path, replay: Replay, f: Film, core, text, fps: float = 2.0) -> int:
    """Draw the game as an animated GIF: one frame per decision (the table after it, captioned with
    the decision). Returns the number of frames."""
    from matplotlib import font_manager
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(font_manager.findfont("DejaVu Sans"), 14)
    frames = []
    for i in range(1, len(f.states)):
        picture = Image.fromarray(text.picture(core, f.states[i]))
        framed = Image.new("RGB", (picture.width, picture.height + 28), "white")
        framed.paste(picture, (0, 28))
        ImageDraw.Draw(framed).text((8, 6), caption(replay, f, i, core, text), fill="black", font=font)
        frames.append(framed)
    if not frames:
        raise ValueError(f"game {f.record.game} has no decision to draw")
    with replacing(path) as tmp:  # never a half-drawn GIF; the folder is the caller's (check_file)
        frames[0].save(tmp, format="GIF", save_all=True, append_images=frames[1:], duration=int(1000 / fps), loop=0,
                       optimize=False, disposal=1)
    return len(frames)


#: The keys of the step-through, as the prompt shows them, and what each does.
STEP_KEYS = (("n", "Enter or n: next decision"), ("b", "b: back"), ("j N", "j N (or N): jump to decision N"),
             ("s", "s: start"), ("e", "e: end"), ("q", "q: quit"), ("?", "?: these keys"))
STEP_HELP = " · ".join(words for _, words in STEP_KEYS)


def step_prompt(i: int, last: int) -> str:
    """The step-through's prompt at table ``i`` of ``0..last``, listing every key: ``[3/16] n/b/j N/s/e/q/?> ``."""
    return f"[{i}/{last}] {'/'.join(key for key, _ in STEP_KEYS)}> "


def watch(replay: Replay, f: Film, core, text, console: Console, read_line, start: int = 0) -> int:
    """Step through a filmed game from table ``start``: show table i, read a command, move. Returns the exit
    status."""
    last = len(f.states) - 1
    i = start
    while True:
        console.print(Text(caption(replay, f, i, core, text), style="bold"))
        log = [line for lines in f.logs[max(0, i - 3):i] for line in lines]
        console.print(text.replay_screen(core, f.states[i], log))
        if i < last:
            console.print(Text(f"next, {caption(replay, f, i + 1, core, text)}", style="dim"))
        else:
            console.print(Text(f"end of the game · result {f.record.result}", style="bold"))
        while True:
            line = read_line(step_prompt(i, last))
            if line is None or line.lower() in ("q", "quit", "exit"):
                return 0
            word, _, rest = line.lower().partition(" ")
            if word in ("", "n", "next"):
                target = min(i + 1, last)
            elif word in ("b", "back", "p", "prev"):
                target = max(i - 1, 0)
            elif word in ("s", "start"):
                target = 0
            elif word in ("e", "end"):
                target = last
            elif word in ("j", "jump", "turn", "decision") and rest.strip().isdigit() or word.isdigit():
                target = int(rest if not word.isdigit() else word)
                if not 0 <= target <= last:
                    console.print(f"there are decisions 0..{last}")
                    continue
            else:
                console.print(STEP_HELP)
                continue
            if target == i and word in ("", "n", "next") and i == last:
                console.print("that was the last decision (b: back, q: quit)")
                continue
            i = target
            break


# --- the command -------------------------------------------------------------------------------

def add_parser(sub) -> None:
    """Register ``aerodeck replay``."""
    p = sub.add_parser("replay", help="watch recorded games in the terminal or as a GIF",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", type=Path, help="a replay file (bench --save-games K, play --save FILE), or the output "
                   "folder of aerodeck compare --save-games changed (with --changed N; alone: its changed games)")
    p.add_argument("other", type=Path, nargs="?", help="a second replay file: the same game under other rules, shown "
                   "side by side from the decision where the two games split (aerodeck.watch.pair)")
    p.add_argument("--changed", type=int, metavar="N", help="with a compare folder: open row N of its changed.csv "
                   "(the base's game and the variant's) side by side from their split")
    p.add_argument("--from-decision", type=int, metavar="D", help="start at the table before decision D (two games: "
                   "default their split)")
    p.add_argument("--game", type=int, default=0, metavar="I", help="which game of the file (0 = the first line "
                   "after the header; default 0)")
    p.add_argument("--gif", type=Path, metavar="OUT.gif", help="draw the game as an animated GIF instead")
    p.add_argument("--fps", type=float, default=2.0, help="GIF frames per second (default 2)")
    p.add_argument("--list", action="store_true", help="list the file's games and exit")
    p.set_defaults(func=main)


def line_reader(console: Console, stream=None):
    """``read_line(prompt) -> str | None``: one stripped line of input, ``None`` at its end. A typed line
    is echoed when the input is not a terminal, so a transcript shows it."""
    stream = stream or sys.stdin

    def read_line(prompt: str) -> str | None:
        console.print(prompt, end="", markup=False, highlight=False)
        console.file.flush()
        line = stream.readline()
        if not line:
            console.print()
            return None
        if not stream.isatty():
            console.print(line.rstrip("\n"), markup=False, highlight=False)
        return line.strip()

    return read_line


def make_console() -> Console:
    """The console the tools print to: colours on a terminal, plain text (120 columns) otherwise."""
    return Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 120)


def main(args: argparse.Namespace) -> int:
    """Run ``aerodeck replay``; returns the exit status."""
    from aerodeck.watch import pair

    if args.changed is not None or args.other is not None:
        console = make_console()
        return pair.main(args, console, line_reader(console))
    if args.file.is_dir() and (args.file / "changed.csv").is_file():
        return pair.list_changed(args.file, make_console())
    replay = read(args.file)
    spec = replay.spec
    console = make_console()
    if args.list or not replay.records:
        console.print(f"{replay.path}: {spec.title}, rules {replay.rules.label()}, {len(replay.records)} game(s)"
                      + (f", written by {replay.source}" if replay.source else ""))
        for i, r in enumerate(replay.records):
            console.print(f"  {i:>3}  game {r.game}  seed {r.seed}  {len(r.actions)} decisions  "
                          f"agents {', '.join(r.agents)}  result {r.result}")
        return 0
    if not 0 <= args.game < len(replay.records):
        raise ValueError(f"--game {args.game}: the file holds games 0..{len(replay.records) - 1}")
    if args.fps <= 0:
        raise ValueError(f"--fps must be positive, got {args.fps}")
    replacing_gif = args.gif is not None and check_gif(args.gif)
    text = spec.text_module()
    core = spec.make_core(replay.rules)
    f = film(replay, args.game, core, text)
    if args.gif is not None:
        frames = write_gif(args.gif, replay, f, core, text, args.fps)
        console.print(f"wrote {args.gif} ({frames} frames, one per decision)"
                      + ("; it replaced the GIF that was there" if replacing_gif else ""))
        return 0
    if args.from_decision is not None and not 1 <= args.from_decision <= len(f.record.actions):
        raise ValueError(f"--from-decision {args.from_decision}: game {args.game} has decisions 1..{len(f.record.actions)}")
    return watch(replay, f, core, text, console, line_reader(console),
                 start=0 if args.from_decision is None else args.from_decision - 1)
