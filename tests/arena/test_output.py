"""Output folders: replaced as a whole, only this run's files reported, foreign folders refused,
nothing half-written on an error or Ctrl-C, paths checked before any game is played."""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.games import MULTI, SOLO
from aerodeck.cli import main as cli
from aerodeck.bench import bench
from aerodeck.arena.output import MANIFEST, OutputFolder


def bench_run(*argv):
    return cli.main(["bench", *argv, "--no-progress"])


def listing(folder):
    return sorted(p.name for p in folder.iterdir())


def wrote_line(text):
    return next(line for line in text.splitlines() if line.startswith("wrote "))


def test_reusing_out_replaces_the_earlier_output_and_reports_only_this_runs_files(tmp_path, capsys):
    # Before: scores.png of the first run stayed and was listed as written by the second.
    out = tmp_path / "out"
    assert bench_run(SOLO.id, "--games", "5", "--out", str(out)) == 0
    assert listing(out) == sorted(["games.csv", "results.json", "scores.png", MANIFEST])
    capsys.readouterr()
    assert bench_run(MULTI.id, "--games", "4", "--players", str(MULTI.default_players), "--out", str(out)) == 0
    files = ["games.csv", "head_to_head.png", "results.json", "tallies.png", "win_rates.png"]
    assert listing(out) == sorted([*files, MANIFEST])
    assert wrote_line(capsys.readouterr().out) == f"wrote {', '.join(files)} to {out}/"
    assert json.loads((out / MANIFEST).read_text())["files"] == files
    assert listing(tmp_path) == ["out"]  # no temporary or old folder left beside it


def test_a_folder_aerodeck_did_not_write_is_refused_unless_forced(tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    assert bench_run(SOLO.id, "--games", "5", "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert "holds files that aerodeck did not write (notes.txt)" in err and "--force" in err
    assert listing(out) == ["notes.txt"]
    assert bench_run(SOLO.id, "--games", "5", "--out", str(out), "--force") == 0
    assert "notes.txt" not in listing(out) and "results.json" in listing(out)


def test_a_file_added_to_an_earlier_output_makes_it_foreign(tmp_path, capsys):
    out = tmp_path / "out"
    assert bench_run(SOLO.id, "--games", "5", "--out", str(out)) == 0
    (out / "my-analysis.ipynb").write_text("{}")
    assert bench_run(SOLO.id, "--games", "5", "--out", str(out)) == 2
    assert "my-analysis.ipynb" in capsys.readouterr().err and (out / "my-analysis.ipynb").exists()


def test_the_current_folder_is_never_replaced(tmp_path, capsys, monkeypatch):
    out = tmp_path / "work"
    out.mkdir()
    (out / "x.py").write_text("")
    monkeypatch.chdir(out)
    assert bench_run(SOLO.id, "--games", "5", "--out", ".", "--force") == 2
    assert "holds the current folder" in capsys.readouterr().err and listing(out) == ["x.py"]


def test_an_error_while_writing_keeps_the_earlier_output_and_leaves_no_temporary_folder(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.txt").write_text("old")
    folder = OutputFolder(out, force=True)
    with pytest.raises(RuntimeError), folder.writing() as tmp:
        (tmp / "new.txt").write_text("new")
        raise RuntimeError("disk full")
    assert listing(tmp_path) == ["out"] and listing(out) == ["old.txt"]
    assert (out / "old.txt").read_text() == "old"


def test_parent_folders_made_for_a_failed_run_are_removed(tmp_path):
    with pytest.raises(ValueError), OutputFolder(tmp_path / "a" / "b" / "out").writing():
        raise ValueError("bad")
    assert listing(tmp_path) == []


def interrupt(*args, **kwargs):
    raise KeyboardInterrupt


def test_ctrl_c_is_one_line_status_130_and_no_output(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    assert bench_run(SOLO.id, "--games", "5", "--out", str(out)) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    monkeypatch.setattr(bench, "play_all", interrupt)
    assert bench_run(SOLO.id, "--games", "5", "--out", str(out)) == 130
    err = capsys.readouterr().err
    assert err == "aerodeck bench: interrupted (an unfinished run writes nothing)\n"  # no traceback
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # the earlier output, untouched
    assert listing(tmp_path) == ["out"]
    assert bench_run(SOLO.id, "--games", "5", "--out", str(tmp_path / "new")) == 130
    assert listing(tmp_path) == ["out"]


@pytest.mark.parametrize("command", [
    ["run", "--games", "5", "--no-ladder", "--json", "{tmp}"],  # a folder
    ["run", "--games", "5", "--no-ladder", "--json", "{tmp}/file/summary.json"],  # below a file
    ["run", "--games", "5", "--out", "{tmp}/file/out"],
    ["run", "--games", "5", "--out", "{tmp}/ladder", "--json", "{tmp}/ladder/summary.json"],
    ["bench", SOLO.id, "--games", "5", "--out", "{tmp}/file"],
    ["bench", MULTI.id, "--games", "4", "--out", "{tmp}/file/out"],
])
def test_json_and_out_paths_are_checked_before_any_game_is_played(tmp_path, capsys, monkeypatch, command):
    (tmp_path / "file").write_text("")
    monkeypatch.setattr(bench, "play_all", interrupt)  # a game played would end in status 130
    assert cli.main([arg.replace("{tmp}", str(tmp_path)) for arg in command] + ["--no-progress"]) == 2
    assert "error:" in capsys.readouterr().err
    assert listing(tmp_path) == ["file"]


@pytest.mark.parametrize("signum, status, word", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
def test_a_real_ctrl_c_or_sigterm_mid_run_leaves_nothing_behind(tmp_path, signum, status, word):
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "aerodeck", "bench", SOLO.id, "--games", "1000000000000",
                             "--no-progress", "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=Path(__file__).resolve().parents[2],
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as in a terminal
    try:
        for _ in range(1200):  # the run is playing once its temporary folder exists
            if any(p.name.endswith(".partial") for p in tmp_path.iterdir()) or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert proc.poll() is None and any(p.name.endswith(".partial") for p in tmp_path.iterdir()), \
            "the bench never started playing"
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert (proc.returncode, err) == (status, f"aerodeck bench: {word} (an unfinished run writes nothing)\n")
    assert listing(tmp_path) == []
