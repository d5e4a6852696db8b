"""The contract's check of a game's house-rule glue (``GameSpec.house``; ``aerodeck.envs.common.house``):
the plain reference engine behind the core interface plays the batched core's games."""

from __future__ import annotations

import numpy as np

from aerodeck.testing.contract import B, assert_same_trace, contract_check, play


@contract_check("house_glue", "house", "variant", applies=lambda spec: spec.house is not None)
def house_glue(spec, core):
    """The reference engine through the house glue (``make_reference_core``) gives the batched core's
    masks, observations, seats to act and rewards, step by step, and its table (``snapshot``) after them."""
    reference = spec.make_reference_core(core.rules)
    a, trace_a = play(core, np.arange(B), 40)
    b, trace_b = play(reference, np.arange(B), 40)
    assert_same_trace(trace_a, trace_b)
    for i in range(B):
        assert core.snapshot(a, i) == reference.snapshot(b, i), f"game {i}: the table differs"
