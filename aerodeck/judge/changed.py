"""The games that changed: which games of a comparison came out differently under the variant than under
the base, where the two games split, and how often a judge played exactly the same decisions.

Game i is played on the same seed under every variant (common random numbers), so a judge's game i under
the base and under a variant can be set side by side decision by decision:

- ``aerodeck.arena.trace.Trace`` watches the play (a ``play_games`` observer) and keeps each game's
  decisions — every seat's, in the order the table took them — as a 64-bit hash and a count, and, when
  asked, the actions themselves.
- :func:`identical_shares`: per variant and judge, the games whose decisions were identical under both
  rules (equal hash and count; with the actions kept, equal actions). A judge that played the same in
  nearly every game barely reacts to the rule (:func:`blind_judges`).
- :func:`changed_games`: the games whose outcome (a seat's score or share of the win) differs, the
  largest difference first, each with the first decision where the two games split; ``aerodeck compare
  --save-games changed`` writes them as ``changed.csv`` and pairs of replay files
  (``replays/changed/<variant>--<table>.base.jsonl`` and ``.variant.jsonl``, the same games in the same
  order) that ``aerodeck replay OUT --changed N`` opens side by side from that decision.
"""

from __future__ import annotations

import re

import numpy as np

from aerodeck.arena.trace import identical, split_decisions

#: A judge that played identically under base and variant in at least this share of the games is flagged.
BLIND_SHARE = 0.95
#: The columns of ``changed.csv``.
CSV_COLUMNS = ("rank", "variant", "table", "game", "seed", "base_score", "variant_score", "difference",
               "base_winners", "variant_winners", "split_decision", "base_decisions", "variant_decisions",
               "base_file", "variant_file", "index")
#: What a judge that barely reacts is pointed to when no other judge of the run reacts more.
ADAPTIVE_AGENTS = ("expert", "search")


def _paired_variants(question) -> list[str]:
    """The variants other than the base that play the base's games (not an A/A copy on other seeds)."""
    return [v for v in list(question.variants)[1:] if question.offsets.get(v, 0) == question.offsets.get(question.base, 0)]


def identical_shares(question, cells: dict) -> dict:
    """Per variant and table, how many games the table played with the same decisions under the variant as
    under the base: ``{variant: {table: {"identical": k, "games": G, "share": k / G}}}``."""
    out: dict[str, dict[str, dict]] = {}
    for variant in _paired_variants(question):
        for t in question.tables:
            mine, base = cells[(variant, t.name)].get("trace"), cells[(question.base, t.name)].get("trace")
            if mine is None or base is None:
                continue
            k = int(identical(mine, base).sum())
            out.setdefault(variant, {})[t.name] = {"identical": k, "games": question.games,
                                                   "share": k / question.games if question.games else 0.0}
    return out


def blind_judges(shares: dict, judges: list[str], threshold: float = BLIND_SHARE) -> list[dict]:
    """The judges that played identically under base and variant in at least ``threshold`` of the games,
    per variant, each with ``try``: the run's other judges that reacted more (lower identical share, below
    the threshold), or else the adaptive agents (``ADAPTIVE_AGENTS``) not already judging."""
    out = []
    for variant, tables in shares.items():
        for judge in judges:
            s = tables.get(judge)
            if s is None or s["share"] < threshold:
                continue
            others = [(j, tables[j]["share"]) for j in judges if j != judge and j in tables
                      and tables[j]["share"] < threshold]
            suggest = [f"{j} (identical in {100 * share:.3g} %)" for j, share in sorted(others, key=lambda x: x[1])]
            if not suggest:
                families = {j.partition(":")[0] for j in judges}
                suggest = [f"{a} (--judges {' '.join([*judges, a])})" for a in ADAPTIVE_AGENTS if a not in families]
            out.append({"variant": variant, "table": judge, **s, "try": suggest})
    return out


def blind_text(b: dict) -> str:
    """A flagged judge in words."""
    tip = ("; try " + " or ".join(b["try"])) if b["try"] else ""
    return (f"**{b['table']} barely reacts to the rule** under {b['variant']}: it took the same decisions under "
            f"both rules in {b['identical']:,} of {b['games']:,} games ({100 * b['share']:.3g} %), so its verdicts "
            f"say what the rule does to unchanged play, not how play that adapts to it fares{tip}")


# --- the games that changed -------------------------------------------------------------------------

def _outcome(result: dict) -> tuple[np.ndarray, np.ndarray]:
    """A cell's per-game score and share of the win, float ``(G, n)`` each."""
    return np.asarray(result["outcome"]["score"], float), np.asarray(result["outcome"]["win_share"], float)


def _seats(x: np.ndarray) -> str:
    return " ".join(f"{v:g}" for v in x)


def file_stem(variant: str, table: str) -> str:
    """The name of a pair of changed-game replay files (``<variant>--<table>``, file-safe)."""
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", f"{variant}--{table}")


def changed_games(question, cells: dict, limit: int | None = None) -> tuple[list[dict], dict]:
    """The games whose outcome differs between the base and each variant under each judge: per (variant,
    judge) the games where a seat's score or share of the win differs, the largest difference first (solo:
    the score's; multi-player: the shares of the win that moved, then the scores), at most ``limit`` each;
    each row with the first decision where the two games split (0: the same decisions, the rule alone
    changed the outcome). Returns the rows (``CSV_COLUMNS``) and, per (variant, judge), the counts
    ``{"changed", "games", "identical"}``. Needs the cells played with the actions kept."""
    from aerodeck.arena.loop import game_seeds

    judges = [t.name for t in question.judge_tables()]
    cells_of = {(c.variant, c.table): c for c in question.cells()}
    seeds = game_seeds(question.seed, question.games, question.offsets.get(question.base, 0))
    rows, counts = [], {}
    solo = question.players(question.base) == 1
    for variant in _paired_variants(question):
        for table in judges:
            base, mine = cells[(question.base, table)], cells[(variant, table)]
            if "actions" not in base.get("trace", {}) or "actions" not in mine.get("trace", {}):
                continue
            (bs, bw), (vs, vw) = _outcome(base), _outcome(mine)
            same_shape = bs.shape == vs.shape
            if same_shape:
                differs = np.any(bs != vs, axis=1) | np.any(bw != vw, axis=1)
                size = (np.abs(vw - bw).sum(axis=1), np.abs(vs - bs).sum(axis=1))
            else:  # another player count: every game differs; by the score's spread
                differs = np.ones(question.games, bool)
                size = (np.zeros(question.games), np.abs(vs.max(axis=1) - bs.max(axis=1)))
            split = split_decisions(base["trace"], mine["trace"])
            order = sorted(np.flatnonzero(differs), key=lambda i: (-size[0][i], -size[1][i], i))
            counts[f"{variant} / {table}"] = {"variant": variant, "table": table, "changed": int(differs.sum()),
                                              "games": question.games, "identical": int((split == 0).sum())}
            stem = file_stem(variant, table)
            for index, i in enumerate(order[:limit] if limit is not None else order):
                diff = float(vs[i, 0] - bs[i, 0]) if solo else float(size[0][i])
                rows.append({"variant": variant, "table": table, "game": int(i), "seed": int(seeds[i]),
                             "base_score": _seats(bs[i]), "variant_score": _seats(vs[i]), "difference": diff,
                             "base_winners": "" if solo else " ".join(str(s) for s in np.flatnonzero(bw[i] > 0)),
                             "variant_winners": "" if solo else " ".join(str(s) for s in np.flatnonzero(vw[i] > 0)),
                             "split_decision": int(split[i]), "base_decisions": int(base["trace"]["length"][i]),
                             "variant_decisions": int(mine["trace"]["length"][i]),
                             "base_file": f"replays/changed/{stem}.base.jsonl",
                             "variant_file": f"replays/changed/{stem}.variant.jsonl", "index": index,
                             "_cells": (cells_of[(question.base, table)], cells_of[(variant, table)])})
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return rows, counts


def write_changed(folder, question, cells: dict, rows: list[dict], source: str) -> None:
    """The replay files of the changed games (``rows`` of :func:`changed_games`): per (variant, judge) the
    base's games and the variant's, in the rows' order, each file under its own rules."""
    from pathlib import Path

    from aerodeck import envs
    from aerodeck.arena.backends import lineups_of
    from aerodeck.arena.replays import GameRecord, play_back, write

    spec = envs.spec(question.game)
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["variant"], row["table"]), []).append(row)
    for (variant, table), mine in groups.items():
        for side, name in (("base", question.base), ("variant", variant)):
            cell = mine[0]["_cells"][0 if side == "base" else 1]
            rules = question.variants[name]
            trace = cells[(name, table)]["trace"]
            n = spec.players(rules)
            games = []
            for row in mine:
                i = row["game"]
                lineup = lineups_of(cell, n, i, 1)[0]
                actions = [int(x) for x in trace["actions"][i, : trace["length"][i]]]
                games.append(GameRecord(seed=row["seed"], agents=[cell.agents[a] for a in lineup], actions=actions,
                                        result={}, game=question.offsets.get(name, 0) + i))
            for record, result in zip(games, play_back(spec, rules, [(g.seed, g.actions) for g in games])):
                record.result = result
            write(Path(folder) / mine[0][f"{side}_file"], question.game, rules, games,
                  source=f"{source} (changed games, {side})")


def public(rows: list[dict]) -> list[dict]:
    """The rows without their private fields (for results.json and changed.csv)."""
    return [{k: row[k] for k in CSV_COLUMNS} for row in rows]


def csv_text(rows: list[dict]) -> str:
    """``changed.csv``."""
    import csv
    import io

    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in public(rows):
        writer.writerow({k: (f"{v:g}" if isinstance(v, float) else v) for k, v in row.items()})
    return buf.getvalue()


def read_csv(path) -> list[dict]:
    """The rows of a ``changed.csv`` (``ValueError`` naming the file when it is not one)."""
    import csv
    from pathlib import Path

    path = Path(path)
    try:
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
    except FileNotFoundError:
        raise ValueError(f"{str(path)!r} does not exist (aerodeck compare --save-games changed writes it)") from None
    if rows and not set(CSV_COLUMNS) <= set(rows[0]):
        raise ValueError(f"{str(path)!r} is not a changed-games list (columns {', '.join(CSV_COLUMNS)})")
    return rows
