"""The benchmark's data files: the rules-generalization split (``aerodeck tasks --split``) and the
reference scores (``aerodeck tasks --measure``), shipped in ``aerodeck/bench/data/``.

The split: per game, the variant space of its rule-general model (the ``[variants] ranges`` of the
game's ``general.toml``: the options one policy can read, over the task's base rules) is drawn once by
``VariantSpace.draw`` under a fixed key (:func:`split_key`), distinct variants other than the base
rules in draw order, the first :data:`TRAIN_VARIANTS` for training and the next :data:`TEST_VARIANTS`
held out. The command that wrote the file rewrites it identically.

The references: random and heuristic play every task's full evaluation (``eval_games`` deals) under
:data:`REFERENCE_SEEDS` agent seeds (0, 1, …); a reference is the mean of those runs' means — the agent's
expected score on these deals, its play's noise averaged — with its standard error (the spread of the
seeds' means), which the normalized score's interval carries (``aerodeck.bench.evaluate``). The search
plays the first ``search_games`` deals (the task's, in its game's ``tasks.toml``) once, with seed 0 (its cost per game is hundreds of times the
heuristic's), and the heuristic the same deals beside it (their paired difference). A
rules-generalization task gets random and heuristic per held-out variant.
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
#: Agent seeds the random and heuristic references average over (their play's noise on the fixed deals).
REFERENCE_SEEDS = 20


def split_key(name: str) -> int:
    """The key the split of task ``name`` is drawn under."""
    return T.task_key(name + "/split") % 2**63


def split(name: str) -> dict:
    """The split of rules-generalization task ``name``: ``{"space": VariantSpace.to_dict(), "key": int,
    "train": [options that differ from the base], "test": [...]}``."""
    from aerodeck.agents.variants import VariantSpace

    definition = T.DEFINITIONS[name]  # its base rules: the task's rules in its game's tasks.toml
    spec = envs.spec(definition.game)
    ranges = tomllib.loads(spec.general_config_path().read_text())["variants"]["ranges"]
    base = spec.make_rules(**definition.rules)
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


def _reference(name: str, means, seconds: float) -> dict:
    """A reference from an agent's mean score under each agent seed on the same deals: their mean, its
    standard error (the play's own noise; 0 for an agent that plays alike under every seed) and each seed's."""
    import numpy as np

    means = np.asarray(means, np.float64)
    return {name: float(means.mean()), f"{name}_se": float(means.std(ddof=1) / np.sqrt(means.size)),
            f"{name}_by_seed": means.tolist(), f"{name}_seconds": seconds}


def measure_task(task, search: bool = True, say=print) -> dict:
    """The reference scores of ``task`` (see the module docstring), each with its interval, games and seconds."""
    from aerodeck.bench.evaluate import play
    from aerodeck.agents.registry import make_agent

    out: dict = {"eval_games": task.eval_games, "seeds": REFERENCE_SEEDS}
    if task.general:
        seeds = task.eval_seeds()
        rows = []
        for rules in task.test_variants:
            row = {"rules": rules.changes()}
            for name in ("random", "heuristic"):
                began = time.perf_counter()
                means = [play(task, rules, make_agent(task.game, name, rules, seed=s), seeds).mean()
                         for s in range(REFERENCE_SEEDS)]
                row.update(_reference(name, means, time.perf_counter() - began))
            rows.append(row)
            say(f"{task.name} {rules.label()}: random {row['random']:.4f} ± {row['random_se']:.4f}, "
                f"heuristic {row['heuristic']:.4f} ± {row['heuristic_se']:.4f} (standard errors over "
                f"{REFERENCE_SEEDS} agent seeds, {task.eval_games} deals)")
        out["variants"] = rows
        for name in ("random", "heuristic"):
            out[name] = sum(r[name] for r in rows) / len(rows)
        out["search"] = None
        out["search_note"] = "not measured: the search costs hundreds of heuristic games per game, on every variant"
        return out
    for name in ("random", "heuristic"):
        began = time.perf_counter()
        means = [task.evaluate(name, seed=s).raw.value for s in range(REFERENCE_SEEDS)]
        out.update(_reference(name, means, time.perf_counter() - began))
        say(f"{task.name}: {name} {out[name]:.4f} ± {out[name + '_se']:.4f} (standard error over {REFERENCE_SEEDS} "
            f"agent seeds, {task.eval_games} deals each) in {out[name + '_seconds']:.1f} s")
    if search:
        games = task.search_games
        began = time.perf_counter()
        ev = task.evaluate("search", games=games, seed=0, batch_size=games)
        out["search"] = ev.raw.value
        out["search_interval"] = [ev.raw.low, ev.raw.high]
        out["search_games"] = games
        out["search_seconds"] = time.perf_counter() - began
        # the heuristic on the same deals: the search's paired difference from it
        gap = T.mean_interval(ev.scores - task.evaluate("heuristic", games=games, seed=0).scores)
        out["search_minus_heuristic"] = {"mean": gap.value, "low": gap.low, "high": gap.high, "games": gap.n}
        say(f"{task.name}: search {ev.raw} over {games} games in {out['search_seconds']:.1f} s; "
            f"minus the heuristic on the same deals {gap}")
    else:  # the search figures already measured stay
        kept = T._read(T.REFERENCE_FILE).get(task.name, {})
        out.update({k: v for k, v in kept.items() if k.startswith("search")})
        out.setdefault("search", None)
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
