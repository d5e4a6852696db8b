"""``aerodeck tasks`` and ``aerodeck bench --task`` end to end, and their errors."""

import json

import pytest

from aerodeck.bench import tasks as T
from aerodeck.cli import main as cli
from tests.bench.benching import run


def test_aerodeck_tasks_lists_every_task_with_its_budget_and_references(capsys):
    assert cli.main(["tasks"]) == 0
    out = capsys.readouterr().out
    for task in T.tasks():
        assert task.name in out
    assert "1,000,000" in out and "heuristic" in out


def test_aerodeck_tasks_json_gives_what_the_python_api_gives(capsys):
    assert cli.main(["tasks", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [t["name"] for t in listed] == T.names()
    for row, task in zip(listed, T.tasks()):
        assert row["budget_steps"] == task.budget_steps and row["eval_games"] == task.eval_games
        assert row["reference"]["random"] == task.reference["random"]
        assert row["reference"]["heuristic"] == task.reference["heuristic"]
        assert row["opponents"] == list(task.opponents) and row["reward"] == task.reward


def test_the_markdown_table_has_a_row_per_task(capsys):
    assert cli.main(["tasks", "--markdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 + len(T.names()) and all(line.startswith("| ") or line.startswith("|---") for line in lines)


def test_bench_task_adds_the_normalized_score_beside_the_raw_one(tmp_path, capsys):
    assert run(["--task", "as-standard-v0", "--agent", "heuristic", "--agent", "random", "--games", "120",
                "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "results.json").read_text())
    task = T.task("as-standard-v0")
    for name in ("heuristic", "random"):
        a = data["agents"][name]
        raw, z = a["mean_score"], a["normalized"]
        assert a["games"] == 120 and raw["n"] == 120
        assert z["value"] == pytest.approx(task.normalize(raw["value"]))
        assert z["low"] <= z["value"] <= z["high"]
    assert data["task"]["name"] == "as-standard-v0" and data["comparisons"][0]["mean_score_difference"]["n"] == 120
    seeds = [int(line.split(",")[0]) for line in (tmp_path / "games.csv").read_text().splitlines()[1:]]
    assert seeds == task.eval_seeds(120).tolist()  # the held-out deals
    assert (tmp_path / "normalized.png").stat().st_size > 0
    assert "normalized" in capsys.readouterr().out


def test_bench_task_on_a_multi_player_task_plays_the_learner_against_the_tasks_opponents(tmp_path):
    assert run([T.task("ft4-heuristic-v0").game, "--task", "ft4-heuristic-v0", "--agent", "heuristic", "--games", "96",
                "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "results.json").read_text())
    expected = T.task("ft4-heuristic-v0").evaluate("heuristic", games=96)
    assert data["agents"]["heuristic"]["mean_score"]["value"] == pytest.approx(expected.raw.value)


#: The games of a solo and a multi-player task.
SOLO, MULTI = T.task("as-standard-v0").game, T.task("ft4-random-v0").game


@pytest.mark.parametrize(("argv", "message"), [
    ([MULTI, "--task", "as-standard-v0"], f"is a task of {SOLO}; the game argument says {MULTI}"),
    (["--task", "as-nothing-v0"], "unknown task 'as-nothing-v0'; tasks: as-standard-v0"),
    (["--task", "as-standard-v0", "--rule", "face_up=3"], "--rule cannot be combined with --task"),
    (["--task", "ft4-random-v0", "--lineup", "random,random,random,random"], "--lineup cannot be combined with --task"),
    (["--task", "as-standard-v0", "--backend", "ray"], "--task plays here"),
])
def test_bench_task_refuses_what_contradicts_the_task_in_one_line(argv, message, tmp_path, capsys):
    assert run([*argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_bench_without_a_game_or_a_task_shows_the_usage(capsys):
    assert run([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: aerodeck bench") and "required: game (or --task NAME" in err


def test_tasks_refuses_a_task_filter_without_measure(capsys):
    assert cli.main(["tasks", "--task", "as-standard-v0"]) == 2
    assert "give --measure too" in capsys.readouterr().err
