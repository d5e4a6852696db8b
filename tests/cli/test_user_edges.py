"""The edges a user hits with the tools' files and agent specs: an output folder that cannot be written is
refused before any game is played, an OS error names the file and what was being done, what a killed run
left beside ``--out`` is cleaned by the next run into it, two runs into one ``--out`` do not silently
overwrite each other, ``replay --gif`` never overwrites a file that is not a GIF, an agent knob given twice
is refused, every agent kind is listed where agents are listed, and ``run --out`` is checked with and
without the ladder."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from aerodeck import envs
from aerodeck.agents.registry import make_agent
from aerodeck.cli import main as cli
from aerodeck.arena import output
from aerodeck.bench import bench
from aerodeck.arena.output import OutputFolder
from tests.games import MULTI, SOLO

ROOT = Path(__file__).resolve().parents[2]


def bench_run(*argv):
    return cli.main(["bench", *map(str, argv), "--no-progress"])


def no_games(*args, **kwargs):
    raise AssertionError("a game was played")


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# --- 1. an output folder that cannot be written ------------------------------------------------------------


def test_an_output_folder_that_is_not_writable_is_refused_before_any_game(tmp_path, capsys, monkeypatch):
    # Before: every game was played, then "[Errno 13] Permission denied: 'OUT' -> '.out.*.old/previous'",
    # no table, and an empty .out.*.old folder left. (The tests may run as root, whom os.access never refuses.)
    out = tmp_path / "out"
    assert bench_run(SOLO.id, "--games", 4, "--out", out) == 0
    capsys.readouterr()
    real = os.access
    monkeypatch.setattr(output.os, "access", lambda p, mode, **kw: False if Path(p) == out else real(p, mode, **kw))
    monkeypatch.setattr(bench, "play_all", no_games, raising=False)
    assert bench_run(SOLO.id, "--games", 4, "--out", out) == 2
    err = capsys.readouterr().err
    assert f"output folder {str(out)!r} is not writable" in err and "choose another --out" in err
    assert listing(tmp_path) == ["out"]


def test_a_failed_move_into_place_names_it_prints_the_tables_and_keeps_the_files(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    assert bench_run(SOLO.id, "--games", 4, "--out", out) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    real = os.rename

    def rename(src, dst, **kw):
        if Path(src) == out:
            raise PermissionError(13, "Permission denied", str(src), None, str(dst))
        return real(src, dst, **kw)

    monkeypatch.setattr(output.os, "rename", rename)
    assert bench_run(SOLO.id, "--agent", "random", "--agent", "heuristic", "--games", 4, "--out", out) == 2
    captured = capsys.readouterr()
    assert "heuristic" in captured.out  # the tables of the games played
    assert f"could not move the earlier output {out} aside" in captured.err and "Permission denied" in captured.err
    kept = [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
    assert len(kept) == 1 and f"this run's files are kept in {kept[0]}" in captured.err
    assert (kept[0] / "results.json").is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".old")]  # no empty .old folder left
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


# --- 2. an OS error names the file ---------------------------------------------------------------------------


def test_a_file_size_limit_names_the_file_and_the_tables_are_still_printed(tmp_path):
    # Before: "error: [Errno 27] File too large", naming no file, and no table although every game was played.
    out = tmp_path / "out"
    limit = 24_000  # bytes: games.csv of 2,000 games of two agents is larger

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = subprocess.run([sys.executable, "-m", "aerodeck", "bench", SOLO.id, "--agent", "random", "--agent",
                           "heuristic", "--games", "2000", "--out", str(out), "--no-progress"],
                          capture_output=True, text=True, preexec_fn=small_files, cwd=tmp_path, timeout=600)
    assert proc.returncode == 2, proc.stderr
    assert f"could not write {out / 'games.csv'}: File too large" in proc.stderr
    assert f"nothing was saved to {out}" in proc.stderr
    assert "heuristic" in proc.stdout and "random" in proc.stdout  # the tables
    assert not out.exists() and listing(tmp_path) == []


# --- 3. what a killed run left ---------------------------------------------------------------------------------


def test_the_next_run_removes_the_temporary_folders_a_killed_run_left(tmp_path, capsys):
    # Before: a .OUT.*.partial folder left by kill -9 stayed beside --out after later successful runs.
    out = tmp_path / "out"
    stale = [tmp_path / ".out.k9x2ab_7.partial", tmp_path / ".out.abcdefgh.old"]
    for folder in stale:
        (folder / "previous").mkdir(parents=True)
    other = tmp_path / ".outer.abcdefgh.partial"  # another folder's: left alone
    other.mkdir()
    assert bench_run(SOLO.id, "--games", 4, "--out", out) == 0
    err = capsys.readouterr().err
    assert ".out.k9x2ab_7.partial" in err and ".out.abcdefgh.old" in err and "did not finish" in err
    assert listing(tmp_path) == [".outer.abcdefgh.partial", "out"]


def test_a_killed_bench_leaves_a_folder_the_next_run_removes(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "aerodeck", "bench", SOLO.id, "--games", "100000000", "--out",
                             str(out), "--no-progress"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        for _ in range(1200):
            if list(tmp_path.glob(".out.*.partial/games.csv")):
                break
            proc.poll()
            assert proc.returncode is None
            import time

            time.sleep(0.1)
    finally:
        proc.kill()
        proc.wait()
    assert list(tmp_path.glob(".out.*.partial"))
    assert cli.main(["bench", SOLO.id, "--games", "4", "--out", str(out), "--no-progress"]) == 0
    assert listing(tmp_path) == ["out"]


# --- 4. two runs into one --out ------------------------------------------------------------------------------


def test_a_second_run_into_the_same_out_is_refused_while_the_first_writes(tmp_path, capsys, monkeypatch):
    # Before: both runs exited 0 and said "wrote …", and only one result survived.
    out = tmp_path / "out"
    first = OutputFolder(out, command="bench")  # a run that has checked its folder and is playing
    monkeypatch.setattr(bench, "play_all", no_games, raising=False)
    assert bench_run(SOLO.id, "--games", 4, "--out", out) == 2
    err = capsys.readouterr().err
    assert f"output folder {str(out)!r} is being written by another aerodeck run (process {os.getpid()})" in err
    monkeypatch.undo()
    with first.writing() as folder:
        (folder / "a.txt").write_text("first")
    assert listing(out) == ["a.txt", output.MANIFEST] and listing(tmp_path) == ["out"]  # the lock file is gone
    assert bench_run(SOLO.id, "--games", 4, "--out", out) == 0  # free again


def test_two_concurrent_bench_processes_into_one_out_one_is_refused(tmp_path):
    out = tmp_path / "out"
    command = [sys.executable, "-m", "aerodeck", "bench", SOLO.id, "--games", "3000", "--out", str(out), "--no-progress"]
    procs = [subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    results = [p.communicate(timeout=600) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes == [0, 2], results
    refused = next(err for p, (_, err) in zip(procs, results) if p.returncode == 2)
    assert "is being written by another aerodeck run" in refused
    assert listing(tmp_path) == ["out"]


# --- 5. replay --gif -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory):
    folder = tmp_path_factory.mktemp("replays")
    assert bench_run(SOLO.id, "--games", 2, "--save-games", 1, "--out", folder / "bench") == 0
    return folder / "bench" / bench.REPLAYS


def test_gif_refuses_to_overwrite_a_file_that_is_not_a_gif(replay_file, tmp_path, capsys):
    # Before: `--gif notes.txt` overwrote the file without a word.
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    assert cli.main(["replay", str(replay_file), "--game", "0", "--gif", str(notes)]) == 2
    assert "exists and is not a GIF" in capsys.readouterr().err
    assert notes.read_text() == "my notes"


def test_gif_says_when_it_replaces_a_gif(replay_file, tmp_path, capsys):
    gif = tmp_path / "game.gif"
    assert cli.main(["replay", str(replay_file), "--gif", str(gif)]) == 0
    first = capsys.readouterr().out
    assert gif.read_bytes()[:6] in (b"GIF87a", b"GIF89a") and "replaced" not in first
    assert cli.main(["replay", str(replay_file), "--gif", str(gif)]) == 0
    assert "it replaced the GIF that was there" in capsys.readouterr().out


# --- 6. a knob given twice -----------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["search:rollouts=8,rollouts=9", "heuristic:cycle=on,cycle=off"])
def test_an_agent_knob_given_twice_is_refused(spec):
    # Before: accepted, the last value silently won.
    knob = spec.split(":")[1].split("=")[0]
    with pytest.raises(ValueError, match=rf"{knob}' is given twice"):
        make_agent(SOLO.id, spec, SOLO.make_rules())


def test_bench_refuses_games_given_twice_in_a_spec(capsys):
    assert bench_run(SOLO.id, "--agent", "random:games=5,games=6") == 2
    assert "'games' is given twice" in capsys.readouterr().err


# --- 7. every agent kind listed --------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["bench", "play"])
def test_the_help_lists_every_agent_kind_of_every_game(command, capsys):
    from aerodeck.agents.registry import agent_kinds

    # Before: "random, heuristic, search, ppo" — not restricted (accepted), nor ppo:general's spelling.
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for game in envs.games():
        kinds = agent_kinds(game)
        assert "restricted" in kinds and set(envs.spec(game).agent_names()) <= set(kinds)
        listed = text.split(f"{game}:", 1)[1]
        for name in kinds:
            assert name in listed, (game, name)
    assert "ppo:general" in text and "restricted:base=AGENT,forbid=KIND" in text


def test_an_unknown_agent_lists_every_kind(capsys):
    from aerodeck.agents.registry import agent_kinds

    assert bench_run(SOLO.id, "--agent", "nosuch", "--games", 2) == 2
    err = capsys.readouterr().err
    assert all(name in err for name in agent_kinds(SOLO.id)) and "ppo:general" in err


# --- 8. run --out -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ladder", [True, False])
def test_run_checks_out_with_and_without_the_ladder(tmp_path, capsys, monkeypatch, ladder):
    # Before: `run --no-ladder --out FILE` exited 0 and ignored --out.
    (tmp_path / "file").write_text("")
    monkeypatch.setattr(bench, "play_all", no_games, raising=False)
    argv = ["run", "--games", "5", "--out", str(tmp_path / "file"), "--no-progress"] + ([] if ladder else ["--no-ladder"])
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert ("is a file" in err) if ladder else ("--no-ladder plays no ladder" in err)
    assert listing(tmp_path) == ["file"]


# --- 12. the docs' commands -----------------------------------------------------------------------------------


def doc_commands() -> list[tuple[str, str]]:
    """Every ``aerodeck …`` command line of the user docs: (file, line)."""
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for line in path.read_text(encoding="utf-8").splitlines():
            for piece in line.split("`"):
                piece = piece.strip()
                if piece.startswith(("aerodeck ", ".venv/bin/aerodeck ")):
                    found.append((path.name, piece.split("  #")[0].strip()))
    return found


def test_the_docs_bench_a_trained_model_under_the_game_it_was_trained_for():
    # Before: docs/training.md trained runs/ft4 on one game and benched it under the other.
    commands = [(name, line.split()) for name, line in doc_commands() if len(line.split()) > 2]
    trained = {}
    for _, words in commands:
        if words[1] == "train" and "--out" in words[:-1]:
            trained[words[words.index("--out") + 1].rstrip("/")] = words[2]
    assert trained
    for name, words in commands:
        if words[1] != "bench":
            continue
        game, line = words[2], " ".join(words)
        for word in words:
            if word.startswith("ppo:path=runs/"):
                run = "/".join(word.split("=", 1)[1].split(",")[0].split("/")[:2])
                if run in trained:
                    assert trained[run] == game, f"{name}: {line} benches a {trained[run]} model under {game}"


def test_the_replay_command_of_adding_a_game_reads_where_bench_writes(tmp_path, monkeypatch):
    # Before: `aerodeck replay runs/…/games.jsonl`, where bench never writes.
    lines = [line for name, line in doc_commands() if name == "adding-a-game.md"]
    benched = next(line.split() for line in lines if " bench " in line and "--save-games" in line)
    path = next(line.split()[2] for line in lines if line.startswith("aerodeck replay "))
    game = benched[2]
    monkeypatch.chdir(tmp_path)  # bench's default --out, relative to where it runs
    assert cli.main(["bench", SOLO.id, "--games", "2", "--save-games", "1", "--no-progress"]) == 0
    assert (tmp_path / path.replace(game, SOLO.id)).is_file()
    assert cli.main(["replay", path.replace(game, SOLO.id), "--list"]) == 0


def test_the_game_page_of_a_turn_based_game_says_what_to_use_instead_of_the_parallel_api():
    # Before: no page said that aec_to_parallel is refused for the turn-based game, nor what to use instead.
    from pettingzoo.utils.conversions import aec_to_parallel

    text = MULTI.docs_path().read_text(encoding="utf-8")
    assert "## PettingZoo's parallel API" in text  # a section of the page (## or ###)
    section = text.split("## PettingZoo's parallel API\n", 1)[1].split("\n#", 1)[0]
    assert "aec_to_parallel" in section and "is_parallelizable" in section and "agent_iter" in section
    with pytest.raises(AssertionError, match="is_parallelizable"):  # what the page says PettingZoo answers
        aec_to_parallel(MULTI.make_env())
    # the AEC loop it points to: the page's first example, which plays a whole game
    code = textwrap.dedent(text.split("```python\n", 1)[1].split("```", 1)[0])
    assert "agent_iter()" in code
    namespace: dict = {}
    exec(compile(code, "the page's example", "exec"), namespace)
    assert not namespace["aec"].agents
