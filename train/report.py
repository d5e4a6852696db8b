"""Report files and tables for the tools: JSON, CSV and PNG plots written atomically, rich tables.

Files are first written as ``<name>.tmp`` in the output folder and renamed only once every file is
complete, so an interrupted run never leaves a half-written report behind.
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import json
import os
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from rich.console import Group  # noqa: E402
from rich.table import Table  # noqa: E402


def check_output_folder(out: Path) -> None:
    """Refuse, before any long work, an output folder that cannot be made or written (``ValueError``)."""
    out = Path(out)
    existing = next(p for p in (out, *out.parents) if p.exists())
    if not existing.is_dir():
        raise ValueError(f"output folder {str(out)!r}: {str(existing)!r} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(f"output folder {str(out)!r}: {str(existing)!r} is not writable")


def write_files(out: Path, files: dict[str, Callable[[Path], None]]) -> None:
    """Write ``files`` (name → writer taking a path) into folder ``out`` all-or-nothing."""
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    written: list[tuple[Path, Path]] = []
    try:
        for name, writer in files.items():
            tmp = out / f"{name}.tmp"
            written.append((tmp, out / name))
            writer(tmp)
    except BaseException:
        for tmp, _ in written:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
        if created:
            with contextlib.suppress(OSError):
                out.rmdir()
        raise
    for tmp, final in written:
        os.replace(tmp, final)


def _json_writer(data) -> Callable[[Path], None]:
    def default(value):
        if isinstance(value, np.generic):
            return value.item()
        raise TypeError(f"{type(value).__name__} is not JSON serializable")

    return lambda path: path.write_text(json.dumps(data, indent=2, default=default) + "\n", encoding="utf-8")


def _csv_writer(header: list[str], rows) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(header)
        w.writerows(rows)
        path.write_text(buf.getvalue(), encoding="utf-8")

    return write


def _figure_writer(draw: Callable[[], plt.Figure]) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        fig = draw()
        try:
            fig.savefig(path, format="png", dpi=110, bbox_inches="tight")
        finally:
            plt.close(fig)

    return write


# --- aerodeck bench ---------------------------------------------------------------------------------

def write_bench(out: Path, result: dict) -> None:
    """``results.json``, ``games.csv`` and the plots of a bench result (see ``train.bench``)."""
    per_game = result["per_game"]
    summary = {k: v for k, v in result.items() if k != "per_game"}
    files: dict[str, Callable[[Path], None]] = {"results.json": _json_writer(summary)}
    names = list(result["agents"])
    if result["game"] == "airport-scramble":
        rows = itertools.zip_longest(per_game["seed"], *(per_game[n] for n in names), fillvalue="")
        files["games.csv"] = _csv_writer(["seed", *names], rows)
        files["scores.png"] = _figure_writer(lambda: _score_plot(result, per_game))
    else:
        n = result["players"]
        rows = (
            [seed, *[names[a] for a in lineup], *vp, *share]
            for seed, lineup, vp, share in zip(per_game["seed"], per_game["lineup"], per_game["vp"], per_game["win_share"])
        )
        header = ["seed", *[f"seat{s}_agent" for s in range(n)], *[f"seat{s}_vp" for s in range(n)],
                  *[f"seat{s}_win_share" for s in range(n)]]
        files["games.csv"] = _csv_writer(header, rows)
        files["win_rates.png"] = _figure_writer(lambda: _win_plot(result))
        files["head_to_head.png"] = _figure_writer(lambda: _h2h_plot(result))
        files["landings.png"] = _figure_writer(lambda: _landing_plot(result))
    write_files(out, files)


def _score_plot(result: dict, per_game: dict) -> plt.Figure:
    names = list(result["agents"])
    fig, (dist, means) = plt.subplots(1, 2, figsize=(11, 4))
    top = max(max(per_game[n]) for n in names)
    bins = np.arange(top + 2) - 0.5
    for name in names:
        dist.hist(per_game[name], bins=bins, alpha=0.55, label=name, density=True)
    dist.set_xlabel("score (tickets completed)")
    dist.set_ylabel("share of games")
    dist.set_title("Score distribution")
    dist.legend()
    est = [result["agents"][n]["mean_score"] for n in names]
    values = [e["value"] for e in est]
    errors = [[e["value"] - e["low"] for e in est], [e["high"] - e["value"] for e in est]]
    means.bar(names, values, yerr=errors, capsize=6, color="tab:blue", alpha=0.8)
    means.set_ylabel("mean score (95% CI)")
    means.set_title(f"Airport Scramble, {result['games']} games, rules: {result['rules_label']}")
    return fig


def _win_plot(result: dict) -> plt.Figure:
    names = list(result["agents"])
    est = [result["agents"][n]["win_rate"] for n in names]
    fig, ax = plt.subplots(figsize=(6 + len(names), 4))
    ax.bar(names, [e["value"] for e in est], capsize=6, color="tab:green", alpha=0.8,
           yerr=[[e["value"] - e["low"] for e in est], [e["high"] - e["value"] for e in est]])
    ax.axhline(1.0 / result["players"], color="grey", linestyle="--", label="fair share")
    ax.set_ylabel("win rate per seat (95% CI)")
    ax.set_title(f"Flight Tycoon, {result['players']} players, {result['games']} games, rules: {result['rules_label']}")
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


def _landing_plot(result: dict) -> plt.Figure:
    share = result["landing_share"]
    fig, ax = plt.subplots(figsize=(12, 4))
    ax.bar(list(share), [100 * x for x in share.values()], color="tab:purple", alpha=0.8)
    ax.set_ylabel("share of all landings (%)")
    ax.set_title(f"Where the planes landed: {result['landings_per_game']:.1f} landings per game, "
                 f"rules: {result['rules_label']}")
    ax.tick_params(axis="x", labelrotation=60)
    return fig


def landing_line(result: dict) -> str:
    """One line on the schedule map's use and how Flight Tycoon games ended (from a bench result)."""
    share = sorted(result["landing_share"].items(), key=lambda kv: -kv[1])
    ended = result["ended_by"]

    def listed(items):
        return ", ".join(f"{name} {x:.1%}" for name, x in items)

    return (f"Landings per game {result['landings_per_game']:.1f}; games ended by an empty stock "
            f"{ended['empty_stock']:.1%}, by an empty deck {ended['empty_deck']:.1%}. Most used squares: "
            f"{listed(share[:3])}; least: {listed(share[-2:])}.")


def p_text(p: float) -> str:
    """A p-value for a table: two significant digits; one that underflowed to 0 reads "<1e-300"."""
    return f"{p:.2g}" if p > 0 else "<1e-300"


def bench_table(result: dict) -> Group:
    """Rich tables summarising a bench result: one row per agent, then the pairwise comparisons."""
    if result["game"] == "airport-scramble":
        table = Table(title=f"Airport Scramble — rules: {result['rules_label']}, seed {result['seed']}")
        for col in ("agent", "games", "mean score", "95% CI", "max", "games/s"):
            table.add_column(col, justify="right" if col != "agent" else "left")
        for name, a in result["agents"].items():
            m = a["mean_score"]
            table.add_row(name, str(a["games"]), f"{m['value']:.3f}", f"[{m['low']:.3f}, {m['high']:.3f}]",
                          str(max(map(int, a["score_distribution"]))), f"{a['games_per_second']:,.0f}")
        pairs = Table(title="Paired differences (same deals)")
        for col in ("agent", "versus", "games", "mean score difference", "95% CI", "p"):
            pairs.add_column(col, justify="right" if col not in ("agent", "versus") else "left")
        for c in result["comparisons"]:
            d = c["mean_score_difference"]
            pairs.add_row(c["agent"], c["versus"], str(d["n"]), f"{d['value']:+.3f}",
                          f"[{d['low']:+.3f}, {d['high']:+.3f}]", p_text(d['p_value']))
        return Group(table, pairs) if result["comparisons"] else Group(table)
    table = Table(title=f"Flight Tycoon — {result['players']} players, {result['games']} games (seat-rotated), "
                        f"rules: {result['rules_label']}, seed {result['seed']}")
    for col in ("agent", "seats", "win rate", "95% CI", "mean VP", "rating μ ± σ"):
        table.add_column(col, justify="right" if col != "agent" else "left")
    for name, a in result["agents"].items():
        w = a["win_rate"]
        table.add_row(name, str(a["seats_played"]), f"{w['value']:.3f}", f"[{w['low']:.3f}, {w['high']:.3f}]",
                      f"{a['mean_vp']['value']:.1f}", f"{a['rating']['mu']:.1f} ± {a['rating']['sigma']:.1f}")
    pairs = Table(title="Head to head: P(agent finishes ahead of opponent), games with both")
    for col in ("agent", "versus", "games", "ahead rate", "95% CI", "p (vs 0.5)"):
        pairs.add_column(col, justify="right" if col not in ("agent", "versus") else "left")
    for c in result["comparisons"]:
        d = c["ahead_rate"]
        pairs.add_row(c["agent"], c["versus"], str(d["n"]), f"{d['value']:.3f}",
                      f"[{d['low']:.3f}, {d['high']:.3f}]", p_text(d['p_value']))
    return Group(table, *([pairs] if result["comparisons"] else []), landing_line(result))
