"""The statistics of a rule comparison: from the per-game figures of every (variant, table) cell to the
estimates, the paired differences, the fair-share tests, the judges' agreement and the A/A check that
``aerodeck.judge.designer_report`` writes up.

- Every metric of every cell gets its value with a 95% interval that respects its range: a Wilson
  interval for a share of games, a bootstrap over games for a rate (a ratio of counts: both stay inside
  [0, 1]), the delta-method t interval for a mean; a metric with no event says so (``note``).
- Every compared metric of every variant is set against the base, table by table, paired game by game
  (game i has the same seed under every variant: common random numbers, even when the variant changes
  the deal), with the pairing's correlation; ``--test welch`` unpairs, ``--test bootstrap`` resamples.
- A seat's share of the win (``Metric.seat_share``) is also tested against the fair share 1/n.
- Holm–Bonferroni runs over all those tests at once; a column equal by definition to another compared
  metric (``Metric.same_as``) is tested once only. Each verdict's interval (``interval``) and smallest
  detectable change are given at the level its Holm step tested it (``significance.holm_levels``), so an
  interval never contradicts its verdict. A difference on fewer than ``significance.MIN_GAMES`` games, or
  with no spread but a nonzero value, is not tested (its verdict: "too few games: N").
- The judges' tables (``Table.judge``) are set side by side by a paired test of the difference between
  their effects on the same games (Holm over that family): agree, no detectable difference, disagree.
- The skill share (``skill.py``): how much of the outcome the players' decisions explain, per variant.
- Power (``power.py``): per comparison the games that detect its metric's practical size at the verdict's
  level with 80 % power (``power``), and whether a detected change is smaller than it (``small``).
- Blind judges (``changed.py``): per variant and table the games played with the same decisions as under
  the base (``identical``), and the judges that did so in 95 % of the games or more (``blind``).
"""

from __future__ import annotations

import zlib

import numpy as np

from aerodeck import envs
from aerodeck.stats import significance as sig
from aerodeck.stats.estimates import wilson
from aerodeck.judge import power
from aerodeck.judge.changed import blind_judges, identical_shares
from aerodeck.judge.skill import skill_shares
from aerodeck.arena.backends import catalogue

#: The level of every interval and the threshold of every verdict (on the Holm-adjusted p-value).
ALPHA = 0.05
#: Bins of a histogram whose per-game values are not integers spanning at most ``MAX_INTEGER_BINS``.
HISTOGRAM_BINS = 40
MAX_INTEGER_BINS = 60


def estimate(metric, num: np.ndarray, den: np.ndarray, seed: int = 0, level: float = 0.95) -> list[dict | None]:
    """Per column of a metric (``num``, ``den`` float ``(G, width)``): ``value``, ``low``, ``high`` and
    ``n`` (the games behind it, or the attempts of a rate), plus ``note`` "no events" when no game
    counted any; ``None`` where it is undefined (no game defines it). Intervals: Wilson for a share,
    a bootstrap over games for a rate (seeded by ``seed`` and the metric's name), the delta-method
    t interval for a mean."""
    out: list[dict | None] = []
    rates = (sig.rate_estimates(num, den, zlib.crc32(metric.name.encode()) ^ (seed % 2**32), level)
             if metric.kind == "rate" else None)
    for c in range(num.shape[1]):
        y, x = num[:, c], den[:, c]
        n = float(x.sum())
        if not n > 0:
            out.append(None)
            continue
        if metric.kind == "share":
            value, low, high = wilson(float(y.sum()), n, level)
        elif rates is not None:
            value, low, high = rates[c]
        else:
            value, low, high = sig.ratio_estimate(y, x, level)
        e = {"value": value, "low": low, "high": high, "n": int(round(n))}
        if not np.any(y):
            e["note"] = "no events"
        out.append(e)
    return out


def difference(num_v, den_v, num_b, den_b, paired: bool, test: str, seed: int,
               level: float = 0.95) -> sig.Difference | None:
    """Variant minus base for one column (float ``(G,)`` arrays) with its interval at ``level``; ``None``
    if undefined on a side. ``test``: ``paired`` or ``welch`` (t, by the delta method for a ratio) or
    ``bootstrap``."""
    if not (den_v.sum() > 0 and den_b.sum() > 0):
        return None
    if test == "bootstrap":
        return sig.bootstrap_difference((num_v, den_v), (num_b, den_b), paired, seed, level)
    plain = np.all(den_v == 1) and np.all(den_b == 1)
    if plain:
        return sig.paired_difference(num_v, num_b, level) if paired else sig.welch_difference(num_v, num_b, level)
    return sig.ratio_difference((num_v, den_v), (num_b, den_b), paired, level)


def deal_notes(question) -> dict[str, str | None]:
    """Per variant: ``None`` when it deals the same cards as the base for the same seed, or which of
    its deal options differ (the games still pair: game i is played on seed i under both)."""
    cat = catalogue(question.game)
    base = question.variants[question.base]
    out = {}
    for name, rules in question.variants.items():
        differ = [o for o in cat.deal_options if getattr(rules, o) != getattr(base, o)]
        out[name] = None if not differ else (
            "another deal for the same seed (" + ", ".join(f"{o}={getattr(rules, o)}" for o in differ) + ")")
    return out


def _skipped_columns(metric, compared: tuple[str, ...]) -> set[str]:
    """The columns of ``metric`` tested under another compared metric (``Metric.same_as``)."""
    return {label for label, other in metric.same_as if other in compared and other != metric.name}


def _comparisons(question, cells: dict, metrics_of: dict) -> list[dict]:
    """Every compared metric and column of each variant against the base, table by table, then each
    restricted table against its base agent's (the same deals); each with its :class:`Difference` and
    its ``role``: ``judge`` (a judge's table), ``skill`` (the skill gap in the mixed table),
    ``restricted`` or ``other`` (the report's appendix)."""
    paired = question.test != "welch"
    judges = {t.name for t in question.judge_tables()}
    roles = {t.name: "judge" if t.name in judges else "mixed" if t.mixed else "other" for t in question.tables}
    pairs = [((variant, t.name), (question.base, t.name), paired, roles[t.name])
             for variant in list(question.variants)[1:] for t in question.tables]
    pairs += [((variant, table), (variant, against), paired, "restricted")
              for variant in question.variants for table, against in question.agent_pairs()]
    skill = catalogue(question.game).skill_gap
    out = []
    for (variant, table), (ref_variant, ref_table), is_paired, role in pairs:
        v, b = cells[(variant, table)]["metrics"], cells[(ref_variant, ref_table)]["metrics"]
        for name in question.metrics:
            mv, mb = metrics_of[variant][name], metrics_of[ref_variant][name]
            if mv.labels != mb.labels:
                continue  # a breakdown labelled differently (another edition's tickets): not comparable
            skip = _skipped_columns(mv, question.metrics)
            for c, label in enumerate(mv.labels):
                if label in skip:
                    continue
                d = difference(v[name][0][:, c], v[name][1][:, c], b[name][0][:, c], b[name][1][:, c],
                               is_paired, question.test, question.seed)
                if d is not None:
                    out.append({"metric": name, "column": label, "variant": variant, "table": table,
                                "against": [ref_variant, ref_table], "difference": d,
                                "role": "skill" if role == "mixed" and name == skill else role,
                                "_args": (v[name][0][:, c], v[name][1][:, c], b[name][0][:, c], b[name][1][:, c],
                                          is_paired)})
    return out


def _fair_shares(question, cells: dict, metrics_of: dict) -> list[dict]:
    """Every compared seat share (``Metric.seat_share``) of every cell against the fair share 1/n."""
    out = []
    for (variant, table), result in cells.items():
        n_players = question.players(variant)
        if n_players < 2:
            continue
        for name in question.metrics:
            m = metrics_of[variant][name]
            if not m.seat_share:
                continue
            skip = _skipped_columns(m, question.metrics)
            num, den = result["metrics"][name]
            for c, label in enumerate(m.labels[:n_players]):
                n = float(den[:, c].sum())
                if label in skip or not n > 0:
                    continue
                test = sig.fair_share_test(float(num[:, c].sum()), n, 1 / n_players)
                out.append({"metric": name, "column": label, "variant": variant, "table": table,
                            "players": n_players, "test": test, "test_95": test.to_dict()})
    return out


def direction(c: dict) -> int:
    """+1 (higher), −1 (lower) or 0 (no detectable change, or not tested) of a comparison after Holm."""
    if c.get("p_holm") is None or c["p_holm"] >= ALPHA:
        return 0
    return 1 if c["difference"]["value"] > 0 else -1


WORDS = {1: "higher", -1: "lower", 0: "no detectable change"}
#: The three outcomes of setting judges side by side (and the one of a lone judge).
AGREE, NO_DIFFERENCE, DISAGREE, ALONE = "agree", "no detectable difference", "disagree", "one judge"
#: Judges not compared because a verdict was not tested (too few games).
UNTESTED = "not tested"


def _at_level(c: dict) -> dict:
    """A comparison's difference with its interval at the verdict's level (the 95% one if none)."""
    at = c.get("interval") or {}
    d = c["difference"]
    return {"value": d["value"], "low": at.get("low", d.get("low")), "high": at.get("high", d.get("high")),
            "level": c.get("level")}


def _estimate_text(c: dict) -> str:
    d = _at_level(c)
    if d.get("low") is None:
        return f"{c['table']}: {c['verdict']} ({d['value']:+.3g})"
    return f"{c['table']}: {WORDS[direction(c)]} {d['value']:+.3g} [{d['low']:+.3g}, {d['high']:+.3g}]"


def agreement(comparisons: list[dict], judges: list[str], tests: list[dict] | None = None) -> list[dict]:
    """Set the judges' verdicts side by side. ``tests``: the judge-difference tests (``judge_tests``:
    per (metric, column, variant) and other judge, the paired test of the difference between the first
    judge's effect and that judge's, with ``p_holm`` over the family of these tests). Each judge
    comparison gets ``agreement`` — ``agree`` (every judge finds the same direction and no difference
    between them is detected), ``disagree`` (a difference between the judges' effects is detected),
    ``no detectable difference`` (otherwise), ``one judge`` — with ``agree`` (True unless ``disagree``)
    and ``agree_text`` in words. Returns the disagreements, one per (metric, column, variant), with both
    estimates. Without ``tests`` (no per-game data), judges whose verdicts differ count as disagreeing."""
    groups: dict[tuple, list[dict]] = {}
    for c in comparisons:
        if c["table"] in judges and c["against"][1] == c["table"]:
            groups.setdefault((c["metric"], c["column"], c["variant"]), []).append(c)
    found: dict[tuple, list[dict]] = {}
    for t in tests or []:
        found.setdefault((t["metric"], t["column"], t["variant"]), []).append(t)
    out = []
    for key, group in groups.items():
        metric, column, variant = key
        group.sort(key=lambda c: judges.index(c["table"]))
        directions = {direction(c) for c in group}
        mine = found.get(key, [])
        if tests is None:
            detected = [t for t in mine] if len(directions) > 1 else []
            disagree = len(directions) > 1
        else:
            detected = [t for t in mine if t["p_holm"] is not None and t["p_holm"] < ALPHA]
            disagree = bool(detected)
        untested = [c for c in group if c.get("p_holm") is None]
        if len(group) == 1:
            outcome, text = ALONE, f"only {group[0]['table']} judged"
        elif untested and not detected:
            outcome, text = UNTESTED, "not compared: " + "; ".join(f"{c['table']} {c['verdict']}" for c in untested)
        elif disagree:
            outcome = DISAGREE
            how = ("opposite directions" if directions >= {1, -1} else
                   "the same direction, by different amounts" if len(directions) == 1 and 0 not in directions else
                   "different effects")
            diff = "; ".join(f"{t['judges'][0]} − {t['judges'][1]} {t['value']:+.3g} [{t['low']:+.3g}, "
                             f"{t['high']:+.3g}], p (Holm) {t['p_holm']:.2g}" for t in detected if t.get("low") is not None)
            text = f"no — {how}: " + "; ".join(_estimate_text(c) for c in group) + (f" (difference of effects: {diff})"
                                                                                        if diff else "")
        elif directions in ({1}, {-1}):
            outcome, text = AGREE, f"yes ({len(group)} judges)"
        else:
            outcome = NO_DIFFERENCE
            text = "no detectable difference between the judges" + (
                "" if directions == {0} else " (" + "; ".join(f"{c['table']}: {WORDS[direction(c)]}" for c in group) + ")")
        for c in group:
            c["agreement"], c["agree"], c["agree_text"] = outcome, outcome != DISAGREE, text
            if outcome == DISAGREE:
                c["disagreement"] = how
        if outcome == DISAGREE:
            out.append({"metric": metric, "column": column, "variant": variant, "text": text,
                        "directions": {c["table"]: direction(c) for c in group},
                        "estimates": {c["table"]: _at_level(c) for c in group},
                        "tests": detected})
    return out


def judge_tests(comparisons: list[dict], judges: list[str]) -> list[dict]:
    """The paired tests of the difference between judges' effects: per (metric, column, variant) judged by
    two judges or more, the first judge's effect against each other judge's on the same games
    (:func:`significance.effect_difference`), Holm over all of them; each with its interval at its Holm
    step's level."""
    groups: dict[tuple, list[dict]] = {}
    for c in comparisons:
        if c["table"] in judges and c["against"][1] == c["table"] and "_args" in c:
            groups.setdefault((c["metric"], c["column"], c["variant"]), []).append(c)
    out = []
    for (metric, column, variant), group in groups.items():
        group.sort(key=lambda c: judges.index(c["table"]))
        lead = group[0]
        for other in group[1:]:
            d = sig.effect_difference(lead["_args"][:4], other["_args"][:4])
            out.append({"metric": metric, "column": column, "variant": variant,
                        "judges": [lead["table"], other["table"]], "_d": d})
    tested = [t for t in out if t["_d"].tested]
    ps = [t["_d"].p_value for t in tested]
    for t, p, a in zip(tested, sig.holm(ps), sig.holm_levels(ps, ALPHA)):
        t["p_holm"], t["_d"] = float(p), sig.at_level(t["_d"], 1 - float(a))
    for t in out:
        d = t.pop("_d")
        t.update(value=d.value, low=d.low, high=d.high, level=d.level, p_value=d.p_value, note=d.note, n=d.n)
        t.setdefault("p_holm", None)
    return out


def aa_check(question, comparisons: list[dict]) -> dict:
    """The A/A check: per variant with the base's rules played on other seats (``--allow-identical``),
    its comparisons and how many found a change before and after Holm (every one is false)."""
    base = question.variants[question.base]
    out = {}
    for name, rules in list(question.variants.items())[1:]:
        if rules != base:
            continue
        mine = [c for c in comparisons if c["variant"] == name]
        start = question.offsets.get(name, 0)
        tested = [c for c in mine if c["p_holm"] is not None]
        out[name] = {"games": [start, start + question.games], "comparisons": len(tested),
                     "changes": sum(c["difference"]["p_value"] < ALPHA for c in tested),
                     "changes_holm": sum(c["p_holm"] < ALPHA for c in tested)}
    return out


def histograms(question, cells: dict, cat) -> dict:
    """Per metric drawn as a histogram (``plot="histogram"``): common bin ``edges`` and the games per
    bin of every cell (``counts[variant][table]``)."""
    out = {}
    for m in cat.metrics:
        if m.plot != "histogram":
            continue
        values = {}
        for (variant, table), result in cells.items():
            num, den = result["metrics"][m.name]
            keep = den[:, 0] > 0
            values[(variant, table)] = num[keep, 0] / den[keep, 0]
        every = np.concatenate(list(values.values()))
        if every.size == 0:
            continue
        lo, hi = float(every.min()), float(every.max())
        if np.all(every == np.round(every)) and hi - lo <= MAX_INTEGER_BINS:
            edges = np.arange(lo - 0.5, hi + 1.0, 1.0)
        else:
            edges = np.linspace(lo, hi if hi > lo else lo + 1, HISTOGRAM_BINS + 1)
        counts: dict[str, dict[str, list[int]]] = {}
        for (variant, table), v in values.items():
            counts.setdefault(variant, {})[table] = np.histogram(v, edges)[0].astype(int).tolist()
        out[m.name] = {"edges": edges.tolist(), "counts": counts}
    return out


def skill_gap(question, cells: dict, cat, solo: bool) -> dict:
    """Per variant, the skill gap: in a solo game the first agent's mean ``cat.skill_gap`` metric minus
    the second's on the same deals (paired); in a multi-player game that metric in the mixed table."""
    out = {}
    agents = [t for t in question.tables if not t.extra and not t.mixed]
    mixed = [t for t in question.tables if t.mixed]
    if (solo and len(agents) < 2) or (not solo and not mixed):
        return out
    for variant in question.variants:
        if solo:
            first, second = agents[0].name, agents[1].name
            a = cells[(variant, first)]["metrics"][cat.skill_gap]
            b = cells[(variant, second)]["metrics"][cat.skill_gap]
            d = sig.paired_difference(a[0][:, 0] / np.where(a[1][:, 0] > 0, a[1][:, 0], 1),
                                      b[0][:, 0] / np.where(b[1][:, 0] > 0, b[1][:, 0], 1))
            out[variant] = {"what": f"{cat.skill_gap} of {first} minus {second}, same deals",
                            "value": d.value, "low": d.low, "high": d.high, "n": d.n}
        else:
            num, den = cells[(variant, mixed[0].name)]["metrics"][cat.skill_gap]
            est = estimate(cat.metric(cat.skill_gap), num, den)[0]
            out[variant] = {"what": f"{cat.skill_gap} of {mixed[0].agents[0]} in {mixed[0].name} "
                                    f"(fair share {1 / question.players(variant):.3g})", **(est or {})}
    return out


def analyse(question, cells: dict) -> dict:
    """Estimates of every metric per cell, differences of the compared metrics against the base and
    fair-share tests with Holm-adjusted p-values and verdicts, the judges' agreement, the skill gap per
    variant, the A/A check and the histograms: the analysis ``designer_report`` writes."""
    cat = catalogue(question.game)
    spec = envs.spec(question.game)
    deals = deal_notes(question)
    metrics_of = {name: {m.name: m for m in cat.for_rules(rules)} for name, rules in question.variants.items()}
    estimates: dict[str, dict[str, dict[str, list]]] = {}
    for (variant, table), result in cells.items():
        for m in metrics_of[variant].values():
            num, den = result["metrics"][m.name]
            estimates.setdefault(m.name, {}).setdefault(variant, {})[table] = estimate(m, num, den, question.seed)
    comparisons = _comparisons(question, cells, metrics_of)
    fair = _fair_shares(question, cells, metrics_of)
    judges = [t.name for t in question.judge_tables()]
    tested = [c for c in comparisons if c["difference"].tested]
    family = [c["difference"].p_value for c in tested] + [f["test"].p_value for f in fair]
    adjusted, levels = sig.holm(family), sig.holm_levels(family, ALPHA)
    for c, p, a in zip(tested, adjusted, levels):
        c["p_holm"], c["level"] = float(p), 1 - float(a)
        c["verdict"] = sig.verdict(c["difference"], float(p), ALPHA, level_alpha=float(a))
        if question.test == "bootstrap":
            at = difference(*c["_args"][:4], c["_args"][4], question.test, question.seed, c["level"])
        else:
            at = sig.at_level(c["difference"], c["level"])
        c["interval"] = {"level": c["level"], "low": at.low, "high": at.high,
                         "detectable": sig.minimum_detectable_change(at.se, float(a))}
    for c in comparisons:
        if not c["difference"].tested:
            c["p_holm"], c["level"], c["interval"] = None, None, None
            c["verdict"] = sig.verdict(c["difference"], None, ALPHA)
    for c in comparisons:  # how many games detect the metric's practical size, at the verdict's level
        delta = power.practical_size(metrics_of[c["variant"]][c["metric"]], question.practical)
        alpha = 1 - c["level"] if c["level"] is not None else ALPHA / max(len(family), 1)
        c["power"] = power.needed(c["_args"][:4], c["_args"][4], delta, alpha, question.games)
        c["small"] = power.small(c, ALPHA)
    tests = judge_tests(comparisons, judges)
    for c in comparisons:
        c.pop("_args", None)
        c["difference"] = c["difference"].to_dict()
    for f, p, a in zip(fair, adjusted[len(tested):], levels[len(tested):]):
        f["p_holm"], f["level"] = float(p), 1 - float(a)
        t = f["test"]
        f["test"] = sig.fair_share_test(t.successes, t.n, t.against, f["level"]).to_dict()
        side = "above" if f["test"]["value"] > f["test"]["against"] else "below"
        f["verdict"] = f"{side} the fair share" if p < ALPHA else "no detectable departure from the fair share"
    disagreements = agreement(comparisons, judges, tests)
    identical = identical_shares(question, cells)
    skill = skill_shares(question, cells, cat, spec.solo, ALPHA)
    for d in (skill or {}).get("differences", {}).values():
        d["practical"] = power.SKILL_SHARE_PRACTICAL
        d["small"] = d.get("p_holm") is not None and d["p_holm"] < ALPHA and abs(d["value"]) < d["practical"]
    return {
        "game": question.game, "title": spec.title, "seed": question.seed, "games": question.games,
        "base": question.base, "test": question.test,
        "variants": {name: {"options": rules.changes(), "label": rules.label(), "deal": deals[name],
                            "first_game": question.offsets.get(name, 0), "players": question.players(name),
                            **({"house": f"{h.path}:{h.cls}"} if (h := getattr(type(rules), "house", None)) else {})}
                     for name, rules in question.variants.items()},
        "tables": [{"name": t.name, "agents": list(t.agents), "mixed": t.mixed, "judge": t.name in judges}
                   for t in question.tables],
        "judges": judges,
        "trained": {v: {t: list(a) for t, a in tables.items()} for v, tables in question.trained.items()},
        "compared": list(question.metrics),
        "metrics": {m.name: {"definition": m.definition, "unit": m.unit, "rules": m.rules, "kind": m.kind,
                             "columns": list(m.columns), "rows": list(m.rows), "plot": m.plot,
                             "seat_share": m.seat_share, "labels": list(metrics_of[question.base][m.name].labels)}
                    for m in cat.metrics},
        "estimates": estimates,
        "comparisons": comparisons,
        "fair": fair,
        "disagreements": disagreements,
        "judge_tests": tests,
        "headline": list(spec.headline),
        "skill_share": skill,
        "identical": identical,
        "blind": blind_judges(identical, judges),
        "practical": {m.name: power.practical_size(m, question.practical) for m in cat.metrics},
        "levels": {"alpha": ALPHA, "family": len(family), "judge_family": sum(t["p_holm"] is not None for t in tests),
                   "min_games": sig.MIN_GAMES},
        "aa": aa_check(question, comparisons),
        "skill_gap": skill_gap(question, cells, cat, spec.solo),
        "histograms": histograms(question, cells, cat),
        "restricted": {f"{v} / {t}": {a: {"decisions": d, "fallbacks": f} for a, (d, f) in r["restricted"].items()}
                       for (v, t), r in cells.items() if r["restricted"]},
    }
