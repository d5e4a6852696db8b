"""``aerodeck compare / sweep / tune``: determinism, the report, the A/A check, bad input. (A game's own
cases: tests/airport_scramble/test_compare_*.py, test_sweep_grid.py, tests/flight_tycoon/test_compare_*.py.)"""

import csv
import json
import tomllib

import numpy as np
import pytest

from tests.games import MULTI, SOLO
from tests.judge.options import (
    bool_option,
    breakdown,
    changes,
    int_option,
    scalar_means,
    text,
    variant,
)
from aerodeck.cli import main as cli
from aerodeck.stats import significance as sig
from aerodeck.arena.backends import LocalBackend
from aerodeck.judge.compare import Question, Table, assemble_variants, play

QUICK = ["--no-progress", "--agent", "random", "--judges", "random"]
#: An option of the solo game's variants, its default value and another value it takes.
KEY, VALUE = next(iter(changes(SOLO).items()))
DEFAULT = text(getattr(SOLO.make_rules(), KEY))
V = variant(SOLO)


def run(argv, capsys):
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_the_same_seed_writes_the_same_report_and_another_seed_another(tmp_path, capsys):
    argv = ["compare", SOLO.id, "--variant", V, "--games", "30", "--chunk", "13", *QUICK]
    for name in ("a", "b"):
        status, out, err = run([*argv, "--seed", "5", "--out", str(tmp_path / name)], capsys)
        assert status == 0, err
    files = sorted(p.name for p in (tmp_path / "a").iterdir() if p.name != "timings.json")  # wall-clock times
    assert {"report.md", "results.json", "games.csv", "variants.toml", "metrics.png"} <= set(files)
    assert files == sorted(p.name for p in (tmp_path / "b").iterdir() if p.name != "timings.json")
    for f in files:  # every file, the plots included
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    assert "wrote" in out and "report.md" in out
    table = (Table("random", ("random",)),)
    decisions = [play(Question(SOLO.id, {"base": SOLO.make_rules()}, table, 30, seed, ()), LocalBackend(), 13,
                      progress=False)[("base", "random")]["metrics"]["decisions"][0] for seed in (5, 6)]
    assert np.array_equal(decisions[0], json_column(tmp_path / "a", "base", "decisions"))
    assert not np.array_equal(decisions[0], decisions[1])


def json_column(folder, variant: str, metric: str) -> np.ndarray:
    """One variant's per-game values of a metric, from ``games.csv``."""
    rows = csv.DictReader((folder / "games.csv").open())
    return np.array([[float(r[metric])] for r in rows if r["variant"] == variant])


def test_estimates_and_differences_match_the_per_game_values(tmp_path, capsys):
    out = tmp_path / "cmp"
    status, _, err = run(["compare", SOLO.id, "--variant", V, "--games", "50", "--out", str(out),
                          *QUICK, "--metric", "decisions"], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    rows = list(csv.DictReader((out / "games.csv").open()))
    base = np.array([float(r["decisions"]) for r in rows if r["variant"] == "base"])
    variant = np.array([float(r["decisions"]) for r in rows if r["variant"] == "v"])
    est = results["estimates"]["decisions"]["base"]["random"][0]
    assert est["value"] == pytest.approx(base.mean()) and est["n"] == 50
    d = results["comparisons"][0]["difference"]
    assert d["value"] == pytest.approx((variant - base).mean())
    assert d["p_value"] == pytest.approx(sig.paired_difference(variant, base).p_value)


def aa_rejections(rules, games: int, seeds: range, metrics: list[str]) -> tuple[int, list[float]]:
    """The A/A check as ``compare --allow-identical`` runs it: a copy of the base on other seeds (its own
    range of games), paired per metric, Holm over them; returns how many repetitions found any change,
    and every unadjusted p-value."""
    from aerodeck.judge.analysis import analyse
    from aerodeck.judge.compare import copy_offsets

    backend, rejected, p_values = LocalBackend(), 0, []
    table = (Table("random", ("random",), judge=True),)
    variants = assemble_variants([("copy", rules)], SOLO.rules_class(), allow_identical=True)
    for s in seeds:
        q = Question(SOLO.id, variants, table, games, s, tuple(metrics), offsets=copy_offsets(variants, games))
        analysis = analyse(q, play(q, backend, progress=False))
        p_values += [c["difference"]["p_value"] for c in analysis["comparisons"]]
        rejected += analysis["aa"]["copy"]["changes_holm"] > 0
    return rejected, p_values


def test_an_aa_comparison_finds_no_change_at_about_the_nominal_rate():
    metrics = scalar_means(SOLO)[:3]
    rejected, p_values = aa_rejections(SOLO.make_rules(), 80, range(30), metrics)
    assert rejected <= 5  # Holm keeps the chance of any false change at 5%: ≤ 5 of 30 fails with p < 0.004
    assert 0.005 <= np.mean(np.array(p_values) < 0.05) <= 0.12


@pytest.mark.long
def test_an_aa_comparison_finds_no_change_at_about_the_nominal_rate_over_many_repetitions():
    metrics = scalar_means(SOLO)[:4]
    rejected, p_values = aa_rejections(SOLO.make_rules(), 400, range(400), metrics)
    assert rejected / 400 <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 400)
    p = np.array(p_values)
    assert abs(np.mean(p < 0.05) - 0.05) <= 3 * np.sqrt(0.05 * 0.95 / p.size)


def test_an_identical_variant_is_refused_unless_allowed_for_the_aa_check(capsys, tmp_path):
    same = f"same:{KEY}={DEFAULT}"
    status, _, err = run(["compare", SOLO.id, "--variant", same, "--out", str(tmp_path / "x"), *QUICK], capsys)
    assert status == 2 and "variant 'same' has the same rules as 'base'" in err and "--allow-identical" in err
    status, _, err = run(["compare", SOLO.id, "--variant", variant(SOLO, "a"), "--variant", variant(SOLO, "b"),
                          "--out", str(tmp_path / "x"), *QUICK], capsys)
    assert status == 2 and "variant 'b' has the same rules as 'a'" in err
    assert not (tmp_path / "x").exists()
    with pytest.raises(ValueError, match="same rules"):
        assemble_variants([("x", SOLO.make_rules())], SOLO.rules_class())
    metrics = [arg for m in scalar_means(SOLO)[:2] for arg in ("--metric", m)]
    status, stdout, err = run(["compare", SOLO.id, "--variant", same, "--allow-identical", "--games", "40",
                               *metrics, "--out", str(tmp_path / "aa"), *QUICK], capsys)
    assert status == 0, err
    results = json.loads((tmp_path / "aa" / "results.json").read_text())
    assert results["variants"]["same"]["first_game"] == 40  # other seeds: games 40 … 79
    aa = results["aa"]["same"]
    assert aa["games"] == [40, 80] and aa["comparisons"] == 2
    assert aa["changes"] == sum(c["difference"]["p_value"] < 0.05 for c in results["comparisons"])
    rows = list(csv.DictReader((tmp_path / "aa" / "games.csv").open()))
    base_seeds = {r["seed"] for r in rows if r["variant"] == "base"}
    assert not base_seeds & {r["seed"] for r in rows if r["variant"] == "same"}
    assert "A/A check" in (tmp_path / "aa" / "report.md").read_text() and "A/A check, same" in stdout


PLAYERS_OPTION = MULTI.players_option


@pytest.mark.parametrize("argv, message", [
    (["compare", SOLO.id, "--variant", V, "--metric", "happiness"], "unknown metric 'happiness'"),
    (["compare", SOLO.id, "--variant", "v:turbo=1"], "unknown rule option 'turbo'"),
    (["compare", SOLO.id], "at least one variant besides the base"),
    (["compare", SOLO.id, "--variant", V, "--agent", "genius"], "unknown agent 'genius'"),
    (["compare", SOLO.id, "--variant", V, "--agent", "restricted:base=random,forbid=teleport"],
     "forbid='teleport' is not an action kind"),
    (["compare", MULTI.id, "--players", str(max(MULTI.player_counts) + 2), "--variant", variant(MULTI)],
     f"'{PLAYERS_OPTION}'"),
    (["compare", SOLO.id, "--variant", V, "--address", "127.0.0.1:1"], "--address applies to --backend ray"),
    (["compare", SOLO.id, "--variant", V, "--games", "100000000"], "GiB of per-game figures"),
    (["sweep", SOLO.id, "--grid", f"{KEY}="], "at least one value"),
    (["sweep", SOLO.id], "at least one --grid"),
    (["sweep", SOLO.id, "--grid", f"{KEY}={DEFAULT}"], "at least one variant besides the base"),
    (["compare", SOLO.id, "--variant", V, "--test", "auto"], "invalid choice: 'auto'"),
    (["compare", SOLO.id, "--variant", V, "--judges", "genius"], "unknown agent 'genius'"),
    (["tune", SOLO.id, "--param", "{}={}..{}".format(*int_option(SOLO), int_option(SOLO)[1] + 1), "--target", "fun=3"],
     "unknown metric 'fun'"),
    (["tune", SOLO.id, "--param", "{}={}..{}".format(*int_option(SOLO), int_option(SOLO)[1] + 1),
      "--target", f"{breakdown(SOLO)}=3"], "a breakdown"),
    (["tune", SOLO.id, "--param", "warp=1..2", "--target", "decisions=3"], "unknown rule option 'warp'"),
])
def test_bad_input_is_a_clear_error_before_any_game(argv, message, tmp_path, capsys):
    out = tmp_path / "never"
    status, stdout, err = run([*argv, "--out", str(out), "--no-progress"], capsys)
    assert status == 2
    assert message in err
    assert not out.exists() and not any(tmp_path.iterdir())


def test_ray_not_installed_is_refused_before_any_game(monkeypatch, tmp_path, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)
    status, _, err = run(["compare", SOLO.id, "--variant", V, "--backend", "ray", "--out",
                          str(tmp_path / "x"), *QUICK], capsys)
    assert status == 2 and "--backend ray needs Ray" in err and not (tmp_path / "x").exists()


def test_tune_finds_a_variant_and_writes_it_for_compare(tmp_path, capsys):
    pytest.importorskip("optuna")
    out = tmp_path / "t"
    option, value = int_option(SOLO)
    status, stdout, err = run(["tune", SOLO.id, "--param", f"{option}={value}..{value + 1}",
                               "--param", f"{bool_option(SOLO)}=on,off", "--target", "decisions=12", "--trials", "2",
                               "--trial-games", "16", "--games", "20", "--out", str(out), *QUICK], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    tune = results["tune"]
    trials = tune["trials"]
    assert len(trials) == 2
    best = min((t for t in trials if "loss" in t), key=lambda t: t["loss"])
    assert best["loss"] == pytest.approx(abs(best["decisions"] - 12))
    assert tune["best_trial"]["decisions"] == best["decisions"]
    confirmed = results["estimates"]["decisions"]["tuned"]["random"][0]
    assert tune["confirmed"]["decisions"] == confirmed
    met = confirmed["low"] <= 12 <= confirmed["high"]
    assert tune["verdict"].startswith(f"target decisions = 12 {'met' if met else 'not met'}: confirmed")
    report = (out / "report.md").read_text()
    assert "## The search (tune)" in report and tune["verdict"] in report and "best trial, its own games" in report
    variants = tomllib.loads((out / "variants.toml").read_text())
    assert set(variants) == {"base", "tuned"}
    status, _, err = run(["compare", SOLO.id, "--variants", str(out / "variants.toml"), "--games", "10",
                          "--out", str(tmp_path / "again"), *QUICK], capsys)
    assert status == 0, err


def test_the_metric_tables_in_the_docs_match_the_catalogues():
    from pathlib import Path

    from aerodeck import envs
    from aerodeck.envs.registry import load
    from aerodeck.judge.designer_report import catalogue_markdown

    doc = (Path(__file__).parents[2] / "docs" / "metrics.md").read_text(encoding="utf-8")
    for game in envs.games():
        spec = envs.spec(game)
        assert catalogue_markdown(load(spec.metrics), spec.title) in doc, game


@pytest.mark.long
def test_retrain_trains_a_model_per_variant_and_plays_it(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    config = tmp_path / "tiny.toml"
    config.write_text("[train]\nnum_envs = 16\neval_every = 1_000_000\neval_games = 20\ncheckpoint_every = 1_000_000\n"
                      "[ppo]\nn_steps = 8\nbatch_size = 64\nn_epochs = 1\n[policy]\nnet_arch = [16]\nprior = \"\"\n"
                      "[warm_start]\ngames = 0\n")
    out = tmp_path / "re"
    status, _, err = run(["compare", SOLO.id, "--variant", V, "--games", "20", "--retrain", "128",
                          "--retrain-config", str(config), "--out", str(out), *QUICK], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    assert results["trained"] == {"base": {"ppo (retrained)": ["ppo:path=models/base/best.zip"]},
                                  "v": {"ppo (retrained)": ["ppo:path=models/v/best.zip"]}}
    assert (out / "models" / "v" / "best.zip").exists()
    assert results["estimates"]["decisions"]["v"]["ppo (retrained)"][0]["n"] == 20
    assert "trained on that variant's rules" in (out / "report.md").read_text()


def test_save_games_writes_replays_that_play_back(tmp_path, capsys):
    from aerodeck.arena import replays as replay

    out = tmp_path / "rp"
    status, _, err = run(["compare", SOLO.id, "--variant", V, "--games", "30", "--chunk", "2",
                          "--save-games", "3", "--out", str(out), *QUICK], capsys)
    assert status == 0, err
    files = sorted(p.name for p in (out / "replays").iterdir())
    assert files == ["base--random.jsonl", "v--random.jsonl"]
    played = replay.read(out / "replays" / "v--random.jsonl")  # reading replays and checks every game
    assert [r.game for r in played.records] == [0, 1, 2] and played.rules == SOLO.make_rules(**changes(SOLO))
    scores = json_column(out, "v", "score")[:3, 0]
    assert [r.result["score"][0] for r in played.records] == scores.tolist()


def test_run_closes_with_the_showcased_variant_unless_the_rules_are_it():
    from aerodeck import envs
    from aerodeck.cli import run
    from aerodeck.arena.backends import catalogue

    with_showcase = [s for s in envs.specs() if s.metrics is not None and catalogue(s.id).showcase]
    without = [s for s in envs.specs() if s.metrics is not None and not catalogue(s.id).showcase]
    assert with_showcase and without
    for spec in with_showcase:
        cat = catalogue(spec.id)
        key, value = next((k, v) for k, v in int_options(spec) if not any(s.startswith(f"{k}=") for s in cat.showcase))
        question = run.closing_question(spec, spec.make_rules(**{key: value}), 3)
        assert list(question.variants) == ["base", "showcase"] and question.seed == 3
        assert question.variants["showcase"] == spec.rules_class().from_strings([f"{key}={value}", *cat.showcase])
        assert [t.agents for t in question.tables] == [tuple(cat.default_agents[:1])]
        assert run.closing_question(spec, question.variants["showcase"], 3) is None
    for spec in without:
        assert run.closing_question(spec, spec.make_rules(), 3) is None  # no showcase


def int_options(spec):
    """The integer options of a spec's variants (players excluded) with their values there."""
    return [(k, v) for variant in spec.variants for k, v in variant.items()
            if k != spec.players_option and isinstance(v, int) and not isinstance(v, bool)]
