"""``aerodeck play``: a person plays a game in the terminal against the suite's agents.

``aerodeck play airport-scramble [--rule K=V | --rules FILE] [--seed S] [--hint AGENT]``;
``aerodeck play flight-tycoon --players N --seat K --opponents AGENT,...``. The table is drawn after
every decision; a move is typed in the game's words (``help`` shows how) or by its number in the
menu (``moves``). Other commands: ``hint`` (the hint agent's move, and why where it can say),
``undo`` (the last move of the turn, where taking it back shows no hidden card), ``quit``. Illegal
or unreadable moves are refused, with why and the legal moves, and change nothing. At the end of
the input the game is left with a message (exit status 0); ``--save FILE`` writes the game as a
replay file (``aerodeck replay FILE``).

Everything about a game comes through the registry (``aerodeck.envs.spec(game)``), never a branch on its
name: the core, the agents (``aerodeck.agents.registry.make_agent``), the look-ahead view, and the game in
words, the module named by ``GameSpec.text``. That module offers (``state`` is a batch of one game)::

    HELP                                        the typed moves, with examples
    moves(core, state) -> [(action, words, note)]   the legal moves now, in menu order
    words(core, state, action) -> str           the words that name an action (parse reads them back)
    parse(core, state, line) -> int             the action the words name; ValueError saying why not
    screen(core, state, seat, log, names)       what ``seat`` may see now (a rich renderable)
    events(core, before, after, action, seat)   what ``seat`` saw one decision do: lines of the log
                                                (seat None: a spectator of a recorded game)
    undo_refusal(core, before, after) -> str | None   why a move cannot be taken back, None if it can
    why(core, state, action) -> str             what a move does, for the hint
    summary(core, state, seat, names)           the end of the game (a rich renderable)
    replay_screen(core, state, log), picture(core, state)   the table of a recorded game (aerodeck replay)
"""

from __future__ import annotations

import argparse
import secrets
from collections.abc import Callable

import numpy as np
from rich.columns import Columns
from rich.text import Text

from aerodeck import envs
from aerodeck.agents.registry import describe_kinds, make_agent
from aerodeck.agents.specs import split_specs
from aerodeck.arena.args import add_rules_arguments, load_rules, seed_arg
from aerodeck.arena.output import check_file
from aerodeck.arena.replays import GameRecord, play_back, write
from aerodeck.watch.replay import line_reader, make_console

#: Menus this long or shorter are shown with every decision; longer ones on ``moves``.
SHORT_MENU = 24


class Session:
    """One game at the terminal: ``seat`` is the person's, ``agents[h]`` plays every other seat h.

    ``hint``: ``(label, agent)``, the agent ``hint`` asks; ``read_line(prompt) -> str | None`` gives
    the person's lines (``None`` at the end of input); ``console`` (rich) shows the table; ``names``:
    each seat's name on the screen; ``agent_names_by_seat``: each seat's agent in a saved replay.
    :meth:`run` plays to the end and returns the exit status.
    """

    def __init__(self, spec, rules, seed: int, seat: int, agents: dict, hint, console, read_line: Callable,
                 names: list[str], agent_names_by_seat: list[str]) -> None:
        self.spec, self.rules, self.seed, self.seat = spec, rules, seed, seat
        self.text = spec.text_module()
        self.core = spec.make_core(rules)
        self.state = self.core.init(np.array([seed], np.uint64))
        self.agents, self.hint_agent, self.hint_spec = agents, hint[1], hint[0]
        self.console, self.read_line = console, read_line
        self.names, self.agent_names = names, agent_names_by_seat
        self.actions: list[int] = []
        self.log: list[str] = []
        self.shown = 0  # log lines already shown with the table
        #: The person's moves of this turn that may be taken back: (saved state, actions, log lengths).
        self.undoable: list[tuple[dict, int, int]] = []
        self.refusal = "no move of yours yet"
        self.hints = self.undos = 0

    # --- the game ------------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        return bool(self.state.done[0])

    def to_act(self) -> int:
        return int(self.core.to_act(self.state)[0])

    def step(self, action: int) -> None:
        """Play ``action`` for the seat to act and log what the person saw of it."""
        before = self.state.copy()
        self.core.step(self.state, np.array([action]))
        self.actions.append(int(action))
        self.log += self.text.events(self.core, before, self.state, int(action), self.seat)

    def agent_move(self, agent, seat: int) -> int:
        """The move ``agent`` chooses for ``seat`` now (from that seat's observation, mask and view)."""
        obs = self.core.observe(self.state, seat)
        mask = self.core.legal_mask(self.state)
        view = self.spec.make_view(self.core, self.state, np.array([seat])) if agent.needs_view else None
        return int(agent.act(obs, mask, view)[0])

    def run(self) -> int:
        """Play to the end (or the end of input); the exit status."""
        while not self.done:
            seat = self.to_act()
            if seat != self.seat:
                self.step(self.agent_move(self.agents[seat], seat))
                self.undoable.clear()  # another player has seen the table since
                continue
            self.show()
            leaving = self.decide()
            if leaving:
                self.console.print(f"{leaving}: the game is left unfinished (seed {self.seed}).")
                return 0
        self.show()
        self.console.print(self.text.summary(self.core, self.state, self.seat, self.names))
        self.console.print(f"seed {self.seed} · {len(self.actions)} decisions in the game · hints {self.hints} · "
                           f"moves taken back {self.undos}")
        return 0

    # --- the person's turn ---------------------------------------------------------------------

    def show(self) -> None:
        """The table, with every log line since the person last saw it."""
        if self.console.is_terminal:
            self.console.clear()
        new = self.log[self.shown:]
        log = self.log[-max(len(new), 4):] if self.log else []
        self.shown = len(self.log)
        self.console.print(Text(f"seed {self.seed}", style="dim"))
        self.console.print(self.text.screen(self.core, self.state, self.seat, log, self.names))
        if not self.done:
            legal = self.text.moves(self.core, self.state)
            if len(legal) <= SHORT_MENU:
                self.print_menu(legal)
            else:
                self.console.print(f"{len(legal)} legal moves: type one (help: how), or 'moves' for the numbered list")

    def print_menu(self, legal=None) -> None:
        """The numbered list of legal moves."""
        legal = self.text.moves(self.core, self.state) if legal is None else legal
        items = [Text(f"{i:>3}) {words}" + (f" — {note}" if note else "")) for i, (_, words, note) in enumerate(legal, 1)]
        self.console.print(Columns(items, column_first=True, padding=(0, 3)))

    def decide(self) -> str | None:
        """Read commands until a move is played (None), or until the person leaves (why, in words)."""
        while True:
            line = self.read_line("your move> ")
            if line is None:
                return "End of input"
            word = line.lower()
            if not word:
                continue
            if word in ("quit", "exit", "q"):
                return "You left"
            if word in ("help", "?", "h"):
                self.console.print(Text(self.text.HELP))
                self.console.print("Also: a number picks that move of the menu · moves: the numbered menu · "
                                   "hint: the hint agent's move · undo: take back your last move of the turn "
                                   "(where that shows no hidden card) · quit")
                continue
            if word in ("moves", "menu", "list", "m"):
                self.print_menu()
                continue
            if word == "hint":
                self.hint()
                continue
            if word == "undo":
                if self.undo():
                    return None
                continue
            action = self.read_move(line)
            if action is not None:
                self.play(action)
                return None

    def read_move(self, line: str) -> int | None:
        """The legal action the line names, or None after saying why it is refused (nothing changes)."""
        legal = self.text.moves(self.core, self.state)
        if line.isdigit():
            if not 1 <= int(line) <= len(legal):
                return self.refuse(f"there is no move {line}: the menu has moves 1..{len(legal)}", legal)
            return legal[int(line) - 1][0]
        try:
            action = self.text.parse(self.core, self.state, line)
        except ValueError as err:
            return self.refuse(f"cannot read {line!r}: {err}", legal)
        if not self.core.legal_mask(self.state)[0, action]:
            why = self.core.explain_illegal(self.state, 0, action)
            return self.refuse(f"{line!r} is not allowed now: {why}", legal)
        return action

    def refuse(self, message: str, legal) -> None:
        self.console.print(Text("refused: " + message, style="bold red"))
        self.console.print("legal moves now:")
        self.print_menu(legal)
        return None

    def play(self, action: int) -> None:
        """The person's move; remembered for ``undo`` if it can be taken back."""
        saved = self.core.save(self.state)
        before = self.core.restore(saved)
        marks = (len(self.actions), len(self.log))
        self.step(action)
        self.refusal = self.text.undo_refusal(self.core, before, self.state)
        if self.refusal is None:
            self.undoable.append((saved, *marks))
        else:
            self.undoable.clear()

    def undo(self) -> bool:
        """Take back the person's last move of the turn, if the rules allow it without showing a hidden
        card; False (after saying why) if not."""
        if not self.undoable:
            self.console.print(Text(f"cannot take back: {self.refusal}", style="bold red"))
            return False
        saved, n_actions, n_log = self.undoable.pop()
        taken = self.text.words(self.core, self.core.restore(saved), self.actions[-1])
        self.state = self.core.restore(saved)
        del self.actions[n_actions:]
        del self.log[n_log:]
        self.shown = min(self.shown, len(self.log))
        self.undos += 1
        self.log.append(f"took back: {taken}")
        self.refusal = "nothing left to take back this turn"
        return True

    def hint(self) -> None:
        """The hint agent's move and why (the game's words; the agent's own ranking where it has one)."""
        action = self.agent_move(self.hint_agent, self.seat)
        words = self.text.words(self.core, self.state, action)
        self.hints += 1
        self.console.print(Text(f"hint ({self.hint_spec}): {words} — {self.text.why(self.core, self.state, action)}",
                                style="bold cyan"))
        scores = getattr(self.hint_agent, "scores", None)
        if callable(scores):  # an agent that rates every action (higher is better)
            values = np.asarray(scores(self.core.observe(self.state, self.seat), self.core.legal_mask(self.state)))[0]
            best = [int(a) for a in np.argsort(-values, kind="stable")[:3] if np.isfinite(values[a])]
            self.console.print("  its ratings: " + ", ".join(
                f"{self.text.words(self.core, self.state, a)} {values[a]:.2f}" for a in best))

    def record(self) -> GameRecord:
        """The finished game as a replay record (the person's seat named ``human``)."""
        result = play_back(self.spec, self.rules, [(self.seed, self.actions)])[0]
        return GameRecord(seed=self.seed, agents=self.agent_names, actions=list(self.actions), result=result)


# --- the command -------------------------------------------------------------------------------

def add_parser(sub) -> None:
    """Register ``aerodeck play``."""
    p = sub.add_parser("play", help="play a game in the terminal against the suite's agents",
                       description=__doc__.split("Everything about a game")[0],
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", choices=envs.games())
    add_rules_arguments(p)
    p.add_argument("--seed", type=seed_arg, help="the deal, 0..2**64-1 (default: a random one, shown on the screen)")
    p.add_argument("--players", type=int, help="the number of players of a multi-player game")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1 (default 0)")
    p.add_argument("--opponents", metavar="AGENT,...",
                   help="the agents of the other seats in seat order, or one for all (default: the game's "
                        "opponent agent); "
                        "agents: " + "; ".join(f"{g}: {describe_kinds(g)}" for g in envs.games()))
    p.add_argument("--hint", metavar="AGENT", help="the agent 'hint' asks (default: the game's opponent agent)")
    p.add_argument("--save", metavar="FILE", help="write the game as a replay file when it ends")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Run ``aerodeck play``; returns the exit status."""
    spec = envs.spec(args.game)
    spec.text_module()  # ValueError for a game that cannot be shown in words
    if spec.solo and (args.opponents is not None or args.seat != 0):
        raise ValueError(f"{args.game} is played solo: --seat and --opponents apply to multi-player games")
    rules = load_rules(spec, args.rules, args.rule_items, args.table, args.players)
    n = spec.players(rules)
    if not 0 <= args.seat < n:
        raise ValueError(f"--seat must be a seat 0..{n - 1}, got {args.seat}")
    seed = args.seed if args.seed is not None else secrets.randbelow(10**6)
    others = [h for h in range(n) if h != args.seat]
    specs = split_specs(args.opponents or spec.opponent)
    if len(specs) == 1:
        specs *= len(others)
    if len(specs) != len(others):
        raise ValueError(f"--opponents names {len(specs)} agents for the {len(others)} other seats: give one for "
                         f"all or one per seat")
    agents = {h: make_agent(args.game, s, rules, seed=seed + 1 + h) for h, s in zip(others, specs)}
    hint_spec = args.hint or spec.opponent
    hint = (hint_spec, make_agent(args.game, hint_spec, rules, seed=seed))
    by_seat = ["human" if h == args.seat else specs[others.index(h)] for h in range(n)]
    names = ["you"] if spec.solo else [f"player_{h} ({'you' if h == args.seat else by_seat[h]})" for h in range(n)]
    if args.save is not None:
        check_file(args.save, "--save")
    console = make_console()
    session = Session(spec, rules, seed, args.seat, agents, hint, console, line_reader(console), names, by_seat)
    status = session.run()
    if args.save is not None:
        if session.done:
            write(args.save, args.game, rules, [session.record()], source="aerodeck play")
            console.print(f"wrote the game to {args.save} (aerodeck replay {args.save})")
        else:
            console.print("the game is not over: nothing saved")
    return status
