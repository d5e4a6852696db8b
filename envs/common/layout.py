"""Named blocks of a flat observation vector — the index-by-index layout both games document."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable


@dataclasses.dataclass(frozen=True)
class Block:
    """One block of an observation: its first index, its length and what it holds."""

    name: str
    start: int
    size: int
    doc: str

    @property
    def stop(self) -> int:
        return self.start + self.size

    @property
    def slice(self) -> slice:
        return slice(self.start, self.stop)


def stack_blocks(specs: Iterable[tuple[str, int, str]]) -> tuple[dict[str, Block], int]:
    """Lay ``(name, size, doc)`` blocks end to end; returns the blocks by name and the total size."""
    blocks: dict[str, Block] = {}
    start = 0
    for name, size, doc in specs:
        if name in blocks:
            raise ValueError(f"observation block {name!r} is declared twice")
        blocks[name] = Block(name, start, size, doc)
        start += size
    return blocks, start


def blocks_table(blocks: dict[str, Block]) -> str:
    """A Markdown table of the blocks: index range, name, meaning."""
    lines = ["| indices | block | meaning |", "|---|---|---|"]
    for b in blocks.values():
        lines.append(f"| {b.start}–{b.stop - 1} | `{b.name}` | {b.doc} |")
    return "\n".join(lines)
