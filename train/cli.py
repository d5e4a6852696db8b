"""The ``aerodeck`` command line: one sub-command per module listed in ``COMMANDS``.

Each command module offers ``add_parser(subparsers)`` (registering its arguments and setting
``func``) and is importable on its own, so the tools are usable from Python as well.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Sub-command modules, in the order ``aerodeck --help`` lists them.
COMMANDS = ["train.run", "train.bench"]


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


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``aerodeck`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (ValueError, OSError) as err:  # bad input, or a file that cannot be read or written
        print(f"aerodeck {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
