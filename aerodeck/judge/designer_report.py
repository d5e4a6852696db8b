"""The designer's report of ``aerodeck compare / sweep / tune``: ``report.md``, PNG plots,
``results.json``, ``games.csv``, ``variants.toml`` and (``--save-games changed``) ``changed.csv``, from an analysis (``aerodeck.judge.compare.analyse``).

Everything written is a function of the analysis, which is a function of the seed: the same seed gives
the same files, numbers exactly (no timings, no dates).
"""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from aerodeck.judge.wording import comparison_name, comparison_values, correlation_text, interval, level_interval, level_text, main_comparisons, number, p_text, relative_text  # noqa: E402

# --- files -----------------------------------------------------------------------------------------

def write(folder: Path, analysis: dict, rows: tuple[list, list]) -> None:
    """Write every file of the report into ``folder`` (an empty folder being filled: see
    ``aerodeck.arena.output.OutputFolder.writing``)."""
    folder = Path(folder)
    (folder / "results.json").write_text(json.dumps(analysis, indent=1, default=_json) + "\n", encoding="utf-8")
    header, body = rows
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(body)
    (folder / "games.csv").write_text(buf.getvalue(), encoding="utf-8")
    (folder / "variants.toml").write_text(variants_toml(analysis), encoding="utf-8")
    if "changed" in analysis:
        from aerodeck.judge.changed import csv_text

        (folder / "changed.csv").write_text(csv_text(analysis["changed"]["rows"]), encoding="utf-8")
    plots = draw(folder, analysis)
    from aerodeck.judge.report_markdown import markdown

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
        if v.get("house"):  # its house rule (aerodeck.envs.common.house), the file by its absolute path
            lines.append(f"house = {toml_value(v['house'])}")
    return "\n".join(lines) + "\n"


# --- the markdown report -------------------------------------------------------------------------

def catalogue_markdown(catalogue, title: str) -> str:
    """A game's metric table for ``docs/metrics.md``: name, definition, unit, rules, how it is
    summarised, its breakdown, whether ``compare`` compares it by default and its practical size (the
    smallest change worth acting on: ``aerodeck.judge.power``)."""
    from aerodeck.judge.power import practical_size, size_text

    out = [f"## {title}", "", "| metric | definition | unit | rules | interval | breakdown | compared by default | "
           "practical size |", "|---|---|---|---|---|---|---|---|"]
    for m in catalogue.metrics:
        if m.rows:
            breakdown = f"{len(m.rows)} × {len(m.columns)}: {', '.join(m.rows)} × {', '.join(m.columns)}"
        elif len(m.columns) > 12:
            breakdown = f"{len(m.columns)} columns: {', '.join(m.columns[:3])}, …, {m.columns[-1]}"
        else:
            breakdown = ", ".join(m.columns) or "—"
        interval = {"share": "Wilson", "rate": "bootstrap over games"}.get(m.kind, "t (delta method)")
        size = practical_size(m)
        size = "–" if size is None else size_text(size, {"kind": m.kind, "unit": m.unit})
        out.append(f"| `{m.name}` | {m.definition} | {m.unit} | {m.rules} | {interval} | {breakdown} | "
                   f"{'yes' if m.headline else ''} | {size} |")
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
    compared = [name for name in dict.fromkeys(a["compared"]) if len(a["metrics"][name]["labels"]) == 1
                and any(e[0] is not None for tables in a["estimates"][name].values() for e in tables.values())]
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
        if m["plot"] == "histogram":
            if name in a.get("histograms", {}):
                files[f"histogram {name}"] = f"{name}-histogram.png"
                _save(_histogram(a, name), folder / files[f"histogram {name}"])
            continue
        fig = {"distribution": _distribution, "heatmap": _heatmap, "stacked": _stacked, "curve": _curve}[m["plot"]](a, name)
        if fig is not None:
            files[name] = f"{name}.png"
            _save(fig, folder / files[name])
    return files


def _grid(n: int, width: float, height: float, cols: int = 3, **kw):
    """A figure of ``n`` panels in rows of at most ``cols``, the unused panels switched off."""
    cols = min(cols, n)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False, **kw)
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    return fig, axes.ravel()[:n]


def _histogram(a: dict, name: str):
    """The per-game distribution of a count metric: one panel per table, one step line per variant."""
    h = a["histograms"][name]
    edges = np.array(h["edges"])
    tables = [t["name"] for t in a["tables"] if any(t["name"] in c for c in h["counts"].values())]
    fig, axes = _grid(len(tables), 4.6, 3.2, sharey=False)
    for ax, table in zip(axes, tables):
        used = np.zeros(edges.size - 1, bool)
        for variant, per_table in h["counts"].items():
            counts = np.array(per_table.get(table, []), float)
            if counts.size and counts.sum() > 0:
                ax.stairs(counts / counts.sum(), edges, label=variant, linewidth=1.4)
                used |= counts > 0
        if used.any():  # this table's own range: another table may spread far wider
            ax.set_xlim(edges[np.argmax(used)], edges[used.size - np.argmax(used[::-1])])
        ax.set_title(table, fontsize=9)
        unit = a["metrics"][name]["unit"]
        ax.set_xlabel(name if unit == name else f"{name} ({unit})", fontsize=8)
        ax.set_ylabel("share of games", fontsize=8)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(6, len(labels)), fontsize=8, frameon=False)
    fig.suptitle(f"{name}: {a['metrics'][name]['definition']}, per game", fontsize=9)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def _values(a: dict, name: str, variant: str, table: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    est = a["estimates"][name][variant][table]
    get = lambda key: np.array([np.nan if e is None else e[key] for e in est])  # noqa: E731
    return get("value"), get("low"), get("high")


def _errors(v, lo, hi) -> list[np.ndarray]:
    """Error bar lengths below and above (0 where undefined)."""
    return [np.maximum(np.nan_to_num(v - lo), 0), np.maximum(np.nan_to_num(hi - v), 0)]


def _fair_line(ax, a: dict, name: str, variants: list[str]) -> None:
    """The fair share 1/n on a plot of a seat's share of the win (``seat_share``): a dashed line when every
    variant has the same player count, else one per count, labelled."""
    if not a["metrics"][name].get("seat_share"):
        return
    counts = sorted({a["variants"][v].get("players", 1) for v in variants} - {1})
    for n in counts:
        ax.axhline(1 / n, color="0.3", linestyle="--", linewidth=1,
                   label="fair share 1/n" if len(counts) == 1 else f"fair share 1/{n}")


def _overview(a: dict, names: list[str]):
    variants = list(a["variants"])
    fig, axes = _grid(len(names), 5, 3.6)
    width = 0.8 / len(variants)
    for ax, name in zip(axes, names):
        tables = [t["name"] for t in a["tables"]
                  if any(a["estimates"][name][v][t["name"]][0] is not None for v in variants)]
        for i, variant in enumerate(variants):
            v = np.array([_values(a, name, variant, t)[0][0] for t in tables])
            lo = np.array([_values(a, name, variant, t)[1][0] for t in tables])
            hi = np.array([_values(a, name, variant, t)[2][0] for t in tables])
            x = np.arange(len(tables)) + (i - (len(variants) - 1) / 2) * width
            ax.bar(x, np.nan_to_num(v), width, yerr=_errors(v, lo, hi), capsize=3,
                   label=variant)
        _fair_line(ax, a, name, variants)
        ax.set_xticks(np.arange(len(tables)), tables, fontsize=8)
        ax.set_title(f"{name} ({a['metrics'][name]['unit']})", fontsize=9)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(6, len(labels)), fontsize=8, frameon=False)
    fig.suptitle(f"{a['title']}: compared metrics per variant (95% CI), {a['games']:,} games each")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
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
            marks = {}
            for variant, (r, c) in cells.items():
                grid[rows.index(r), cols.index(c)] = _values(a, name, variant, table)[0][0]
                marks[(rows.index(r), cols.index(c))] = _change_mark(a, name, variant, table)
            low, high = _absolute_scale(a, name, grid)
            image = ax.imshow(grid, aspect="auto", cmap="viridis", vmin=low, vmax=high)
            for i in range(len(rows)):
                for j in range(len(cols)):
                    light = not np.isnan(grid[i, j]) and (grid[i, j] - low) / (high - low) > 0.6
                    ax.text(j, i, f"{number(grid[i, j], 3)}{marks.get((i, j), '')}", ha="center", va="center",
                            fontsize=7, color="k" if light else "w")
            ax.set_xticks(np.arange(len(cols)), cols)
            ax.set_yticks(np.arange(len(rows)), rows)
            ax.set_xlabel(keys[1])
            ax.set_ylabel(keys[0])
            ax.set_title(f"{table}: {name} ({unit})", fontsize=9)
            fig.colorbar(image, ax=ax)
        fig.suptitle(f"colours on an absolute scale ({number(low, 3)}–{number(high, 3)}); ▲/▼ a change against the "
                     "base (Holm p < 0.05), unmarked: none detected", fontsize=8)
        fig.tight_layout()
        return fig
    fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(cells) + 2), 3.8))
    labels = [c[0] for c in cells.values()] if len(keys) == 1 else [" ".join(c) for c in cells.values()]
    for table in tables:
        v, lo, hi = (np.array([_values(a, name, variant, table)[k][0] for variant in cells]) for k in range(3))
        ax.errorbar(np.arange(len(labels)), v, yerr=_errors(v, lo, hi), marker="o", capsize=3, label=table)
    _fair_line(ax, a, name, list(cells))
    ax.set_xticks(np.arange(len(labels)), labels, rotation=0 if len(keys) == 1 else 60, fontsize=8)
    ax.set_xlabel(" × ".join(keys))
    ax.set_ylabel(f"{name} ({unit})")
    ax.set_title(f"{name} over the grid (95% CI), {a['games']:,} games each", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _absolute_scale(a: dict, name: str, grid: np.ndarray) -> tuple[float, float]:
    """A heat map's colour range on an absolute scale, so that noise does not paint a trend: 0 to 1 for a
    share or a rate, else from 0 (or the lowest value, when negative) to the highest value."""
    if a["metrics"][name]["kind"] in ("share", "rate"):
        return 0.0, 1.0
    finite = grid[np.isfinite(grid)]
    if finite.size == 0:
        return 0.0, 1.0
    low, high = min(0.0, float(finite.min())), max(0.0, float(finite.max()))
    return (low, high) if high > low else (low, low + 1.0)


def _change_mark(a: dict, name: str, variant: str, table: str) -> str:
    """``" ▲"`` / ``" ▼"`` when the whole-game ``name`` of ``variant`` under ``table`` changed against the
    base (Holm), ``" (base)"`` for the base, else nothing."""
    if variant == a["base"]:
        return " (base)"
    for c in a["comparisons"]:
        if (c["metric"], c["column"], c["variant"], c["table"]) == (name, "", variant, table) and \
                c["against"] == [a["base"], table]:
            if c.get("p_holm") is not None and c["p_holm"] < 0.05:
                return " ▲" if c["difference"]["value"] > 0 else " ▼"
    return ""


def _distribution(a: dict, name: str):
    labels = a["metrics"][name]["labels"]
    tables = [t["name"] for t in a["tables"]]
    fig, axes = _grid(len(tables), 5.5, 3.6)
    variants = list(a["variants"])
    width = 0.8 / len(variants)
    for ax, table in zip(axes, tables):
        for i, variant in enumerate(variants):
            v, lo, hi = _values(a, name, variant, table)
            x = np.arange(len(labels)) + (i - (len(variants) - 1) / 2) * width
            ax.bar(x, np.nan_to_num(v), width, yerr=_errors(v, lo, hi), capsize=2,
                   label=variant)
        _fair_line(ax, a, name, variants)
        ax.set_xticks(np.arange(len(labels)), labels, fontsize=8)
        ax.set_title(f"{table}: {name}", fontsize=9)
        ax.set_ylabel(a["metrics"][name]["unit"])
    handles, legend = axes[0].get_legend_handles_labels()
    fig.legend(handles, legend, loc="lower center", ncol=min(6, len(legend)), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
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
    cells = [(v, t) for v, t in _cells(a) if any(e is not None for e in a["estimates"][name][v][t])]
    if not cells:
        return None
    fig, axes = _grid(len(cells), 4.2, 3.4, sharey=True)
    colours = plt.get_cmap("tab10")
    for ax, (v, t) in zip(axes, cells):
        values = np.nan_to_num(_values(a, name, v, t)[0].reshape(len(rows), len(columns)))
        bottom = np.zeros(len(rows))
        for j, column in enumerate(columns):
            ax.bar(np.arange(len(rows)), values[:, j], bottom=bottom, label=column, color=colours(j))
            bottom += values[:, j]
        ax.set_xticks(np.arange(len(rows)), rows, fontsize=8)
        ax.set_title(f"{v} / {t}", fontsize=9)
    axes[0].set_ylabel(m["unit"])
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(columns), fontsize=8, frameon=False)
    fig.suptitle(f"{name}: {m['definition']}", fontsize=9)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
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
    """The first screen on the terminal: the headline sentence per variant, the judges, then the verdict
    table (intervals at the verdicts' level), the skill share and the skill gap."""
    from rich.console import Console
    from rich.table import Table

    from aerodeck.judge.changed import blind_text
    from aerodeck.judge.report_markdown import fairness_clause, games_needed_line, headline_sentence, judges_line

    a = analysis
    console = Console(file=file, width=None if (file or sys.stdout).isatty() else 140)
    say = lambda text: console.print(text.replace("**", "").replace("`", ""), markup=False, highlight=False)  # noqa: E731
    fair = fairness_clause(a, a["base"])
    if fair:
        say(f"{a['base']} ({a['variants'][a['base']]['label']}), measured by {a['judges'][0]}: {fair}")
    for variant in list(a["variants"])[1:]:
        sentence = headline_sentence(a, variant)
        if sentence:
            say(sentence)
    console.print(judges_line(a), markup=False, highlight=False)
    for b in a.get("blind", []):
        say(blind_text(b))
    needs = games_needed_line(a)
    if needs:
        say(needs)
    table = Table(title=f"{a['title']}: {len(a['comparisons'])} comparisons, {a['games']:,} games each, "
                        f"seed {a['seed']} (intervals at each verdict's Holm level)")
    for col in ("metric", "compared", "against", "values", "difference [interval]", "level", "relative", "r",
                "p (Holm)", "verdict", "judges"):
        table.add_column(col, overflow="fold")
    for c in main_comparisons(a):
        mine, theirs, d = comparison_values(a, c)
        table.add_row(comparison_name(c), f"{c['variant']} / {c['table']}", " / ".join(c["against"]),
                      f"{number(mine and mine['value'])} vs {number(theirs and theirs['value'])}",
                      level_interval(c), level_text(c.get("level")), relative_text(a, c, theirs),
                      correlation_text(d), p_text(c["p_holm"]), c["verdict"], c.get("agree_text", "–"))
    console.print(table)
    others = len(a["comparisons"]) - len(main_comparisons(a))
    if others:
        console.print(f"({others} comparisons under the other tables: report.md's appendix)")
    for f in a["fair"]:
        if f["p_holm"] < 0.05:
            console.print(f"{f['metric']} {f['column']} under {f['variant']} / {f['table']}: {number(f['test']['value'])} "
                          f"[{number(f['test']['low'])}, {number(f['test']['high'])}], {f['verdict']} "
                          f"{number(f['test']['against'], 3)}")
    for name, aa in a["aa"].items():
        console.print(f"A/A check, {name}: {aa['changes']} of {aa['comparisons']} comparisons found a change before "
                      f"Holm, {aa['changes_holm']} after (all false)")
    skill = a.get("skill_share") or {}
    for variant, e in skill.get("estimates", {}).items():
        d = skill["differences"].get(variant)
        console.print(f"skill share, {variant}: {interval(e)}" + (f"; against the base: {d['verdict']}" if d else ""),
                      markup=False, highlight=False)
    for variant, g in a["skill_gap"].items():
        console.print(f"skill gap, {variant}: {interval(g)} ({g['what']})")
    for name, v in a["variants"].items():
        if v["deal"]:
            console.print(f"{name}: {v['deal']}, still paired game by game")
    changed = a.get("changed")
    if changed is not None:
        for k in changed["counts"]:
            say(f"games that changed, {k['variant']} / {k['table']}: {k['changed']:,} of {k['games']:,} changed outcome, "
                f"{k['identical']:,} played with the same decisions")
        for r in changed["rows"][:5]:
            say(f"  {r['rank']}. {r['variant']} / {r['table']} game {r['game']}: score {r['base_score']} → "
                f"{r['variant_score']}" + (f", winners {r['base_winners']} → {r['variant_winners']}" if r["base_winners"]
                                           or r["variant_winners"] else "")
                + (f", split at decision {r['split_decision']}" if r["split_decision"] else ", same decisions")
                + f" (aerodeck replay OUT --changed {r['rank']})")
        if len(changed["rows"]) > 5:
            say(f"  … {len(changed['rows']) - 5:,} more in changed.csv")
