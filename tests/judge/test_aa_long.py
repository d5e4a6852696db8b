"""The A/A check at scale (``pytest -m long``): hundreds of compares of a game's base rules against a copy
of them played on other seeds, through the same analysis as ``aerodeck compare``. Every change found is
false, so the share of tests that find one estimates the false-change rate per test (about 5 % before
Holm), the share of runs with any change after Holm the false-change rate per family (at most 5 %), and
the share of runs where the judges "disagree" the false-disagreement rate of the judge-difference tests
(at most 5 %); each is reported with its Wilson interval. Every run also checks that no verdict sits
beside an interval (at the verdict's level) that contradicts it.

``AERODECK_AA_RUNS`` (default 200) sets the runs per game, ``AERODECK_AA_GAMES`` (default 200) the games
per cell, ``AERODECK_AA_OUT`` a JSON file for the figures (docs/designers.md quotes them).
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from aerodeck import envs
from tests.games import MULTI, SOLO
from aerodeck.stats.estimates import proportion_ci
from aerodeck.judge.analysis import ALPHA, analyse
from aerodeck.arena.backends import LocalBackend
from aerodeck.judge.compare import Question, assemble_variants, copy_offsets, make_tables, play

RUNS = int(os.environ.get("AERODECK_AA_RUNS", "200"))
GAMES = int(os.environ.get("AERODECK_AA_GAMES", "200"))
#: The games: a built-in solo game and a built-in multi-player game.
GAMES_CHECKED = (SOLO, MULTI)


def setup(spec) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A game's compared metrics (its headline metrics, the catalogue's compared-by-default ones, a rate) and
    its two judges (the catalogue's default agents: a strong one and random)."""
    cat = spec.catalogue()
    rates = [m.name for m in cat.metrics if m.kind == "rate" and m.width == 1][:1]
    metrics = tuple(dict.fromkeys([*spec.headline, *[m.name for m in cat.headline()], *rates]))
    return metrics, tuple(cat.default_agents[:2])


def contradicts(c: dict) -> bool:
    """Whether a tested verdict and its interval at the verdict's level disagree."""
    at = c["interval"]
    excludes = at["low"] > 0 or at["high"] < 0
    return excludes != (c["p_holm"] < ALPHA)


def aa_figures(game: str, runs: int, games: int) -> dict:
    """``runs`` A/A compares of ``game`` (seeds 0 … runs−1, ``games`` games per cell): counts and rates."""
    spec = envs.spec(game)
    metrics, agents = setup(spec)
    variants = assemble_variants([("copy", spec.rules_class()())], spec.rules_class(), allow_identical=True)
    tables = make_tables(game, list(agents), list(agents))
    backend = LocalBackend()
    tests = raw = holm = families = contradictions = verdicts = 0
    judge_tests = judge_found = judge_families = 0
    for seed in range(runs):
        q = Question(game, variants, tables, games, seed, metrics, offsets=copy_offsets(variants, games))
        a = analyse(q, play(q, backend, progress=False))
        mine = [c for c in a["comparisons"] if c["variant"] == "copy" and c["p_holm"] is not None]
        tests += len(mine)
        raw += sum(c["difference"]["p_value"] < ALPHA for c in mine)
        found = sum(c["p_holm"] < ALPHA for c in mine)
        holm += found
        families += found > 0
        every = [c for c in a["comparisons"] if c["p_holm"] is not None]
        verdicts += len(every)
        contradictions += sum(contradicts(c) for c in every)
        jt = [t for t in a["judge_tests"] if t["variant"] == "copy" and t["p_holm"] is not None]
        judge_tests += len(jt)
        judge_found += sum(t["p_holm"] < ALPHA for t in jt)
        judge_families += bool(a["disagreements"])

    def rate(k: int, n: int) -> dict:
        e = proportion_ci(k, n)
        return {"count": int(k), "of": int(n), "rate": e.value, "low": e.low, "high": e.high}

    return {"game": game, "runs": runs, "games_per_cell": games, "metrics": list(metrics), "judges": list(agents),
            "tests_per_run": tests / runs,
            "per_test_before_holm": rate(raw, tests), "per_test_after_holm": rate(holm, tests),
            "per_family": rate(families, runs),
            "judge_tests_per_run": judge_tests / runs, "judge_per_test": rate(judge_found, judge_tests),
            "judge_per_family": rate(judge_families, runs),
            "verdicts_checked": verdicts, "interval_contradicts_verdict": contradictions}


@pytest.mark.long
@pytest.mark.parametrize("spec", GAMES_CHECKED, ids=lambda s: s.id)
def test_the_aa_false_change_rate_per_test_and_per_family(spec):
    game = spec.id
    figures = aa_figures(game, RUNS, GAMES)
    where = os.environ.get("AERODECK_AA_OUT")
    if where:
        path = f"{where}.{game}.json"
        with open(path, "w", encoding="utf-8") as f:
            json.dump(figures, f, indent=1)
    print(json.dumps(figures))
    assert figures["interval_contradicts_verdict"] == 0
    slack = 3 * np.sqrt(0.05 * 0.95 / RUNS)
    assert figures["per_family"]["rate"] <= 0.05 + slack  # Holm: at most 5 % of runs find any change
    assert figures["judge_per_family"]["rate"] <= 0.05 + slack
    # per test, before Holm: about 5 % (tests of one run are correlated, so a wider band than binomial)
    assert 0.02 <= figures["per_test_before_holm"]["rate"] <= 0.08
