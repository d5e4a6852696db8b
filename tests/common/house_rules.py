"""Test helpers for house rules: the shipped examples, and house rules written to a folder (each game's
broken house rules are in its own test folder, e.g. ``tests/airport_scramble/house_rules.py``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "house_rules"


def house_file(tmp_path: Path, body: str, name: str = "rules.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path
