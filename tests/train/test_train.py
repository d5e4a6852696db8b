"""``aerodeck train`` end to end on tiny budgets: the run's files, resume to the same total, stops and
failures that leave nothing half-written, and bad input in one line."""

import json
import re
import shlex
import signal

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from aerodeck import envs  # noqa: E402
from tests.games import SOLO  # noqa: E402
from aerodeck.cli import main as cli  # noqa: E402
from aerodeck.train.config import default_config  # noqa: E402

GAMES = envs.games()

TINY = """
[train]
steps = 1024
num_envs = 16
eval_every = 512
eval_games = 16
checkpoint_every = 512
[budget]
min_eval_games = 16
[ppo]
n_steps = 16
batch_size = 128
n_epochs = 1
[policy]
net_arch = [16]
[warm_start]
teacher = "heuristic"
games = 8
epochs = 1
workers = 1
"""
TINY_LEAGUE = """
[league]
snapshot_every = 1
pool_size = 2
"""


def tiny_config(folder, game_id, extra=""):
    path = folder / "tiny.toml"
    path.write_text(TINY + (TINY_LEAGUE if default_config(game_id).league else "") + extra)
    return path


def tiny_config_with(folder, game_id, warm_start_line):
    """The tiny config with one more ``[warm_start]`` line."""
    config = tiny_config(folder, game_id)
    config.write_text(config.read_text().replace("[warm_start]\n", f"[warm_start]\n{warm_start_line}\n"))
    return config


def train(*argv):
    return cli.main(["train", *map(str, argv), "--no-progress"])


def files_of(folder):
    """Every file under ``folder``: relative path -> bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module", params=GAMES)
def tiny_run(request, tmp_path_factory):
    """A tiny run of each game: 1,024 steps, then 512 more with --resume --steps."""
    folder = tmp_path_factory.mktemp(request.param)
    config = tiny_config(folder, request.param)
    out = folder / "run"
    assert train(request.param, "--steps", 1024, "--config", config, "--out", out, "--seed", 3) == 0
    first = json.loads((out / "last.json").read_text())
    events = sorted(p.name for p in (out / "tb").iterdir())
    assert train(request.param, "--steps", 512, "--out", out, "--resume") == 0
    return request.param, out, first, events


def test_a_run_writes_event_files_checkpoints_and_sidecars(tiny_run):
    game_id, out, first, events = tiny_run
    assert events and all(name.startswith("events.out.tfevents") for name in events)
    for name in ("config.toml", "evaluations.csv", "best.zip", "best.json", "last.zip", "last.json", "warm_start.npz",
                 "aerodeck-output.json"):
        assert (out / name).is_file(), name
    assert not list(out.parent.glob(f".{out.name}.*"))  # the temporary folder became the run's
    assert (out / "checkpoints" / "step-512.zip").is_file() and (out / "checkpoints" / "step-512.json").is_file()
    game = envs.spec(game_id)
    assert first["game"] == game_id and first["steps"] == 1024 and first["budget"] == {"steps": 1024}
    assert first["rules"] == game.make_rules().to_dict()
    assert first["layout"]["observation_size"] == game.make_core().obs_size
    assert first["layout"]["n_actions"] == game.make_core().n_actions
    assert first["inputs"]["mask"] is True and first["aerodeck_version"]
    assert first["command"].startswith(f"aerodeck train {game_id} --steps 1024")
    assert first["config"]["ppo"]["n_steps"] == 16
    assert first["warm_start"]["games"] == 8 and 0 <= first["warm_start"]["held_out_accuracy"] <= 1
    assert 0 <= first["warm_start"]["held_out_accuracy_before"] <= 1  # what cloning started from
    rows = (out / "evaluations.csv").read_text().splitlines()
    assert rows[1].startswith("0,")  # the warm-started policy is evaluated before PPO moves it
    evaluation = first["evaluation"]
    assert evaluation["low"] <= evaluation["value"] <= evaluation["high"] and evaluation["games"] >= 16
    assert evaluation["figure"] == ("mean_score" if game.solo else "win_rate")


def test_event_files_hold_the_rollout_evaluation_and_throughput_curves(tiny_run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    _, out, _, _ = tiny_run
    tags = set()
    for path in (out / "tb").iterdir():
        events = EventAccumulator(str(path))
        events.Reload()
        tags |= set(events.Tags()["scalars"])
    expected = {"rollout/ep_rew_mean", "train/entropy_loss", "train/value_loss", "time/env_steps_per_s",
                "time/env_share", "warm_start/accuracy", "warm_start/held_out_accuracy"}
    assert expected <= tags
    assert any(tag.startswith("eval/") for tag in tags)


def test_resume_with_steps_adds_them_to_the_total(tiny_run):
    _, out, first, events = tiny_run
    last = json.loads((out / "last.json").read_text())
    assert last["steps"] == first["steps"] + 512 and last["budget"] == {"steps": 1536}
    assert last["config"] == first["config"] and last["rules"] == first["rules"]
    assert len(list((out / "tb").iterdir())) > len(events)  # a new event file beside the first


def test_resume_of_a_run_at_its_total_says_how_to_train_more(tiny_run, capsys):
    game_id, out, _, _ = tiny_run
    before = files_of(out)
    assert train(game_id, "--out", out, "--resume") == 2
    err = capsys.readouterr().err
    assert "has reached its total of 1,536 steps; give --steps N or --minutes M" in err
    assert files_of(out) == before


def test_the_trained_model_plays_legal_moves_in_bench(tiny_run, tmp_path):
    game_id, out, _, _ = tiny_run
    extra = [] if envs.spec(game_id).solo else ["--agent", "random", "--players", "4"]
    assert cli.main(["bench", game_id, "--agent", f"ppo:path={out / 'best.zip'}", *extra, "--games", "40",
                     "--out", str(tmp_path / "bench"), "--no-progress"]) == 0  # bench refuses illegal actions
    result = json.loads((tmp_path / "bench" / "results.json").read_text())
    assert result["agents"][f"ppo:path={out / 'best.zip'}"]["games"] >= 40


def test_a_run_reuses_the_teachers_decisions_saved_by_an_earlier_run(tiny_run, tmp_path, capsys):
    game_id, out, first, _ = tiny_run
    saved = out / "warm_start.npz"
    config = tiny_config_with(tmp_path, game_id, f"decisions = {str(saved)!r}")
    assert train(game_id, "--steps", 16, "--config", config, "--out", tmp_path / "again", "--seed", 3) == 0
    again = json.loads((tmp_path / "again" / "last.json").read_text())["warm_start"]
    assert again["decisions_from"] == str(saved) and not (tmp_path / "again" / "warm_start.npz").exists()
    assert again["decisions"] == first["warm_start"]["decisions"]  # saved games are not scaled away by --steps
    assert again["play_seconds"] == first["warm_start"]["play_seconds"]  # the budget they cost, kept
    # made for another run: refused, naming what differs, leaving no folder behind
    assert train(game_id, "--steps", 16, "--config", config, "--out", tmp_path / "other", "--seed", 4) == 2
    assert "was made for another run: teacher_seed (file 3, this run 4)" in capsys.readouterr().err
    assert not (tmp_path / "other").exists() and not list(tmp_path.glob(".other.*"))


def test_a_run_adds_the_decisions_of_earlier_runs_of_any_teacher_named_in_also(tiny_run, tmp_path, capsys):
    """``[warm_start] also`` (DAgger's aggregate): the saved decisions are added to the run's own, whatever
    teacher or seed made them; a file of another game's table is refused before any teacher game."""
    game_id, out, first, _ = tiny_run
    saved = out / "warm_start.npz"
    config = tiny_config_with(tmp_path, game_id, f"also = [{str(saved)!r}]")
    assert train(game_id, "--steps", 1024, "--config", config, "--out", tmp_path / "more", "--seed", 4) == 0
    more = json.loads((tmp_path / "more" / "last.json").read_text())["warm_start"]
    own = np.load(tmp_path / "more" / "warm_start.npz")["actions"].size  # saved without the added ones
    assert more["decisions_also"] == [str(saved)] and more["decisions"] == own + first["warm_start"]["decisions"]
    capsys.readouterr()
    assert train(game_id, "--steps", 16, "--config", config, "--out", tmp_path / "off", "--seed", 4) == 0
    assert "[warm_start] also: its 1 file(s) go unused, the warm start is off" in capsys.readouterr().err
    other = next(g for g in GAMES if g != game_id)
    config = tiny_config_with(tmp_path, other, f"also = [{str(saved)!r}]")
    assert train(other, "--steps", 1024, "--config", config, "--out", tmp_path / "other") == 2
    err = capsys.readouterr().err
    assert f"[warm_start] also = {str(saved)!r} was made for another run: game (file {game_id!r}, this run {other!r})" in err
    assert "decisions in" not in err and not (tmp_path / "other").exists() and not list(tmp_path.glob(".other.*"))


def test_an_output_folder_in_use_is_refused_without_resume(tiny_run, capsys):
    game_id, out, _, _ = tiny_run
    assert train(game_id, "--steps", 16, "--out", out) == 2
    assert "--resume" in capsys.readouterr().err


def test_an_output_path_that_is_a_file_is_refused(tmp_path, capsys):
    target = tmp_path / "file"
    target.write_text("x")
    assert train(SOLO.id, "--steps", 16, "--out", target) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"aerodeck train: error: output folder {str(target)!r} is a file"


def test_resume_needs_a_run_and_keeps_its_rules(tmp_path, capsys):
    assert train(SOLO.id, "--steps", 16, "--out", tmp_path / "none", "--resume") == 2
    assert "last.zip" in capsys.readouterr().err
    rule = next(f"{name}={value}" for variant in SOLO.variants for name, value in variant.items())  # not the default
    assert train(SOLO.id, "--steps", 16, "--out", tmp_path, "--resume", "--rule", rule) == 2
    assert "own rules" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--steps", str(10**30)], "--steps must be from 1 to 1,000,000,000 (a billion steps is days on a CPU"),
    (["--steps", "0"], "--steps must be from 1 to 1,000,000,000"),
    (["--minutes", "1e9"], "--minutes must be above 0 and at most 10,080 (a week"),
    (["--minutes", "nan"], "--minutes must be above 0"),
])
def test_the_budget_has_bounds_that_say_why(tmp_path, capsys, argv, message):
    assert train(SOLO.id, *argv, "--out", tmp_path / "x") == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_a_failed_resume_leaves_every_file_of_the_run_byte_identical(tiny_run, tmp_path, capsys):
    import shutil

    game_id, out, _, _ = tiny_run
    copy = tmp_path / "run"
    shutil.copytree(out, copy)
    last = copy / "last.zip"
    last.write_bytes(last.read_bytes()[:1000])  # truncated, as by a full disk
    before = files_of(copy)
    assert train(game_id, "--steps", 512, "--out", copy, "--resume") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not a saved model" in err[0] and "left as it was" in err[0]
    assert files_of(copy) == before


def test_a_run_stopped_before_its_first_checkpoint_leaves_nothing(tmp_path, capsys, monkeypatch):
    from aerodeck.train import warm_start

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(warm_start, "clone", interrupted)
    config = tiny_config(tmp_path, SOLO.id)
    assert train(SOLO.id, "--config", config, "--out", tmp_path / "out" / "run") == 130
    assert "an unfinished run writes nothing" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_run_stopped_by_sigint_continues_to_its_original_total_with_the_printed_command(tmp_path, capsys, monkeypatch):
    from sb3_contrib import MaskablePPO

    updates = []
    update = MaskablePPO.train

    def update_then_ctrl_c(self):
        update(self)
        updates.append(self.num_timesteps)
        if len(updates) == 2:
            signal.raise_signal(signal.SIGINT)  # Ctrl-C, as a user would

    monkeypatch.setattr(MaskablePPO, "train", update_then_ctrl_c)
    # Ctrl-C as Python answers it by default, whatever an earlier test in this process left installed
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    config = tiny_config(tmp_path, SOLO.id)
    out = tmp_path / "run"
    try:
        assert train(SOLO.id, "--steps", 1024, "--config", config, "--out", out) == 130
    finally:
        signal.signal(signal.SIGINT, previous)
    assert len(updates) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert json.loads((out / "last.json").read_text())["steps"] == updates[1] < 1024
    command = re.search(r"continue with: (.*)$", err).group(1)
    assert command == f"aerodeck train {SOLO.id} --out {shlex.quote(str(out))} --resume"
    monkeypatch.setattr(MaskablePPO, "train", update)
    assert cli.main(shlex.split(command)[1:] + ["--no-progress"]) == 0
    last = json.loads((out / "last.json").read_text())
    assert last["steps"] == 1024 and last["budget"] == {"steps": 1024}
