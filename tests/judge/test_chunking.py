"""Same seed, same files: ``compare`` and ``tune`` write byte-identical outputs for any ``--chunk``
(every agent draws from per-game decision keys, never from the chunk; issue 17). Small runs: a chunk
at least as large as a run's games is the default's single task, so ``--chunk 250`` gets 260 games.
Each case runs the default and two other chunks (each reports and plots: a run costs seconds whatever
its games); together they cover chunk 1, 7, chunks that split the games unevenly, compare and tune, a
search agent and the opponent agent."""

import pytest

from tests.games import MULTI, SOLO
from tests.judge.options import int_option, variant
from aerodeck.cli import main as cli

FILES = ("games.csv", "results.json", "report.md")
TINY_SEARCH = "search:samples=1,candidates=2,horizon=2"
PLAYERS = str(min(MULTI.player_counts))
OPTION, VALUE = int_option(SOLO)


def outputs(argv, folder, capsys) -> dict[str, bytes]:
    status = cli.main([*argv, "--seed", "13", "--no-progress", "--out", str(folder)])
    err = capsys.readouterr().err
    assert status == 0, err
    return {name: (folder / name).read_bytes() for name in FILES}


SOLO_COMPARE = ["compare", SOLO.id, "--variant", variant(SOLO), "--agent", "random", "--judges", "random"]


@pytest.mark.parametrize("argv,chunks", [
    ([*SOLO_COMPARE, "--games", "260"], (7, 250)),  # 7: 37 tasks of 7 and one of 1
    (["compare", MULTI.id, "--players", PLAYERS, "--variant", variant(MULTI), "--agent", TINY_SEARCH,
      "--agent", MULTI.opponent, "--judges", TINY_SEARCH, "--games", "3"], (1, 2)),
    (["tune", SOLO.id, "--param", f"{OPTION}={VALUE}..{VALUE + 1}", "--target", "decisions=2", "--trials", "2",
      "--trial-games", "4", "--agent", "random", "--judges", "random", "--games", "9"], (1, 7)),
], ids=["compare-solo-random", "compare-multi-search-opponent", "tune-solo-random"])
def test_the_files_are_byte_identical_for_any_chunk(argv, chunks, tmp_path, capsys):
    default = outputs(argv, tmp_path / "default", capsys)
    for chunk in chunks:
        assert outputs([*argv, "--chunk", str(chunk)], tmp_path / f"chunk{chunk}", capsys) == default, chunk


def test_tune_on_ray_writes_the_local_files(tmp_path, capsys):
    # the trials and the confirming compare both run as Ray tasks (issue 17: "same numbers" on any backend)
    ray = pytest.importorskip("ray")
    argv = ["tune", SOLO.id, "--param", f"{OPTION}={VALUE}..{VALUE + 1}", "--target", "decisions=2", "--trials", "2",
            "--trial-games", "4", "--agent", "random", "--judges", "random", "--games", "9", "--chunk", "4"]
    local = outputs(argv, tmp_path / "local", capsys)
    try:
        remote = outputs([*argv, "--backend", "ray"], tmp_path / "ray", capsys)
    finally:
        ray.shutdown()
    assert remote == local
