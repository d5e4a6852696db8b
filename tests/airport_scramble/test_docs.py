"""docs/airport-scramble.md: its observation and action tables match the layouts they describe."""

from pathlib import Path

from aerodeck import envs
from aerodeck.envs.airport_scramble.core import AirportScrambleCore
from aerodeck.envs.common.layout import blocks_table
from tests.test_docs_game_pages import page, summary

DOC = (Path(__file__).parents[2] / "docs" / "airport-scramble.md").read_text()


def test_the_observation_table_is_the_layouts_at_the_default_rules():
    core = AirportScrambleCore()
    assert blocks_table(core.observation.blocks) in DOC
    assert f"**{core.obs_size} values**" in DOC


def test_the_action_table_gives_the_default_index_ranges():
    L = AirportScrambleCore().actions
    ranges = {
        "fly": (0, L.play_offset - 1),
        "play": (L.play_offset, L.replace_offset - 1),
        "replace": (L.replace_offset, L.line_offset - 1),
        "remove line": (L.line_offset, L.wait - 1),
    }
    lines = DOC.splitlines()
    for block, (first, last) in ranges.items():
        assert any(line.startswith(f"| {block} |") and line.endswith(f"| {first}–{last} |") for line in lines), block
    assert f"| wait | — | 4(G−1) + (F+2)·G² + 2^F−1 | {L.wait} |" in DOC
    assert f"**{L.n_actions} actions**" in DOC


def test_the_airport_scramble_action_count_formula_holds_under_other_rules():
    """The summary's formula 4(G−1) + (F+2)·G² + 2^F (G = grid_size, F = face_up) is the env's action
    count under other grids and face-up counts too."""
    assert "4(G−1) + (F+2)·G² + 2^F" in summary(page("airport-scramble"))["Action space"]
    spec = envs.spec("airport-scramble")
    for grid, face_up in ((5, 3), (7, 6), (9, 4), (11, 2)):
        env = spec.make_env(grid_size=grid, face_up=face_up, max_replace=min(4, face_up))
        assert env.action_space.n == 4 * (grid - 1) + (face_up + 2) * grid ** 2 + 2 ** face_up, (grid, face_up)
