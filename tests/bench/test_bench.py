"""``aerodeck bench`` end to end on small budgets, and its errors."""

import re

import numpy as np
import pytest

from tests.games import MULTI, SOLO
from tests.bench.benching import results, run
from aerodeck.bench import bench
from aerodeck.bench import chunks as bench_tasks
from aerodeck.bench import report


def rounded(data):
    """``data`` with every float to 10 significant digits (chunked sums differ in the last bits)."""
    if isinstance(data, dict):
        return {k: rounded(v) for k, v in data.items()}
    if isinstance(data, list):
        return [rounded(v) for v in data]
    return float(f"{data:.10g}") if isinstance(data, float) else data


def test_a_solo_bench_writes_json_csv_and_plot(tmp_path, capsys):
    assert run([SOLO.id, "--agent", "random", "--agent", "random:games=50", "--games", "300",
                "--seed", "3", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["aerodeck-output.json", "games.csv", "results.json", "scores.png"]
    data = results(tmp_path)
    mean = data["agents"]["random"]["mean_score"]
    assert mean["low"] <= mean["value"] <= mean["high"] and mean["n"] == 300
    assert data["agents"]["random:games=50"]["games"] == 50
    assert data["comparisons"][0]["mean_score_difference"]["n"] == 50
    assert len((tmp_path / "games.csv").read_text().splitlines()) == 301
    assert "mean score" in capsys.readouterr().out


def test_the_same_seed_reproduces_the_same_numbers(tmp_path):
    name, value = next((n, v) for variant in SOLO.variants for n, v in variant.items())  # not the default
    for folder in ("a", "b"):
        assert run([SOLO.id, "--games", "200", "--seed", "11", "--rule", f"{name}={value}",
                    "--out", str(tmp_path / folder)]) == 0
    assert results(tmp_path / "a") == results(tmp_path / "b")
    assert results(tmp_path / "a")["rules"][name] == value


@pytest.mark.parametrize(
    "argv, message",
    [
        ([SOLO.id, "--agent", "genius"], "unknown agent 'genius'.*available: random"),
        ([SOLO.id, "--agent", "random:depth=3"], "agent 'random' .* has no knob 'depth'; its knobs: none"),
        ([SOLO.id, "--rule", "colour=3"], "unknown rule option 'colour'"),
        ([SOLO.id, "--games", "0"], r"--games must be an integer in 1\.\.9,007,199,254,740,992"),
        ([SOLO.id, "--games", "many"], "--games must be an integer, got 'many'"),
        ([SOLO.id, "--players", "4"], f"--players applies to multi-player games; {SOLO.id} is played solo"),
        ([SOLO.id, "--lineup", "random"], "--lineup applies to multi-player games"),
        ([SOLO.id, "--agent", "random", "--agent", "random"], "each --agent may be given once"),
    ],
)
def test_bad_input_gets_a_clear_error_and_no_files(tmp_path, capsys, argv, message):
    assert run([*argv, "--out", str(tmp_path / "out")]) == 2
    assert re.search(message, capsys.readouterr().err)
    assert not (tmp_path / "out").exists()


def test_malformed_rules_file_is_refused(tmp_path, capsys):
    bad = tmp_path / "variant.toml"
    bad.write_text("grid_size = [\n")
    assert run([SOLO.id, "--rules", str(bad), "--out", str(tmp_path / "out")]) == 2
    assert "variant.toml" in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_an_output_folder_that_cannot_be_made_is_refused_before_playing(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert run([SOLO.id, "--games", "5", "--out", str(blocker / "out")]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


# --- one seed rule (envs.common.checks.check_seed) ----------------------------------------------------

@pytest.mark.parametrize("seed", ["-1", str(2**64), "1.5", "abc"])
@pytest.mark.parametrize("game", [SOLO.id, MULTI.id])
def test_a_seed_outside_0_to_2_64_is_refused_by_every_tool(tmp_path, capsys, game, seed):
    # Before: bench flight-tycoon --seed -1 ran (and so did --seed 2**64), while run --seed -1 was refused.
    assert run([game, "--games", "4", "--seed", seed, "--out", str(tmp_path / "out")]) == 2
    assert f"--seed must be an integer in 0..2**64-1, got '{seed}'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_largest_seeds_work_and_give_game_seeds_in_range(tmp_path):
    from aerodeck.arena.loop import agent_seed, game_seeds

    for seed in (2**64 - 1, 9223372036854775800):
        assert run([SOLO.id, "--games", "5", "--seed", str(seed), "--out", str(tmp_path / str(seed))]) == 0
        assert results(tmp_path / str(seed))["seed"] == seed
        assert game_seeds(seed, 3).dtype == np.uint64
    assert agent_seed(2**64 - 1, 0) == 0 and agent_seed(5, 2) == 8
    with pytest.raises(ValueError, match="seed must be an integer in 0..2\\*\\*64-1"):
        game_seeds(-1, 3)


# --- bounded memory ------------------------------------------------------------------------------------

def test_games_play_in_chunks_with_the_same_numbers_as_all_at_once(tmp_path, monkeypatch):
    argv = ["--agent", "random", "--agent", "heuristic:games=70", "--games", "200", "--seed", "4", "--batch-size", "16"]
    assert run([SOLO.id, *argv, "--out", str(tmp_path / "whole")]) == 0
    sizes = []
    play = bench_tasks.play_games
    monkeypatch.setattr(bench_tasks, "play_games", lambda core, agents, seeds, *a, **k: sizes.append(len(seeds)) or
                        play(core, agents, seeds, *a, **k))
    monkeypatch.setattr(bench, "CHUNK", 32)
    assert run([SOLO.id, *argv, "--out", str(tmp_path / "chunks")]) == 0
    assert max(sizes) == 32 and sum(sizes) == 270
    assert rounded(results(tmp_path / "whole")) == rounded(results(tmp_path / "chunks"))
    assert (tmp_path / "whole" / "games.csv").read_text() == (tmp_path / "chunks" / "games.csv").read_text()


def test_tournaments_play_in_chunks_with_the_same_numbers_as_all_at_once(tmp_path, monkeypatch):
    argv = ["--agent", "heuristic", "--agent", "random", "--games", "24", "--seed", "2", "--batch-size", "4"]
    assert run([MULTI.id, *argv, "--out", str(tmp_path / "whole")]) == 0
    monkeypatch.setattr(bench, "CHUNK", 8)
    assert run([MULTI.id, *argv, "--out", str(tmp_path / "chunks")]) == 0
    assert rounded(results(tmp_path / "whole")) == rounded(results(tmp_path / "chunks"))


def test_the_files_are_the_same_for_any_batch_size(tmp_path):
    """(A multi-player game's mixed lineup: tests/flight_tycoon/test_bench_tournaments.py.)"""
    argv = [SOLO.id, "--agent", "random", "--agent", "heuristic", "--games", "12"]
    # every agent draws from per-game decision keys, and finished games are replaced in the batch at once
    for size in ("1", "7", "4096"):
        assert run([*argv, "--seed", "9", "--batch-size", size, "--out", str(tmp_path / size)]) == 0
    for size in ("1", "7"):
        assert results(tmp_path / size) == results(tmp_path / "4096"), size
        assert (tmp_path / size / "games.csv").read_bytes() == (tmp_path / "4096" / "games.csv").read_bytes(), size


def test_a_trillion_games_start_in_constant_memory(tmp_path, capsys, monkeypatch):
    # Before: --games 1000000000000 allocated every seed (and every result) up front: MemoryError.
    calls = []

    def play(core, agents, seeds, *args, **kwargs):
        calls.append(len(seeds))
        if len(calls) == 3:
            raise KeyboardInterrupt
        return {"score": np.zeros((len(seeds), 1)), "length": np.ones(len(seeds), np.int64)}

    monkeypatch.setattr(bench_tasks, "play_games", play)
    assert run([SOLO.id, "--games", "1000000000000", "--out", str(tmp_path / "out")]) == 130
    assert calls == [bench.CHUNK] * 3 and not (tmp_path / "out").exists()


def test_a_count_the_statistics_cannot_hold_exactly_is_refused_up_front(tmp_path, capsys):
    assert run([SOLO.id, "--games", str(2**53 + 1), "--out", str(tmp_path / "out")]) == 2
    assert "--games must be an integer in 1..9,007,199,254,740,992 (2**53" in capsys.readouterr().err
    assert run([SOLO.id, "--agent", f"random:games={2**60}", "--out", str(tmp_path / "out")]) == 2


def test_games_csv_holds_the_first_games_only(tmp_path, monkeypatch):
    monkeypatch.setattr(report, "CSV_GAMES", 10)
    assert run([SOLO.id, "--games", "30", "--out", str(tmp_path)]) == 0
    assert len((tmp_path / "games.csv").read_text().splitlines()) == 11
    data = results(tmp_path)
    assert data["games_csv_rows"] == 10 and data["agents"]["random"]["mean_score"]["n"] == 30


# --- rules files -----------------------------------------------------------------------------------

def test_table_without_rules_is_an_error(tmp_path, capsys):
    assert run([SOLO.id, "--games", "5", "--table", "fast", "--out", str(tmp_path / "out")]) == 2
    assert "--table fast names a table of a rules file: give the file with --rules FILE" in capsys.readouterr().err


def test_rules_naming_a_folder_is_a_clear_error(tmp_path, capsys):
    # Before: "[Errno 21] Is a directory".
    assert run([SOLO.id, "--games", "5", "--rules", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "is a folder; give a TOML file" in err and "Errno" not in err


def test_an_illegal_action_names_the_agent_and_why(tmp_path):
    from aerodeck.agents.random import RandomAgent
    from aerodeck.envs.common.checks import IllegalActionError
    from aerodeck.arena.loop import play_games

    class Stubborn(RandomAgent):
        name = "stubborn"

        def act(self, observations, masks, view=None):
            return np.where(masks[:, 0], 1, 0)  # an illegal action wherever action 0 is legal, and the reverse

    core = MULTI.make_core(check_actions=False)
    with pytest.raises(IllegalActionError, match="agent 'stubborn' chose .* in game 0"):
        play_games(core, [Stubborn()], [1, 2, 3], progress=False)
