"""Airport Scramble's agent knobs: a bad one is refused naming the agent, the knob and what is allowed,
before a bench plays; switches read on/off, true/false, 1/0 (``aerodeck.agents.registry.make_agent``)."""

import pytest

from aerodeck.agents.registry import make_agent


@pytest.mark.parametrize(
    "game, spec, message",
    [
        # Before: cycle=abc and cycle=off were read as on (any non-empty text is true).
        ("airport-scramble", "heuristic:cycle=abc", r"agent 'heuristic' \(airport-scramble\): knob 'cycle' must be on/off"),
        # Before: grow=-5 was accepted.
        ("airport-scramble", "heuristic:grow=-5", r"knob 'grow' must be on/off \(true/false, 1/0\), got '-5'"),
        ("airport-scramble", "heuristic:margin=-1", r"knob 'margin' must be an integer (>= 0|in 0\.\.\d+), got '-1'"),
        ("airport-scramble", "heuristic:margin=1.5", r"knob 'margin' must be an integer"),
        ("airport-scramble", "search:rollouts=0", r"knob 'rollouts' must be a positive integer, got '0'"),
        ("airport-scramble", "search:network=inf", r"knob 'network' must be a finite number >= 0, got 'inf'"),
    ],
)
def test_a_bad_knob_is_refused_naming_the_agent_the_knob_and_what_is_allowed(game, spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(game, spec)


@pytest.mark.parametrize("text, value", [("on", True), ("off", False), ("true", True), ("False", False),
                                         ("1", True), ("0", False), ("yes", True), ("no", False)])
def test_switches_read_on_off_true_false_1_0(text, value):
    agent = make_agent("airport-scramble", f"heuristic:cycle={text},grow={text},farm={text}")
    assert (agent.style.cycle, agent.style.grow, agent.style.farm) == (value, value, value)


def test_bench_refuses_a_bad_knob_before_playing(tmp_path, capsys):
    from aerodeck.cli import main as cli

    assert cli.main(["bench", "airport-scramble", "--agent", "heuristic:cycle=abc", "--out", str(tmp_path / "out")]) == 2
    assert "knob 'cycle' must be on/off" in capsys.readouterr().err and not (tmp_path / "out").exists()
