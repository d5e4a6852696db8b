"""``aerodeck train GAME --rounds K`` (expert iteration, train/iterate.py) on tiny budgets: each
round distils the search guided by the previous round's best model, starting from that model; the
plan, the rounds' table, resume and bad input."""

import csv
import json

import pytest

pytest.importorskip("sb3_contrib")

from aerodeck.agents.specs import parse_spec  # noqa: E402
from tests.games import SOLO  # noqa: E402
from aerodeck.train import iterate  # noqa: E402

from .test_train import files_of, tiny_config, train  # noqa: E402

GAME = SOLO.id


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """A tiny guide (a heuristic-cloned run), then 2 rounds of expert iteration from it."""
    folder = tmp_path_factory.mktemp("iterate")
    assert train(GAME, "--steps", 512, "--config", tiny_config(folder, GAME), "--out", folder / "guide", "--seed", 1) == 0
    config = folder / "search.toml"
    tiny = tiny_config(folder, GAME).read_text()  # the guided search teaches: fast knobs, a few games each round
    config.write_text(tiny.replace('teacher = "heuristic"', 'teacher = "search:rollouts=2,candidates=2"')
                      .replace("[budget]\n", "[budget]\nmin_teacher_games = 1\n"))
    out = folder / "job"
    assert train(GAME, "--rounds", 2, "--guide", folder / "guide" / "best.zip", "--steps", 1024, "--config", config,
                 "--out", out, "--seed", 4) == 0
    return folder, out


def sidecar(path):
    return json.loads(path.with_suffix(".json").read_text())


def test_each_round_distils_the_search_guided_by_the_previous_rounds_model(job):
    folder, out = job
    guides = [str(folder / "guide" / "best.zip"), str(out / "round-1" / "best.zip")]
    seeds = set()
    for r, guide in enumerate(guides, start=1):
        last = sidecar(out / f"round-{r}" / "last.zip")
        assert last["config"]["policy"]["init"] == guide  # the student starts from its guide
        name, knobs = parse_spec(last["config"]["warm_start"]["teacher"])
        assert (name, knobs) == ("search", {"rollouts": "2", "candidates": "2", "guide": guide})
        assert last["warm_start"]["decisions"] > 0  # the guided search's decisions were cloned
        assert last["budget"] == {"steps": 512}  # an even share of the job's 1,024 steps
        seeds.add((last["seed"], last["config"]["warm_start"]["seed"]))
    assert len(seeds) == 2  # new deals and a new run seed each round
    rows = list(csv.DictReader((out / iterate.ROUNDS).open()))
    assert [(row["round"], row["guide"]) for row in rows] == [("1", guides[0]), ("2", guides[1])]
    assert all(row["figure"] == "mean_score" and row["value"] for row in rows)
    plan = json.loads((out / iterate.PLAN).read_text())
    assert (plan["rounds"], plan["guide"], plan["seed"]) == (2, guides[0], 4)


def test_resume_of_a_finished_job_plays_no_round_again(job, capsys):
    _, out = job
    before = files_of(out)
    assert train(GAME, "--out", out, "--resume") == 0
    assert files_of(out) == before
    assert f"the last round's best model: {out / 'round-2' / 'best.zip'}" in capsys.readouterr().err


def test_resume_plays_the_rounds_a_job_has_left(job, tmp_path):
    """A job stopped after round 1 (its table lists only round 1) plays round 2 on --resume, guided by round 1."""
    _, out = job
    copy = tmp_path / "job"
    copy.mkdir()
    (copy / iterate.PLAN).write_text((out / iterate.PLAN).read_text())
    rows = (out / iterate.ROUNDS).read_text().splitlines(keepends=True)
    (copy / iterate.ROUNDS).write_text("".join(rows[:2]).replace(str(out), str(copy)))
    for name, data in files_of(out / "round-1").items():
        (copy / "round-1" / name).parent.mkdir(parents=True, exist_ok=True)
        (copy / "round-1" / name).write_bytes(data)
    assert train(GAME, "--out", copy, "--resume") == 0
    assert sidecar(copy / "round-2" / "last.zip")["config"]["policy"]["init"] == str(copy / "round-1" / "best.zip")
    assert len(list(csv.DictReader((copy / iterate.ROUNDS).open()))) == 2


@pytest.mark.parametrize("argv, words", [
    (["--guide", "x.zip"], "give --rounds K too"),
    (["--rounds", "0"], "at least 1"),
    (["--rounds", "2", "--guide", "missing.zip"], "not a model file"),
])
def test_bad_expert_iteration_options_are_refused(argv, words, tmp_path, capsys):
    assert train(GAME, *argv, "--steps", 512, "--out", tmp_path / "job") == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "job").exists()


def test_a_teacher_that_is_not_the_search_agent_is_refused(job, tmp_path, capsys):
    folder, _ = job
    argv = ["--rounds", "2", "--guide", folder / "guide" / "best.zip", "--config", tiny_config(tmp_path, GAME)]
    assert train(GAME, *argv, "--steps", 512, "--out", tmp_path / "job") == 2
    assert "guides the search agent" in capsys.readouterr().err
    assert not (tmp_path / "job").exists()
