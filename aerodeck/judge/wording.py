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
    if e.get("low") is None:
        return f"{number(e['value'])} ({e.get('note') or 'no interval'})"
    if e.get("note") and e["low"] == e["high"]:
        return f"{number(e['value'])} ({e['note']} in {e['n']:,} games)"
    text = f"{number(e['value'])} [{number(e['low'])}, {number(e['high'])}]"
    return f"{text} ({e['note']})" if e.get("note") else text


#: The relative-change rule: a change is given relative to the base only when the base's value is known
#: to within this fraction of itself (its 95% interval inside value ± this share of it); a base near zero
#: (or measured too loosely) gets the absolute change alone.
RELATIVE_PRECISION = 0.5
RELATIVE_RULE = ("a relative change is given only when the base's value is known to within half of itself "
                 "(its 95% interval lies inside ±50 % of it); near zero the change is given in units only; a share's "
                 "or a rate's change is given in percentage points (0.20 → 0.23: +3 points)")


def base_is_clear(reference: dict | None) -> bool:
    """Whether the reference value is clearly away from zero (see :data:`RELATIVE_RULE`)."""
    if reference is None or not reference.get("value") or reference.get("low") is None:
        return False
    v = reference["value"]
    return all(abs(x - v) <= RELATIVE_PRECISION * abs(v) for x in (reference["low"], reference["high"]))


def relative(c: dict, reference: dict | None) -> float | None:
    """A comparison's difference relative to the reference cell's value (``None`` when the reference is
    near zero or undefined: :data:`RELATIVE_RULE`)."""
    if not base_is_clear(reference):
        return None
    return c["difference"]["value"] / abs(reference["value"])


def percent(x: float | None) -> str:
    """A relative change as ``+233 %`` (three significant digits, whole percents from 100 % on:
    ``+1,678 %``); ``–`` when not given (a base near zero)."""
    if x is None:
        return "–"
    return f"{100 * x:+,.0f} %" if abs(x) >= 1 else f"{100 * x:+.3g} %"


def is_share(a: dict, c: dict) -> bool:
    """Whether a comparison's metric is a share or a rate (its change reads in points, not in per cent)."""
    return a["metrics"][c["metric"]]["kind"] in ("share", "rate")


def points(x: float) -> str:
    """A change of a share in percentage points: ``+3.1 points``."""
    return f"{100 * x:+.3g} points"


def relative_text(a: dict, c: dict, reference: dict | None) -> str:
    """The change beside the difference: a share's (or rate's) in points (``+3.1 points``: a share that goes
    from 0.20 to 0.23), another metric's relative to the reference (:func:`percent`; ``–`` near zero)."""
    if is_share(a, c):
        return points(c["difference"]["value"])
    return percent(relative(c, reference))


def standardised(c: dict) -> float:
    """A comparison's standardised effect: the difference over the standard deviation of its per-game
    differences (``se · √n``; 0 when untested or without spread)."""
    d = c["difference"]
    sd = (d.get("se") or 0.0) * math.sqrt(max(d.get("n") or 0, 1))
    return abs(d["value"]) / sd if sd > 0 else 0.0


def level_interval(c: dict) -> str:
    """A verdict's difference with its interval at the verdict's level: ``+0.5 [+0.32, +0.68]``; the
    verdict's note (``too few games: 1``) when untested."""
    d, at = c["difference"], c.get("interval")
    if not at or at.get("low") is None:
        return f"{d['value']:+.4g} ({c['verdict']})" if c.get("verdict") else f"{d['value']:+.4g}"
    return f"{d['value']:+.4g} [{at['low']:+.4g}, {at['high']:+.4g}]"


def level_text(level: float | None) -> str:
    """A confidence level as a percentage: ``99.7 %``; ``–`` when none."""
    if level is None:
        return "–"
    digits = max(3, 1 - math.floor(math.log10(max(1 - level, 1e-12))) + 1)
    return f"{100 * level:.{digits}g} %"


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


def p_text(p: float | None) -> str:
    """A p-value with two significant digits; one at the floor of 1e-300 (an underflow) reads
    ``<1e-300``; none (an untested difference) ``–``."""
    if p is None:
        return "–"
    return f"{p:.2g}" if p > 1e-300 else "<1e-300"


def describe_agent(game: str, spec: str) -> str:
    """What an agent spec is, in a few words (the first sentence of its class's docstring, its knobs;
    a restricted agent by its base and what it may not do)."""
    import re

    from aerodeck.agents.registry import agent_class
    from aerodeck.agents.specs import parse_spec

    name, params = parse_spec(spec)
    if name == "restricted":
        return f"{params.get('base', 'its base agent')} forbidden to {params.get('forbid', '?')}"
    try:
        doc = (agent_class(game, name).__doc__ or "").strip()
    except ValueError:
        return name
    first = re.sub(r"\s*\([^)]*\)", "", doc.split(". ")[0].split("\n\n")[0]).replace("\n", " ").strip().rstrip(".")
    knobs = ", ".join(f"{k}={v}" for k, v in params.items())
    return (first[:1].lower() + first[1:] if first else name) + (f" ({knobs})" if knobs else "")
