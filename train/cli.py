"""The ``aerodeck`` command line: one sub-command per module listed in ``COMMANDS``.

Each command module offers ``add_parser(subparsers)`` (registering its arguments and setting
``func``) and is importable on its own, so the tools are usable from Python as well.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import threading

# Sub-command modules, in the order ``aerodeck --help`` lists them.
COMMANDS = ["train.run", "train.learn.train", "train.evaluate.bench", "train.watch.play", "train.watch.replay", "train.judge.compare", "train.judge.sweep", "train.judge.tune"]


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every sub-command registered."""
    parser = argparse.ArgumentParser(
        prog="aerodeck",
        description="RL environments, agents and rule-evaluation tools for Airport Scramble and Flight Tycoon.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(name).add_parser(sub)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that a run cleans up the same way."""


def _terminate(signum, frame):
    raise Terminated


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``aerodeck`` console script; returns the exit status.

    Bad input (a bad option, rules file or agent spec, an output path that cannot be written) is one
    line on stderr and status 2; Ctrl-C is one line and status 130 (SIGTERM: 143), leaving no
    half-written output.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # --help, or a command line argparse refused (its message is printed)
        return stop.code if isinstance(stop.code, int) else 2
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if in_main else None
    try:
        return int(args.func(args) or 0)
    except (ValueError, OSError) as err:  # bad input, or a file that cannot be read or written
        print(f"aerodeck {args.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        how = "terminated" if isinstance(stop, Terminated) else "interrupted"
        print(f"aerodeck {args.command}: {how} (an unfinished run writes nothing)", file=sys.stderr)
        return 143 if isinstance(stop, Terminated) else 130
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
