"""Numbers, intervals and comparisons in words, as ``report.md`` and the printed verdicts write them."""

from __future__ import annotations

import math

#: Breakdowns with more columns than this are drawn but not tabled column by column in report.md.
MAX_TABLE_COLUMNS = 40


def number(x: float | None, digits: int = 4) -> str:
    """A value for a table: ``digits`` significant digits; ``–`` when undefined."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{digits}g}"


def interval(e: dict | None) -> str:
    """``value [low, high]`` of an estimate; ``0 (no events in N games)`` for a mean no game counted
    any of (an interval would be the empty ``[0, 0]``), the interval and ``(no events)`` for a share or
    rate without an event; ``–`` when undefined."""
    if e is None or "value" not in e:
        return "–"
    if e.get("note") and e["low"] == e["high"]:
        return f"{number(e['value'])} ({e['note']} in {e['n']:,} games)"
    text = f"{number(e['value'])} [{number(e['low'])}, {number(e['high'])}]"
    return f"{text} ({e['note']})" if e.get("note") else text


def relative(c: dict, reference: dict | None) -> float | None:
    """A comparison's difference relative to the reference cell's value (``None`` when that is 0 or
    undefined)."""
    if reference is None or not reference.get("value"):
        return None
    return c["difference"]["value"] / abs(reference["value"])


def percent(x: float | None) -> str:
    """A relative change as ``+233 %`` (three significant digits, whole percents from 100 % on:
    ``+1,678 %``); ``from 0`` when undefined."""
    if x is None:
        return "from 0"
    return f"{100 * x:+,.0f} %" if abs(x) >= 1 else f"{100 * x:+.3g} %"


def correlation_text(d: dict) -> str:
    """The pairing correlation of a difference, ``r = 0.91``, or ``–`` (unpaired or no spread)."""
    return "–" if d.get("correlation") is None else f"{d['correlation']:.2f}"


def main_comparisons(a: dict) -> list[dict]:
    """The comparisons the designer asked about: the judges' tables, restricted agents against their
    base agent and the skill gap's table (the others, e.g. the random table, go to the appendix)."""
    variants, tables = list(a["variants"]), [t["name"] for t in a["tables"]]
    compared = list(a["compared"])

    def order(c: dict) -> tuple:  # a metric's rows under every judge together
        return (variants.index(c["variant"]), compared.index(c["metric"]),
                a["metrics"][c["metric"]]["labels"].index(c["column"]), tables.index(c["table"]))

    return sorted((c for c in a["comparisons"] if c.get("role") in ("judge", "restricted", "skill")), key=order)


def comparison_name(c: dict) -> str:
    """A comparison's metric and column, e.g. ``score`` or ``action_mix / replace``."""
    return c["metric"] + (f" / {c['column']}" if c["column"] else "")


def comparison_values(a: dict, c: dict) -> tuple[dict | None, dict | None, dict]:
    """The estimates of the compared cell and of the reference cell, and the difference."""
    col = a["metrics"][c["metric"]]["labels"].index(c["column"]) if c["column"] else 0
    est = a["estimates"][c["metric"]]
    ref_variant, ref_table = c["against"]
    return est[c["variant"]][c["table"]][col], est[ref_variant][ref_table][col], c["difference"]


def p_text(p: float) -> str:
    """A p-value with two significant digits; an underflow reads ``<1e-300``."""
    return f"{p:.2g}" if p > 0 else "<1e-300"
