"""``aerodeck compare / sweep / tune``: determinism, the report, the A/A check, bad input."""

import csv
import json
import tomllib

import numpy as np
import pytest

from envs.airport_scramble.rules import AirportScrambleRules
from train import cli
from train.judge import significance as sig
from train.judge.backends import LocalBackend
from train.judge.compare import Question, Table, assemble_variants, play

AS, FT = "airport-scramble", "flight-tycoon"
QUICK = ["--no-progress", "--agent", "random", "--judges", "random"]


def run(argv, capsys):
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_the_same_seed_writes_the_same_report_and_another_seed_another(tmp_path, capsys):
    argv = ["compare", AS, "--variant", "costly:replace_cost=1", "--games", "60", "--chunk", "25", *QUICK]
    for name in ("a", "b"):
        status, out, err = run([*argv, "--seed", "5", "--out", str(tmp_path / name)], capsys)
        assert status == 0, err
    for f in ("report.md", "results.json", "games.csv", "variants.toml", "metrics.png", "score_distribution.png"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    assert "wrote" in out and "report.md" in out
    table = (Table("random", ("random",)),)
    decisions = [play(Question(AS, {"base": AirportScrambleRules()}, table, 60, seed, ()), LocalBackend(), 25,
                      progress=False)[("base", "random")]["metrics"]["decisions"][0] for seed in (5, 6)]
    assert np.array_equal(decisions[0], json_column(tmp_path / "a", "base", "decisions"))
    assert not np.array_equal(decisions[0], decisions[1])


def json_column(folder, variant: str, metric: str) -> np.ndarray:
    """One variant's per-game values of a metric, from ``games.csv``."""
    import csv

    rows = csv.DictReader((folder / "games.csv").open())
    return np.array([[float(r[metric])] for r in rows if r["variant"] == variant])


def test_the_report_holds_the_question_the_verdicts_and_every_metric(tmp_path, capsys):
    out = tmp_path / "cmp"
    status, _, err = run(["compare", AS, "--variant", "nowait:allow_wait=off", "--variant", "wide:face_up=5",
                          "--games", "80", "--seed", "2", "--out", str(out), "--no-progress", "--judges", "heuristic",
                          "--agent", "heuristic", "--agent", "random", "--metric", "score", "--metric", "turns"], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    assert list(results["variants"]) == ["base", "nowait", "wide"]
    assert results["variants"]["nowait"]["deal"] is None  # the same deals
    assert "face_up=5" in results["variants"]["wide"]["deal"]  # the deal depends on face_up: still paired
    comparisons = results["comparisons"]
    assert len(comparisons) == 2 * 2 * 2  # variants × tables × metrics
    assert {c["difference"]["method"] for c in comparisons} == {"paired t"}
    holm = sig.holm([c["difference"]["p_value"] for c in comparisons])
    assert [c["p_holm"] for c in comparisons] == pytest.approx(holm.tolist())
    for c in comparisons:
        assert c["verdict"] in ("higher", "lower", "no change: equal in every game") or \
            c["verdict"].startswith("no detectable change at this N; the smallest change this N detects is ±")
    assert set(results["skill_gap"]) == {"base", "nowait", "wide"}  # heuristic minus random, per variant
    report = (out / "report.md").read_text()
    for text in ("## Summary", "## The question", "## Verdicts", "Holm", "## Skill gap", "### ticket_completion",
                 "![score_distribution](score_distribution.png)", "face_up=5", "## Appendix: the other tables"):
        assert text in report, text
    variants = tomllib.loads((out / "variants.toml").read_text())
    assert variants == {"base": {}, "nowait": {"allow_wait": False}, "wide": {"face_up": 5}}
    rows = (out / "games.csv").read_text().splitlines()
    assert rows[0].startswith("variant,table,game,seed,score,")
    assert len(rows) == 1 + 3 * 2 * 80


def test_estimates_and_differences_match_the_per_game_values(tmp_path, capsys):
    out = tmp_path / "cmp"
    status, _, err = run(["compare", AS, "--variant", "v:replace_cost=1", "--games", "50", "--out", str(out),
                          *QUICK, "--metric", "decisions"], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    import csv

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
    from train.judge.analysis import analyse
    from train.judge.compare import copy_offsets

    backend, rejected, p_values = LocalBackend(), 0, []
    table = (Table("random", ("random",), judge=True),)
    variants = assemble_variants([("copy", rules)], AirportScrambleRules, allow_identical=True)
    for s in seeds:
        q = Question(AS, variants, table, games, s, tuple(metrics), offsets=copy_offsets(variants, games))
        analysis = analyse(q, play(q, backend, progress=False))
        p_values += [c["difference"]["p_value"] for c in analysis["comparisons"]]
        rejected += analysis["aa"]["copy"]["changes_holm"] > 0
    return rejected, p_values


def test_an_aa_comparison_finds_no_change_at_about_the_nominal_rate():
    metrics = ["decisions", "turns", "cards_in_play"]
    rejected, p_values = aa_rejections(AirportScrambleRules(), 150, range(40), metrics)
    assert rejected <= 6  # Holm keeps the chance of any false change at 5%: ≤ 6 of 40 fails with p < 0.001
    assert 0.005 <= np.mean(np.array(p_values) < 0.05) <= 0.12


@pytest.mark.long
def test_an_aa_comparison_finds_no_change_at_about_the_nominal_rate_over_many_repetitions():
    metrics = ["decisions", "turns", "cards_in_play", "turns_per_ticket"]
    rejected, p_values = aa_rejections(AirportScrambleRules(), 400, range(400), metrics)
    assert rejected / 400 <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 400)
    p = np.array(p_values)
    assert abs(np.mean(p < 0.05) - 0.05) <= 3 * np.sqrt(0.05 * 0.95 / p.size)


def test_an_identical_variant_is_refused_unless_allowed_for_the_aa_check(capsys, tmp_path):
    status, _, err = run(["compare", AS, "--variant", "same:face_up=4", "--out", str(tmp_path / "x"), *QUICK], capsys)
    assert status == 2 and "variant 'same' has the same rules as 'base'" in err and "--allow-identical" in err
    status, _, err = run(["compare", AS, "--variant", "a:face_up=5", "--variant", "b:face_up=5",
                          "--out", str(tmp_path / "x"), *QUICK], capsys)
    assert status == 2 and "variant 'b' has the same rules as 'a'" in err
    assert not (tmp_path / "x").exists()
    with pytest.raises(ValueError, match="same rules"):
        assemble_variants([("x", AirportScrambleRules())], AirportScrambleRules)
    status, stdout, err = run(["compare", AS, "--variant", "same:face_up=4", "--allow-identical", "--games", "40",
                               "--metric", "decisions", "--metric", "turns", "--out", str(tmp_path / "aa"), *QUICK],
                              capsys)
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


@pytest.mark.parametrize("argv, message", [
    (["compare", AS, "--variant", "v:face_up=5", "--metric", "happiness"], "unknown metric 'happiness'"),
    (["compare", AS, "--variant", "v:turbo=1"], "unknown rule option 'turbo'"),
    (["compare", AS, "--variant", "v:face_up=9"], "'face_up'"),
    (["compare", AS], "at least one variant besides the base"),
    (["compare", AS, "--variant", "v:face_up=5", "--agent", "genius"], "unknown agent 'genius'"),
    (["compare", AS, "--variant", "v:face_up=5", "--agent", "restricted:base=random,forbid=teleport"],
     "forbid='teleport' is not an action kind"),
    (["compare", FT, "--players", "7", "--variant", "v:hand_size=7"], "'n_players'"),
    (["compare", AS, "--variant", "v:face_up=5", "--address", "127.0.0.1:1"], "--address applies to --backend ray"),
    (["compare", AS, "--variant", "v:face_up=5", "--games", "100000000"], "GiB of per-game figures"),
    (["sweep", AS, "--grid", "face_up="], "at least one value"),
    (["sweep", AS], "at least one --grid"),
    (["sweep", AS, "--grid", "face_up=4"], "at least one variant besides the base"),
    (["sweep", AS, "--grid", "face_up=9"], "'face_up'"),
    (["sweep", AS, "--grid", "face_up=2", "--grid", "max_replace=3"], "refuse every point"),
    (["compare", AS, "--variant", "v:face_up=5", "--test", "auto"], "invalid choice: 'auto'"),
    (["compare", AS, "--variant", "v:face_up=5", "--judges", "genius"], "unknown agent 'genius'"),
    (["tune", AS, "--param", "face_up=4..6", "--target", "fun=3"], "unknown metric 'fun'"),
    (["tune", AS, "--param", "face_up=4..6", "--target", "score_distribution=3"], "a breakdown"),
    (["tune", AS, "--param", "face_up=4..9", "--target", "score=3"], "'face_up'"),
    (["tune", AS, "--param", "warp=1..2", "--target", "score=3"], "unknown rule option 'warp'"),
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
    status, _, err = run(["compare", AS, "--variant", "v:face_up=5", "--backend", "ray", "--out",
                          str(tmp_path / "x"), *QUICK], capsys)
    assert status == 2 and "--backend ray needs Ray" in err and not (tmp_path / "x").exists()


def test_restricted_play_takes_the_kind_away_and_counts_fallbacks(tmp_path, capsys):
    out = tmp_path / "r"
    status, _, err = run(["compare", AS, "--variant", "v:replace_cost=1", "--games", "40", "--out", str(out),
                          "--no-progress", "--agent", "restricted:base=random,forbid=replace",
                          "--agent", "restricted:base=random,forbid=fly+stop_early+play+replace+wait"], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    mix = results["estimates"]["action_mix"]["base"]["restricted:base=random,forbid=replace"]
    replace = results["metrics"]["action_mix"]["labels"].index("replace")
    assert mix[replace]["value"] == 0
    counts = results["restricted"]["base / restricted:base=random,forbid=fly+stop_early+play+replace+wait"]
    only_lines = counts["restricted:base=random,forbid=fly+stop_early+play+replace+wait"]
    assert only_lines["fallbacks"] == only_lines["decisions"] > 0  # no line choice ever came: all fell back
    assert "full mask was used" in (out / "report.md").read_text()


def test_flight_tycoon_tables_and_the_skill_gap(tmp_path, capsys):
    out = tmp_path / "ft"
    status, _, err = run(["compare", FT, "--variant", "share:vp_sharing=first_only", "--games", "24",
                          "--players", "3", "--out", str(out), "--no-progress", "--judges", "heuristic",
                          "--metric", "first_player_win", "--metric", "win_by_position", "--metric", "skill_gap"],
                         capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    assert [t["name"] for t in results["tables"]] == ["heuristic", "random", "heuristic vs random"]
    assert results["tables"][2] == {"name": "heuristic vs random", "agents": ["heuristic", "random"], "mixed": True,
                                    "judge": False}
    gap = results["skill_gap"]["base"]
    assert "fair share 0.333" in gap["what"] and 0 <= gap["value"] <= 1
    assert (out / "landings_by_square.png").exists() and (out / "game_length-histogram.png").exists()
    # win_by_position / 1st is first_player_win: tested once, in the comparisons and against the fair share
    assert {c["column"] for c in results["comparisons"] if c["metric"] == "win_by_position"} == {"2nd", "3rd"}
    fair = [(f["metric"], f["column"], f["variant"], f["table"]) for f in results["fair"]]
    assert len(fair) == len(set(fair)) == 2 * 3 * 3  # (first_player_win, 2nd, 3rd) × variants × tables
    assert [f["test"]["against"] for f in results["fair"]] == pytest.approx([1 / 3] * len(fair))
    assert "## Seats against the fair share" in (out / "report.md").read_text()
    skill = [c for c in results["comparisons"] if c["metric"] == "skill_gap"]
    assert [c["table"] for c in skill] == ["heuristic vs random"] and skill[0]["role"] == "skill"


def test_sweep_plays_the_grid_against_the_defaults(tmp_path, capsys):
    out = tmp_path / "s"
    status, _, err = run(["sweep", AS, "--grid", "replace_cost=1,2", "--grid", "allow_wait=on,off", "--games", "30",
                          "--out", str(out), *QUICK, "--metric", "decisions"], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    assert list(results["variants"]) == ["base", "replace_cost=1 allow_wait=on", "replace_cost=1 allow_wait=off",
                                         "replace_cost=2 allow_wait=off"]
    assert results["sweep"]["keys"] == ["replace_cost", "allow_wait"]
    assert (out / "sweep-decisions.png").exists()


def test_sweep_skips_a_grid_point_the_linked_options_refuse_with_a_note_naming_the_fix(tmp_path, capsys):
    out = tmp_path / "s"
    status, stdout, err = run(["sweep", AS, "--grid", "face_up=2,5", "--games", "20", "--out", str(out), *QUICK,
                               "--metric", "decisions"], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    assert list(results["variants"]) == ["base", "face_up=5"]
    [skipped] = results["sweep"]["skipped"]
    assert skipped["point"] == "face_up=2" and "max_replace" in skipped["reason"]
    assert "--grid max_replace=" in skipped["fix"] and "max_replace=2" in skipped["fix"]
    assert "Skipped grid point face_up=2" in (out / "report.md").read_text()
    assert "skipped grid point face_up=2" in stdout


def test_tune_finds_a_variant_and_writes_it_for_compare(tmp_path, capsys):
    pytest.importorskip("optuna")
    out = tmp_path / "t"
    status, stdout, err = run(["tune", AS, "--param", "replace_cost=1..2", "--param", "allow_wait=on,off",
                               "--target", "decisions=12", "--trials", "3", "--trial-games", "30", "--games", "40",
                               "--out", str(out), *QUICK], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    tune = results["tune"]
    trials = tune["trials"]
    assert len(trials) == 3
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
    status, _, err = run(["compare", AS, "--variants", str(out / "variants.toml"), "--games", "20",
                          "--out", str(tmp_path / "again"), *QUICK], capsys)
    assert status == 0, err


def test_the_metric_tables_in_the_docs_match_the_catalogues():
    from pathlib import Path

    import envs
    from envs.registry import load
    from train.judge.designer_report import catalogue_markdown

    doc = (Path(__file__).parents[3] / "docs" / "metrics.md").read_text(encoding="utf-8")
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
    status, _, err = run(["compare", AS, "--variant", "v:replace_cost=1", "--games", "20", "--retrain", "128",
                          "--retrain-config", str(config), "--out", str(out), *QUICK], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    assert results["trained"] == {"base": {"ppo (retrained)": ["ppo:path=models/base/best.zip"]},
                                  "v": {"ppo (retrained)": ["ppo:path=models/v/best.zip"]}}
    assert (out / "models" / "v" / "best.zip").exists()
    assert results["estimates"]["score"]["v"]["ppo (retrained)"][0]["n"] == 20
    assert "trained on that variant's rules" in (out / "report.md").read_text()


def test_save_games_writes_replays_that_play_back(tmp_path, capsys):
    from train.watch import replay

    out = tmp_path / "rp"
    status, _, err = run(["compare", AS, "--variant", "v:replace_cost=1", "--games", "30", "--chunk", "2",
                          "--save-games", "3", "--out", str(out), *QUICK], capsys)
    assert status == 0, err
    files = sorted(p.name for p in (out / "replays").iterdir())
    assert files == ["base--random.jsonl", "v--random.jsonl"]
    played = replay.read(out / "replays" / "v--random.jsonl")  # reading replays and checks every game
    assert [r.game for r in played.records] == [0, 1, 2] and played.rules.replace_cost == 1
    scores = json_column(out, "v", "score")[:3, 0]
    assert [r.result["score"][0] for r in played.records] == scores.tolist()


def test_run_closes_with_the_showcased_variant_unless_the_rules_are_it():
    import envs
    from train import run
    from train.judge.backends import catalogue

    spec = envs.spec(AS)
    question = run.closing_question(spec, spec.make_rules(grid_size=7), 3)
    assert list(question.variants) == ["base", "showcase"] and question.seed == 3
    assert question.variants["showcase"] == spec.rules_class().from_strings(["grid_size=7",
                                                                              *catalogue(AS).showcase])
    assert [t.agents for t in question.tables] == [("heuristic",)]
    assert run.closing_question(spec, question.variants["showcase"], 3) is None
    assert run.closing_question(envs.spec(FT), envs.spec(FT).make_rules(), 3) is None  # no showcase
