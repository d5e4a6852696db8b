"""``aerodeck compare / sweep / tune``: determinism, the report, the A/A check, bad input."""

import json
import tomllib

import numpy as np
import pytest

from envs.airport_scramble.rules import AirportScrambleRules
from train import cli
from train.judge import significance as sig
from train.judge.backends import LocalBackend
from train.judge.compare import Question, Table, assemble_variants, difference, play

AS, FT = "airport-scramble", "flight-tycoon"
QUICK = ["--no-progress", "--agent", "random"]


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
                          "--games", "80", "--seed", "2", "--out", str(out), "--no-progress",
                          "--agent", "heuristic", "--agent", "random", "--metric", "score", "--metric", "turns"], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    assert list(results["variants"]) == ["base", "nowait", "wide"]
    assert results["variants"]["nowait"]["pairing"] is None  # the same deals: paired
    assert "face_up=5" in results["variants"]["wide"]["pairing"]  # the deal depends on face_up: Welch
    comparisons = results["comparisons"]
    assert len(comparisons) == 2 * 2 * 2  # variants × tables × metrics
    assert {c["difference"]["method"] for c in comparisons if c["variant"] == "wide"} == {"Welch t"}
    assert {c["difference"]["method"] for c in comparisons if c["variant"] == "nowait"} <= {"paired t"}
    holm = sig.holm([c["difference"]["p_value"] for c in comparisons])
    assert [c["p_holm"] for c in comparisons] == pytest.approx(holm.tolist())
    for c in comparisons:
        assert c["verdict"] in ("higher", "lower", "no change: equal in every game") or \
            c["verdict"].startswith("no detectable change at this N; the smallest change this N detects is ±")
    assert set(results["skill_gap"]) == {"base", "nowait", "wide"}  # heuristic minus random, per variant
    report = (out / "report.md").read_text()
    for text in ("## The question", "## Verdicts", "Holm", "## Skill gap", "### ticket_completion",
                 "![score_distribution](score_distribution.png)", "face_up=5"):
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
    """The A/A check: the same rules on two independent seed sets, Welch per metric, Holm over them;
    returns how many repetitions found any change, and every unadjusted p-value."""
    backend, rejected, p_values = LocalBackend(), 0, []
    table = (Table("random", ("random",)),)
    for s in seeds:
        a, b = (play(Question(AS, {"base": rules}, table, games, seed, ()), backend, progress=False)
                for seed in (2 * s, 2 * s + 1))
        ps = []
        for name in metrics:
            (na, da), (nb, db) = a[("base", "random")]["metrics"][name], b[("base", "random")]["metrics"][name]
            d = difference(na[:, 0], da[:, 0], nb[:, 0], db[:, 0], paired=False, test="auto", seed=0)
            ps.append(d.p_value)
        p_values += ps
        verdicts = [sig.verdict(sig.Difference(0, 0, 0, p, 1, 1, "Welch t"), q) for p, q in zip(ps, sig.holm(ps))]
        rejected += any(not v.startswith("no detectable change") for v in verdicts)
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


def test_an_identical_variant_is_refused(capsys, tmp_path):
    status, _, err = run(["compare", AS, "--variant", "same:face_up=4", "--out", str(tmp_path / "x"), *QUICK], capsys)
    assert status == 2 and "variant 'same' has the same rules as 'base'" in err
    status, _, err = run(["compare", AS, "--variant", "a:face_up=5", "--variant", "b:face_up=5",
                          "--out", str(tmp_path / "x"), *QUICK], capsys)
    assert status == 2 and "variant 'b' has the same rules as 'a'" in err
    assert not (tmp_path / "x").exists()
    with pytest.raises(ValueError, match="same rules"):
        assemble_variants([("x", AirportScrambleRules())], AirportScrambleRules)


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
                          "--players", "3", "--out", str(out), "--no-progress"], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    assert [t["name"] for t in results["tables"]] == ["heuristic", "random", "heuristic vs random"]
    assert results["tables"][2] == {"name": "heuristic vs random", "agents": ["heuristic", "random"], "mixed": True}
    gap = results["skill_gap"]["base"]
    assert "fair share 0.333" in gap["what"] and 0 <= gap["value"] <= 1
    assert (out / "landings_by_square.png").exists()


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


def test_tune_finds_a_variant_and_writes_it_for_compare(tmp_path, capsys):
    pytest.importorskip("optuna")
    out = tmp_path / "t"
    status, stdout, err = run(["tune", AS, "--param", "replace_cost=1..2", "--param", "allow_wait=on,off",
                               "--target", "decisions=12", "--trials", "3", "--trial-games", "30", "--games", "40",
                               "--out", str(out), *QUICK], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    trials = results["tune"]["trials"]
    assert len(trials) == 3
    best = min((t for t in trials if "loss" in t), key=lambda t: t["loss"])
    assert best["loss"] == pytest.approx(abs(best["decisions"] - 12))
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
