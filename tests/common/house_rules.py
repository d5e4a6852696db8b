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


def play_on_both_engines(spec, options: dict, arrays_equal) -> None:
    """Plays 24 games of ``spec`` under ``options`` on the batched core and on the reference engine behind
    the Core interface (``spec.make_reference_core``), the heuristic moving with a random move now and then,
    and asserts after every step that the two agree: ``arrays_equal(a, b)`` on the states, and the masks,
    the seat to act, the observations and the rewards equal."""
    import numpy as np

    from aerodeck.agents.base import act
    from aerodeck.agents.registry import make_agent

    rules = spec.make_rules(**options)
    fast, ref = spec.make_core(rules), spec.make_reference_core(rules)
    seeds = np.arange(100, 124)
    a, b = fast.init(seeds), ref.init(seeds)
    rng = np.random.default_rng(3)
    heuristic = make_agent(spec.id, "heuristic", rules, seed=0)  # long games; a random move now and then
    steps = 0
    while not a.done.all():
        arrays_equal(a, b)
        masks = fast.legal_mask(a)
        assert np.array_equal(masks, ref.legal_mask(b))
        seat = np.maximum(fast.to_act(a), 0)
        assert np.array_equal(fast.to_act(a), ref.to_act(b))
        obs = fast.observe(a, seat) if fast.n_players > 1 else fast.observe(a)
        assert np.array_equal(obs, ref.observe(b, seat) if fast.n_players > 1 else ref.observe(b))
        actions = np.where(rng.random(len(seeds)) < 0.1, (rng.random(masks.shape) * masks).argmax(1),
                           act(heuristic, obs, masks, spec.make_view(fast, a, seat) if heuristic.needs_view else None))
        assert np.array_equal(fast.step(a, actions), ref.step(b, actions))
        steps += 1
    arrays_equal(a, b)
    assert steps > 20
