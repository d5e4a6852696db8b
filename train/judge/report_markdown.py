"""``report.md`` of ``aerodeck compare / sweep / tune``, written for a designer: a summary in words first
(what changed, by how much, what did not, where the judges disagree, which seats are favoured), then
the verdicts of the tables the designer named, the search (``tune``), every metric, and an appendix
with the other tables' verdicts (the random table, the mixed table).
"""

from __future__ import annotations

import math

from aerodeck.train.judge.analysis import ALPHA
from aerodeck.train.judge.wording import (
    MAX_TABLE_COLUMNS, comparison_name, comparison_values, correlation_text, interval, main_comparisons, number,
    p_text, percent, relative,
)


def short_names(a: dict) -> dict[str, str]:
    """Table name -> how the summary names it: an agent's family (``search``) when no other table shares
    it, the full name otherwise."""
    family = {t["name"]: t["name"].partition(":")[0] for t in a["tables"]}
    counts = {f: list(family.values()).count(f) for f in family.values()}
    return {name: f if counts[f] == 1 else name for name, f in family.items()}


def changes(a: dict) -> list[list[tuple[dict, float | None]]]:
    """The detectable changes among the designer's comparisons, grouped by metric and variant (every
    judge's together; a restricted agent on its own), each with its relative size; the group with the
    largest relative change first (a change from 0 first of all)."""
    groups: dict[tuple, list[tuple[dict, float | None]]] = {}
    for c in main_comparisons(a):
        if c["p_holm"] < ALPHA:
            _, theirs, _ = comparison_values(a, c)
            key = (comparison_name(c), c["variant"], c["against"][0], c["table"] if c["role"] == "restricted" else "")
            groups.setdefault(key, []).append((c, relative(c, theirs)))

    def size(group) -> tuple[float, float]:
        sizes = [math.inf if rel is None else abs(rel) for _, rel in group]
        return (-max(sizes), min(c["p_holm"] for c, _ in group))

    return sorted(groups.values(), key=size)


def change_sentence(a: dict, group: list[tuple[dict, float | None]]) -> str:
    """One change in words, under each judge that found it: ``score (tickets completed in the game) under
    tuned: heuristic 3.79 instead of 1.14 (+2.66 [+2.59, +2.72] tickets, +234 %); search …``."""
    names = short_names(a)
    first = group[0][0]
    m = a["metrics"][first["metric"]]
    parts = []
    for c, rel in group:
        mine, theirs, d = comparison_values(a, c)
        ref_variant, ref_table = c["against"]
        who = (f"{names[c['table']]} {number(mine['value'])} instead of {number(theirs['value'])}"
               if ref_table == c["table"] else
               f"{names[c['table']]} {number(mine['value'])} instead of {names[ref_table]}'s {number(theirs['value'])}")
        parts.append(f"{who} ({d['value']:+.4g} [{d['low']:+.4g}, {d['high']:+.4g}] {m['unit']}, {percent(rel)})")
    return f"**{comparison_name(first)}** ({m['definition']}) under **{first['variant']}**: " + "; ".join(parts)


def summary(a: dict) -> list[str]:
    """The report's opening in words."""
    out = ["## Summary", ""]
    judges = ", ".join(f"`{j}`" for j in a["judges"])
    out.append(f"{a['games']:,} games per variant and table; every variant plays game i on the same seed (the "
               f"differences are paired game by game). Judges: {judges} (what each cost in wall time is in "
               f"`timings.json`, kept out of this file so that the same seed writes the same report). Below: what "
               f"changed against the base **{a['base']}** (Holm-adjusted p < {ALPHA:g}), largest relative change first.")
    out.append("")
    found = changes(a)
    for k, group in enumerate(found):
        out.append(f"- {'The largest change: ' if k == 0 else ''}{change_sentence(a, group)}.")
    if not found:
        out.append("- No detectable change in the compared metrics.")
    same: dict[tuple[str, str], list[str]] = {}
    for c in main_comparisons(a):
        if c["p_holm"] >= ALPHA:
            smallest = c["verdict"].rpartition(" is ")[2] if "±" in c["verdict"] else "equal in every game"
            same.setdefault((comparison_name(c), c["variant"]), []).append(f"{short_names(a)[c['table']]} {smallest}")
    if same:
        out += ["", "No detectable change (under each table, the smallest change these games detect): "
                + "; ".join(f"{name} under {variant} ({', '.join(tables)})" for (name, variant), tables in same.items())
                + "."]
    if a["disagreements"]:
        out += ["", "**The judges disagree** on: " + "; ".join(
            f"{d['metric'] + (' / ' + d['column'] if d['column'] else '')} under {d['variant']} ({d['text']})"
            for d in a["disagreements"]) + "."]
    elif len(a["judges"]) > 1:
        out += ["", f"The judges agree on every verdict ({len(a['judges'])} judges: the same direction or no "
                "detectable change under each)."]
    unfair = [f for f in a["fair"] if f["p_holm"] < ALPHA and f["table"] in a["judges"]]
    if unfair:
        out += ["", "Seats: " + "; ".join(
            f"position {f['column'] or '1st'} wins {number(f['test']['value'])} [{number(f['test']['low'])}, "
            f"{number(f['test']['high'])}] of the win under {f['variant']} ({f['table']}, {f['players']} players), "
            f"{f['verdict']} {number(f['test']['against'], 3)}" for f in unfair) + "."]
    for name, aa in a["aa"].items():
        out += ["", f"A/A check: **{name}** has the base's rules on other seeds (games {aa['games'][0]:,}–"
                f"{aa['games'][1] - 1:,}): {aa['changes']} of {aa['comparisons']} comparisons "
                f"({_share(aa['changes'], aa['comparisons'])}) found a change before Holm (expected about 5 %), "
                f"{aa['changes_holm']} ({_share(aa['changes_holm'], aa['comparisons'])}) after Holm (at most 5 % "
                "of runs should find any); any change found here is a false one."]
    if "tune" in a:
        out += ["", "Tune: " + a["tune"]["verdict"] + "."]
        out += [f"**Warning**: {w}." for w in a["tune"]["warnings"]]
    for note in a.get("sweep", {}).get("skipped", []):
        out += ["", f"Skipped grid point {note['point']}: {note['reason']}; {note['fix']}."]
    return out + [""]


def _share(k: int, n: int) -> str:
    return f"{100 * k / n:.3g} %" if n else "–"


def verdict_table(a: dict, comparisons: list[dict]) -> list[str]:
    """The verdict rows of ``comparisons`` as a markdown table."""
    out = ["| metric | compared | against | against: value | compared: value | difference [95% CI] | relative | "
           "r | p | p (Holm) | verdict | agents agree |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in comparisons:
        mine, theirs, d = comparison_values(a, c)
        out.append(f"| {comparison_name(c)} | {c['variant']} / {c['table']} | {' / '.join(c['against'])} | "
                   f"{interval(theirs)} | {interval(mine)} | {number(d['value'])} [{number(d['low'])}, "
                   f"{number(d['high'])}] | {percent(relative(c, theirs))} | {correlation_text(d)} | "
                   f"{p_text(d['p_value'])} | {p_text(c['p_holm'])} | {c['verdict']} | {c.get('agree_text', '–')} |")
    return out


def question_section(a: dict) -> list[str]:
    """The variants, their deals and the tables."""
    out = ["## The question", ""]
    out.append(f"{a['games']:,} games per variant and table, seed {a['seed']}; game i has the same seed under "
               f"every variant and table (common random numbers) unless a variant says otherwise. Base: "
               f"**{a['base']}**.")
    out += ["", "| variant | rule options | its games |", "|---|---|---|"]
    for name, v in a["variants"].items():
        games = "the base" if name == a["base"] else (
            f"games {v['first_game']:,}… (other seeds: an A/A copy)" if v["first_game"] else
            "paired with the base's, game by game" + (f"; {v['deal']}" if v["deal"] else ""))
        out.append(f"| {name} | {v['label']} | {games} |")
    out += ["", "| table | agents | seats | judge |", "|---|---|---|---|"]
    for t in a["tables"]:
        seats = (f"{t['agents'][0]} in one seat, {', '.join(t['agents'][1:])} in the others, rotated"
                 if t["mixed"] else "every seat")
        out.append(f"| {t['name']} | {', '.join(t['agents'])} | {seats} | {'yes' if t['name'] in a['judges'] else ''} |")
    out += ["", "What each table cost (wall time) is printed at the end of the run and written to timings.json "
            "(the one file that differs from run to run)."]
    if a["trained"]:
        out += ["", "Agents trained per variant (`--retrain`): "
                + "; ".join(f"variant **{v}** plays table *{t}* with `{', '.join(s)}` (trained on that variant's rules)"
                            for v, tables in a["trained"].items() for t, s in tables.items()) + "."]
    if a["restricted"]:
        out += ["", "Restricted play: decisions where the restriction left no legal action and the full mask "
                "was used:"]
        out += [f"- {cell}: " + "; ".join(f"`{agent}` {r['fallbacks']:,} of {r['decisions']:,} decisions"
                                           for agent, r in agents.items())
                for cell, agents in a["restricted"].items()]
    return out


def tune_section(a: dict) -> list[str]:
    """The search of ``aerodeck tune``: target, bounds, every trial, the best trial against its confirmation."""
    t = a["tune"]
    goal = lambda g: f"{g['metric']} {g['op']} {g['value']:g}"  # noqa: E731
    out = ["", "## The search (tune)", "",
           f"Target {goal(t['target'])}" + (f", keeping {', '.join(goal(k) for k in t['keep'])}" if t["keep"] else "")
           + f". {len(t['trials'])} trials of {t['trial_games']:,} games per table, on games "
           f"{t['trial_range'][0]:,}… — seeds disjoint from the confirmation's (games 0–{a['games'] - 1:,}), so the "
           "best trial's own score, picked as the best of many, is not what confirms it.", "",
           f"**{t['verdict']}**", ""]
    out += [f"**Warning**: {w}." for w in t["warnings"]]
    metrics = [t["target"]["metric"], *[k["metric"] for k in t["keep"]]]
    out += ["", "| | " + " | ".join(metrics) + " |", "|---|" + "---|" * len(metrics)]
    out.append("| best trial, its own games | " + " | ".join(number(t["best_trial"].get(m)) for m in metrics) + " |")
    out.append("| confirmed, fresh games | " + " | ".join(interval(t["confirmed"].get(m)) for m in metrics) + " |")
    out += ["", "| trial | options | loss | " + " | ".join(metrics) + " |", "|---|---|---|" + "---|" * len(metrics)]
    for trial in t["trials"]:
        options = " ".join(f"{k}={v}" for k, v in trial["params"].items())
        if "skipped" in trial:
            out.append(f"| {trial['trial']} | {options} | skipped: {trial['skipped']} |" + " |" * len(metrics))
        else:
            out.append(f"| {trial['trial']} | {options} | {number(trial['loss'])} | "
                       + " | ".join(number(trial.get(m)) for m in metrics) + " |")
    return out


def fair_section(a: dict) -> list[str]:
    """Seat shares against the fair share 1/n."""
    if not a["fair"]:
        return []
    out = ["", "## Seats against the fair share", "",
           "Each seat's share of the win (Wilson interval) against the fair share 1/n (score test, in the same "
           "Holm family as the verdicts).", "",
           "| metric | variant / table | players | share [95% CI] | fair | p | p (Holm) | verdict |",
           "|---|---|---|---|---|---|---|---|"]
    for f in a["fair"]:
        t = f["test"]
        name = f["metric"] + (f" / {f['column']}" if f["column"] else "")
        out.append(f"| {name} | {f['variant']} / {f['table']} | {f['players']} | {number(t['value'])} "
                   f"[{number(t['low'])}, {number(t['high'])}] | {number(t['against'], 3)} | {p_text(t['p_value'])} | "
                   f"{p_text(f['p_holm'])} | {f['verdict']} |")
    return out


def metrics_section(a: dict, plots: dict[str, str]) -> list[str]:
    """Every metric of the catalogue per variant and table."""
    out = ["", "## Metrics", "", "Every metric of the catalogue (docs/metrics.md) per variant and table, "
           "with its 95% interval (Wilson for shares, a bootstrap over games for rates, t by the delta method "
           "otherwise; – where no game defines it).", ""]
    for name, m in a["metrics"].items():
        out += [f"### {name}", "", f"{m['definition']} — unit: {m['unit']}; rules: {m['rules']}.", ""]
        for key in (name, f"histogram {name}"):
            if key in plots:
                out += [f"![{key}]({plots[key]})", ""]
        labels = m["labels"]
        if len(labels) > MAX_TABLE_COLUMNS:
            out += [f"({len(labels)} columns: see results.json.)", ""]
            continue
        cells = [(v, t["name"]) for v in a["variants"] for t in a["tables"]]
        head = ["" if labels == [""] else "column", *[f"{v} / {t}" for v, t in cells]]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for i, label in enumerate(labels):
            row = [label or "value"]
            for v, t in cells:
                values = a["estimates"].get(name, {}).get(v, {}).get(t)
                row.append(interval(values[i]) if values and i < len(values) else "–")
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    return out


def markdown(analysis: dict, plots: dict[str, str]) -> str:
    """``report.md``: the summary, the question, the verdicts of the designer's tables, the skill gap, the
    seats, the search, every metric, the plots, and the other tables' verdicts in an appendix."""
    a = analysis
    out = [f"# {a['title']}: rule variants compared", ""]
    out += summary(a)
    out += question_section(a)
    method = {"paired": "paired t game by game; ratios by the delta method on the paired values",
              "welch": "Welch's t-test, unpaired; ratios by the delta method",
              "bootstrap": "percentile bootstrap over games (pairs resampled together)"}[a["test"]]
    main = main_comparisons(a)
    out += ["", "## Verdicts", "",
            f"The compared metrics of each variant against the base under the judges' tables (and each "
            f"restricted agent against its base agent on the same deals): the difference with its 95% interval "
            f"({method}), relative to the base's value, the pairing correlation r of the two sides' per-game "
            f"values, the p-value, and the p-value after Holm–Bonferroni over all "
            f"{len(a['comparisons']) + len(a['fair'])} tests of this run. A verdict is \"higher\" or \"lower\" "
            "when the adjusted p-value is below 0.05; otherwise it gives the smallest change this number of "
            "games detects (5% level, 80% power). \"Agents agree\": the same verdict under every judge, or "
            "each judge's.", ""]
    out += verdict_table(a, main)
    if a["skill_gap"]:
        out += ["", "## Skill gap", "", "| variant | skill gap [95% CI] | measured as |", "|---|---|---|"]
        for variant, g in a["skill_gap"].items():
            out.append(f"| {variant} | {interval(g)} | {g['what']} |")
    out += fair_section(a)
    if "tune" in a:
        out += tune_section(a)
    out += metrics_section(a, plots)
    if "overview" in plots:
        out += ["## Overview", "", f"![compared metrics]({plots['overview']})", ""]
    sweeps = [k for k in plots if k.startswith("sweep ")]
    if sweeps:
        out += ["## Over the grid", "", f"Grid: {' × '.join(a['sweep']['keys'])}.", ""]
        out += [f"![{k}]({plots[k]})" for k in sweeps] + [""]
    rest = [c for c in a["comparisons"] if c not in main]
    if rest:
        out += ["## Appendix: the other tables' verdicts", "",
                "The same comparisons under the tables that are not judges (e.g. the random agent, which "
                "shows what the rules do to play without a plan).", ""]
        out += verdict_table(a, rest) + [""]
    return "\n".join(out) + "\n"
