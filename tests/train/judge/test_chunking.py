"""Same seed, same files: ``compare`` and ``tune`` write byte-identical outputs for any ``--chunk``
(every agent draws from per-game decision keys, never from the chunk; issue 17). Small runs: a chunk
at least as large as a run's games is the default's single task, so ``--chunk 250`` gets 260 games."""

import pytest

from train import cli

AS, FT = "airport-scramble", "flight-tycoon"
FILES = ("games.csv", "results.json", "report.md")
TINY_SEARCH = "search:samples=1,candidates=2,horizon=2"


def outputs(argv, folder, capsys) -> dict[str, bytes]:
    status = cli.main([*argv, "--seed", "13", "--no-progress", "--out", str(folder)])
    err = capsys.readouterr().err
    assert status == 0, err
    return {name: (folder / name).read_bytes() for name in FILES}


AS_COMPARE = ["compare", AS, "--variant", "costly:replace_cost=1", "--agent", "random", "--judges", "random"]


@pytest.mark.parametrize("argv,chunks", [
    ([*AS_COMPARE, "--games", "9"], (1, 7)),
    ([*AS_COMPARE, "--games", "260"], (250,)),
    (["compare", FT, "--players", "3", "--variant", "hand6:hand_size=6", "--agent", "heuristic:noise=1",
      "--agent", "random", "--judges", "heuristic:noise=1", "--games", "8"], (1, 7)),
    (["compare", FT, "--players", "3", "--variant", "hand6:hand_size=6", "--agent", TINY_SEARCH,
      "--judges", TINY_SEARCH, "--games", "3"], (1,)),
    (["tune", AS, "--param", "replace_cost=1..3", "--target", "score=2", "--trials", "2", "--trial-games", "8",
      "--agent", "random", "--judges", "random", "--games", "9"], (1, 7)),
], ids=["compare-as-random", "compare-as-random-250", "compare-ft-heuristic-random", "compare-ft-search",
        "tune-as-random"])
def test_the_files_are_byte_identical_for_any_chunk(argv, chunks, tmp_path, capsys):
    default = outputs(argv, tmp_path / "default", capsys)
    for chunk in chunks:
        assert outputs([*argv, "--chunk", str(chunk)], tmp_path / f"chunk{chunk}", capsys) == default, chunk
