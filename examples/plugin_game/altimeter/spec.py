"""Altimeter's whole declaration: the :class:`~aerodeck.envs.GameSpec` that the entry point
``aerodeck.games: altimeter = "altimeter.spec:SPEC"`` hands to aerodeck. Nothing else in aerodeck
names the game; ``aerodeck.testing.check_game("altimeter")`` checks every field."""

from __future__ import annotations

from aerodeck.envs.registry import GameSpec

SPEC = GameSpec(
    id="altimeter",
    title="Altimeter",
    rules="altimeter.rules:AltimeterRules",
    core="altimeter.core:AltimeterCore",
    env="altimeter.env:AltimeterEnv",
    sb3="altimeter.sb3:AltimeterSB3VecEnv",
    view="altimeter.view:AltimeterView",
    text="altimeter.text",
    rule_prefix="AL",
    rule_ids=tuple(range(1, 9)),
    docs="altimeter:rules.md",
    gym_id="aerodeck/Altimeter-v0",
    render_modes=("ansi", "rgb_array"),
    agents={"heuristic": "altimeter.heuristic:HeuristicAgent"},
    opponent="heuristic",
    prior="heuristic",
    bench_games=2_000,
    ladder=((("random",), 2_000), (("heuristic",), 2_000), (("ppo",), 2_000)),
    metrics="altimeter.metrics:CATALOGUE",
    training_config="altimeter:training.toml",
    variants=({}, {"n_values": 4, "copies": 2}, {"n_values": 13, "copies": 6, "tie": "hold"}),
)
