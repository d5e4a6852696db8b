"""The designer's report of ``aerodeck compare / sweep / tune``: ``report.md``, PNG plots,
``results.json``, ``games.csv`` and ``variants.toml``, from an analysis (``train.judge.compare.analyse``).

Everything written is a function of the analysis, which is a function of the seed: the same seed gives
the same files, numbers exactly (no timings, no dates).
"""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

#: Breakdowns with more columns than this are drawn but not tabled column by column in report.md.
MAX_TABLE_COLUMNS = 40


def number(x: float | None, digits: int = 4) -> str:
    """A value for a table: ``digits`` significant digits; ``–`` when undefined."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{digits}g}"


def interval(e: dict | None) -> str:
    """``value [low, high]`` of an estimate, or ``–``."""
    if e is None or "value" not in e:
        return "–"
    return f"{number(e['value'])} [{number(e['low'])}, {number(e['high'])}]"


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


# --- files -----------------------------------------------------------------------------------------

def write(folder: Path, analysis: dict, rows: tuple[list, list]) -> None:
    """Write every file of the report into ``folder`` (an empty folder being filled: see
    ``train.output.OutputFolder.writing``)."""
    folder = Path(folder)
    (folder / "results.json").write_text(json.dumps(analysis, indent=1, default=_json) + "\n", encoding="utf-8")
    header, body = rows
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(body)
    (folder / "games.csv").write_text(buf.getvalue(), encoding="utf-8")
    (folder / "variants.toml").write_text(variants_toml(analysis), encoding="utf-8")
    plots = draw(folder, analysis)
    (folder / "report.md").write_text(markdown(analysis, plots), encoding="utf-8")


def _json(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def toml_value(v) -> str:
    """A rule option's value in TOML."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return json.dumps(str(v))


def variants_toml(analysis: dict) -> str:
    """The variants as TOML tables (``aerodeck compare --variants`` reads them back)."""
    lines = [f"# {analysis['title']} rule variants (aerodeck compare --variants FILE)"]
    for name, v in analysis["variants"].items():
        lines.append("")
        lines.append(f"[{json.dumps(name) if not name.replace('_', '').replace('-', '').isalnum() else name}]")
        lines += [f"{k} = {toml_value(x)}" for k, x in v["options"].items()]
    return "\n".join(lines) + "\n"


# --- the markdown report -------------------------------------------------------------------------

def catalogue_markdown(catalogue, title: str) -> str:
    """A game's metric table for ``docs/metrics.md``: name, definition, unit, rules, how it is
    summarised, its breakdown and whether ``compare`` compares it by default."""
    out = [f"## {title}", "", "| metric | definition | unit | rules | interval | breakdown | compared by default |",
           "|---|---|---|---|---|---|---|"]
    for m in catalogue.metrics:
        if m.rows:
            breakdown = f"{len(m.rows)} × {len(m.columns)}: {', '.join(m.rows)} × {', '.join(m.columns)}"
        elif len(m.columns) > 12:
            breakdown = f"{len(m.columns)} columns: {', '.join(m.columns[:3])}, …, {m.columns[-1]}"
        else:
            breakdown = ", ".join(m.columns) or "—"
        interval = "Wilson" if m.kind == "share" else "t (delta method)"
        out.append(f"| `{m.name}` | {m.definition} | {m.unit} | {m.rules} | {interval} | {breakdown} | "
                   f"{'yes' if m.headline else ''} |")
    return "\n".join(out) + "\n"


def markdown(analysis: dict, plots: dict[str, str]) -> str:
    """``report.md``: the question, the verdicts, the skill gap, every metric's table and the plots."""
    a = analysis
    out = [f"# {a['title']}: rule variants compared", ""]
    out += ["## The question", ""]
    out.append(f"{a['games']:,} games per variant and table, seed {a['seed']}; every variant plays the same "
               f"seeds (game i has the same seed everywhere). Base: **{a['base']}**.")
    out += ["", "| variant | rule options | its games against the base's |", "|---|---|---|"]
    for name, v in a["variants"].items():
        pairing = "the base" if name == a["base"] else (v["pairing"] or "paired with the base, game by game")
        out.append(f"| {name} | {v['label']} | {pairing} |")
    out += ["", "| table | agents | seats |", "|---|---|---|"]
    for t in a["tables"]:
        seats = (f"{t['agents'][0]} in one seat, {', '.join(t['agents'][1:])} in the others, rotated"
                 if t["mixed"] else "every seat")
        out.append(f"| {t['name']} | {', '.join(t['agents'])} | {seats} |")
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
    method = {"auto": "paired t-test where games pair, Welch's t-test where they do not; ratios by the delta "
                      "method", "bootstrap": "percentile bootstrap over games (pairs resampled together)"}[a["test"]]
    out += ["", "## Verdicts", "",
            f"Each compared metric of each variant against the base, table by table (and each restricted "
            f"agent against its base agent on the same deals): the difference with its 95% interval "
            f"({method}), its p-value, and the p-value after Holm–Bonferroni over all "
            f"{len(a['comparisons'])} comparisons of this run. A verdict is \"higher\" or \"lower\" when the "
            "adjusted p-value is below 0.05; otherwise it gives the smallest change this number of games "
            "detects (5% level, 80% power).", ""]
    out += ["| metric | compared | against | against: value | compared: value | difference [95% CI] | p | "
            "p (Holm) | verdict |", "|---|---|---|---|---|---|---|---|---|"]
    for c in a["comparisons"]:
        mine, theirs, d = comparison_values(a, c)
        out.append(f"| {comparison_name(c)} | {c['variant']} / {c['table']} | {' / '.join(c['against'])} | "
                   f"{interval(theirs)} | {interval(mine)} | {number(d['value'])} [{number(d['low'])}, "
                   f"{number(d['high'])}] | {p_text(d['p_value'])} | {p_text(c['p_holm'])} | {c['verdict']} |")
    if a["skill_gap"]:
        out += ["", "## Skill gap", "", "| variant | skill gap [95% CI] | measured as |", "|---|---|---|"]
        for variant, g in a["skill_gap"].items():
            out.append(f"| {variant} | {interval(g)} | {g['what']} |")
    out += ["", "## Metrics", "", "Every metric of the catalogue (docs/metrics.md) per variant and table, "
            "with its 95% interval (Wilson for shares, t by the delta method otherwise).", ""]
    for name, m in a["metrics"].items():
        out += [f"### {name}", "", f"{m['definition']} — unit: {m['unit']}; rules: {m['rules']}.", ""]
        if name in plots:
            out += [f"![{name}]({plots[name]})", ""]
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
    if "overview" in plots:
        out += ["## Overview", "", f"![compared metrics]({plots['overview']})", ""]
    sweeps = [k for k in plots if k.startswith("sweep ")]
    if sweeps:
        out += ["## Over the grid", "", f"Grid: {' × '.join(a['sweep']['keys'])}.", ""]
        out += [f"![{k}]({plots[k]})" for k in sweeps] + [""]
    return "\n".join(out) + "\n"


# --- plots -----------------------------------------------------------------------------------------

def _save(fig, path: Path) -> None:
    try:
        fig.savefig(path, format="png", dpi=90, metadata={"Software": None})
    finally:
        plt.close(fig)


def _cells(a: dict) -> list[tuple[str, str]]:
    return [(v, t["name"]) for v in a["variants"] for t in a["tables"]]


def draw(folder: Path, a: dict) -> dict[str, str]:
    """The PNG plots of the report: the compared metrics per variant with error bars (``overview``) and
    one plot per metric whose ``plot`` asks for one. Returns metric name -> file name."""
    files: dict[str, str] = {}
    compared = [name for name in dict.fromkeys(a["compared"]) if len(a["metrics"][name]["labels"]) == 1]
    if compared:
        files["overview"] = "metrics.png"
        _save(_overview(a, compared), folder / "metrics.png")
    if "sweep" in a:
        for name in compared:
            files[f"sweep {name}"] = f"sweep-{name}.png"
            _save(_sweep(a, name), folder / files[f"sweep {name}"])
    for name, m in a["metrics"].items():
        if m["plot"] is None:
            continue
        fig = {"distribution": _distribution, "heatmap": _heatmap, "stacked": _stacked, "curve": _curve}[m["plot"]](a, name)
        if fig is not None:
            files[name] = f"{name}.png"
            _save(fig, folder / files[name])
    return files


def _values(a: dict, name: str, variant: str, table: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    est = a["estimates"][name][variant][table]
    get = lambda key: np.array([np.nan if e is None else e[key] for e in est])  # noqa: E731
    return get("value"), get("low"), get("high")


def _errors(v, lo, hi) -> list[np.ndarray]:
    """Error bar lengths below and above (0 where undefined)."""
    return [np.maximum(np.nan_to_num(v - lo), 0), np.maximum(np.nan_to_num(hi - v), 0)]


def _overview(a: dict, names: list[str]):
    tables = [t["name"] for t in a["tables"]]
    variants = list(a["variants"])
    cols = min(3, len(names))
    rows = -(-len(names) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.6 * rows), squeeze=False)
    width = 0.8 / len(variants)
    for ax, name in zip(axes.ravel(), names):
        for i, variant in enumerate(variants):
            v = np.array([_values(a, name, variant, t)[0][0] for t in tables])
            lo = np.array([_values(a, name, variant, t)[1][0] for t in tables])
            hi = np.array([_values(a, name, variant, t)[2][0] for t in tables])
            x = np.arange(len(tables)) + (i - (len(variants) - 1) / 2) * width
            ax.bar(x, np.nan_to_num(v), width, yerr=_errors(v, lo, hi), capsize=3,
                   label=variant)
        ax.set_xticks(np.arange(len(tables)), tables, fontsize=8)
        ax.set_title(f"{name} ({a['metrics'][name]['unit']})", fontsize=9)
    for ax in axes.ravel()[len(names):]:
        ax.axis("off")
    axes.ravel()[0].legend(fontsize=7)
    fig.suptitle(f"{a['title']}: compared metrics per variant (95% CI), {a['games']:,} games each")
    fig.tight_layout()
    return fig


def _sweep(a: dict, name: str):
    """``name`` over the grid: a line per table for one key, a heat map per table for two, bars beyond."""
    keys, cells = a["sweep"]["keys"], a["sweep"]["cells"]
    tables = [t["name"] for t in a["tables"]]
    unit = a["metrics"][name]["unit"]
    if len(keys) == 2:
        rows = list(dict.fromkeys(c[0] for c in cells.values()))
        cols = list(dict.fromkeys(c[1] for c in cells.values()))
        fig, axes = plt.subplots(1, len(tables), figsize=(1.5 + 0.9 * len(cols) * len(tables) + 1.5 * len(tables),
                                                          1.5 + 0.6 * len(rows)), squeeze=False)
        for ax, table in zip(axes[0], tables):
            grid = np.full((len(rows), len(cols)), np.nan)
            for variant, (r, c) in cells.items():
                grid[rows.index(r), cols.index(c)] = _values(a, name, variant, table)[0][0]
            image = ax.imshow(grid, aspect="auto", cmap="viridis")
            for i in range(len(rows)):
                for j in range(len(cols)):
                    ax.text(j, i, number(grid[i, j], 3), ha="center", va="center", fontsize=7, color="w")
            ax.set_xticks(np.arange(len(cols)), cols)
            ax.set_yticks(np.arange(len(rows)), rows)
            ax.set_xlabel(keys[1])
            ax.set_ylabel(keys[0])
            ax.set_title(f"{table}: {name} ({unit})", fontsize=9)
            fig.colorbar(image, ax=ax)
        fig.tight_layout()
        return fig
    fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(cells) + 2), 3.8))
    labels = [c[0] for c in cells.values()] if len(keys) == 1 else [" ".join(c) for c in cells.values()]
    for table in tables:
        v, lo, hi = (np.array([_values(a, name, variant, table)[k][0] for variant in cells]) for k in range(3))
        ax.errorbar(np.arange(len(labels)), v, yerr=_errors(v, lo, hi), marker="o", capsize=3, label=table)
    ax.set_xticks(np.arange(len(labels)), labels, rotation=0 if len(keys) == 1 else 60, fontsize=8)
    ax.set_xlabel(" × ".join(keys))
    ax.set_ylabel(f"{name} ({unit})")
    ax.set_title(f"{name} over the grid (95% CI), {a['games']:,} games each", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _distribution(a: dict, name: str):
    labels = a["metrics"][name]["labels"]
    tables = [t["name"] for t in a["tables"]]
    fig, axes = plt.subplots(1, len(tables), figsize=(5.5 * len(tables), 3.6), squeeze=False)
    variants = list(a["variants"])
    width = 0.8 / len(variants)
    for ax, table in zip(axes[0], tables):
        for i, variant in enumerate(variants):
            v, lo, hi = _values(a, name, variant, table)
            x = np.arange(len(labels)) + (i - (len(variants) - 1) / 2) * width
            ax.bar(x, np.nan_to_num(v), width, yerr=_errors(v, lo, hi), capsize=2,
                   label=variant)
        ax.set_xticks(np.arange(len(labels)), labels, fontsize=8)
        ax.set_title(f"{table}: {name}", fontsize=9)
        ax.set_ylabel(a["metrics"][name]["unit"])
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _heatmap(a: dict, name: str):
    labels = a["metrics"][name]["labels"]
    cells = _cells(a)
    rows = [(v, t) for v, t in cells if a["estimates"][name][v][t] is not None
            and len(a["estimates"][name][v][t]) == len(labels)]
    if not rows:
        return None
    grid = np.array([_values(a, name, v, t)[0] for v, t in rows])
    fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(labels) + 3), 1.2 + 0.45 * len(rows)))
    image = ax.imshow(grid, aspect="auto", cmap="viridis")
    ax.set_xticks(np.arange(len(labels)), labels, rotation=70, fontsize=7)
    ax.set_yticks(np.arange(len(rows)), [f"{v} / {t}" for v, t in rows], fontsize=8)
    if grid.size <= 200:
        for i in range(grid.shape[0]):
            for j in range(grid.shape[1]):
                if not np.isnan(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:.2g}", ha="center", va="center", fontsize=6, color="w")
    ax.set_title(f"{name} ({a['metrics'][name]['unit']})", fontsize=9)
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    return fig


def _stacked(a: dict, name: str):
    m = a["metrics"][name]
    rows, columns = m["rows"], m["columns"]
    cells = _cells(a)
    fig, axes = plt.subplots(1, len(cells), figsize=(4.2 * len(cells), 3.8), squeeze=False, sharey=True)
    colours = plt.get_cmap("tab10")
    for ax, (v, t) in zip(axes[0], cells):
        values = np.nan_to_num(_values(a, name, v, t)[0].reshape(len(rows), len(columns)))
        bottom = np.zeros(len(rows))
        for j, column in enumerate(columns):
            ax.bar(np.arange(len(rows)), values[:, j], bottom=bottom, label=column, color=colours(j))
            bottom += values[:, j]
        ax.set_xticks(np.arange(len(rows)), rows, fontsize=8)
        ax.set_title(f"{v} / {t}", fontsize=9)
    axes[0, 0].set_ylabel(m["unit"])
    axes[0, -1].legend(fontsize=7, loc="upper right")
    fig.suptitle(f"{name}: {m['definition']}", fontsize=9)
    fig.tight_layout()
    return fig


def _curve(a: dict, name: str):
    labels = a["metrics"][name]["labels"]
    fig, ax = plt.subplots(figsize=(8, 3.8))
    for v, t in _cells(a):
        value, lo, hi = _values(a, name, v, t)
        x = np.arange(len(labels))
        ax.plot(x, value, marker=".", label=f"{v} / {t}")
        ax.fill_between(x, lo, hi, alpha=0.2)
    ax.set_xticks(np.arange(len(labels)), labels, fontsize=7, rotation=60)
    ax.set_ylabel(a["metrics"][name]["unit"])
    ax.set_title(f"{name}: {a['metrics'][name]['definition']}", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


# --- the terminal ------------------------------------------------------------------------------------

def print_verdicts(analysis: dict, file=None) -> None:
    """The verdict table (and the skill gap) on the terminal."""
    from rich.console import Console
    from rich.table import Table

    a = analysis
    console = Console(file=file, width=None if (file or sys.stdout).isatty() else 140)
    table = Table(title=f"{a['title']}: {len(a['comparisons'])} comparisons, {a['games']:,} games each, "
                        f"seed {a['seed']}")
    for col in ("metric", "compared", "against", "values", "difference [95% CI]", "p (Holm)", "verdict"):
        table.add_column(col, overflow="fold")
    for c in a["comparisons"]:
        mine, theirs, d = comparison_values(a, c)
        table.add_row(comparison_name(c), f"{c['variant']} / {c['table']}", " / ".join(c["against"]),
                      f"{number(mine and mine['value'])} vs {number(theirs and theirs['value'])}",
                      f"{number(d['value'])} [{number(d['low'])}, {number(d['high'])}]", p_text(c["p_holm"]),
                      c["verdict"])
    console.print(table)
    for variant, g in a["skill_gap"].items():
        console.print(f"skill gap, {variant}: {interval(g)} ({g['what']})")
    for name, v in a["variants"].items():
        if v["pairing"]:
            console.print(f"{name}: {v['pairing']}")
