"""The ``aerodeck`` command line: one sub-command per module listed in ``COMMANDS``.

Each command module offers ``add_parser(subparsers)`` (registering its arguments and setting
``func``) and is importable on its own, so the tools are usable from Python as well.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
import time

from aerodeck import envs
from aerodeck.arena.stopping import Terminated
from aerodeck.arena.stopping import terminate as _terminate

# Sub-command modules, in the order ``aerodeck --help`` lists them.
COMMANDS = ["aerodeck.cli.run", "aerodeck.train.cli", "aerodeck.bench.bench", "aerodeck.bench.tasks_cli", "aerodeck.watch.play", "aerodeck.watch.replay", "aerodeck.judge.compare", "aerodeck.judge.sweep", "aerodeck.judge.tune", "aerodeck.serve.cli"]


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that refuses a bad *value* in one line: ``aerodeck bench: error: --games must
    be …`` (a flag's value that its ``type`` or ``choices`` refuse). A command line it cannot read —
    an unknown flag or command, a missing value — still gets the usage block. Sub-command parsers are
    made of the same class."""

    def _get_values(self, action, arg_strings):
        try:
            return super()._get_values(action, arg_strings)
        except argparse.ArgumentError as err:
            if isinstance(action, argparse._SubParsersAction):  # an unknown command: the usage helps
                raise
            flag = err.argument_name or ""
            message = err.message if flag and err.message.startswith(flag.split("/")[0]) else str(err)
            self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every sub-command registered."""
    titles = [spec.title for spec in envs.specs()]
    parser = Parser(
        prog="aerodeck",
        description="RL environments, agents and rule-evaluation tools for "
                    + " and ".join(filter(None, [", ".join(titles[:-1]), titles[-1]])) + ".",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(name).add_parser(sub)
    return parser


#: Set once a command has stopped on a Ctrl-C or SIGTERM, or ended: nothing is sent again after it.
_stopped = threading.Event()
_stopping = threading.Lock()  # a re-raise and a command's catch never interleave


def _send_again(signum: int) -> None:
    # a real signal: it also wakes a blocking call (a sleep, a wait on worker processes)
    with _stopping:
        if not _stopped.is_set():
            os.kill(os.getpid(), signum)


def _redeliver(unraisable) -> None:
    """``sys.unraisablehook`` while a command runs: a Ctrl-C or SIGTERM that Python swallowed (it arrived
    inside a callback whose exceptions are only printed, such as an import lock's weakref callback) is
    sent again 50 ms later, when ordinary code runs and can raise it; anything else is printed as usual."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        signum = signal.SIGTERM if isinstance(unraisable.exc_value, Terminated) else signal.SIGINT
        again = threading.Timer(0.05, _send_again, (signum,))
        again.daemon = True  # never holds the process open once the command has ended
        again.start()
    else:
        sys.__unraisablehook__(unraisable)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``aerodeck`` console script; returns the exit status.

    Bad input (a bad option, rules file or agent spec, an output path that cannot be written) is one
    line on stderr and status 2; Ctrl-C is one line and status 130 (SIGTERM: 143), leaving no
    half-written output.
    """
    began = time.perf_counter()  # a command's budget (train --minutes) counts from here
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # --help, or a command line argparse refused (its message is printed)
        return stop.code if isinstance(stop.code, int) else 2
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    args.began = began
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if in_main else None
    previous_hook, sys.unraisablehook = sys.unraisablehook, _redeliver
    _stopped.clear()
    try:
        return int(args.func(args) or 0)
    except (ValueError, OSError) as err:  # bad input, or a file that cannot be read or written
        print(f"aerodeck {args.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        with _stopping:
            _stopped.set()
        how = "terminated" if isinstance(stop, Terminated) else "interrupted"
        # a command that kept what it did says so in the exception's message (train: how to continue)
        print(f"aerodeck {args.command}: {how}; {stop}" if str(stop) else
              f"aerodeck {args.command}: {how} (an unfinished run writes nothing)", file=sys.stderr)
        # A Ctrl-C that escaped an eval() or exec() of a string (namedtuple's, say, in an import under way)
        # leaves CPython's "unhandled KeyboardInterrupt" mark set although it was handled here, and the
        # interpreter would then end by SIGINT (status -2) whatever this returns; each exec of a string
        # clears the mark as it starts.
        exec("pass")
        return 143 if isinstance(stop, Terminated) else 130
    finally:
        _stopped.set()
        sys.unraisablehook = previous_hook
        if in_main:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
