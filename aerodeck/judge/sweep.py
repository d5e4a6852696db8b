"""``aerodeck sweep``: a grid of rule variants judged by agent play, like ``aerodeck compare``.

``--grid key=v1,v2,...`` (repeatable; values that are lists are separated by ``;``:
``--grid "vp_table=1,5,8,10,6;3,5,6,6,5"``): the product of the grids are the variants, each named by its
options (``ticket_turn_bonus=2 face_up=5``); the one equal to the defaults is the base, or the defaults
are added as ``base``. The same metrics, statistics and report as ``compare`` (every variant against the
base, Holm over all of them), plus a plot of each ``--metric`` over the grid: a line with its 95%
interval for one key, a heat map for two, one bar per variant beyond. A grid point the rules refuse
because of a constraint between options (``face_up=2`` with the default ``max_replace=4``) is skipped
with a note naming the fix (the nearest value of the linked option that the rules accept, to add as a
``--grid``); a grid with no playable point is refused.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools

from aerodeck import envs
from aerodeck.judge import compare


def add_parser(sub) -> None:
    """Register ``aerodeck sweep``."""
    p = sub.add_parser("sweep", help="a grid of rule variants judged by agent play (compare's report, plots "
                       "over the grid)", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    compare.add_common_arguments(p, "out/sweep-<game>")
    p.add_argument("--house", metavar="FILE.py:Class", help="play every grid point (the base included) under this "
                   "house rule (docs/designers.md, 'Write a house rule'): on the reference engine, exact and slower")
    p.add_argument("--grid", dest="grids", action="append", default=[], metavar="KEY=V1,V2,...",
                   help="a rule option and its values (repeat: the product of the grids is swept); list values "
                        "are separated by ';', e.g. \"vp_table=1,5,8,10,6;3,5,6,6,5\"")
    p.set_defaults(func=main)


def candidate_values(field) -> list[str]:
    """The values of a rule option worth trying as a fix, nearest its default first (small ranges and
    choices only; ``[]`` for a wide or list-valued option)."""
    allowed, default = field.metadata["allowed"], field.default
    if allowed.kind == "bool":
        return ["on", "off"]
    if allowed.kind == "choice":
        return list(allowed.choices)
    if allowed.kind == "int" and allowed.hi is not None and allowed.hi - allowed.lo <= 64:
        return [str(v) for v in sorted(range(allowed.lo, allowed.hi + 1), key=lambda v: (abs(v - default), v))]
    return []


def fix_for(items: list[str], keys: list[str], rules_class, base_items: list[str] = ()) -> str:
    """How to make a refused grid point playable: the nearest value of another option (not in the grid)
    that the rules accept together with ``items``, as a ``--grid`` to add; or a plain note if none does."""
    for field in dataclasses.fields(rules_class):
        if field.name in keys:
            continue
        for value in candidate_values(field):
            try:
                rules_class.from_strings([*base_items, *items, f"{field.name}={value}"])
            except ValueError:
                continue
            return (f"to play it, add --grid {field.name}=... with a value the point allows (e.g. "
                    f"{field.name}={value}, the nearest to the default {field.default!r})")
    return "no change of a single other option makes it playable: drop the value from --grid"


def grid_variants(grids: list[str], rules_class, base=None) -> tuple[list[str], list[tuple[str, object, tuple[str, ...]]],
                                                                     list[dict]]:
    """The grid keys; the product of ``key=v1,v2,...`` grids over ``base`` (the base rules,
    ``compare.base_rules``; ``None``: the defaults) as ``(name, rules, values)``, named by their options
    (``key=v1 key2=w1``) — the one equal to the base rules, if any, named ``base``; and the
    skipped points (``point``, ``reason``, ``fix``): those the rules refuse because of another option.
    Refuses an empty grid, a key given twice, an unknown option, a value the option never allows, and a
    grid with no playable point."""
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
    fields = {f.name: f for f in dataclasses.fields(rules_class)}
    for key, options in zip(keys, values):
        if key not in fields:
            rules_class.from_strings([f"{key}={options[0]}"])  # the rules' own error naming the allowed options
        for v in options:
            try:
                fields[key].metadata["allowed"].parse(key, v)
            except ValueError as err:
                raise ValueError(f"--grid {key}={v}: {err}") from None
    default = rules_class() if base is None else base
    base_items = default.to_strings()
    out, skipped = [], []
    for combo in itertools.product(*values):
        items = [f"{k}={v}" for k, v in zip(keys, combo)]
        try:
            rules = rules_class.from_strings([*base_items, *items])
        except ValueError as err:  # a constraint between options: skip the point, say how to play it
            skipped.append({"point": " ".join(items), "reason": str(err),
                            "fix": fix_for(items, keys, rules_class, base_items)})
            continue
        out.append((compare.BASE if rules == default else " ".join(items), rules, combo))
    if not out:
        raise ValueError("--grid: the rules refuse every point of the grid (" + "; ".join(
            f"{s['point']}: {s['reason']}" for s in skipped) + ")")
    return keys, out, skipped


def main(args: argparse.Namespace) -> int:
    """``aerodeck sweep``."""
    spec = envs.spec(args.game)
    rules_class = spec.rules_class()
    base = compare.base_rules(args, spec)
    keys, grid, skipped = grid_variants(args.grids, rules_class, base)
    for note in skipped:
        print(f"skipped grid point {note['point']}: {note['reason']}; {note['fix']}")
    variants = compare.assemble_variants([(name, rules) for name, rules, _ in grid], rules_class,
                                         compare.fixed_options(args, spec), base=base)
    if args.house:  # every grid point, the base included, under the house rule
        house = compare.HouseRule.parse(args.house)
        variants = {name: compare.with_house(rules, house) for name, rules in variants.items()}
        compare.check_houses(spec, variants)
    question, backend, out = compare.common_setup(args, variants, "sweep")
    sweep = {"keys": keys, "cells": {name: list(combo) for name, _, combo in grid},
             "metrics": list(question.metrics), "skipped": skipped}
    compare.run_question(question, backend, out, args, extra={"sweep": sweep})
    return 0
