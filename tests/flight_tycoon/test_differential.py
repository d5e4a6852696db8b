"""Reference vs core on the same seeds and random legal actions (docs/architecture.md)."""

import os
import time

import pytest

from aerodeck.envs.flight_tycoon.rules import FlightTycoonRules

from .differential import VARIANTS, play_both


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: FlightTycoonRules(**o).label())
def test_core_and_reference_agree_on_random_games(options):
    assert play_both(FlightTycoonRules(**options), games=8, decisions=1200, seed=7) >= 1200


@pytest.mark.long
def test_core_and_reference_agree_on_a_million_decisions():
    """Size: ``FT_DIFF_DECISIONS`` (default 1,000,000), spread over every variant."""
    total = int(os.environ.get("FT_DIFF_DECISIONS", "1000000"))
    each = -(-total // len(VARIANTS))
    began = time.perf_counter()
    played = sum(play_both(FlightTycoonRules(**options), games=64, decisions=each, seed=100 + i, full_every=8)
                 for i, options in enumerate(VARIANTS))
    print(f"\ndifferential: {played} decisions over {len(VARIANTS)} variants in {time.perf_counter() - began:.0f} s")
    assert played >= total
