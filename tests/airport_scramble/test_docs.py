"""docs/airport-scramble.md: its observation and action tables match the layouts they describe."""

from pathlib import Path

from aerodeck.envs.airport_scramble.core import AirportScrambleCore
from aerodeck.envs.common.layout import blocks_table

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
