"""``aerodeck sweep``: a grid of rule variants judged by agent play, like ``aerodeck compare``.

``--grid key=v1,v2,...`` (repeatable; values that are lists are separated by ``;``:
``--grid "vp_table=1,5,8,10,6;3,5,6,6,5"``): the product of the grids are the variants, each named by its
options (``ticket_turn_bonus=2 face_up=5``); the one equal to the defaults is the base, or the defaults
are added as ``base``. The same metrics, statistics and report as ``compare`` (every variant against the
base, Holm over all of them), plus a plot of each ``--metric`` over the grid: a line with its 95%
interval for one key, a heat map for two, one bar per variant beyond.
"""

from __future__ import annotations

import argparse
import itertools

import envs
from train.judge import compare


def add_parser(sub) -> None:
    """Register ``aerodeck sweep``."""
    p = sub.add_parser("sweep", help="a grid of rule variants judged by agent play (compare's report, plots "
                       "over the grid)", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    compare.add_common_arguments(p, "out/sweep-<game>")
    p.add_argument("--grid", dest="grids", action="append", default=[], metavar="KEY=V1,V2,...",
                   help="a rule option and its values (repeat: the product of the grids is swept); list values "
                        "are separated by ';', e.g. \"vp_table=1,5,8,10,6;3,5,6,6,5\"")
    p.set_defaults(func=main)


def grid_variants(grids: list[str], rules_class) -> tuple[list[str], list[tuple[str, object, tuple[str, ...]]]]:
    """The grid keys and the product of ``key=v1,v2,...`` grids as ``(name, rules, values)``, named by
    their options (``key=v1 key2=w1``) — the one equal to the defaults, if any, named ``base``. Refuses an
    empty grid, a key given twice, and an option or value the rules refuse."""
    keys, values = [], []
    for g in grids:
        key, sep, rest = g.partition("=")
        key = key.strip()
        separator = ";" if ";" in rest else ","  # values that are lists: vp_table=1,5,8,10,6;2,5,6,6,5
        options = [v.strip() for v in rest.split(separator) if v.strip()] if sep else []
        if not key or not options:
            raise ValueError(f"--grid {g!r}: expected key=v1,v2,... with at least one value")
        if key in keys:
            raise ValueError(f"--grid names {key!r} twice")
        keys.append(key)
        values.append(options)
    if not keys:
        raise ValueError("sweep needs at least one --grid key=v1,v2,...")
    default = rules_class()
    out = []
    for combo in itertools.product(*values):
        items = [f"{k}={v}" for k, v in zip(keys, combo)]
        try:
            rules = rules_class.from_strings(items)
        except ValueError as err:
            raise ValueError(f"--grid {' '.join(items)}: {err}") from None
        out.append((compare.BASE if rules == default else " ".join(items), rules, combo))
    return keys, out


def main(args: argparse.Namespace) -> int:
    """``aerodeck sweep``."""
    spec = envs.spec(args.game)
    rules_class = spec.rules_class()
    keys, grid = grid_variants(args.grids, rules_class)
    variants = compare.assemble_variants([(name, rules) for name, rules, _ in grid], rules_class,
                                         compare.fixed_options(args, spec))
    question, backend, out = compare.common_setup(args, variants, "sweep")
    sweep = {"keys": keys, "cells": {name: list(combo) for name, _, combo in grid},
             "metrics": list(question.metrics)}
    compare.run_question(question, backend, out, args, extra={"sweep": sweep})
    return 0
