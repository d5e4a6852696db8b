"""``aerodeck replay``: watch recorded games in the terminal or as a GIF.

``aerodeck replay FILE [--game I]`` steps through game I of a replay file (``n`` next, ``b`` back,
``j N`` jump to decision N, ``s`` start, ``e`` end, ``q`` quit, ``?`` the keys); the format is
:mod:`aerodeck.arena.replays`, and ``aerodeck bench --save-games K`` and ``aerodeck play --save FILE`` write it.
``--gif OUT.gif`` draws it as an animation from the env's ``rgb_array`` pictures, one frame per decision
(into a folder that exists; the file appears whole or not at all; an existing GIF is replaced, and the
line that names the new one says so; an existing file that is not a GIF is refused, never overwritten).
A replay file carries its game's rules, so the command takes no rule options. ``--from-decision D`` starts
at the table before decision D. Two games side by side (:mod:`aerodeck.watch.pair`): ``aerodeck replay OUT
--changed N`` opens row N of a compare folder's ``changed.csv`` (``aerodeck replay OUT`` lists them), and
``aerodeck replay FILE_A FILE_B --game I`` game I of two files, from the decision where they split.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.text import Text

from aerodeck.arena.output import check_file, replacing
from aerodeck.arena.replays import GameRecord, Replay, read
from aerodeck.watch.pair import HELP, step_target

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
            target = step_target(line, i, last)
            if target is None:
                return 0
            if isinstance(target, str):
                console.print(STEP_HELP if target == HELP else target)
                continue
            if target == i == last and line.strip().lower() in ("", "n", "next"):
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
        return pair.main(args, console, line_reader(console), film, step_prompt, STEP_HELP)
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
