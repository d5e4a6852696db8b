"""Two recorded games side by side: the same deal played under two rule variants (``aerodeck compare
--save-games changed``), shown from the decision where they split.

``aerodeck replay OUT --changed N`` opens row N of ``OUT/changed.csv`` (the base's game and the variant's,
from ``replays/changed/``); ``aerodeck replay FILE_A FILE_B --game I [--from-decision D]`` opens game I of
each file. First the two games' decisions in two columns from a little before the split to the end (what
each seat did and what followed, in the game's words), then both tables side by side, stepped together
with the keys of ``aerodeck replay`` (``n`` next, ``b`` back, ``j N`` jump, ``s`` start, ``e`` end, ``q``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from aerodeck.arena.replays import Replay, read

#: Decisions shown before the split in the two-column list.
CONTEXT = 2
#: At most this many rows in the two-column list (the step-through shows the rest).
MAX_ROWS = 40


@dataclasses.dataclass
class Side:
    """One of the two games: its replay file read, the game's index in it, its label, its film."""

    replay: Replay
    index: int
    label: str
    core: object
    text: object
    film: object


def split_decision(a: list[int], b: list[int]) -> int:
    """The first decision (from 1) where two action lists differ — the one after the shorter's end when
    one is the start of the other — or 0 when they are the same."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i + 1
    return 0 if len(a) == len(b) else min(len(a), len(b)) + 1


def first_difference(a, b) -> int:
    """The first decision (from 1) after which two filmed games' tables read differently — its action or
    what followed it (the log) differs — or 0 when every decision reads the same: where the rule first made
    a difference, which may come before the decisions split (the same move, another outcome)."""
    for i, (x, y) in enumerate(zip(a.logs, b.logs)):
        if x != y or a.record.actions[i] != b.record.actions[i]:
            return i + 1
    return 0 if len(a.logs) == len(b.logs) else min(len(a.logs), len(b.logs)) + 1


def open_side(path: Path, index: int, film, label: str | None = None) -> Side:
    """Game ``index`` of the replay file ``path``, filmed by ``film`` (``aerodeck.watch.replay.film``)."""
    replay = read(path)
    if not 0 <= index < len(replay.records):
        raise ValueError(f"--game {index}: {path} holds games 0..{len(replay.records) - 1}")
    spec = replay.spec
    core, text = spec.make_core(replay.rules), spec.text_module()
    return Side(replay, index, label or replay.rules.label(), core, text, film(replay, index, core, text))


def open_changed(folder: Path, rank: int, film) -> tuple[Side, Side, dict]:
    """Row ``rank`` of ``folder/changed.csv`` as its two games (the base's, the variant's, filmed by ``film``)
    and the row."""
    from aerodeck.judge.changed import read_csv

    rows = read_csv(Path(folder) / "changed.csv")
    row = next((r for r in rows if r["rank"] == str(rank)), None)
    if row is None:
        raise ValueError(f"--changed {rank}: {folder}/changed.csv lists " + (f"rows 1..{len(rows)}" if rows else
                                                                            "no changed game"))
    index = int(row["index"])
    base = open_side(Path(folder) / row["base_file"], index, film, f"base ({row['table']})")
    variant = open_side(Path(folder) / row["variant_file"], index, film, f"{row['variant']} ({row['table']})")
    return base, variant, row


def check_pair(a: Side, b: Side) -> None:
    """Refuse two games that are not the same game on the same deal seed."""
    ra, rb = a.film.record, b.film.record
    if a.replay.game != b.replay.game:
        raise ValueError(f"the two files hold different games: {a.replay.game} and {b.replay.game}")
    if ra.seed != rb.seed:
        raise ValueError(f"the two games were dealt from different seeds ({ra.seed} and {rb.seed}): pick the same "
                         "game of each file (--game I), e.g. from changed.csv")


def _decision(side: Side, i: int) -> str:
    """Decision ``i`` (from 1) of a side in words, with what followed (the log), or the end."""
    f = side.film
    if i > len(f.record.actions):
        return "(game over)" if i == len(f.record.actions) + 1 else ""
    said = "; ".join(f.logs[i - 1])
    who = f"player_{f.actors[i - 1]}"
    return said if side.replay.spec.solo or said.startswith(who) else f"{who}: {said}"


def decisions_table(a: Side, b: Side, start: int, split: int, rows: int = MAX_ROWS, differ: int = 0) -> Table:
    """The two games' decisions in two columns from decision ``start``, the split (the first decision that
    differs) and the first decision whose outcome differs (``differ``, when earlier) marked."""
    table = Table(title=f"decisions from {start} (the games split at decision {split})" if split else
                  "the same decisions (the rule alone changed the result)", show_lines=False)
    table.add_column("decision", justify="right")
    table.add_column(a.label, overflow="fold")
    table.add_column(b.label, overflow="fold")
    last = max(len(a.film.record.actions), len(b.film.record.actions)) + 1
    for i in range(start, min(last, start + rows - 1) + 1):
        mark = " ◀ split" if i == split else " ◀ outcome differs" if i == differ and differ != split else ""
        table.add_row(f"{i}{mark}", _decision(a, i), _decision(b, i))
    if last > start + rows - 1:
        table.add_row("…", f"(to decision {len(a.film.record.actions)})", f"(to decision {len(b.film.record.actions)})")
    return table


def heading(a: Side, b: Side, split: int, differ: int = 0) -> str:
    """One line naming the game, the two rules, the split and where the outcome first differs."""
    r = a.film.record
    where = f"the games split at decision {split}" if split else "the same decisions"
    if differ and differ != split:
        where += f"; decision {differ} already had another outcome"
    return (f"{a.replay.spec.title} · game {r.game} · seed {r.seed}: {a.label} [{a.replay.rules.label()}] · result "
            f"{a.film.record.result} | {b.label} [{b.replay.rules.label()}] · result {b.film.record.result} · {where}")


def screens(a: Side, b: Side, i: int) -> Table:
    """Both tables after decision ``i`` (each game's last table once it is over), side by side."""
    grid = Table.grid(padding=(0, 3))
    grid.add_column()
    grid.add_column()
    cells = []
    for side in (a, b):
        f = side.film
        j = min(i, len(f.states) - 1)
        log = [line for lines in f.logs[max(0, j - 3):j] for line in lines]
        cells.append(side.text.replay_screen(side.core, f.states[j], log))
    grid.add_row(Text(f"{a.label}: after decision {min(i, len(a.film.states) - 1)}", style="bold"),
                 Text(f"{b.label}: after decision {min(i, len(b.film.states) - 1)}", style="bold"))
    grid.add_row(*cells)
    return grid


def watch_pair(a: Side, b: Side, start: int, console: Console, read_line, step_prompt, step_help: str) -> int:
    """Show the two games' decisions from ``start`` in two columns, then step both tables together from
    the table before decision ``start`` (``step_prompt(i, last)``, ``step_help``: the prompt and the keys
    of ``aerodeck replay``). Returns the exit status."""
    split = split_decision(a.film.record.actions, b.film.record.actions)
    differ = first_difference(a.film, b.film)
    console.print(Text(heading(a, b, split, differ), style="bold"))
    console.print(decisions_table(a, b, max(1, start - CONTEXT), split, differ=differ))
    last = max(len(a.film.states), len(b.film.states)) - 1
    i = max(0, min(start - 1, last))
    while True:
        console.print(screens(a, b, i))
        target = step_target(read_line(step_prompt(i, last)), i, last)
        if target is None:
            return 0
        if isinstance(target, str):
            console.print(step_help if target == HELP else target)
        else:
            i = target


#: What :func:`step_target` gives for a command it does not know (the caller prints its help).
HELP = "help"


def step_target(line: str | None, i: int, last: int) -> int | str | None:
    """The decision a stepping command moves to from decision ``i`` of ``0..last``: ``n``/Enter next,
    ``b`` back, ``s`` start, ``e`` end, ``j N`` (or ``N``) jump. ``None``: quit (``q``, or no more input);
    a string: what to print instead (:data:`HELP` for an unknown command, or why a jump is out of range)."""
    if line is None or line.lower() in ("q", "quit", "exit"):
        return None
    word, _, rest = line.lower().partition(" ")
    if word in ("", "n", "next"):
        return min(i + 1, last)
    if word in ("b", "back", "p", "prev"):
        return max(i - 1, 0)
    if word in ("s", "start"):
        return 0
    if word in ("e", "end"):
        return last
    if (word in ("j", "jump", "turn", "decision") and rest.strip().isdigit()) or word.isdigit():
        target = int(rest if not word.isdigit() else word)
        return target if 0 <= target <= last else f"there are decisions 0..{last}"
    return HELP


def main(args, console: Console, read_line, film, step_prompt, step_help: str) -> int:
    """``aerodeck replay OUT --changed N`` or ``aerodeck replay FILE_A FILE_B [--game I]``: two games side
    by side from their split (or ``--from-decision D``); ``film``, ``step_prompt``, ``step_help``: how
    ``aerodeck.watch.replay`` plays a game out and steps through it."""
    if args.changed is not None:
        if not Path(args.file).is_dir():
            raise ValueError(f"--changed {args.changed}: give the output folder of aerodeck compare --save-games "
                             f"changed (the one holding changed.csv), not {str(args.file)!r}")
        if args.other is not None:
            raise ValueError("--changed N opens a pair from the folder's changed.csv: give the folder alone")
        a, b, row = open_changed(args.file, args.changed, film)
    else:
        a, b = open_side(args.file, args.game, film), open_side(args.other, args.game, film)
        if a.label == b.label:
            a.label, b.label = f"{a.label} (1)", f"{b.label} (2)"
    check_pair(a, b)
    split = split_decision(a.film.record.actions, b.film.record.actions)
    differ = first_difference(a.film, b.film)
    start = args.from_decision if args.from_decision is not None else max(min(d for d in (split, differ) if d) if
                                                                          split or differ else 1, 1)
    if not console.is_terminal:
        console.width = max(console.width, 170)  # two tables side by side
    if start < 1:
        raise ValueError(f"--from-decision must be at least 1, got {start}")
    return watch_pair(a, b, start, console, read_line, step_prompt, step_help)


def list_changed(folder: Path, console: Console) -> int:
    """``aerodeck replay OUT`` on a compare folder: its changed games, one line each."""
    from aerodeck.judge.changed import read_csv

    rows = read_csv(Path(folder) / "changed.csv")
    console.print(f"{folder}/changed.csv: {len(rows)} changed game(s); aerodeck replay {folder} --changed N opens one")
    for r in rows:
        winners = f"  winners {r['base_winners']} → {r['variant_winners']}" if r["base_winners"] or r["variant_winners"] else ""
        split = f"split at decision {r['split_decision']}" if r["split_decision"] != "0" else "same decisions"
        console.print(f"  {r['rank']:>3}  {r['variant']} / {r['table']}  game {r['game']}  score {r['base_score']} → "
                      f"{r['variant_score']}{winners}  {split}")
    return 0
