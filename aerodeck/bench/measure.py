"""The benchmark's data files: the rules-generalization split (``aerodeck tasks --split``) and the
reference scores (``aerodeck tasks --measure``), shipped in ``aerodeck/bench/data/``.

The split: per game, the variant space of its rule-general model (the ``[variants] ranges`` of the
game's ``general.toml``: the options one policy can read, over the task's base rules) is drawn once by
``VariantSpace.draw`` under a fixed key (:func:`split_key`), distinct variants other than the base
rules in draw order, the first :data:`TRAIN_VARIANTS` for training and the next :data:`TEST_VARIANTS`
held out. The command that wrote the file rewrites it identically.

The references: random and heuristic play every task's full evaluation (``eval_games`` deals, seed 0),
the search its first :data:`SEARCH_GAMES` deals (its cost per game is hundreds of times the
heuristic's); a rules-generalization task gets random and heuristic per held-out variant.
"""

from __future__ import annotations

import json
import time
import tomllib

from aerodeck import envs
from aerodeck.bench import tasks as T

#: Variants of each split: trained on, held out.
TRAIN_VARIANTS, TEST_VARIANTS = 16, 8
#: Evaluation deals the search reference plays per game (the first of the task's).
SEARCH_GAMES = {"airport-scramble": 100, "flight-tycoon": 240}
#: The base rules of each game's split.
SPLIT_BASE = {"as-general-v0": {}, "ft4-general-v0": {"n_players": 4}}


def split_key(name: str) -> int:
    """The key the split of task ``name`` is drawn under."""
    return T.task_key(name + "/split") % 2**63


def split(name: str) -> dict:
    """The split of rules-generalization task ``name``: ``{"space": VariantSpace.to_dict(), "key": int,
    "train": [options that differ from the base], "test": [...]}``."""
    from aerodeck.agents.variants import VariantSpace

    game = T.GENERAL[name][0]
    spec = envs.spec(game)
    ranges = tomllib.loads(spec.general_config_path().read_text())["variants"]["ranges"]
    base = spec.make_rules(**SPLIT_BASE[name])
    space = VariantSpace(spec, ranges, base)
    key = split_key(name)
    seen, drawn = {base.label()}, []
    index = 0
    while len(drawn) < TRAIN_VARIANTS + TEST_VARIANTS:
        rules = space.draw(key, index)
        index += 1
        if rules.label() not in seen:
            seen.add(rules.label())
            drawn.append({k: list(v) if isinstance(v, tuple) else v for k, v in rules.to_dict().items()
                          if v != base.to_dict()[k]})
    return {"space": space.to_dict(), "key": key, "draws": index,
            "train": drawn[:TRAIN_VARIANTS], "test": drawn[TRAIN_VARIANTS:]}


def write_splits(path=None) -> dict:
    """Draw every rules-generalization split and write them to ``path`` (default the shipped file)."""
    path = path or T.VARIANTS_FILE
    data = {name: split(name) for name in T.GENERAL}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, default=list) + "\n")
    T.reload()
    return data


def _figures(ev) -> dict:
    return {"mean": ev.raw.value, "low": ev.raw.low, "high": ev.raw.high, "games": ev.raw.n}


def measure_task(task, search: bool = True, say=print) -> dict:
    """The reference scores of ``task`` (see the module docstring), each with its interval, games and seconds."""
    from aerodeck.bench.evaluate import play
    from aerodeck.agents.registry import make_agent

    out: dict = {"eval_games": task.eval_games}
    if task.general:
        seeds = task.eval_seeds()
        rows = []
        for rules in task.test_variants:
            row = {"rules": rules.changes()}
            for name in ("random", "heuristic"):
                began = time.perf_counter()
                scores = play(task, rules, make_agent(task.game, name, rules, seed=0), seeds)
                row[name] = float(scores.mean())
                row[f"{name}_interval"] = [T.mean_interval(scores).low, T.mean_interval(scores).high]
                row[f"{name}_seconds"] = time.perf_counter() - began
            rows.append(row)
            say(f"{task.name} {rules.label()}: random {row['random']:.3f}, heuristic {row['heuristic']:.3f}")
        out["variants"] = rows
        out["random"] = sum(r["random"] for r in rows) / len(rows)
        out["heuristic"] = sum(r["heuristic"] for r in rows) / len(rows)
        out["search"] = None
        out["search_note"] = "not measured: the search costs hundreds of heuristic games per game, on every variant"
        return out
    for name in ("random", "heuristic"):
        began = time.perf_counter()
        ev = task.evaluate(name, seed=0)
        out[name] = ev.raw.value
        out[f"{name}_interval"] = [ev.raw.low, ev.raw.high]
        out[f"{name}_seconds"] = time.perf_counter() - began
        say(f"{task.name}: {name} {ev.raw} over {ev.games} games in {out[f'{name}_seconds']:.1f} s")
    if search:
        games = SEARCH_GAMES[task.game]
        began = time.perf_counter()
        ev = task.evaluate("search", games=games, seed=0, batch_size=games)
        out["search"] = ev.raw.value
        out["search_interval"] = [ev.raw.low, ev.raw.high]
        out["search_games"] = games
        out["search_seconds"] = time.perf_counter() - began
        say(f"{task.name}: search {ev.raw} over {games} games in {out['search_seconds']:.1f} s")
    else:
        out["search"] = None
    return out


def write_references(names=None, search: bool = True, path=None, say=print) -> dict:
    """Measure the tasks ``names`` (default all) and write every task's references to ``path`` (default
    the shipped file; tasks not measured now keep what the file held)."""
    path = path or T.REFERENCE_FILE
    data = T._read(path)
    for name in names or T.names():
        data[name] = measure_task(T.task(name), search=search, say=say)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({k: data[k] for k in T.names() if k in data}, indent=1) + "\n")
    T.reload()
    return data
