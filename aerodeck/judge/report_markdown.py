"""``report.md`` of ``aerodeck compare / sweep / tune``, written for a designer: a summary in words first
(per variant one sentence — in a multi-player game opening with the first seat's share of the win against
the fair share 1/n, the base's too — on the game's headline metrics with intervals at the verdicts' level,
a share's change in points, a change smaller than its practical size marked, the skill share and the
judges' agreement; the judges that barely react to the rule; the games a question without a verdict
needs; the judges and what each is; how the verdicts were reached; the other detected changes by
standardised effect, breakdown cells last; what did not change; where the judges' effects differ; which
seats are favoured), then the verdicts of the judges' tables, the skill share, the games that changed
(``--save-games changed``), the search (``tune``), every metric, and an appendix with the other tables'
verdicts (the mixed table, agents that are not judges).
"""

from __future__ import annotations

from aerodeck.agents.specs import kind_of
from aerodeck.judge.analysis import ALPHA
from aerodeck.stats.significance import EXACT_BELOW
from aerodeck.judge.changed import blind_text
from aerodeck.judge.power import size_text
from aerodeck.judge.wording import (
    MAX_TABLE_COLUMNS, RELATIVE_RULE, comparison_name, comparison_values, correlation_text, interval, is_share,
    level_interval, level_text, main_comparisons, number, p_text, percent, points, relative, relative_text,
    standardised,
)


def short_names(a: dict) -> dict[str, str]:
    """Table name -> how the summary names it: an agent's family (``search``) when no other table shares
    it, the full name otherwise."""
    family = {t["name"]: kind_of(t["name"]) for t in a["tables"]}
    counts = {f: list(family.values()).count(f) for f in family.values()}
    return {name: f if counts[f] == 1 else name for name, f in family.items()}


def _is_breakdown(a: dict, c: dict) -> bool:
    return len(a["metrics"][c["metric"]]["labels"]) > 1


def headline_metrics(a: dict) -> list[str]:
    """The compared metrics the summary opens with: the game's headline metrics (``GameSpec.headline``)
    among the compared ones, in that order; none compared: the first compared whole-game metric."""
    named = [m for m in a.get("headline", []) if m in a["compared"]]
    if named:
        return named
    whole = [m for m in a["compared"] if len(a["metrics"][m]["labels"]) == 1]
    return whole[:1] or list(a["compared"][:1])


def _lead(a: dict, metric: str, variant: str) -> dict | None:
    """The comparison a headline sentence reads for ``metric`` under ``variant``: the first judge's, else
    the skill gap's table, else any table the designer's comparisons hold."""
    mine = [c for c in main_comparisons(a) if c["metric"] == metric and c["variant"] == variant
            and c["column"] == "" and c["role"] != "restricted"]
    for c in mine:
        if c["table"] == a["judges"][0]:
            return c
    return mine[0] if mine else None


def power_text(a: dict, c: dict) -> str:
    """How many games detect the metric's practical size at the verdict's level with 80 % power, when this
    run played fewer: ``; ±2 points needs about 3,100 games (this run: 20)``; empty otherwise."""
    pw = c.get("power")
    if not pw or pw.get("games_needed") is None or pw["enough"]:
        return ""
    return f" ({size_text(pw['practical'], a['metrics'][c['metric']])} needs {about(pw)} {pw['games_needed']:,} games)"


def about(pw: dict) -> str:
    """``about``, or ``up to about`` when no game differed and the unpaired spread stood in (an upper
    estimate: ``aerodeck.judge.power``)."""
    return "up to about" if pw.get("basis", "").startswith("the two sides") else "about"


def small_text(a: dict, c: dict) -> str:
    """`` — real but smaller than the practical size ±2 points`` for a detected change below it."""
    if not c.get("small"):
        return ""
    return f" — real but smaller than the practical size {size_text(c['power']['practical'], a['metrics'][c['metric']])}"


def change_words(a: dict, c: dict, theirs: dict | None) -> str:
    """The change beside a difference: ``(+3.1 points)`` for a share, ``(+35.7 %)`` relative otherwise,
    empty when a relative change is not given."""
    if is_share(a, c):
        return f" ({points(c['difference']['value'])})"
    rel = relative(c, theirs)
    return f" ({percent(rel)})" if rel is not None else ""


def _plain(a: dict, c: dict) -> str:
    """One headline metric's change in plain words, with its interval at the verdict's level; a share's
    change in points; a change smaller than the metric's practical size marked so; without a detected
    change, the games the practical size needs when this run played fewer."""
    m = a["metrics"][c["metric"]]
    _, theirs, d = comparison_values(a, c)
    if c.get("p_holm") is None:
        return f"{c['metric']}: {c['verdict']}" + power_text(a, c)
    at = c["interval"]
    if c["p_holm"] >= ALPHA:
        if "±" not in c["verdict"]:
            return f"{c['metric']} no change: equal in all {a['games']:,} games" + power_text(a, c)
        smallest = c["verdict"].rpartition(" is ")[2]
        need = power_text(a, c)
        return (f"{c['metric']} {d['value']:+.3g} {m['unit']} [{at['low']:+.3g}, {at['high']:+.3g}]: no detectable "
                f"change (the smallest these games detect: {smallest}" + (f"; {need[2:-1]})" if need else ")"))
    return (f"{c['metric']} {d['value']:+.3g} {m['unit']} [{at['low']:+.3g}, {at['high']:+.3g}]"
            + change_words(a, c, theirs) + f" from {number(theirs and theirs['value'], 3)}" + small_text(a, c))


def _seat_metrics(a: dict) -> tuple[str | None, str | None]:
    """The catalogue's share of the win of the first seat (one column) and by seat position (columns)."""
    seat = [name for name, m in a["metrics"].items() if m.get("seat_share")]
    first = next((name for name in seat if a["metrics"][name]["labels"] == [""]), None)
    by_position = next((name for name in seat if len(a["metrics"][name]["labels"]) > 1), None)
    return first, by_position


def fairness_clause(a: dict, variant: str, table: str | None = None) -> str | None:
    """A multi-player variant's fairness in words: the first seat's share of the win against the fair
    share 1/n with its interval (at its Holm level when tested against 1/n, else 95 %), and the most
    favoured seat when another position wins more; ``None`` for a solo game."""
    n = a["variants"][variant].get("players", 1)
    first, by_position = _seat_metrics(a)
    table = table or a["judges"][0]
    if n < 2 or first is None:
        return None
    test = next((f for f in a["fair"] if f["metric"] == first and f["variant"] == variant and f["table"] == table
                 and f["column"] == ""), None)
    if test is not None:
        t = test["test"]
        value, low, high = t["value"], t["low"], t["high"]
        verdict = f", {test['verdict']}"
    else:
        e = (a["estimates"].get(first, {}).get(variant, {}).get(table) or [None])[0]
        if e is None:
            return None
        value, low, high = e["value"], e["low"], e["high"]
        fair = 1 / n
        verdict = (", above the fair share (95 % interval)" if low > fair else
                   ", below the fair share (95 % interval)" if high < fair else
                   ", no departure from the fair share (95 % interval)")
    text = (f"first seat wins {number(value, 3)} [{number(low, 3)}, {number(high, 3)}] of the games "
            f"against a fair {number(1 / n, 3)}{verdict}")
    if by_position is not None:
        labels = a["metrics"][by_position]["labels"][:n]
        est = (a["estimates"].get(by_position, {}).get(variant, {}).get(table) or [])[:n]
        shares = [(e["value"], i) for i, e in enumerate(est) if e is not None]
        if shares:
            best, i = max(shares)
            if i != 0 and best > value:
                e = est[i]
                text += (f"; the most favoured seat is the {labels[i]}: {number(e['value'], 3)} "
                         f"[{number(e['low'], 3)}, {number(e['high'], 3)}] (95 %)")
    return text


def headline_sentence(a: dict, variant: str) -> str | None:
    """Per variant, one sentence: the headline metrics' changes with intervals at the verdicts' level,
    the skill share, and whether the judges agree on them."""
    parts, judged = [], []
    fair = fairness_clause(a, variant)
    if fair:
        parts.append(fair)
    for metric in headline_metrics(a):
        c = _lead(a, metric, variant)
        if c is None:
            continue
        parts.append(_plain(a, c) + ("" if c["table"] == a["judges"][0] else f" ({short_names(a)[c['table']]})"))
        if c.get("agreement") in ("agree", "no detectable difference", "disagree") and c["table"] in a["judges"]:
            size_only = c.get("disagreement") == "the same direction, by different amounts"
            judged.append((metric, "agree on the direction, differ in size" if size_only else c["agreement"]))
    if not parts or parts == [fair]:
        return None
    skill = a.get("skill_share") or {}
    d = skill.get("differences", {}).get(variant)
    if d is not None:
        before, after = skill["estimates"][a["base"]], skill["estimates"][variant]
        change = (f"{d['value']:+.3g} [{d['low']:+.3g}, {d['high']:+.3g}]" if d.get("low") is not None
                  else f"{d['value']:+.3g}")
        words = d["verdict"] if d.get("p_holm") is None or d["p_holm"] < ALPHA else "no detectable change"
        if d.get("small"):
            words += f", real but smaller than the practical size ±{d['practical']:g}"
        parts.append(f"skill share {number(before['value'], 3)} → {number(after['value'], 3)} ({change}, {words})")
    lead = short_names(a)[a["judges"][0]]
    opinion = ""
    if len(a["judges"]) > 1 and judged:
        outcomes = {o for _, o in judged}
        if outcomes == {"agree"}:
            opinion = "; the judges agree" if len(a["judges"]) > 2 else "; both judges agree"
        else:
            opinion = "; judges: " + ", ".join(
                f"{o} on " + " and ".join(m for m, oo in judged if oo == o) for o in
                ("agree", "agree on the direction, differ in size", "no detectable difference", "disagree")
                if o in outcomes)
    label = a["variants"][variant]["label"]
    return f"**{variant}** ({label}), measured by {lead}: " + "; ".join(parts) + opinion


def changes(a: dict, skip: set | None = None) -> list[list[tuple[dict, float | None]]]:
    """The detectable changes among the designer's comparisons, grouped by metric and variant (every
    judge's together; a restricted agent on its own): whole-game metrics first, then the cells of
    breakdowns (per ticket, per square, per seat); within each, the largest standardised effect (the
    difference over the standard deviation of its per-game differences) first. ``skip``: (metric,
    variant) pairs already said (the headline)."""
    groups: dict[tuple, list[tuple[dict, float | None]]] = {}
    for c in main_comparisons(a):
        if c.get("p_holm") is not None and c["p_holm"] < ALPHA:
            if skip and (c["metric"], c["variant"]) in skip and c["column"] == "" and c["role"] != "restricted":
                continue
            _, theirs, _ = comparison_values(a, c)
            key = (comparison_name(c), c["variant"], c["against"][0], c["table"] if c["role"] == "restricted" else "")
            groups.setdefault(key, []).append((c, relative(c, theirs)))

    def size(group) -> tuple:
        return (_is_breakdown(a, group[0][0]), -max(standardised(c) for c, _ in group),
                min(c["p_holm"] for c, _ in group))

    return sorted(groups.values(), key=size)


def change_sentence(a: dict, group: list[tuple[dict, float | None]]) -> str:
    """One change in words, under each judge that found it, with intervals at the verdict's level: ``score
    (tickets completed in the game) under tuned: heuristic 3.79 instead of 1.14 (+2.66 [+2.57, +2.75]
    tickets, +234 %, effect 1.9 SD); search …``."""
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
        rel_text = f", {points(d['value'])}" if is_share(a, c) else f", {percent(rel)}" if rel is not None else ""
        parts.append(f"{who} ({level_interval(c)} {m['unit']}{rel_text}, effect {standardised(c):.2g} SD)"
                     + small_text(a, c))
    return f"**{comparison_name(first)}** ({m['definition']}) under **{first['variant']}**: " + "; ".join(parts)


def judges_line(a: dict) -> str:
    """The judges and what each is."""
    from aerodeck.judge.wording import describe_agent

    return ("Judges (each plays every variant on the same deals; its verdicts are below): " + "; ".join(
        f"`{j}` — {describe_agent(a['game'], j)}" for j in a["judges"]) + ".")


def method_line(a: dict) -> str:
    """How the verdicts were reached, in one paragraph."""
    lv = a.get("levels", {})
    return (f"{a['games']:,} games per variant and table; every variant plays game i on the same seed (paired game "
            f"by game). A change is a Holm-adjusted p < {ALPHA:g} over the {lv.get('family', len(a['comparisons']))} "
            "test(s) of this run; each interval is shown at the level its Holm step tested it (so an interval that "
            "excludes 0 goes with a change and one that includes 0 with none), and the smallest detectable change "
            f"at the same level (80 % power). A difference on fewer than {lv.get('min_games', 10)} games gets no "
            "verdict. " + (f"Judges are compared by a paired test of the difference of their effects on the same "
                           f"games (Holm over those {lv.get('judge_family', 0)} tests). " if len(a["judges"]) > 1 else "")
            + f"{RELATIVE_RULE[0].upper()}{RELATIVE_RULE[1:]}.")


def summary(a: dict) -> list[str]:
    """The report's opening in words: per variant one headline sentence, the judges, the method, then the
    other detected changes (largest standardised effect first, breakdown cells last)."""
    out = ["## Summary", ""]
    said = set()
    fair = fairness_clause(a, a["base"])
    if fair:
        out.append(f"- **{a['base']}** ({a['variants'][a['base']]['label']}), measured by "
                   f"{short_names(a)[a['judges'][0]]}: {fair}.")
    for variant in list(a["variants"])[1:]:
        sentence = headline_sentence(a, variant)
        if sentence:
            out.append(f"- {sentence}.")
            said |= {(m, variant) for m in headline_metrics(a)}
    for variant, line in a.get("failed_variants", {}).items():  # a house rule that failed: its variant stopped
        out.append(f"- **{variant}** was not judged: {line}.")
    if len(out) > 2:
        out.append("")
    for b in a.get("blind", []):
        out += [blind_text(b) + ".", ""]
    needs = games_needed_line(a)
    if needs:
        out += [needs, ""]
    out += [judges_line(a), "", method_line(a)]
    found = changes(a, said)
    if found or not said:
        out.append("")
    if found:
        out.append(f"Other changes against the base **{a['base']}** (largest standardised effect first; whole-game "
                   "metrics, then breakdown cells):")
        out.append("")
    for group in found:
        out.append(f"- {change_sentence(a, group)}.")
    if not found and not said:
        out.append("- No detectable change in the compared metrics.")
    same: dict[tuple[str, str], list[str]] = {}
    for c in main_comparisons(a):
        if (c["metric"], c["variant"]) in said and c["column"] == "":
            continue
        if c.get("p_holm") is None:
            same.setdefault((comparison_name(c), c["variant"]), []).append(
                f"{short_names(a)[c['table']]} {c['verdict']}{power_text(a, c)}")
        elif c["p_holm"] >= ALPHA:
            smallest = c["verdict"].rpartition(" is ")[2] if "±" in c["verdict"] else "equal in every game"
            same.setdefault((comparison_name(c), c["variant"]), []).append(
                f"{short_names(a)[c['table']]} {smallest}{power_text(a, c)}")
    if same:
        out += ["", "No detectable change (under each table, the smallest change these games detect at the verdict's "
                "level): " + "; ".join(f"{name} under {variant} ({', '.join(tables)})"
                                       for (name, variant), tables in same.items()) + "."]
    if a["disagreements"]:
        out += ["", "**The judges disagree** (the difference between their effects is detected) on: " + "; ".join(
            f"{d['metric'] + (' / ' + d['column'] if d['column'] else '')} under {d['variant']} ({d['text']})"
            for d in a["disagreements"]) + "."]
    elif len(a["judges"]) > 1:
        out += ["", f"No difference between the judges' effects is detected ({len(a['judges'])} judges, "
                f"{a.get('levels', {}).get('judge_family', 0)} paired tests of the difference)."]
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
    while out and out[-1] == "":
        out.pop()
    return out + [""]


def games_needed_line(a: dict) -> str | None:
    """When this run's games are too few for its question: per headline metric without a detected change
    under the lead judge, the games that detect its practical size (at the verdict's level, 80 % power,
    from the spread of this run's paired differences), and the ``--games`` that answers them all."""
    lead = a["judges"][0]
    short = []
    for variant in list(a["variants"])[1:]:
        for metric in headline_metrics(a):
            c = _lead(a, metric, variant)
            if c is None or c["table"] != lead or (c.get("p_holm") is not None and c["p_holm"] < ALPHA):
                continue
            pw = c.get("power")
            if pw and pw.get("games_needed") is not None and not pw["enough"]:
                short.append((c, pw))
    if not short:
        return None
    most = max(pw["games_needed"] for _, pw in short)
    items = "; ".join(f"{c['metric']} under {c['variant']}: {size_text(pw['practical'], a['metrics'][c['metric']])} "
                      f"needs {about(pw)} {pw['games_needed']:,}" for c, pw in short)
    return (f"**Too few games for this question**: {a['games']:,} games per variant leave these headline metrics "
            f"without a verdict that rules out a change of their practical size (games needed at the verdict's "
            f"level with 80 % power, from the spread of this run's paired differences; \"up to\": no game differed, "
            f"the two sides' unpaired spread stands in): {items}. Rerun with `--games {most}` to answer them all "
            "(`--practical METRIC=SIZE` states another size).")


def changed_section(a: dict) -> list[str]:
    """The games that changed (``--save-games changed``): per variant and judge how many games changed
    outcome and how many were played identically, then the first rows of ``changed.csv``."""
    ch = a.get("changed")
    if ch is None:
        return []
    out = ["", "## The games that changed", "",
           "Games whose outcome (a seat's score or share of the win) differs between the base and the variant "
           "under a judge, the largest difference first; *split*: the first decision where the two games differ "
           "(the table's decisions in order; 0: the same decisions, the rule alone changed the result). All of them "
           "are in changed.csv; `aerodeck replay OUT --changed N` opens row N's pair side by side from its split.", ""]
    for k in ch["counts"]:
        out.append(f"- {k['variant']} / {k['table']}: {k['changed']:,} of {k['games']:,} games changed outcome; "
                   f"{k['identical']:,} were played with the same decisions under both rules.")
    rows = ch["rows"]
    multi = any(r["base_winners"] or r["variant_winners"] for r in rows)
    if rows:
        out += ["", "| N | variant / judge | game | seed | score: base → variant | " + ("winners: base → variant | "
                if multi else "") + "split at decision | decisions: base, variant |", "|" + "---|" * (8 if multi else 7)]
        for r in rows[:CHANGED_ROWS]:
            winners = f" {r['base_winners']} → {r['variant_winners']} |" if multi else ""
            out.append(f"| {r['rank']} | {r['variant']} / {r['table']} | {r['game']} | {r['seed']} | {r['base_score']} → "
                       f"{r['variant_score']} |{winners} {r['split_decision'] or 'same decisions'} | "
                       f"{r['base_decisions']}, {r['variant_decisions']} |")
        if len(rows) > CHANGED_ROWS:
            out += ["", f"({len(rows) - CHANGED_ROWS:,} more in changed.csv.)"]
    return out


#: The changed games report.md lists (changed.csv holds them all).
CHANGED_ROWS = 20


def skill_share_section(a: dict) -> list[str]:
    """How much skill matters, per variant, and its change against the base."""
    skill = a.get("skill_share") or {}
    if not skill:
        return []
    out = ["", "## How much does skill matter? (skill share)", "",
           f"The skill share: {skill['what']} (docs/metrics.md); 0: the decisions change nothing, 1: the agent "
           "alone decides. Interval: a percentile bootstrap over games (95 %); the change against the base: the "
           "same resamples on both sides, a normal interval at its Holm step's level (Holm over the variants).", "",
           "| variant | skill share [95% CI] | change against the base [interval at the verdict's level] | level | "
           "p (Holm) | verdict |", "|---|---|---|---|---|---|"]
    for variant, e in skill["estimates"].items():
        d = skill["differences"].get(variant)
        if d is None:
            out.append(f"| {variant} | {interval(e)} | (the base) | | | |")
            continue
        change = (f"{d['value']:+.4g} [{d['low']:+.4g}, {d['high']:+.4g}]" if d.get("low") is not None
                  else f"{d['value']:+.4g}")
        out.append(f"| {variant} | {interval(e)} | {change} | {level_text(d.get('level'))} | "
                   f"{p_text(d.get('p_holm'))} | {d['verdict']} |")
    return out


def _share(k: int, n: int) -> str:
    return f"{100 * k / n:.3g} %" if n else "–"


def verdict_table(a: dict, comparisons: list[dict]) -> list[str]:
    """The verdict rows of ``comparisons`` as a markdown table: the difference with its interval at the
    level of the verdict's Holm step (and that level)."""
    out = ["| metric | compared | against | against: value | compared: value | difference [interval at the verdict's "
           "level] | level | relative | effect (SD) | r | p | p (Holm) | verdict | judges |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in comparisons:
        mine, theirs, d = comparison_values(a, c)
        out.append(f"| {comparison_name(c)} | {c['variant']} / {c['table']} | {' / '.join(c['against'])} | "
                   f"{interval(theirs)} | {interval(mine)} | {level_interval(c)} | {level_text(c.get('level'))} | "
                   f"{relative_text(a, c, theirs)} | {standardised(c):.2g} | {correlation_text(d)} | "
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
           "Each seat's share of the win against the fair share 1/n, in the same Holm family as the verdicts: the "
           f"score test and its Wilson interval, or — fewer than {EXACT_BELOW} wins or losses — the exact binomial "
           "test and its Clopper–Pearson interval; each interval at the level of its Holm step.", "",
           "| metric | variant / table | players | share [interval at the verdict's level] | level | fair | test | p | "
           "p (Holm) | verdict |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for f in a["fair"]:
        t = f["test"]
        name = f["metric"] + (f" / {f['column']}" if f["column"] else "")
        out.append(f"| {name} | {f['variant']} / {f['table']} | {f['players']} | {number(t['value'])} "
                   f"[{number(t['low'])}, {number(t['high'])}] | {level_text(f.get('level'))} | "
                   f"{number(t['against'], 3)} | {t.get('method', 'score')} | {p_text(t['p_value'])} | "
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
            f"restricted agent against its base agent on the same deals), {method}. Holm–Bonferroni runs over all "
            f"{a.get('levels', {}).get('family', len(a['comparisons']) + len(a['fair']))} tests of this run; a verdict "
            f"is \"higher\" or \"lower\" when the adjusted p-value is below {ALPHA:g}. Each difference's interval is "
            "at the level its Holm step tested it — 1 − 0.05/(m − k + 1) for the k-th smallest of m p-values while "
            "every smaller one was found, and the level of the step where Holm stopped for the rest — so the "
            "interval excludes 0 exactly when the verdict finds a change; the smallest detectable change is given "
            "at that level with 80 % power. Effect (SD): the difference over the standard deviation of its "
            "per-game differences. r: the pairing correlation of the two sides' per-game values. Relative: "
            f"{RELATIVE_RULE}. A difference on fewer than {a.get('levels', {}).get('min_games', 10)} games, or with no "
            "spread but a nonzero value, is not tested (\"too few games: N\"). Judges: a paired test of the "
            "difference between the first judge's effect and each other judge's on the same games, Holm over "
            "those tests: *yes* (same direction, both found, no difference detected), *no detectable difference "
            "between the judges*, or *no* (the difference itself is detected; both estimates given).", ""]
    out += verdict_table(a, main)
    if a["skill_gap"]:
        out += ["", "## Skill gap", "", "| variant | skill gap [95% CI] | measured as |", "|---|---|---|"]
        for variant, g in a["skill_gap"].items():
            out.append(f"| {variant} | {interval(g)} | {g['what']} |")
    out += skill_share_section(a)
    out += fair_section(a)
    out += changed_section(a)
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
