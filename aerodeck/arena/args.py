"""Command-line arguments every tool shares: ``--seed``, ``--games`` and the rule options (``--rules FILE
[--table NAME]``, ``--rule key=value``), read into the game's rules object."""

from __future__ import annotations

import argparse
from pathlib import Path

from aerodeck.envs.common.checks import check_seed

#: The most games one run may play: counts stay exact in the float64 statistics.
MAX_GAMES = 2**53


def seed_arg(text: str) -> int:
    """``--seed``: an integer in ``[0, 2**64)`` (the rule of :func:`aerodeck.envs.common.checks.check_seed`)."""
    try:
        return check_seed(int(text), "--seed")
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seed must be an integer in 0..2**64-1, got {text!r}") from None


def games_arg(text: str) -> int:
    """``--games``: an integer in ``1..MAX_GAMES``."""
    try:
        return check_games(int(text), "--games")
    except ValueError as err:
        message = str(err) if text.strip().lstrip("+-").isdigit() else f"--games must be an integer, got {text!r}"
        raise argparse.ArgumentTypeError(message) from None


def check_games(n: int, what: str = "games") -> int:
    """``n`` if it is a game count in ``1..MAX_GAMES``, else ``ValueError`` naming ``what`` and the limit."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_GAMES:
        raise ValueError(f"{what} must be an integer in 1..{MAX_GAMES:,} (2**53: counts stay exact in the "
                         f"statistics), got {n!r}")
    return n


def add_rules_arguments(p: argparse.ArgumentParser, what: str = "") -> None:
    """``--rules FILE [--table NAME]`` and repeated ``--rule key=value`` (shared by every tool that takes
    rules; ``what`` starts each help line, e.g. ``"the base rules: "`` for the tools that compare variants)."""
    p.add_argument("--rules", type=Path, metavar="FILE.toml", help=f"{what}rule options from a TOML file")
    p.add_argument("--table", metavar="NAME", help=f"{what}the table of the --rules file holding the options (e.g. fast)")
    p.add_argument("--rule", dest="rule_items", action="append", default=[], metavar="KEY=VALUE",
                   help=f"{what}a rule option (repeatable; applied after --rules)")


def load_rules(spec, rules_file: Path | None, items: list[str], table: str | None = None, players: int | None = None):
    """The rules object of game ``spec`` from a TOML file, then ``key=value`` items (they win over the
    file), then ``players`` (the game's player-count option; contradicting a chosen option is an error)."""
    if table is not None and rules_file is None:
        raise ValueError(f"--table {table} names a table of a rules file: give the file with --rules FILE")
    rules_class = spec.rules_class()
    from_file = rules_class.from_toml(rules_file, table).to_strings() if rules_file else []
    rules = rules_class.from_strings(from_file + list(items))
    if players is not None:
        if spec.players_option is None:
            raise ValueError(f"--players applies to multi-player games; {spec.id} is played solo")
        chosen = rules.changes().get(spec.players_option)
        if chosen is not None and chosen != players:
            raise ValueError(f"--players {players} contradicts the rule option {spec.players_option}={chosen}")
        rules = rules.replace(**{spec.players_option: players})
    return rules
