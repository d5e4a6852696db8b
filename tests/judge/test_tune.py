"""``aerodeck tune`` honest by construction: the trials and the confirmation play disjoint seeds, and
the verdict on the target comes from the confirmation alone."""

import json

import pytest

from tests.games import SOLO
from tests.judge.options import int_option
from aerodeck.cli import main as cli
from aerodeck.judge import tune


def test_the_confirmation_plays_seeds_no_trial_played(tmp_path, monkeypatch, capsys):
    pytest.importorskip("optuna")
    from aerodeck.judge import compare

    played: list[tuple[str, int, int]] = []  # (variant, first game, games) of every question played
    real_play = compare.play

    def spy(question, *args, **kwargs):
        for v in question.variants:
            played.append((v, question.offsets.get(v, 0), question.games))
        return real_play(question, *args, **kwargs)

    monkeypatch.setattr(compare, "play", spy)
    out = tmp_path / "t"
    option, value = int_option(SOLO)
    status = cli.main(["tune", SOLO.id, "--param", f"{option}={value}..{value}", "--target", "decisions=12",
                       "--trials", "2", "--trial-games", "30", "--games", "40", "--seed", "3", "--out", str(out), "--no-progress",
                       "--agent", "random", "--judges", "random"])
    assert status == 0, capsys.readouterr().err
    trials = [(first, first + n) for v, first, n in played if v == "trial"]
    confirmation = [(first, first + n) for v, first, n in played if v in ("base", "tuned")]
    assert trials and confirmation == [(0, 40), (0, 40)]
    assert all(lo >= 40 for lo, _ in trials)  # every trial game lies above the confirmation's games
    results = json.loads((out / "results.json").read_text())
    assert results["tune"]["trial_range"] == [tune.TRIAL_OFFSET, tune.TRIAL_OFFSET + 30]
    from aerodeck.arena.loop import game_seeds

    trial_seeds = set(game_seeds(3, 30, tune.TRIAL_OFFSET).tolist())
    confirm_seeds = {int(r.split(",")[3]) for r in (out / "games.csv").read_text().splitlines()[1:]}
    assert len(confirm_seeds) == 40 and not trial_seeds & confirm_seeds


def test_a_confirmation_no_different_from_the_base_is_a_warning():
    base_est = {"value": 10.0, "low": 9.0, "high": 11.0, "n": 100}
    analysis = {
        "games": 100, "tables": [{"name": "random"}],
        "estimates": {"decisions": {"tuned": {"random": [{"value": 10.2, "low": 9.4, "high": 11.0, "n": 100}]},
                                    "base": {"random": [base_est]}}},
        "comparisons": [{"metric": "decisions", "column": "", "variant": "tuned", "table": "random",
                         "against": ["base", "random"], "p_holm": 0.4,
                         "difference": {"value": 0.2, "low": -0.3, "high": 0.7}}],
        "skill_gap": {},
    }
    out = tune.confirmation(analysis, tune.Goal("decisions", "=", 10.5), [], {"decisions": 10.5})
    assert out["verdict"].startswith("target decisions = 10.5 met: confirmed 10.2 [9.4, 11]")
    assert any("not detectably different from the base" in w for w in out["warnings"])
    missed = tune.confirmation(analysis, tune.Goal("decisions", "=", 13), [tune.Goal("decisions", "<=", 9)],
                               {"decisions": 13})
    assert "target decisions = 13 not met" in missed["verdict"] and "decisions <= 9 not kept" in missed["verdict"]
    assert any("misses the target 13" in w for w in missed["warnings"])
