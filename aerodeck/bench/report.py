"""Report files and tables of ``aerodeck bench``: JSON, the per-game CSV, PNG plots, rich tables.

Everything here writes into the folder it is given (a run's temporary folder,
:class:`aerodeck.arena.output.OutputFolder`); a bench result says whether it is a solo game (``players`` 1:
scores on the same deals) or a tournament, so no game is named here.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from rich.console import Group  # noqa: E402
from rich.table import Table  # noqa: E402

#: At most this many games get a row in ``games.csv`` (the first ones); every figure in
#: ``results.json`` uses every game.
CSV_GAMES = 1_000_000


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def json_text(data) -> str:
    """``data`` as indented JSON (numpy scalars as numbers)."""
    return json.dumps(data, indent=2, default=_json_default) + "\n"


def write_bench(folder: Path, result: dict) -> None:
    """``results.json`` and the plots of a bench result (``games.csv`` is written while playing)."""
    (folder / "results.json").write_text(json_text(result), encoding="utf-8")
    if result["players"] == 1:
        _save(folder / "scores.png", _score_plot(result))
    else:
        _save(folder / "win_rates.png", _win_plot(result))
        _save(folder / "head_to_head.png", _h2h_plot(result))
    if result.get("tallies"):
        _save(folder / "tallies.png", _tally_plot(result))


def _save(path: Path, fig: plt.Figure) -> None:
    try:
        fig.savefig(path, format="png", dpi=110, bbox_inches="tight")
    finally:
        plt.close(fig)


def _score_plot(result: dict) -> plt.Figure:
    names = list(result["agents"])
    fig, (dist, means) = plt.subplots(1, 2, figsize=(11, 4))
    width = 0.8 / len(names)
    for k, name in enumerate(names):
        a = result["agents"][name]
        values = np.array([float(v) for v in a["score_distribution"]])
        counts = np.array(list(a["score_distribution"].values()), dtype=float)
        dist.bar(values + (k - (len(names) - 1) / 2) * width, counts / a["games"], width=width, alpha=0.8, label=name)
    dist.set_xlabel("score")
    dist.set_ylabel("share of games")
    dist.set_title("Score distribution")
    dist.legend()
    est = [result["agents"][n]["mean_score"] for n in names]
    values = [e["value"] for e in est]
    errors = [[e["value"] - e["low"] for e in est], [e["high"] - e["value"] for e in est]]
    means.bar(names, values, yerr=errors, capsize=6, color="tab:blue", alpha=0.8)
    means.set_ylabel("mean score (95% CI)")
    means.set_title(f"{result['title']}, {result['games']} games, rules: {result['rules_label']}")
    return fig


def _win_plot(result: dict) -> plt.Figure:
    names = list(result["agents"])
    est = [result["agents"][n]["win_rate"] for n in names]
    fig, ax = plt.subplots(figsize=(6 + len(names), 4))
    ax.bar(names, [e["value"] for e in est], capsize=6, color="tab:green", alpha=0.8,
           yerr=[[e["value"] - e["low"] for e in est], [e["high"] - e["value"] for e in est]])
    ax.axhline(1.0 / result["players"], color="grey", linestyle="--", label="fair share")
    ax.set_ylabel("win rate per seat (95% CI)")
    ax.set_title(f"{result['title']}, {result['players']} players, {result['games']} games, "
                 f"rules: {result['rules_label']}")
    ax.legend()
    return fig


def _h2h_plot(result: dict) -> plt.Figure:
    h2h = result["head_to_head"]
    names = h2h["agents"]
    grid = np.array(h2h["ahead_rate"], dtype=float)
    grid[grid < 0] = np.nan
    fig, ax = plt.subplots(figsize=(2 + 1.2 * len(names), 1.5 + 1.0 * len(names)))
    image = ax.imshow(grid, vmin=0, vmax=1, cmap="RdYlGn")
    ax.set_xticks(range(len(names)), names)
    ax.set_yticks(range(len(names)), names)
    for i in range(len(names)):
        for j in range(len(names)):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center")
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    ax.set_title("P(agent finishes ahead of opponent)")
    fig.colorbar(image, ax=ax)
    return fig


def _tally_plot(result: dict) -> plt.Figure:
    groups = result["tallies"]
    fig, axes = plt.subplots(len(groups), 1, figsize=(12, 3.5 * len(groups)), squeeze=False)
    for ax, (group, items) in zip(axes[:, 0], groups.items()):
        ax.bar(list(items), list(items.values()), color="tab:purple", alpha=0.8)
        ax.set_ylabel("mean per game")
        ax.set_title(f"{group}: {sum(items.values()):.3g} per game, rules: {result['rules_label']}")
        ax.tick_params(axis="x", labelrotation=60 if len(items) > 6 else 0)
    fig.tight_layout()
    return fig


def tally_line(group: str, items: dict[str, float]) -> str:
    """One line on a tally group (mean per game of each item): all items if few, else the total and
    the most and least frequent."""
    ranked = sorted(items.items(), key=lambda kv: -kv[1])

    def listed(pairs):
        return ", ".join(f"{name} {x:.3g}" for name, x in pairs)

    if len(ranked) <= 4:
        return f"{group} (mean per game): {listed(ranked)}."
    return (f"{group} (mean per game): {sum(items.values()):.3g} in all; most {listed(ranked[:3])}; "
            f"least {listed(ranked[-2:])}.")


def p_text(p: float | None, note: str | None = None) -> str:
    """A p-value for a table: two significant digits; one at the floor (1e-300, an underflow) reads
    "<1e-300"; no p-value reads its note ("too few games: N")."""
    if p is None:
        return note or "–"
    return f"{p:.2g}" if p > 1e-300 else "<1e-300"


def bench_table(result: dict) -> Group:
    """Rich tables summarising a bench result: one row per agent, the pairwise comparisons, the tallies."""
    tallies = [tally_line(g, items) for g, items in result.get("tallies", {}).items()]
    if result["players"] == 1:
        table = Table(title=f"{result['title']} — rules: {result['rules_label']}, seed {result['seed']}")
        for col in ("agent", "games", "mean score", "95% CI", "max", "games/s"):
            table.add_column(col, justify="right" if col != "agent" else "left")
        for name, a in result["agents"].items():
            m = a["mean_score"]
            table.add_row(name, str(a["games"]), f"{m['value']:.3f}", f"[{m['low']:.3f}, {m['high']:.3f}]",
                          f"{max(map(float, a['score_distribution'])):g}", f"{a['games_per_second']:,.0f}")
        pairs = Table(title="Paired differences (same deals)")
        for col in ("agent", "versus", "games", "mean score difference", "95% CI", "p"):
            pairs.add_column(col, justify="right" if col not in ("agent", "versus") else "left")
        for c in result["comparisons"]:
            d = c["mean_score_difference"]
            pairs.add_row(c["agent"], c["versus"], str(d["n"]), f"{d['value']:+.3f}",
                          f"[{d['low']:+.3f}, {d['high']:+.3f}]", p_text(d.get('p_value'), d.get('note')))
        return Group(table, *([pairs] if result["comparisons"] else []), *tallies)
    table = Table(title=f"{result['title']} — {result['players']} players, {result['games']} games (seat-rotated), "
                        f"rules: {result['rules_label']}, seed {result['seed']}")
    for col in ("agent", "seats", "win rate", "95% CI", "mean score", "rating μ ± σ"):
        table.add_column(col, justify="right" if col != "agent" else "left")
    for name, a in result["agents"].items():
        w = a["win_rate"]
        table.add_row(name, str(a["seats_played"]), f"{w['value']:.3f}", f"[{w['low']:.3f}, {w['high']:.3f}]",
                      f"{a['mean_score']['value']:.1f}", f"{a['rating']['mu']:.1f} ± {a['rating']['sigma']:.1f}")
    pairs = Table(title="Head to head: P(agent finishes ahead of opponent), games with both")
    for col in ("agent", "versus", "games", "ahead rate", "95% CI", "p (vs 0.5)"):
        pairs.add_column(col, justify="right" if col not in ("agent", "versus") else "left")
    for c in result["comparisons"]:
        d = c["ahead_rate"]
        pairs.add_row(c["agent"], c["versus"], str(d["n"]), f"{d['value']:.3f}",
                      f"[{d['low']:.3f}, {d['high']:.3f}]", p_text(d.get('p_value'), d.get('note')))
    return Group(table, *([pairs] if result["comparisons"] else []), *tallies)
