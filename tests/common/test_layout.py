"""Observation layouts: blocks laid end to end, with their table."""

import pytest

from aerodeck.envs.common.layout import blocks_table, stack_blocks


def test_blocks_are_laid_end_to_end():
    blocks, size = stack_blocks([("a", 3, "first"), ("b", 5, "second")])
    assert size == 8 and blocks["b"].slice == slice(3, 8) and blocks["a"].stop == 3
    assert "| 3–7 | `b` | second |" in blocks_table(blocks)


def test_a_block_name_is_declared_once():
    with pytest.raises(ValueError, match="declared twice"):
        stack_blocks([("a", 1, ""), ("a", 2, "")])
